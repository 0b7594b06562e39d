"""Family rules that reason from facts (:mod:`core.doctor.facts`), so that any phrasing of the
same facts gets the same answer: a CUDA or cuDNN version the text says is installed against the
one the TensorFlow build or the text wants (the knowledge base: which library names a toolkit
ships), a CUDA no TensorFlow release was built for, a companion package whose ops do not fit
this TensorFlow, standalone Keras failing inside TensorFlow's internals, a CPU package beside
``tensorflow-gpu``, the driver's two version reports, a GPU that TensorFlow says it skips for
its compute capability, no GPU on native Windows where no TensorFlow GPU build exists, an
out-of-memory on the host's RAM; and code for one release run on another, as a class: a module
or name this TensorFlow or Keras lacks (a mix of releases, Keras 3 where TF 2.16+ installs it,
or under a TF 1 the text states a TF too old for the code).
"""

from __future__ import annotations

import re

from core.doctor import kb
from core.doctor.context import TextContext
from core.doctor.facts import COMPANION, Facts, then
from core.doctor.fixes import finding_title
from core.doctor.removed import removed_api
from core.doctor.scores import Scores

# TensorFlow's internal modules: a name missing there is code written for another TF (standalone
# keras, a library reaching into tensorflow.python), not TF 1.x code (tensorflow._api.v2.*).
_INTERNAL_ATTRIBUTE = re.compile(
    r"module '(tensorflow(?:_core)?(?:\.python|\._api\.v1|\.compat\.v2\.__internal__|"
    r"\.__internal__)[\w.]*)' has no attribute '\w+'", re.ASCII)
_TF_ATTRIBUTE = re.compile(r"[Mm]odule '(tensorflow[\w.]*)' has no attribute '(\w+)'", re.ASCII)
# TensorFlow's __internal__ namespace, which only Keras and companions ask for (never user code,
# so never a TF too old for the code), also in a title's words without "module" or quotes
# ("tensorflow.compat.v2 has no attribute '__internal__'", dev c1325, c1326).
_INTERNAL_NAME = re.compile(r"\btensorflow[\w.]*'? has no attribute '?__internal__\b|"
                            r"\btensorflow[\w.]*\.__internal__[\w.]*'? has no attribute", re.ASCII)
# A name missing from TensorFlow or Keras at import: files of two installs mixed, or a Keras of
# another release ("cannot import name 'abs'", "... 'tf_utils'").
_CANNOT_IMPORT = re.compile(r"cannot import name '?(\w+)'?(?: from '([\w.]+)')?", re.ASCII)
_TF_OR_KERAS = ("tensorflow", "tensorflow_core", "keras", "tf_keras")
# A submodule that this release of TensorFlow or Keras does not have: code, or a package,
# written for another release ("No module named 'keras.engine.topology'", "'tensorflow.compat'"
# under TF 1.12, "'keras.src.legacy'" under Keras 2). TF 1's contrib and examples: tf1-api-on-tf2.
_NO_SUBMODULE = re.compile(
    r"[Nn]o module named '?((?:tensorflow(?:_core)?|keras|tf_keras)\.\w[\w.]*)", re.ASCII)
_TF1_MODULES = ("tensorflow.contrib", "tensorflow.examples")
# Keras 3's own modules: missing, the Keras installed is a Keras 2 (a mix, whatever the TF).
_KERAS3_MODULES = ("keras.src.legacy", "keras.src.ops", "keras.src.trainers", "keras.src.tree")
# Parts every TensorFlow has: missing, the install itself is broken or was never whole.
_TF_CORE_MODULES = re.compile(r"tensorflow\.(?:python|core)$|pywrap", re.ASCII)
# Keras 2 for TF 2.16+ (the tf-keras package) asked for and not installed.
_NO_TF_KERAS = re.compile(r"[Nn]o module named '?tf_keras'?(?![\w.])", re.ASCII)
# A companion package (or Keras) that names the TensorFlow it needs, in its own words:
# "requires TensorFlow version >= 2.4", "Keras requires TensorFlow 2.2 or higher", TF Addons'
# "The versions of TensorFlow you are currently using is 2.15.0 and is not supported".
_REQUIRES_TF = re.compile(r"requires TensorFlow(?: version)?\s*(?:[<>=~]=?\s*\d|\d+\.\d+(?:\.\d+)? "
                          r"or (?:higher|later|above|newer|greater))|versions? of TensorFlow you "
                          r"are currently using is", re.IGNORECASE | re.ASCII)
# The placeholder "tensorflow-gpu" releases (2.11+) that only fail to install, and the GPU
# C library for Windows ("libtensorflow-gpu-windows-x86_64-2.11.0.zip") that no longer exists.
_GPU_PLACEHOLDER = re.compile(r"tensorflow[-_]gpu(?:[-_]windows[-_]x86_64)?[-=]=?(\d+\.\d+)[\w.]*"
                              r"(?:\.tar\.gz)?", re.IGNORECASE | re.ASCII)
_GPU_PACKAGE = re.compile(r"tensorflow[-_]gpu\b", re.IGNORECASE | re.ASCII)
# An out-of-memory whose device is the host: TensorFlow's CPU allocator.
# TF 1.0's device names are lower-case paths: "/job:localhost/replica:0/task:0/cpu:0".
_OOM_WORDS, _CPU_DEVICE = (r"\bOOM\b|out of memory|ResourceExhausted",
                          r"device:CPU:\d|allocator cpu\b|task:\d+/cpu:\d")
_HOST_OOM = re.compile(then(_OOM_WORDS, _CPU_DEVICE), re.IGNORECASE | re.ASCII)
_OOM = re.compile(_OOM_WORDS, re.IGNORECASE | re.ASCII)
_ON_THE_CPU = re.compile(_CPU_DEVICE, re.IGNORECASE | re.ASCII)
# TF's Windows self-check (python/platform/self_check.py) loading a DLL its build names.
_SELF_CHECK = re.compile(r"build_info\.(msvcp|cudnn|cudart|nvcuda)_dll_names?\b", re.ASCII)
_SELF_CHECK_CAUSE = {"msvcp": "missing-msvc-runtime", "cudnn": "missing-cudnn",
                     "cudart": "missing-cuda-runtime", "nvcuda": "no-nvidia-driver"}
_SELF_CHECK_KIND = {"msvcp": "msvc", "cudnn": "cudnn", "cudart": "cuda", "nvcuda": "driver"}
# "No module named 'tensorflow'", "No module named tensorflow." (a sentence's full stop), "No
# module named 'keras' and 'tensorflow'".
_NO_TF_MODULE = re.compile(r"No module named (?:'?\w+'?(?:,|,? and|,? or) )?'?tensorflow'?"
                           r"(?!\w|\.\w)|"
                           # In words: "tensorflow module not found", "module tensorflow not
                           # found", "can't find the tensorflow module".
                           r"\btensorflow (?:module|package) (?:was |is )?not found|"
                           r"\bmodule '?tensorflow'? (?:was |is )?not found|"
                           r"\b(?:can'?t|cannot|could ?n[o']?t) find (?:the )?'?tensorflow'? "
                           r"(?:module|package)", re.IGNORECASE | re.ASCII)
# The import, and on one of the next lines an error that names no module ("Error:
# ModuleNotFoundError", "ModuleNotFoundError: No module named" cut short).
_TF_IMPORT = re.compile(r"^(?:>>>\s*)?(?:import tensorflow|from tensorflow\b)", re.ASCII)
_BARE_NO_MODULE = re.compile(r"\bModuleNotFoundError\b(?!:\s*No module named\s*'?\w|\s+Traceback)|"
                             r"No module named\s*$", re.ASCII)
# An exception that says the code asked for something this library does not have: a module,
# a name, an argument, a class, a file format ("ValueError: Argument(s) not recognized: {'lr'
# ...}"). Not a user's own bug (a shape that does not fit).
_API_MISMATCH = re.compile(
    r"^(?:[\w.]+\.)?(?:ImportError|ModuleNotFoundError|AttributeError)\b|"
    r"^(?:[\w.]+\.)?(?:TypeError|ValueError|NotImplementedError)\b.*(?:unexpected keyword|"
    r"[Uu]nrecognized|not recognized|not (?:yet )?(?:supported|allowed)|Could not (?:interpret|"
    r"deserialize|locate)|Only instances|KerasTensor|positional argument|File format|"
    r"Invalid (?:filepath|dtype|argument)|\.keras\b)", re.ASCII)
# h5py 3 hands Keras' HDF5 loading str where it decodes bytes.
_STR_DECODE = re.compile(r"'str' object has no attribute 'decode'", re.ASCII)
_HDF5_LOADING = re.compile(r"h5py|hdf5|load_model|load_weights|keras_version|\.h5\b",
                           re.IGNORECASE | re.ASCII)
_SYMBOLIC_TENSOR = re.compile(r"Cannot convert a symbolic Tensor \([^)\n]{0,200}\) to a numpy "
                              r"array", re.ASCII)
# cuDNN failing to start: out of memory, or a CUDA/cuDNN that is not the build's.
_CUDNN_INIT_FAILED = re.compile(r"Failed to get convolution algorithm|Could not create cudnn "
                                r"handle|CUDNN_STATUS_(?:INTERNAL_ERROR|NOT_INITIALIZED)", re.ASCII)
# GPUs of compute capability 8.0 and later, by name ("显卡是RTX3090" too: re.ASCII's \b).
_AMPERE_OR_LATER = re.compile(r"\b(?:RTX\s?(?:30|40|50)\d0|RTX\s?[345]0 series|"
                              r"[AH]100|A(?:10|30|40|6000)|L40S?|RTX A\d{4})\b|"
                              # The model number alone before a word for the card: "3060的显卡"
                              # (dev c1465), "3080 GPU".
                              r"\b(?:30|40|50)[5-9]0(?:\s?Ti)?(?=\s?的?(?:显卡|GPU\b|graphics card|"
                              r"video card))",
                              re.IGNORECASE | re.ASCII)
# Turing (sm_75): RTX 20 series, GTX 16 series, Titan RTX, Quadro RTX, T4: CUDA 10's.
_TURING = re.compile(r"\b(?:RTX\s?20[5-8]0|RTX\s?20 series|GTX\s?16[5-6]0|Titan RTX|Quadro RTX|"
                     r"Tesla T4)\b", re.IGNORECASE | re.ASCII)
# GPU generations with the first CUDA that has code for them and the first TensorFlow built with
# that CUDA (TF 1.13: CUDA 10.0; TF 2.4: CUDA 11.0).
_NEW_GPUS: tuple[tuple[re.Pattern[str], int, tuple[int, int]], ...] = (
    (_TURING, 10, (1, 13)), (_AMPERE_OR_LATER, 11, (2, 4)))
# conda's "UnsatisfiableError: The following specifications were found to be in conflict:",
# then "  - python 3.6*", "  - tensorflow 0.12.0rc0*".
_CONDA_CONFLICT = re.compile(r"UnsatisfiableError|found to be in conflict|found conflicts",
                             re.IGNORECASE | re.ASCII)
_CONDA_PYTHON_SPEC = re.compile(r"^-\s*python(?:[ =<>~]|$)", re.IGNORECASE | re.ASCII)
_CONDA_TF_SPEC = re.compile(r"^-\s*(?:tensorflow|tf-nightly)", re.IGNORECASE | re.ASCII)
# A Python that is no conda's: its packages' paths, pip named as the installer, or the banner
# of an interpreter (Anaconda's names Anaconda, which the "conda" test sees).
_PLAIN_PYTHON = re.compile(r"[\\/](?:site|dist)-packages[\\/]|\bpip3?\b|"
                           r"^Python [23]\.\d+\.\d+ \(", re.ASCII)
#: Lines after ``import tensorflow`` where its error is looked for.
IMPORT_ERROR_REACH = 4
# TensorFlow's native module failed to import: a loader's or TF's words, or a traceback through
# the module that loads it.
_NATIVE_IMPORT = re.compile(r"DLL load failed|Failed to load the native TensorFlow runtime|"
                            r"\bpywrap_tensorflow|cannot open shared object file", re.ASCII)


def fact_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """Score every family the facts support."""
    _stated_cuda_rules(ctx, facts, scores)
    _stated_cudnn_rules(ctx, facts, scores)
    _package_rules(ctx, facts, scores)
    _shadowed_gpu_package_rules(ctx, facts, scores)
    _driver_report_rules(facts, scores)
    _gpu_arch_rules(facts, scores)
    _new_gpu_old_build_rules(ctx, facts, scores)
    _unknown_layer_rules(ctx, facts, scores)
    _windows_rules(ctx, facts, scores)
    _memory_rules(ctx, scores)
    _cpu_rules(facts, scores)
    _keras3_rules(ctx, facts, scores)
    _conda_conflict_rules(ctx, scores)
    _old_release_pin_rules(ctx, scores)
    _module_rules(ctx, scores)
    _self_check_rules(ctx, facts, scores)


def _stated_cuda_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """The text says which CUDA is installed, and the build (its TF version, the knowledge
    base) or the text wants one whose libraries that toolkit does not ship. A TF 2.14+ pip
    wheel on Linux brings its own CUDA: the system's is not what it loads."""
    installed = {v for v in ctx.cuda_installs if v}
    row, system = _gpu_build(ctx)
    if not installed or not system:
        return
    wanted = set(facts.cuda_wanted) | ({row.cuda} if row and row.cuda else set())
    if not wanted:
        _cuda_without_build_rules(ctx, facts, scores, installed)
        return
    score = _stated_cuda_score(row, wanted, installed)
    if not score:
        return
    have = ", ".join(sorted(installed))
    if row:
        cuda, cudnn, built = row.cuda, row.cudnn, f"TensorFlow {row.label} was built for"
    else:
        cuda, cudnn = kb.recommended_pair(tuple(wanted), ctx.platform)
        built = "the text wants"
    scores.add("cuda-version-mismatch", score,
               [f"CUDA {have} installed; {built} CUDA {', '.join(sorted(wanted))}"],
               cuda=cuda, cudnn=cudnn, installed=have)


def _stated_cuda_score(row: kb.BuildConfig | None, wanted: set[str], installed: set[str]) -> int:
    """How surely the installed CUDA is the wrong one: none ships the libraries any wanted
    CUDA loads (88); they ship them, but none is the minor the release was tested with (60:
    it loads, so this only comes after any cause the output shows); else 0."""
    if not any(kb.toolkit_fits(w, v) for w in wanted for v in installed):
        return 88
    if row and row.cuda and not any(kb.cuda_label_matches(row.cuda, v) for v in installed):
        return 60
    return 0


def _gpu_build(ctx: TextContext) -> tuple[kb.BuildConfig | None, bool]:
    """The GPU build of the text's TF release, and whether it loads the system's CUDA and
    cuDNN (a TF 2.14+ pip wheel on Linux brings its own)."""
    row = kb.find_build(ctx.tf_version, ctx.platform, "gpu") if ctx.tf_version else None
    return row, not (row and ctx.platform != "windows" and ctx.tf_at_least((2, 14)))


def _cuda_without_build_rules(ctx: TextContext, facts: Facts, scores: Scores,
                              installed: set[str]) -> None:
    """No release is named, but the installed CUDA is one no TensorFlow GPU build of this OS
    loads (9.2, 10.2), and TF fails to load or to use the GPU."""
    orphans = sorted(v for v in installed if kb.cuda_without_build(v, ctx.platform))
    failed = [*facts.libraries_missing.values(), *facts.no_gpu,
              *ctx.lines_matching(_NATIVE_IMPORT, 2), *ctx.lines_matching(_CUDNN_INIT_FAILED, 1)]
    if orphans and failed and len(orphans) == len(installed):
        have = ", ".join(orphans)
        scores.add("cuda-version-mismatch", 80, [*failed[:2], f"CUDA {have} in the text"],
                   installed=have,
                   title=finding_title("cuda-version-mismatch.no-build", installed=have))


def _stated_cudnn_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """The text says which cuDNN is installed, and the build or a missing cuDNN library wants
    another major, or a newer minor (TF's own check: same major, minor at least the build's)."""
    row, system = _gpu_build(ctx)
    if not facts.cudnn_stated or not system:
        return
    wanted = set(facts.cudnn_wanted) | ({row.cudnn} if row and row.cudnn else set())
    wanted |= {str(info.cudnn_major) for info in map(kb.library_info, facts.libraries_missing)
               if info.kind == "cudnn" and info.cudnn_major}
    if not wanted or any(kb.cudnn_fits(w, v) for w in wanted for v in facts.cudnn_stated):
        return
    have, want = ", ".join(sorted(facts.cudnn_stated)), sorted(wanted)[-1]
    scores.add("cuda-version-mismatch", 88, [f"cuDNN {have} in the text; wanted: cuDNN {want}"],
               cudnn=want, title=finding_title("cuda-version-mismatch.cudnn", installed=have,
                                               wanted=want))


def _package_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """Packages that do not fit the TensorFlow they are loaded into."""
    if facts.companion_failures:
        scores.add("mixed-tf-packages", 92, facts.companion_failures,
                   title=finding_title("mixed-tf-packages.companion"), companion=True)
    if lines := ctx.lines_matching(_REQUIRES_TF):
        scores.add("mixed-tf-packages", 92, lines,
                   title=finding_title("mixed-tf-packages.companion"), companion=True)
    _missing_name_rules(ctx, facts, scores)


def _missing_name_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """A name TensorFlow or Keras lacks, asked for by code written for another release:
    Keras, a companion package, or TensorFlow's own internals."""
    _missing_attribute_rules(ctx, facts, scores)
    tf1_code = _tf1_code(ctx, facts)
    for line in ctx.lines_matching(_CANNOT_IMPORT, 2):
        m = _CANNOT_IMPORT.search(line)
        module = (m.group(2) or "") if m else "-"
        if module.split(".")[0] == "keras" and _keras3_beside_tf(ctx, facts):
            continue  # a name Keras 3 dropped: :func:`_keras3_rules`
        if m and module and removed_api(module, m.group(1)):
            continue  # a name a release removed: api-removed
        if tf1_code and m and (asked := _asked_of_tensorflow(ctx, m.group(1), module)):
            tf_too_old(ctx, scores, line, asked)
        elif module.split(".")[0] in ("", *_TF_OR_KERAS):
            scores.add("mixed-tf-packages", 84, line)
    _missing_module_rules(ctx, facts, scores)


def _missing_attribute_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """"module 'tensorflow...' has no attribute": raised in Keras, a companion or TF's
    internals, a mix of releases; in one's own code on a TF 1, a TF too old for it."""
    keras_frame = facts.raising_package in ("keras", "tf_keras")
    companion_frame = _companion_raised(facts)
    tf1_code = _tf1_code(ctx, facts)
    lines = ctx.lines_matching(_TF_ATTRIBUTE, 2) + ctx.lines_matching(_INTERNAL_NAME, 1)
    for line in dict.fromkeys(lines):  # a line both patterns match is read once
        m = _TF_ATTRIBUTE.search(line)
        if m and removed_api(m.group(1), m.group(2)):
            continue  # a name a release removed: api-removed
        internal = bool(_INTERNAL_NAME.search(line))
        if tf1_code and m and not internal:
            tf_too_old(ctx, scores, line, f"{m.group(1)}.{m.group(2)}")
        elif keras_frame or companion_frame or internal or _INTERNAL_ATTRIBUTE.search(line):
            title = ("mixed-tf-packages.keras" if keras_frame else
                     "mixed-tf-packages.companion" if companion_frame else None)
            scores.add("mixed-tf-packages", 95, line,
                       title=finding_title(title) if title else None)


def _tf1_code(ctx: TextContext, facts: Facts) -> bool:
    """Code of the user's or a project's (no package raised it) on a TF 1 the text states."""
    return ctx.tf_stated_before((2, 0)) and facts.raising_package in (None, "__main__")


def _asked_of_tensorflow(ctx: TextContext, name: str, module: str) -> str | None:
    """The TensorFlow name an import could not find ("tensorflow.python.tf2"), when it was asked
    of TensorFlow: the message's module, or the import line the traceback quotes."""
    if module.startswith("tensorflow"):
        return f"{module}.{name}"
    quoted = ctx.lines_matching(rf"^from tensorflow[\w.]* import .*\b{re.escape(name)}\b", 1)
    return f"{quoted[0].split()[1]}.{name}" if not module and quoted else None


def tf_too_old(ctx: TextContext, scores: Scores, line: str, name: str, score: int = 90) -> None:
    """A name of TensorFlow that a TF 1 the text states lacks: TF 1 has TF 1's API, so what it
    lacks came in a later release."""
    name = "tf" + name.removeprefix("tensorflow") if name.startswith("tensorflow") else name
    scores.add("tf-too-old", score, line, title=finding_title("tf-too-old.name",
                                                               tf=ctx.tf_text(), name=name))


def _companion_raised(facts: Facts) -> bool:
    """The error was raised inside a TensorFlow companion package (tensorflow_probability ...)."""
    return bool(facts.raising_package and COMPANION.match(facts.raising_package))


def _module_of_a_later_release(ctx: TextContext, facts: Facts, module: str) -> bool:
    """Code for a later release on a TF 1 (a companion built for another TF: a mix), or for
    Keras 2.13+ (which brought keras.src) on an older TF the text states (dev c1134: TF 2.12).
    Keras 3's own modules missing stay a mix (a Keras 2 installed beside the code)."""
    if module.startswith("tensorflow."):
        return _tf1_code(ctx, facts)
    return (module.startswith("keras.src") and not module.startswith(_KERAS3_MODULES)
            and ctx.tf_stated_before((2, 13)))


def _missing_module_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """A module of TensorFlow or Keras missing in this release: Keras 3's own where TF installs
    it, a mix of releases otherwise; tf-keras, when the code asks for Keras 2 on TF 2.16+."""
    for m in filter(None, map(_NO_SUBMODULE.search, ctx.lines_matching(_NO_SUBMODULE, 2))):
        module, line = m.group(1), m.string
        if module.startswith(_TF1_MODULES) or _TF_CORE_MODULES.search(module):
            continue
        if _module_of_a_later_release(ctx, facts, module):
            tf_too_old(ctx, scores, line, module)
            continue
        if module.split(".")[0] == "keras" and not module.startswith(_KERAS3_MODULES) and (
                _keras3_beside_tf(ctx, facts) or ctx.tf_at_least((2, 16))):
            scores.add("keras3-strategy-unsupported", 82, line,
                       title=finding_title("keras3-strategy-unsupported.keras3-runs"))
        else:
            keras = module.split(".")[0] in ("keras", "tf_keras")
            scores.add("mixed-tf-packages", 80, line,
                       title=finding_title("mixed-tf-packages.keras") if keras else None)
    if (lines := ctx.lines_matching(_NO_TF_KERAS, 1)) and ctx.tf_at_least((2, 16)) is not False:
        scores.add("keras3-strategy-unsupported", 82, lines,
                   title=finding_title("keras3-strategy-unsupported.no-tf-keras"))


def _shadowed_gpu_package_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """``tensorflow-gpu`` runs, yet on the CPU. Before 2.1 its GPU build does not even import
    without CUDA, so the ``tensorflow`` that runs is a CPU-only package installed beside it
    (both write one ``tensorflow`` folder). Likely when the release is known to be older,
    possible when it is not said; a missing library names another cause."""
    if not facts.no_gpu or facts.libraries_missing or ctx.tf_at_least((2, 1)):
        return
    if lines := ctx.lines_matching(_GPU_PACKAGE, 1):
        scores.add("mixed-tf-packages", 80 if ctx.tf_at_least((2, 1)) is False else 56,
                   [*lines, *facts.no_gpu[:1]],
                   title=finding_title("mixed-tf-packages.cpu-package"))


def _driver_report_rules(facts: Facts, scores: Scores) -> None:
    """TensorFlow reports the driver library's version and the kernel module's: when they
    differ, the driver was updated and its new module is not loaded (no reboot)."""
    if facts.libcuda_version and facts.kernel_version and (
            facts.libcuda_version[:2] != facts.kernel_version[:2]):
        scores.add("driver-not-loaded", 93, [
            "libcuda " + ".".join(map(str, facts.libcuda_version)) + ", kernel module "
            + ".".join(map(str, facts.kernel_version))])


def _new_gpu_old_build_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """An Ampere or later GPU (RTX 30/40/50, A100, H100 ...) needs CUDA 11, which no TensorFlow
    before 2.4 was built with: there is no code for it in the build; a Turing one (RTX 20, GTX
    16, T4) CUDA 10, which came with TF 1.13 (dev c1425: an RTX 2070 with TF 1.11 and CUDA 9.0).
    Above a CUDA the text says is not the build's (dev c1352: an RTX 4090 with TF 2.3 and CUDA
    12.1): no CUDA installed beside that TF would run on this GPU. The build's CUDA stated
    another way says the same: an older CUDA the text names ("cudatoolkit=10.0", dev c1374), or
    its libraries opened."""
    for gpu, cuda, first_tf in _NEW_GPUS:
        if (lines := ctx.lines_matching(gpu, 1)) and (
                ctx.tf_at_least(first_tf) is False or _cuda_before(facts, cuda)):
            scores.add("gpu-arch-unsupported", 93, lines)
            return


def _cuda_before(facts: Facts, major: int) -> bool:
    """Every CUDA the text states, or names a library of, is older than ``major`` (and it names
    one)."""
    labels = [*facts.cuda_stated, *(label for name in facts.libraries_named
                                    for label in kb.library_info(name).cuda_versions)]
    majors = [int(label.split(".")[0]) for label in labels]  # "10.1", "11.x", "12"
    return bool(majors) and max(majors) < major


def _gpu_arch_rules(facts: Facts, scores: Scores) -> None:
    """The GPU's capability, for the fix (which release runs on it)."""
    arch = scores.by_id.get("gpu-arch-unsupported")
    if arch and facts.capability:
        arch.detail.setdefault("capability", facts.capability)


def _windows_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """Native Windows has no TensorFlow GPU build after 2.10 (CUDA 11.2): the retired
    ``tensorflow-gpu`` placeholder, or a CUDA 12 no Windows build uses."""
    last = kb.last_windows_gpu_release()
    for line in ctx.lines_matching(_GPU_PLACEHOLDER, 4):
        m = _GPU_PLACEHOLDER.search(line)
        version = kb.parse_version(m.group(1)) if m else None
        if version and kb.minor_of(version) > last:
            scores.add("tf-windows-gpu-unsupported", 93, line,
                       title=finding_title("tf-windows-gpu-unsupported.package-removed"))
            return
    if ctx.platform == "windows" and any(
            not kb.windows_cuda_has_build(v) for v in facts.cuda_stated):
        scores.add("tf-windows-gpu-unsupported", 78,
                   [f"CUDA {', '.join(sorted(facts.cuda_stated))} on native Windows"])


def _memory_rules(ctx: TextContext, scores: Scores) -> None:
    """An out-of-memory on the CPU's device: the host's RAM, on its line or (TF 1) on the node
    line after it (dev c1059)."""
    lines = ctx.lines_matching(_HOST_OOM, 2)
    for line in ctx.lines_matching(_OOM, 2):
        after = ctx.lines.index(line) + 1
        if after < len(ctx.lines) and _ON_THE_CPU.search(ctx.lines[after]):
            lines += [line, ctx.lines[after]]
    if lines:
        scores.add("host-out-of-memory", 97, lines)


def _cpu_rules(facts: Facts, scores: Scores) -> None:
    """The text names a CPU model that has no AVX: every TensorFlow binary since 1.6 uses it,
    so the import dies (an illegal instruction, a DLL whose start-up failed, a silent exit)."""
    if facts.cpu_without_avx:
        scores.add("cpu-no-avx", 84, [*facts.cpu_without_avx, "(a CPU model without AVX)"])


def _keras3_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """Keras 3 runs (TF 2.16+ installs it) and something asked for what it does not have:
    code written for Keras 2 (tf.keras before 2.16, and the libraries built on it) breaks on
    Keras 3 in many words, so the facts count, not the words. Below a stronger cause the
    output states.
    Beside a TensorFlow older than 2.16, Keras 3 is the package that does not fit."""
    runs = _keras3_runs(ctx, facts)
    errors = ctx.lines_matching(_API_MISMATCH, 1) if runs else []
    if not errors:
        return
    lines = [*runs[:1], *errors]
    # Surer when the error names Keras itself ("from 'keras.preprocessing.image'").
    score = 84 if "keras" in errors[0].lower() else 76
    if _keras3_beside_tf(ctx, facts):
        scores.add("keras3-strategy-unsupported", score, lines,
                   title=finding_title("keras3-strategy-unsupported.keras3-runs"))
    else:
        scores.add("mixed-tf-packages", score, lines,
                   title=finding_title("mixed-tf-packages.keras"))


def _keras3_runs(ctx: TextContext, facts: Facts) -> list[str]:
    """The evidence that Keras 3 runs: its own files, modules or version, or the error raised
    inside ``keras`` under a TensorFlow the text says is 2.16+ (whose ``keras`` is Keras 3)."""
    if facts.keras3:
        return facts.keras3
    if facts.raising_package == "keras" and ctx.tf_at_least((2, 16)):
        return [f"TensorFlow {ctx.tf_text()}: its Keras is Keras 3"]
    return []


# Built-in classes tf.keras gained after 2.0, by the name a saved model's config gives them:
# models (Functional, TF 2.3+), the ops a functional model records (TFOpLambda, SlicingOpLambda),
# attention, the preprocessing layers (experimental from 2.1-2.3, core in 2.6) and later layers.
# A Keras that does not know one was released before it: the model was saved by a newer one.
_LATER_KERAS_CLASSES = (
    "Functional", "TFOpLambda", "SlicingOpLambda", "MultiHeadAttention", "EinsumDense",
    "TextVectorization", "Normalization", "Discretization", "CategoryEncoding", "Hashing",
    "IntegerLookup", "StringLookup", "RandomFlip", "RandomRotation", "RandomZoom",
    "RandomTranslation", "RandomContrast", "RandomCrop", "RandomHeight", "RandomWidth",
    "RandomBrightness", "Rescaling", "Resizing", "CenterCrop", "UnitNormalization",
    "GroupNormalization", "HashedCrossing", "SpectralNormalization", "ConvLSTM1D", "ConvLSTM3D",
    "Conv1DTranspose")
_UNKNOWN_LATER_CLASS = re.compile(
    r"Unknown (?:layer|object|config):? ?'?(" + "|".join(_LATER_KERAS_CLASSES) + r")\b",
    re.ASCII)
# Keras 2's op records, which Keras 3 (TF 2.16+) dropped: a model saved by tf.keras 2 whose
# graph holds TF ops does not load there.
_KERAS2_ONLY_CLASSES = frozenset({"TFOpLambda", "SlicingOpLambda"})


def _unknown_layer_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """A saved model names a built-in class the Keras loading it does not know: saved by a
    newer release (dev c526: "Unknown layer: Functional" under TF 2.2), or, for the op records
    Keras 3 dropped, saved by Keras 2 and loaded by Keras 3."""
    for line in ctx.lines_matching(_UNKNOWN_LATER_CLASS, 1):
        m = _UNKNOWN_LATER_CLASS.search(line)
        if m and m.group(1) in _KERAS2_ONLY_CLASSES and (
                _keras3_beside_tf(ctx, facts) or ctx.tf_at_least((2, 16))):
            scores.add("keras3-strategy-unsupported", 88, [*_keras3_runs(ctx, facts)[:1], line],
                       title=finding_title("keras3-strategy-unsupported.keras3-runs"))
        else:
            scores.add("tf-too-old", 86, line, title=finding_title("tf-too-old.saved-model"))


def _keras3_beside_tf(ctx: TextContext, facts: Facts) -> bool:
    """Keras 3 runs, with a TensorFlow that installs it (2.16+) or one the text does not date."""
    return bool(_keras3_runs(ctx, facts)) and ctx.tf_at_least((2, 16)) is not False


def _old_release_pin_rules(ctx: TextContext, scores: Scores) -> None:
    """A dependency's newer release line breaking older Keras / TensorFlow code: h5py 3 gives
    str where Keras' HDF5 loading decodes bytes; NumPy 1.20 breaks TF < 2.5's symbolic
    tensors. The fix pins the older line."""
    if (lines := ctx.lines_matching(_STR_DECODE, 1)) and ctx.whole().search(_HDF5_LOADING):
        scores.add("dependency-version-conflict", 88, lines, package="h5py", pin="h5py<3",
                   title=finding_title("dependency-version-conflict.package", package="h5py"))
    if (lines := ctx.lines_matching(_SYMBOLIC_TENSOR, 1)) and not ctx.tf_at_least((2, 5)):
        scores.add("dependency-version-conflict", 84, lines, package="numpy", pin="numpy<1.20",
                   title=finding_title("dependency-version-conflict.package", package="numpy"))


def _conda_conflict_rules(ctx: TextContext, scores: Scores) -> None:
    """conda's solver lists the specs it found in conflict, one "- name version" a line: a
    Python spec beside a TensorFlow one is a TensorFlow package not built for that Python."""
    if not ctx.lines_matching(_CONDA_CONFLICT, 1):
        return
    python, tf = ctx.lines_matching(_CONDA_PYTHON_SPEC, 1), ctx.lines_matching(_CONDA_TF_SPEC, 1)
    if python and tf:
        scores.add("python-unsupported", 84, [*ctx.lines_matching(_CONDA_CONFLICT, 1), *python,
                                              *tf])


def _module_rules(ctx: TextContext, scores: Scores) -> None:
    """``No module named 'tensorflow'``: installed in an env this Python is not (a conda env
    not activated, the usual case in real reports), or not installed at all."""
    lines = ctx.lines_matching(_NO_TF_MODULE, 1) or _bare_no_module(ctx)
    if not lines:
        return
    # A Python that is no conda's, and no word of conda: TF is not installed there (pip put it
    # into another Python, dev c716, c867).
    plain = (ctx.conda_env is None and "conda" not in ctx.text.lower()
             and bool(ctx.lines_matching(_PLAIN_PYTHON, 1)))
    scores.add("conda-env-not-activated", 60 if plain else 70, lines,
               title=finding_title("conda-env-not-activated.no-module"))
    scores.add("tf-not-installed", 72 if plain else 62, lines)


def _bare_no_module(ctx: TextContext) -> list[str]:
    """``import tensorflow``, then within a few lines a ModuleNotFoundError that names no
    module: the module it could not find is TensorFlow."""
    if not ctx.lines_matching(_BARE_NO_MODULE, 1):
        return []
    for i, line in enumerate(ctx.lines):
        if _TF_IMPORT.search(line):
            for after in ctx.lines[i + 1:i + 1 + IMPORT_ERROR_REACH]:
                if _BARE_NO_MODULE.search(after):
                    return [line, after]
    return []


def _self_check_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """TF's self-check failed to load the DLL its build info names (``preload_check``, with
    WinError 126 in any language): that DLL's component is missing. Where the text also names
    the DLL ("Could not find 'cudart64_90.dll'"), its name says more (which version), and the
    library rules weigh it."""
    for line in ctx.lines_matching(_SELF_CHECK, 1):
        m = _SELF_CHECK.search(line)
        if m and not any(kb.library_info(name).kind == _SELF_CHECK_KIND[m.group(1)]
                         for name in facts.libraries_missing):
            scores.add(_SELF_CHECK_CAUSE[m.group(1)], 92,
                       [line, *ctx.lines_matching(r"WinError|OSError", 1)])
