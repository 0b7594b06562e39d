"""Facts an output states, read once, for the rules that reason from them rather than from
one sentence: the libraries it names as missing (in any wording), the CUDA and cuDNN versions
it says are there and those it says are wanted (a sentence, a tool's output, a file listing),
the GPU's compute capability, the driver's two version reports, the package whose code raised,
a TensorFlow companion package whose native ops failed to load, every way of saying that
TensorFlow sees no GPU (a printed device list, a ``# []`` comment, a sentence), and the
platform and the TensorFlow release it names in words, a CPU model it names that has no AVX.

Each fact is one search with a pattern whose needles :mod:`core.doctor.linesearch` finds (so a
20,000-line log costs a few ``str.find`` passes), no pattern with nested quantifiers, and every
gap between two words is a :func:`then` (linear on a line of repeats).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from core.doctor import kb
from core.doctor.context import TextContext
from core.doctor.kb import Version, parse_version

#: Library names read from an output (an import error names a handful).
MAX_LIBRARIES = 64
#: Lines kept as evidence that no GPU is seen.
MAX_NO_GPU_LINES = 4


def then(first: str, after: str, gap: str = r"[^\n]") -> str:
    """A pattern for ``first``, then characters of ``gap`` (by default: the rest of its line),
    then ``after``. The gap may not hold ``first`` again: ``first[^\\n]*after`` would read the
    rest of the line again from each ``first`` (quadratic on a line of repeats); from the last
    ``first`` before ``after`` this finds the same lines."""
    return rf"(?:{first})(?:(?!{first}){gap})*(?:{after})"


# A library file name, from its first character (a start inside a word would read it again).
# macOS puts the version before the extension: libcudart.8.0.dylib (kb.linux_library_name).
_LIBRARY = re.compile(r"(?<![\w.\-])([A-Za-z][\w\-]*(?:\.so(?:\.\d+)*|\.dll|(?:\.\d+)*\.dylib))\b",
                      re.ASCII)
# Words that say a library named on the same line is not there, in any tool's or person's words.
_MISSING_WORDS = re.compile(
    r"not found|cannot open|can'?t (?:open|find|load)|could ?n[o']?t (?:open|find|load|locate)|"
    r"do(?:es)?n'?t load|not load|no such file|missing|\brequires?\b|"
    # The loader on a file that is there but is no library (empty, cut, not ELF).
    r"file too short|invalid ELF header|"
    # Python's ImportError names a library only when the loader could not load it; a title
    # shortens "ImportError: libcublas.so.8.0: cannot open shared object file" so (dev c1424).
    r"\bImportError\b|"
    # "TF is looking for cudart64_101.dll", "it searches for libcudnn.so.7": wanted, not there.
    r"\blook(?:s|ed|ing)? for|\bsearch(?:es|ed|ing)? for", re.IGNORECASE | re.ASCII)
# A person saying a library named next is there: "I have libcudart.7.5.dylib", "we've got only".
_HAVE_BEFORE = re.compile(r"(?<!n't )(?<!not )\b(?:have|'ve got|got)\s+"
                          r"(?:(?:only|installed|the)\s+)*$", re.IGNORECASE | re.ASCII)
_LIBRARY_KINDS = frozenset({"cuda", "cudnn", "driver", "msvc", "zlib"})
# What joins a component's name to its version: "CUDA 10.0", "cuda-9.2", "CUDA8.0", "CUDA v11.2",
# "cudatoolkit   11.3.1" (conda list), "cudatoolkit=10.0" (conda's spec), "cuda version: 11.4",
# "the cuda version of my laptop is 12.1", "cuda版本是10.1", "cuda:8.0". One optional part
# between two blank runs, never two \s* side by side.
_JOIN = (r"(?:[ _\-]?(?:toolkit(?:==?|\s*))?|\s*(?:version|版本)(?:\s+(?:of (?:my|the) \w+ )?is|"
         r"\s*[:：]|是|为)?\s*|[ \t]*[:：=][ \t]*)v?")
# A major.minor (a patch may follow: "10.1.243"), or a major alone ("CUDA 12"), never the
# start of a longer number or name ("cuda11x", "cudnn64_7").
_CUDA_NUMBER = r"(\d{1,2}\.\d(?!\d)|(?:[7-9]|1[0-3])(?!\w|\.\d))"
_CUDNN_NUMBER = r"(\d\.\d{1,2}(?!\d)|\d(?!\w|\.\d))"


def _version_of(name: str) -> str:
    """The name after its version: "the version of cuda in the image is 9.2"."""
    return (rf"\bversion of (?:the |my )?{name}(?:[ \t]+(?:in|on|inside|of) (?:the |my |this )?"
            rf"\w+)?[ \t]+(?:is|was)[ \t]+v?")


_CUDA_VERSION = re.compile(
    r"\bcuda" + _JOIN + _CUDA_NUMBER + "|" + _version_of("cuda") + _CUDA_NUMBER + "|"
    # nvcc --version: "Cuda compilation tools, release 10.2, V10.2.89".
    r"\brelease (\d{1,2}\.\d), V\d", re.IGNORECASE | re.ASCII)
_CUDNN_VERSION = re.compile(r"\bcudnn" + _JOIN + _CUDNN_NUMBER + "|"
                            + _version_of("cudnn") + _CUDNN_NUMBER, re.IGNORECASE | re.ASCII)
# The same versions written the other way round: the issue template's field "CUDA/cuDNN
# version" and its value on that line or the next, after a blank one in the Markdown form
# ("10.0", "11.2/8", "10.2 and 7.6.5", a name before each number is read by the patterns
# above), and a number before its component's name ("10.2 cuda / 7.6 cudnn"), unless a
# version follows that name ("7.6 cuda 10.1" is CUDA 10.1).
_CUDA_CUDNN_FIELD = re.compile(
    r"\bcuda\s*/\s*cudnn(?:[ \t]+versions?)?[ \t]*(?:[:：][ \t]*)?(?:\n[ \t]*){0,2}v?"
    r"(\d{1,2}\.\d(?!\d)|(?:[7-9]|1[0-3])(?![\w.]))(?:\.\d+)*"
    r"(?:[ \t]*(?:/|,|\band\b|&|\+)[ \t]*v?(\d\.\d{1,2}(?!\d)|\d(?![\w.])))?",
                               re.IGNORECASE | re.ASCII)
_FIELD_BEFORE = re.compile(r"\bcuda\s*/\s*$", re.IGNORECASE | re.ASCII)
# A version said not to be there: "I have CUDA 10 installed, not CUDA 9" (dev c1413).
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\binstead of|\brather than|\bother than)\s*$",
                         re.IGNORECASE | re.ASCII)
_NUMBER_THEN_NAME = re.compile(
    r"(?<![\w.])(\d{1,2}\.\d{1,2})(?!\d)(?:\.\d+)*[ \t]?(cudnn|cuda)(?!\w|\s*(?:[-_:v]\s*)?\d)",
    re.IGNORECASE | re.ASCII)
# A version the text says is wanted, not had ("Download and install CUDA 9.0", TF 1.x's
# "Could not find cuDNN 6").
_WANTED_BEFORE = re.compile(r"(?:requires?|needs?|wants?|built (?:with|against|for)|"
                            r"compiled (?:with|against|for)|install|supports?|for|find|load|"
                            r"locate)\s*$", re.IGNORECASE | re.ASCII)
_WANTED_AFTER = re.compile(r"\W{0,3}(?:\w{1,12} ){0,2}(?:(?:is|are) )?(?:needed|required)",
                           re.IGNORECASE | re.ASCII)
# The CUDA runtime's file name carries its toolkit's version: "libcudart.so.10.2",
# "cudart64_92.dll"; from 11.0 on only the major ("libcudart.so.11.0" in every 11.x).
_CUDART_FILE = re.compile(r"libcudart\.so\.(\d{1,2})(?:\.(\d))?|cudart(?:64)?_(\d{2,3})\.dll",
                          re.IGNORECASE | re.ASCII)
# An ls -l line's mode ("-rwxr-xr-x", "lrwxrwxrwx"), and a line that starts with a path.
_LS_MODE = re.compile(r"[-l][-rwxsStT]{9}\s", re.ASCII)
_PATH_START = re.compile(r"[A-Za-z]:[\\/]|\.{0,2}/|~/", re.ASCII)
_CAPABILITY = re.compile(r"compute capability:?\s*(\d{1,2})\.(\d)|\bmajor: (\d{1,2}) minor: (\d)",
                         re.IGNORECASE | re.ASCII)
_LIBCUDA_VERSION = re.compile(r"libcuda reported version is:?\s*(\d+(?:\.\d+)*)", re.ASCII)
_KERNEL_VERSION = re.compile(r"kernel reported version is:?\s*(\d+(?:\.\d+)*)", re.ASCII)
# A traceback frame in an installed package ("File ...site-packages/keras/...py", or IPython's
# "...site-packages/keras/backend/x.py in f()").
_PACKAGE_FRAME = re.compile(r"(?:site|dist)-packages[\\/](\w+)[\\/][^\s\"']*\.py\b", re.ASCII)
_COMPANIONS = (r"tensorflow[_-](?:text|addons|io|probability|hub|estimator|decision[_-]forests|"
               r"recommenders|quantum|model[_-]optimization|federated|ranking|graphics)\b")
COMPANION = re.compile(_COMPANIONS, re.IGNORECASE | re.ASCII)
# A custom-op library that does not fit the TensorFlow it is loaded into.
_OP_LOAD_FAILED = re.compile(r"undefined symbol|symbol not found|TF_LoadLibrary|"
                             r"Invalid name: \w+>|_ops\.so\b", re.ASCII)
# A printed answer that lists no GPU; it may follow its prompt on the next line.
_NO_GPU_PRINTED = re.compile(
    then("physical_device:CPU:0'", r"\]\s*$") + r"|Num GPUs Available:?\s*0\b|"
    # \s spans the line break too: \s*\n?\s* would split a blank run in n ways.
    r"list_physical_devices\(['\"]GPU['\"]\)\)?\s*(?:#\s*)?\[\]|"
    r"is_built?_with_cuda\(\)\)?\s*(?:#\s*)?[Ff]alse|"
    r"is_gpu_available\(\)\)?\s*(?:#\s*)?[Ff]alse", re.MULTILINE | re.ASCII)
# A GPU in words or by its model ("my RTX 3060", "GTX 1080 Ti").
_A_GPU = (r"(?:\bGPU|\b[GR]TX ?\d{3,4}(?!\d)|\bgraphics card|"
          r"\bvideo card)")
# The same in what TensorFlow and code print.
_NO_GPU_PRINTED_SAID = re.compile(
    r"Skipping registering GPU devices|GPU will not be used|"
    + then(r"\bGPU", r"Available:?\s*0\b|(?:[:=]|\?:?)\s*(?:\[\]|False\b)") + "|"
    r"Default GPU Device:?[ \t]*(?:None)?[ \t]*$|"
    r"\bbuilt with CUDA\W{0,3}\s*False\b|"
    + then(r"list_physical_devices\(['\"]GPU['\"]\)|is_gpu_available\(\)",
           r"\[\]|\bempty\b|\bFalse\b|\bnothing\b") + "|"
    # "Num GPUs: 0", "Number of GPUs = 0".
    r"\b(?:Num|Number of) GPUs?\b[ \t]*[:=][ \t]*0\b", re.IGNORECASE | re.ASCII)
# In a person's words. (Four patterns, not one: every alternative of a pattern is tried at every
# character of the lines its needles select.)
_NO_GPU_WORDS = re.compile(
    # "available" as typed too ("avalable", "avaliable").
    then(_A_GPU, r"\b(?:not|isn'?t|is ?n[o']?t being) (?:found|detected|av[a-z]{3,5}ble|"
                 r"visible|used|recogni[sz]ed|being used|utili[sz]ed|listed|shown|"
                 r"showing(?: up)?|show(?:n|ing)? up|accessible|identified)|"
                 r"(?:could|can)(?:not|'t| not) (?:be )?"
                 r"(?:found|detected|utili[sz]ed?|used?|seen?|find)") + "|"
    r"\bno GPUs?\b|(?:can'?t|can ?not|could ?n[o']?t) (?:utili[sz]e|use|see|find|list|detect|"
    r"access|identify|recogni[sz]e) "
    r"(?:the |my |a |any )?(?:NVIDIA )?GPU|can only (?:find|see|detect|use|list) (?:the )?CPU|"
    r"(?:not|n't|never) (?:detect\w*|see\w*|find\w*|recogni[sz]\w*|utili[sz]\w*|us(?:es?|ed|ing)) "
    r"(?:the |my |a |any )?(?:NVIDIA )?" + _A_GPU + "|"
    + r"\bGPU (?:usage|utili[sz]ation|load) (?:is |stays? |remains? )?(?:at )?0 ?%|"
    r"\bonly (?:the )?CPU (?:is |gets |was )?(?:being )?(?:used|utili[sz]ed|detected|listed)|"
    + then(_A_GPU, r"\bnot working|\bdoes ?n[o']?t work|\bis ?n[o']?t working") + "|"
    r"\b(?:make|get|force)\b[^\n]{0,40}\bus(?:e|ing) (?:the |my |a )?GPU|"
    r"\bhow (?:do I |can I |to )?(?:use|enable) (?:the |my |a )?GPU", re.IGNORECASE | re.ASCII)
# The CPU doing the work instead: "only uses the CPU", "but it runs on cpu", "still running on
# the CPU instead of the GPU", "falls back to CPU".
_CPU_INSTEAD = re.compile(
    r"only (?:on|uses?|runs? on) (?:the )?CPU|runs? only on (?:the )?CPU|"
    r"\b(?:still|but(?: it)?) (?:runs?|running|trains?|training|works?) on (?:the )?CPU\b|"
    r"\b(?:falls?|fell|falling) back (?:on|to) (?:the )?CPU\b|\bCPU instead of (?:the )?GPU",
    re.IGNORECASE | re.ASCII)
# In Chinese: "检测不到GPU" (cannot detect), "无法使用GPU" (cannot use), "GPU不可用" (not usable),
# "只能使用CPU" (can only use the CPU), "没有调用GPU" (the GPU is not called).
_NO_GPU_ZH = re.compile(
    r"(?:检测不到|识别不到|找不到|无法(?:使用|调用|识别|检测到?)|不能(?:使用|调用|识别)|没有(?:使用|调用|用)|"
    r"未(?:使用|调用|识别)|用不了|用不上)[^\n]{0,12}GPU|"
    r"GPU[^\n]{0,12}(?:不可用|用不了|没有被?(?:使用|调用|识别)|无法(?:使用|调用|识别)|未被(?:使用|调用|识别)|"
    r"检测不到|识别不到)|只(?:能|会)?(?:使用|用|跑|调用)了?CPU", re.IGNORECASE | re.ASCII)
_NO_GPU_SAID = (_NO_GPU_PRINTED_SAID, _NO_GPU_WORDS, _CPU_INSTEAD, _NO_GPU_ZH)
# A question for the GPUs, and an answer that it is empty on a line of its own, in words ("This
# piece of code returns an empty array", "I get an empty list") or printed ("[]"): one search
# each (every alternative holds "empty" or "[]", the needles), counted only where the text
# asks for the GPUs.
_GPU_QUERY = re.compile(r"list_physical_devices\(\s*(?:device_type\s*=\s*)?['\"]GPU|"
                        r"get_visible_devices\(\s*['\"]GPU|list_local_devices\(|"
                        r"is_gpu_available\(|gpu_device_name\(", re.IGNORECASE | re.ASCII)
_EMPTY_ANSWER = re.compile(
    # "returns me 0" is len() of the list (dev c1220).
    r"\b(?:returns?|returned|gives?|gave|prints?|printed|shows?|showed|outputs?)\s+(?:me\s+)?"
    r"0(?![\w.])|"
    r"\b(?:returns?|returned|returning|gives?|gave|gets?|got|prints?|printed|shows?|showed|"
    r"outputs?|is|was|just)\s+(?:me\s+)?(?:an?\s+|the\s+|only\s+an?\s+)?empty\s*(?:array|list|\[\]|"
    r"string|tuple)|\b(?:returns?|returned|gives?|gave|prints?|printed)\s+(?:''|\"\")(?!\w)|\bempty\s+(?:array|list)\s+(?:is\s+|was\s+)?(?:returned|printed|shown)|"
    # The answer printed alone on its line: "[]".
    # Horizontal blanks only: a \s run from each line's start would cross every line after it.
    r"^[ \t]*\[\][ \t\r]*$", re.IGNORECASE | re.MULTILINE | re.ASCII)
# is_gpu_available()'s "False" printed alone on a later line (after TF's log).
_FALSE_ALONE = re.compile(r"^False$", re.ASCII)
# The count of the GPU list, "print(len(tf.config.list_physical_devices('GPU')))", then "0".
_GPU_COUNT = re.compile(r"len\(\s*(?:tf\.config\.(?:experimental\.)?)?list_physical_devices\(",
                        re.ASCII)
_ZERO_ALONE = re.compile(r"^0$", re.ASCII)
# TensorFlow's version in the words and tools :mod:`core.doctor.context` does not read: "TF
# 2.12", "tf2.10", "tf version: 2.13", "tensorflow (2.15.0)", pip show's "Name: tensorflow" then
# "Version: 2.15.0".
_TF_SAID = re.compile(
    r"\b(?:tf|tensorflow)(?:[-_](?:gpu|cpu|intel))?(?:\s*version\s*:?|\s*\(|\s*v)?\s*"
    r"(\d\.\d{1,2}(?:\.\d{1,2})?)(?!\d)|"
    r"Name: tensorflow(?:-gpu|-cpu|-intel)?\s+Version: (\d\.\d{1,2}(?:\.\d{1,2})?)",
    re.IGNORECASE | re.ASCII)
# Platforms named in words ("on Windows 10", "Ubuntu 20.04"), where no path tells.
_PLATFORM_WORDS = (
    ("windows", re.compile(r"\bwin(?:dows)?[ -]?(?:7|8|10|11)\b|\bwindows\b",
                           re.IGNORECASE | re.ASCII)),
    ("linux", re.compile(r"\b(?:ubuntu|linux|centos|debian|fedora)\b", re.IGNORECASE | re.ASCII)),
    ("macos", re.compile(r"\bmac ?os\b|\bmacbook\b|\bapple silicon\b", re.IGNORECASE | re.ASCII)),
)
# Keras 3 is what runs: a file or module only Keras 3 has (Keras 2.13-2.15 also live under
# ``keras/src``, but keep layers in ``engine``), TF 2.16+'s ``keras._tf_keras``, or a Keras
# 3.x version as pip, a wheel or a person prints it.
_KERAS3 = re.compile(
    r"\bkeras[\\/.]src[\\/.](?:backend[\\/.](?:tensorflow|common|jax|torch)\b|"
    # Folders Keras 2 has nothing of, and folders where it has a module of that name
    # (callbacks.py: "keras.src.losses.mse" is a Keras 2 function too, so paths only).
    r"(?:trainers|ops|tree|dtype_policies|quantizers|distribution)(?:[\\/]|\.(?!py\b))|"
    # Keras 3's legacy loaders, by their files only: "No module named keras.src.legacy..."
    # is Keras 3's module missing, so a Keras 2 runs.
    r"(?<=[\\/])legacy[\\/]|"
    r"(?<=[\\/])(?:callbacks|losses|activations|constraints|regularizers|random)[\\/]|"
    r"models[\\/.](?:functional|model|sequential)\b|layers[\\/.]layer\b|"
    r"optimizers[\\/.]base_optimizer\b)|"
    # Keras 3's public API folders (Keras 2's are ``api/_v2`` and ``api/keras``).
    r"\bkeras[\\/]api[\\/](?!_v\d|keras\b)\w|"
    r"\bkeras\._tf_keras\b|"
    # Classes every Keras 2 has in keras.preprocessing and Keras 3 dropped.
    r"cannot import name '(?:ImageDataGenerator|DirectoryIterator|NumpyArrayIterator|"
    r"TimeseriesGenerator)' from 'keras\.(?:src\.)?preprocessing\b|"
    # Keras 3's optimizers refuse Keras 2's ``lr`` and ``decay`` (Keras 2 took or renamed them).
    r"Argument\(s\) not recognized: \{'(?:lr|decay)'|"
    r"\bkeras(?:==|\s*[:=]\s*|\s+(?:version:?\s*)?v?|-)3\.\d{1,2}\b", re.IGNORECASE | re.ASCII)
# In code ("is_built_with_cuda()) False") or in a script's words ("built with CUDA?: False").
_CPU_BUILD = re.compile(r"is_built?_with_cuda\(\)\)?\s*(?:#\s*)?[Ff]alse|"
                        r"\bbuilt with CUDA\W{0,3}\s*False\b", re.IGNORECASE | re.ASCII)
# CPU models without AVX, which every TensorFlow binary since 1.6 uses: Intel's before Sandy
# Bridge (2011) - Core 2, the first Core i3/i5/i7 (three-digit numbers: i7-920, i5 M 520;
# later ones have four), the Xeons numbered without a dash (3000/5000/7000 series, W35xx,
# X5675; E5-2670 and later have a dash) - Pentium, Celeron and Atom (AVX left out of them
# until 2020), and AMD's before Bulldozer (Phenom, Athlon II / 64 / X2, Turion).
_CPU_WITHOUT_AVX = re.compile(
    r"\bCore(?:\(TM\))?\s?2\b|"
    r"\bi[357](?:-|\s*CPU)?\s*(?:[MQ]\s*)?\d{3}[A-Z]{0,2}\b|"
    r"\bXeon(?:\(R\))?(?:\s+CPU)?\s+[XEWL]?[357]\d{3}[A-Z]?\b|"
    r"\b(?:Celeron|Pentium|Atom)(?:\(R\)|\(TM\))?(?=[\s,)]|$)|"
    r"\b(?:Phenom|Athlon(?:\(tm\))?\s?(?:II|64|X2)|Turion)\b", re.IGNORECASE | re.ASCII)


@dataclass(frozen=True)
class Facts:
    """What an output states, each fact optional."""

    #: Library name (lower case) -> the line that says it is missing, in any wording.
    libraries_missing: dict[str, str]
    #: Every CUDA / cuDNN library the text names (found, listed, missing), lower case.
    libraries_named: frozenset[str]
    #: CUDA toolkit versions the text says are there ("9.1", "12": a major alone), not the
    #: ones it says are wanted; a CUDA runtime library that a file listing shows counts too.
    cuda_stated: frozenset[str]
    #: CUDA versions the text says are wanted ("Download and install CUDA 9.0").
    cuda_wanted: frozenset[str]
    #: cuDNN versions the text says are there ("7.0", "8"), and the ones it says are wanted.
    cudnn_stated: frozenset[str]
    cudnn_wanted: frozenset[str]
    #: The GPU's compute capability, as TensorFlow prints it.
    capability: tuple[int, int] | None
    #: The driver's user-space library version and its kernel module's, as TF reports them.
    libcuda_version: Version | None
    kernel_version: Version | None
    #: The installed package whose code the traceback's last frame is in ("keras").
    raising_package: str | None
    #: Lines where a companion package's native ops failed to load into this TensorFlow.
    companion_failures: list[str]
    #: Lines that show or say that TensorFlow lists or uses no GPU.
    no_gpu: list[str]
    #: Lines that show Keras 3 running (its own files and modules, a 3.x version).
    keras3: list[str]
    #: A line that shows a CPU-only build (``is_built_with_cuda() False``).
    cpu_build: list[str]
    #: Lines that name a CPU model without AVX (Core 2, Xeon X5675, i7 920, Celeron).
    cpu_without_avx: list[str]
    #: The one platform the text names in words (None: none, or several).
    platform_said: str | None
    #: The one TensorFlow release the text names in words (None: none, or several).
    tf_version_said: Version | None


def read_facts(ctx: TextContext) -> Facts:
    """The facts of ``ctx``'s text (linear in its size: see the module's docstring)."""
    whole = ctx.whole()
    frames = whole.findall(_PACKAGE_FRAME)
    libcuda, kernel = whole.search(_LIBCUDA_VERSION), whole.search(_KERNEL_VERSION)
    missing, named = _libraries(ctx)
    cuda_had, cuda_wanted = _versions_stated(ctx, _CUDA_VERSION)
    cudnn_had, cudnn_wanted = _versions_stated(ctx, _CUDNN_VERSION)
    cuda_after, cudnn_after = _versions_before_names(ctx)
    cuda_had |= cuda_after
    cudnn_had |= cudnn_after
    return Facts(
        libraries_missing=missing,
        libraries_named=frozenset(named),
        cuda_stated=frozenset(cuda_had | _listed_cuda_runtimes(ctx)),
        cuda_wanted=frozenset(cuda_wanted),
        cudnn_stated=frozenset(cudnn_had),
        cudnn_wanted=frozenset(cudnn_wanted),
        capability=_capability(ctx),
        libcuda_version=parse_version(libcuda.group(1)) if libcuda else None,
        kernel_version=parse_version(kernel.group(1)) if kernel else None,
        raising_package=frames[-1] if frames else None,
        companion_failures=_companion_failures(ctx),
        no_gpu=_no_gpu_lines(ctx),
        keras3=ctx.lines_matching(_KERAS3, 2),
        cpu_build=_spanning_lines(ctx, _CPU_BUILD, 2),
        cpu_without_avx=ctx.lines_matching(_CPU_WITHOUT_AVX, 2),
        platform_said=_platform_said(ctx),
        tf_version_said=_tf_version_said(ctx),
    )


def _tf_version_said(ctx: TextContext) -> Version | None:
    """The TensorFlow release the text names, when it names exactly one (major.minor[.patch])."""
    said: set[Version] = set()
    for m in ctx.whole().finditer(_TF_SAID):
        if version := parse_version(m.group(1) or m.group(2)):
            said.add(kb.minor_of(version) + version[2:3])
        if len(said) > 1:
            return None  # several releases: a pip list, a comparison
    return said.pop() if said else None


def _platform_said(ctx: TextContext) -> str | None:
    """The platform the text names in words, when it names exactly one."""
    named = [name for name, rx in _PLATFORM_WORDS if ctx.lines_matching(rx, 1)]
    return named[0] if len(named) == 1 else None


def _libraries(ctx: TextContext) -> tuple[dict[str, str], set[str]]:
    """The CUDA / cuDNN / driver / runtime libraries named on a line that says they are
    missing (name -> that line), and every CUDA / cuDNN library the text names."""
    missing: dict[str, str] = {}
    named: set[str] = set()
    for line in ctx.lines_matching(_LIBRARY, MAX_LIBRARIES):
        says_missing = bool(_MISSING_WORDS.search(line))
        for m in itertools.islice(_LIBRARY.finditer(line), MAX_LIBRARIES):
            name = kb.linux_library_name(m.group(1))
            kind = kb.library_info(name).kind
            if kind in ("cuda", "cudnn"):
                named.add(name.lower())
            # "... looking for libcudart.8.0.dylib but I have libcudart.7.5.dylib": the line
            # says one is missing, and that the other is there.
            there = _HAVE_BEFORE.search(line[max(0, m.start() - 24):m.start()])
            if says_missing and kind in _LIBRARY_KINDS and not there:
                missing.setdefault(name.lower(), line)
    return missing, named


def library_stem(name: str) -> str:
    """A library's name without its version: ``libcusolver.so.10`` -> ``libcusolver.so``,
    ``cusolver64_10.dll`` (and a person's ``cusolver_10.dll``) -> ``cusolver64_.dll``."""
    name = name.lower()
    if name.endswith(".dll"):
        stem = name[:-4].rstrip("0123456789")
        if stem.endswith("_") and not stem.endswith("64_"):
            stem = stem[:-1] + "64_"
        return stem + ".dll"
    stem, dot, _ = name.partition(".so")
    return stem + dot


def _versions_stated(ctx: TextContext, rx: re.Pattern) -> tuple[set[str], set[str]]:
    """The versions of one component (CUDA, cuDNN) the text states: those it says are
    installed or in use, and those it says are wanted (after "requires", "install", "built
    with", or before "is required"). nvidia-smi's "CUDA Version" is neither: it is what the
    driver supports, read by :mod:`core.doctor.context`."""
    had: set[str] = set()
    wanted: set[str] = set()
    for line in ctx.lines_matching(rx, MAX_LIBRARIES):
        if "Driver Version" in line:
            continue
        for m in rx.finditer(line):
            before, after = line[max(0, m.start() - 40):m.start()], line[m.end():m.end() + 24]
            if _FIELD_BEFORE.search(before):
                continue  # "CUDA/cuDNN version: 10.0": the template's CUDA, read number first
            if _NOT_BEFORE.search(before):
                continue
            said = wanted if _WANTED_BEFORE.search(before) or _WANTED_AFTER.match(after) else had
            said.add(next(g for g in m.groups() if g))
    return had, wanted


def _versions_before_names(ctx: TextContext) -> tuple[set[str], set[str]]:
    """CUDA and cuDNN versions the text states installed with the number first: the issue
    template's "CUDA/cuDNN version" field (CUDA, then cuDNN), and "10.2 cuda / 7.6 cudnn". A
    number a name-first pattern reads ("cuda 10.1 cudnn": 10.1 is CUDA's), one said wanted,
    and a CUDA that no toolkit release has are left out."""
    cuda: set[str] = set()
    cudnn: set[str] = set()
    for m in ctx.whole().finditer(_CUDA_CUDNN_FIELD):
        if _CUDA_RELEASE.fullmatch(m.group(1)):
            cuda.add(m.group(1))
            if m.group(2):
                cudnn.add(m.group(2))
    for line in ctx.lines_matching(_NUMBER_THEN_NAME, MAX_LIBRARIES):
        taken = {m.span(i) for rx in (_CUDA_VERSION, _CUDNN_VERSION) for m in rx.finditer(line)
                 for i in range(1, (m.lastindex or 0) + 1) if m.group(i)}
        for m in _NUMBER_THEN_NAME.finditer(line):
            if m.span(1) in taken or _WANTED_BEFORE.search(line[max(0, m.start() - 40):m.start()]):
                continue
            if m.group(2).lower() == "cudnn":
                cudnn.add(m.group(1))
            elif _CUDA_RELEASE.fullmatch(m.group(1)):
                cuda.add(m.group(1))
    return cuda, cudnn


# CUDA toolkits are 7.0-7.5, 8.0, 9.0-9.2, 10.0-10.2, 11.0-11.8, 12.x, 13.x: a "8.1" or "7.6"
# in a CUDA's place is a cuDNN's. A major alone ("CUDA/cuDNN version: 10") is one too.
_CUDA_RELEASE = re.compile(r"7\.[05]|8\.0|9\.[0-2]|10\.[0-2]|11\.[0-8]|1[23]\.\d|[7-9]|1[0-3]",
                           re.ASCII)


def _listed_cuda_runtimes(ctx: TextContext) -> set[str]:
    """CUDA versions that a file listing shows installed (``find``, ``ls -l``, ``dir /s /b``
    output): a line that is a path to the CUDA runtime, ls -l's columns and then its name,
    or a link's target (``libcudart.so -> libcudart.so.10.2``). A bare name may be a list of
    missing ones; a path with words after it is a loader's message."""
    versions = set()
    for line in ctx.lines_matching(_CUDART_FILE, MAX_LIBRARIES):
        ls_line = _LS_MODE.match(line)
        if not (ls_line or _PATH_START.match(line)):
            continue
        path, _, target = line.partition(" -> ")
        name = (target or path).strip().replace("\\", "/").rsplit("/", 1)[-1]
        name = name.split()[-1] if ls_line and name.split() else name
        m = _CUDART_FILE.match(name)
        if m and not name[m.end():].strip("0123456789."):
            versions.add(_cudart_version(m))
    return versions


def _cudart_version(m: re.Match) -> str:
    """The toolkit a CUDA runtime's file name says: "10.2", or "11" (11.0 on, a major only).
    Windows writes major and minor together: "92" is 9.2, "102" 10.2, "12" CUDA 12."""
    if m.group(1):
        major, minor = m.group(1), m.group(2)
    else:
        digits = m.group(3)
        major, minor = ((digits[:2], digits[2:]) if len(digits) == 3 or digits[0] == "1"
                        else (digits[0], digits[1]))
    return major if int(major) >= 11 or not minor else f"{major}.{minor}"


def _capability(ctx: TextContext) -> tuple[int, int] | None:
    m = ctx.whole().search(_CAPABILITY)
    if not m:
        return None
    major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return int(major), int(minor)


def _companion_failures(ctx: TextContext) -> list[str]:
    lines = ctx.lines_matching(_OP_LOAD_FAILED)
    if not lines or not (ctx.whole().search(COMPANION) or any("_ops.so" in ln or ">" in ln
                                                                for ln in lines)):
        return []
    return lines


def _spanning_lines(ctx: TextContext, rx: re.Pattern, limit: int) -> list[str]:
    """The lines of the first matches of a pattern that may span lines (a prompt, then the
    answer printed on the next line)."""
    return [ln.strip() for m in ctx.whole().finditer(rx) for ln in m.group(0).splitlines()
            if ln.strip()][:limit]


def _gpu_query_answer(ctx: TextContext) -> list[str]:
    """The answer to a GPU query, on another line than the query: told in words, or
    ``is_gpu_available()``'s "False" (dev c875), or the list's length "0", printed alone."""
    lines = ctx.lines_matching(_EMPTY_ANSWER, MAX_NO_GPU_LINES)
    if not lines and "is_gpu_available(" in ctx.text:
        lines = ctx.lines_matching(_FALSE_ALONE, 1)
    if not lines and ctx.whole().search(_GPU_COUNT):
        lines = ctx.lines_matching(_ZERO_ALONE, 1)
    return lines


def _no_gpu_lines(ctx: TextContext) -> list[str]:
    """Lines that show no GPU: a pattern that may span lines (a prompt and its answer), or a
    device list that holds only the CPU (``device_lib.list_local_devices()`` too)."""
    lines = _spanning_lines(ctx, _NO_GPU_PRINTED, MAX_NO_GPU_LINES)
    for rx in _NO_GPU_SAID:
        if len(lines) < MAX_NO_GPU_LINES:
            lines += [ln for ln in ctx.lines_matching(rx, MAX_NO_GPU_LINES - len(lines))
                      if ln not in lines]
    if not lines and ctx.whole().search(_GPU_QUERY):
        lines = _gpu_query_answer(ctx)
    if lines or "device:GPU" in ctx.text:
        return lines
    return [ln for ln in ctx.lines if ("physical_device:CPU" in ln or 'name: "/device:CPU' in ln)
            and "GPU" not in ln][:1]
