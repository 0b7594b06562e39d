"""The doctor reasons from facts (core/doctor/facts.py, core/doctor/reasons.py): any phrasing
of the same facts gets the same cause. Each rule is given generated outputs (hypothesis: the
versions, paths, order and surrounding noise vary) written from the facts of the corpus's
development cases (tests/data/doctor_corpus, part "dev"), never from held-out ones. Every new
pattern is searched in its own worst-case text (linear, as tests/test_linear_parsers.py).
The facts each collection round brought are in tests/test_doctor_rounds.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.doctor import facts, kb, prose, reasons
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.fixes import make_finding
from core.doctor.wording import is_guess
from tests.doctor_texts import NOISE, SETTINGS, around, facts_of, rule_ids
from tests.worst_cases import pathological

ROOT = Path(__file__).resolve().parent.parent


# --- CUDA / cuDNN versions ------------------------------------------------------------------

@SETTINGS
@given(NOISE, NOISE, st.sampled_from(["5005", "7005", "7201", "5103"]),
       st.sampled_from(["5110", "7101", "7004", "4007"]), st.sampled_from(["E ", "F ", ""]))
def test_old_numeric_cudnn_check_is_a_version_mismatch(before, after, loaded, built, level):
    """TF 1.x's "Loaded runtime CuDNN library: 7005 (compatibility version 7000) but source
    was compiled with 7101" (dev c021-c031): the old numeric form of the same check."""
    line = (f"{level}tensorflow/stream_executor/cuda/cuda_dnn.cc:352] Loaded runtime CuDNN "
            f"library: {loaded} (compatibility version {loaded[0]}000) but source was compiled "
            f"with {built} (compatibility version {built[0]}100).")
    assert rule_ids(around(before, [line], after))[0] == "cuda-version-mismatch"


@SETTINGS
@given(st.sampled_from([("1.12.0", "10.0"), ("1.6.0", "9.1"), ("2.1.0", "10.2"),
                        ("1.5.0", "9.2")]),
       st.sampled_from(["Tensorflow {tf} not working with CUDA {cuda}",
                        "I have cuda-{cuda} installed and tensorflow=={tf}",
                        "tensorflow {tf}; nvcc: Cuda compilation tools, release {cuda}, V{cuda}.1",
                        "Using CUDA{cuda} with TensorFlow {tf}, the GPU is not found"]),
       NOISE)
def test_a_stated_cuda_that_is_not_the_builds_is_a_mismatch(pair, sentence, noise):
    """The text says which CUDA is there and which TF (dev c183): the knowledge base says the
    build wants another."""
    tf, cuda = pair
    text = around(noise, [sentence.format(tf=tf, cuda=cuda)], [])
    assert rule_ids(text, platform="linux")[0] == "cuda-version-mismatch"


@pytest.mark.parametrize("sentence", [
    "Download and install CUDA 9.0 from this URL", "TensorFlow requires CUDA 9.0",
    "This build was compiled with CUDA 9.0", "the CUDA 9.0 runtime is needed"])
def test_a_cuda_the_text_says_is_wanted_is_not_stated_as_installed(sentence):
    ctx = read_context(sentence)
    assert facts.read_facts(ctx).cuda_stated == frozenset()


@SETTINGS
@given(st.sampled_from(["libcublas.so.9.0", "libcudart.so.10.0", "cudart64_90.dll",
                        "cublas64_100.dll"]),
       st.sampled_from(["ImportError: {lib}: cannot open shared object file: No such file or "
                        "directory", "Could not load dynamic library '{lib}'",
                        "ImportError: Could not find '{lib}'. TensorFlow requires that this DLL "
                        "be installed"]), NOISE)
def test_a_minor_pinned_cuda_that_a_newer_minor_followed_is_first_a_mismatch(lib, line, noise):
    """CUDA 9.0 / 10.0 libraries carry their minor; users had 9.1/9.2/10.1 (dev c171, c173,
    c175, c182, c244): the mismatch first, the missing runtime listed."""
    ids = rule_ids(around(noise, [line.format(lib=lib)], []))
    assert ids[0] == "cuda-version-mismatch" and "missing-cuda-runtime" in ids


@pytest.mark.parametrize("lib", ["cudart64_80.dll", "cudart64_110.dll", "cudart64_101.dll"])
def test_a_cuda_without_a_later_minor_or_named_by_major_is_first_missing(lib):
    text = f"Could not load dynamic library '{lib}'; dlerror: {lib} not found"
    assert rule_ids(text, platform="windows")[0] == "missing-cuda-runtime"


@SETTINGS
@given(st.sampled_from([("libcudnn.so.6", "6"), ("libcudnn.so.7", "7"), ("cudnn64_7.dll", "7"),
                        ("cudnn64_8.dll", "8"), ("libcudnn.so.9", "9")]),
       st.sampled_from(["ImportError: {lib}: cannot open shared object file: No such file or "
                        "directory", "Could not load dynamic library '{lib}'",
                        "ImportError: Could not find '{lib}'. TensorFlow requires that this DLL "
                        "be installed"]), NOISE)
def test_a_missing_cudnn_major_lists_another_installed_cudnn_after_it(lib, line, noise):
    """TF loads one cuDNN major, so an installed cuDNN of another major is a candidate as for
    CUDA (dev c178, c358: cuDNN 5.1 and 7.x installed); the text alone says only "missing"."""
    lib, major = lib
    found = explain(around(noise, [line.format(lib=lib)], []))
    ids = [f.id for f in found if not is_guess(f)]
    assert ids[0] == "missing-cudnn" and "cuda-version-mismatch" in ids, ids
    mismatch = next(f for f in found if f.id == "cuda-version-mismatch")
    assert f"wants cuDNN {major}." in mismatch.fix


def test_the_knowledge_base_says_which_cuda_names_pin_a_superseded_minor():
    assert [label for label in ("8.0", "9.0", "10.0", "10.1", "11.0", "11.x", "12.x")
            if kb.minor_pinned_and_superseded(label)] == ["9.0", "10.0"]


@SETTINGS
@given(st.sampled_from([("libcusolver.so.10", "libcusolver.so.11"),
                        ("cusolver64_10.dll", "cusolver64_11.dll"),
                        ("libcudnn.so.7", "libcudnn.so.8")]),
       st.sampled_from(["Why does tensorflow require {want} other than {have}?",
                        "{want} is not found, but {have} is in /usr/local/cuda/lib64"]))
def test_a_missing_library_next_to_its_other_version_is_a_mismatch(pair, sentence):
    """Dev c087: TF 2.4 wants libcusolver.so.10; the text names the .11 that is there."""
    want, have = pair
    assert rule_ids(sentence.format(want=want, have=have))[0] == "cuda-version-mismatch"


@SETTINGS
@given(st.sampled_from(["Libcudart.so.11.0 not found", "Dynamic library libcudnn.so.8 dont load",
                        "cudnn64_8.dll is missing", "can't find cublas64_11.dll"]))
def test_a_library_said_missing_in_any_words_is_read(sentence):
    ctx = read_context(sentence)
    name = re.search(r"\S+\.(?:so\S*|dll)", sentence).group().lower()
    assert name in facts.read_facts(ctx).libraries_missing


# --- GPUs -------------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from([("GeForce GTX 1070", "6.1", "7.0"), ("GRID K520", "3.0", "3.5"),
                        ("Quadro K2000", "3.0", "3.5")]),
       st.sampled_from(["Ignoring visible gpu device (device: 0, name: {gpu}, pci bus id: "
                        "0000:01:00.0, compute capability: {cc}) with Cuda compute capability "
                        "{cc}. The minimum required Cuda capability is {need}.",
                        "No CUDA device found with minimum required compute capability {need}"]),
       NOISE, NOISE)
def test_a_gpu_below_the_builds_capability_is_gpu_arch(gpu_info, line, before, after):
    gpu, cc, need = gpu_info
    found = explain(around(before, [line.format(gpu=gpu, cc=cc, need=need)], after))
    assert found[0].id == "gpu-arch-unsupported"


@pytest.mark.parametrize("line", [
    "no kernel image is available for execution on the device",
    "InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: device "
    "kernel image is invalid"])
def test_no_code_for_the_gpu_is_gpu_arch(line):
    assert rule_ids(line)[0] == "gpu-arch-unsupported"


@SETTINGS
@given(st.sampled_from(["2.11.0", "2.12.1", "2.16.1", "2.18.0"]),
       st.sampled_from(["Is GPU Available: []", "print(tf.config.list_physical_devices('GPU')) "
                        "# [] is returned", "the GPU could not be found",
                        "tensorflow can't utilize the gpu", "[name: \"/device:CPU:0\"\n"
                        "device_type: \"CPU\"\n]", "tf.test.is_gpu_available()\nFalse"]), NOISE)
def test_no_gpu_on_native_windows_with_tf_211_or_later(tf, line, noise):
    """Dev c012, c013, c016, c165, c166: any way of saying "no GPU" with TF >= 2.11 on
    native Windows."""
    text = around(noise, [f"TensorFlow version: {tf}", line], [])
    assert rule_ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text", [
    "Collecting tensorflow-gpu\n  Downloading tensorflow-gpu-2.12.0.tar.gz (2.6 kB)\n"
    "  error: subprocess-exited-with-error\nERROR: metadata-generation-failed",
    "WARNING: tensorflow 2.15.0 does not provide the extra 'and-cuda'",
    "the cuda version of my laptop is 12.1, but I can not find the correspond tensorflow-gpu"])
def test_windows_gpu_dead_ends_are_tf_windows_gpu_unsupported(text):
    assert rule_ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("libcuda, kernel, expect", [
    ("384.111.0", "384.90.0", True), ("535.104.5", "535.104.5", False)])
def test_the_drivers_two_version_reports_differing_is_driver_not_loaded(libcuda, kernel, expect):
    text = (f"failed call to cuInit: CUDA_ERROR_NO_DEVICE\nlibcuda reported version is: "
            f"{libcuda}\nkernel reported version is: {kernel}")
    assert (rule_ids(text)[0] == "driver-not-loaded") is expect


# --- packages ---------------------------------------------------------------------------------

@SETTINGS
@given(st.sampled_from(["tensorflow_text/python/metrics/_text_similarity_metric_ops.so: "
                        "undefined symbol: _ZN10tensorflow8OpKernel",
                        "tensorflow_addons/custom_ops/activations/_activation_ops.so: undefined "
                        "symbol: _ZN10tensorflow12OpDefBuilder4AttrESs",
                        "This version of TensorFlow Probability requires TensorFlow version >= "
                        "2.4; Detected an installation of version 2.3.0."]),
       st.sampled_from(["/usr/local/lib/python3.8/dist-packages/",
                        "/home/u/.venv/lib/python3.10/site-packages/", ""]), NOISE)
def test_a_companion_built_for_another_tf_is_mixed_packages(line, prefix, noise):
    found = explain(around(noise, [f"NotFoundError: {prefix}{line}"], []))
    assert found[0].id == "mixed-tf-packages"
    assert found[0].steps and "pip" in (found[0].steps[0].command or "")


@SETTINGS
@given(st.sampled_from(["tensorflow.python.framework.ops' has no attribute '_TensorLike'",
                        "tensorflow.compat.v2.__internal__' has no attribute 'tf2'",
                        "tensorflow._api.v1.compat.v2.compat' has no attribute 'v1'"]), NOISE)
def test_a_name_missing_from_tf_internals_is_mixed_packages(message, noise):
    """Standalone keras (or another library) written for another TF (dev c139, c140, c226)."""
    assert rule_ids(around(noise, [f"AttributeError: module '{message}"], []))[0] == \
        "mixed-tf-packages"


def test_a_tf1_name_missing_inside_standalone_keras_is_keras_vs_tf():
    """Dev c283: the frame is keras's own backend: keras and TF do not match."""
    text = ('  File "/opt/py/lib/python3.6/site-packages/keras/backend/tensorflow_backend.py", '
            "line 47, in get_uid\nAttributeError: module 'tensorflow' has no attribute "
            "'get_default_graph'")
    assert rule_ids(text)[0] == "mixed-tf-packages"
    user_code = ('  File "train.py", line 3, in <module>\nAttributeError: module '
                 "'tensorflow' has no attribute 'get_default_graph'")
    assert rule_ids(user_code)[0] == "tf1-api-on-tf2"


@pytest.mark.parametrize("line", [
    "TypeError: Descriptors cannot not be created directly.",
    "We expect that some modules will need time to support NumPy 2.",
    "Numpy version error compiled with API 0x10 installed 0xf",
    "ImportError: cannot import name 'abs'"])
def test_package_mismatches_in_their_real_wording(line):
    assert rule_ids(line)[0] == "mixed-tf-packages"


# --- memory, modules, distribution, warnings ---------------------------------------------------

@SETTINGS
@given(st.sampled_from(["[16,19,19,1024]", "[1024,98,98]"]), NOISE)
def test_an_oom_on_the_cpu_is_the_hosts_memory(shape, noise):
    line = (f"ResourceExhaustedError: OOM when allocating tensor with shape{shape} and type "
            "float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu")
    found = explain(around(noise, [line], []))
    assert found[0].id == "host-out-of-memory" and found[0].steps
    gpu = line.replace("device:CPU:0 by allocator cpu", "device:GPU:0 by allocator GPU_0_bfc")
    assert rule_ids(gpu)[0] == "gpu-out-of-memory"


@pytest.mark.parametrize("text", ["怎么解决oom", "Resource exhausted error during training",
                                  "BLAS GEMM Launch Failured"])
def test_out_of_memory_in_few_words(text):
    assert rule_ids(text)[0] == "gpu-out-of-memory"


def test_zoom_and_room_are_not_out_of_memory():
    assert "gpu-out-of-memory" not in rule_ids("zoom into the room")


@SETTINGS
@given(NOISE, st.sampled_from(["main_IRT.py", "train.py"]))
def test_no_module_named_tensorflow_is_an_env_not_activated(noise, script):
    text = around(noise, [f'  File "{script}", line 7, in <module>', "    import tensorflow",
                           "ModuleNotFoundError: No module named 'tensorflow'"], [])
    ids = rule_ids(text)
    assert ids[0] == "conda-env-not-activated" and "tf-not-installed" in ids
    assert "conda-env-not-activated" not in rule_ids("No module named 'tensorflow.contrib'")


@pytest.mark.parametrize("text, cause", [
    ("两个worker都在等待ps的响应", "peer-unreachable"),
    ("MultiWorker Mirrored strategy fails to start with TF_CONFIG", "peer-unreachable"),
    ("W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find "
     "TensorRT", "optional-library-missing"),
    ("Import error when using conda python.exe outside of Anaconda Powershell",
     "conda-env-not-activated"),
    ("ValueError: Your currently installed version of Keras is Keras 3, but this is not yet "
     "supported in Transformers.", "keras3-strategy-unsupported"),
    ("ModuleNotFoundError: No module named 'keras.engine'", "keras3-strategy-unsupported"),
    ("python program spitting out a tensorflow error of \"ImportError: DLL Load failed while "
     "importing\" - my CPU does not support the AVX instruction set", "cpu-no-avx"),
    ("zsh: illegal hardware instruction  python", "cpu-no-avx"),
    ("ERROR: Ignored the following versions that require a different python version: 2.16.1 "
     "Requires-Python >=3.9", "python-unsupported")])
def test_causes_said_in_words(text, cause):
    assert rule_ids(text)[0] == cause


@pytest.mark.parametrize("language", [
    "Le module spécifié est introuvable.", "Das angegebene Modul wurde nicht gefunden.",
    "找不到指定的模块。", "No se puede encontrar el módulo especificado."])
def test_module_not_found_in_windows_languages_is_the_msvc_runtime(language):
    text = f"ImportError: DLL load failed: {language}"
    assert rule_ids(text, platform="windows")[0] == "missing-msvc-runtime"


@pytest.mark.parametrize("name, cause", [("cudnn", "missing-cudnn"),
                                         ("msvcp", "missing-msvc-runtime"),
                                         ("cudart", "missing-cuda-runtime")])
def test_tfs_self_check_names_the_dll_its_build_needs(name, cause):
    text = ('  File "C:\\t\\tensorflow\\python\\platform\\self_check.py", line 87, in '
            f"preload_check\n    ctypes.WinDLL(build_info.{name}_dll_name)\n"
            "OSError: [WinError 126] 找不到指定的模块。")
    assert rule_ids(text)[0] == cause


@pytest.mark.parametrize("tf, first", [("1.6", "cpu-no-avx"), ("2.2", "missing-msvc-runtime")])
def test_a_bare_dll_load_failure_is_ranked_by_what_the_release_needs(tf, first):
    """TF 2.1+ needs the VC++ 2019 runtime; 1.6-2.0 needed AVX but no new runtime."""
    ids = rule_ids("ImportError: DLL load failed while importing _pywrap_tensorflow_internal\n"
               "Failed to load the native TensorFlow runtime.", platform="windows",
               tf_version=tf)
    assert ids[0] == first and "native-runtime-load-failed" in ids


def test_the_new_finding_has_a_title_and_steps_in_both_languages():
    from core.messages import CATALOGUE

    finding = make_finding("host-out-of-memory", "OOM ... device:CPU:0")
    assert finding.steps and all(s.message.message_id in CATALOGUE for s in finding.steps)
    assert "finding.host-out-of-memory" in CATALOGUE


# --- versions an output states, wants, or lists ------------------------------------------------

CUDA_SAID = st.sampled_from([
    "I have CUDA {v} installed", "export CUDA_HOME=/usr/local/cuda-{v}", "Using CUDA{v} now",
    "CUDA v{v}.2 and the latest driver", "my cuda version: {v}", "CUDA Version {v}.130",
    "the cuda version of my laptop is {v}", "cuda版本是{v}", "nvcc: Cuda compilation tools, "
    "release {v}, V{v}.89", "cudatoolkit               {v}.1               h59b6b97_2"])
CUDA_VERSIONS = st.sampled_from(["9.1", "9.2", "10.0", "10.2", "11.0", "11.4", "12.3"])


@SETTINGS
@given(CUDA_SAID, CUDA_VERSIONS, NOISE, NOISE)
def test_a_cuda_version_is_read_from_any_phrasing(sentence, version, before, after):
    """A person's words, nvcc, a conda list, an exported path, a patch version after it."""
    found = facts_of(around(before, [sentence.format(v=version)], after))
    assert found.cuda_stated == {version} and not found.cuda_wanted


@SETTINGS
@given(st.sampled_from(["Download and install CUDA {v} from this URL",
                        "TensorFlow requires CUDA {v}", "Could not find CUDA {v}",
                        "CUDA {v} is required", "built against CUDA {v}"]), CUDA_VERSIONS, NOISE)
def test_a_cuda_the_text_wants_is_read_as_wanted(sentence, version, noise):
    found = facts_of(around(noise, [sentence.format(v=version)], []))
    assert found.cuda_wanted == {version} and not found.cuda_stated


@pytest.mark.parametrize("line", [
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |",
    "pip install cupy-cuda11x", "tensor on cuda:0", "CUDA_VISIBLE_DEVICES=0 python train.py"])
def test_what_only_looks_like_a_cuda_version_is_not_read(line):
    """nvidia-smi's CUDA Version is what the driver supports, not a toolkit."""
    assert not facts_of(line).cuda_stated


@SETTINGS
@given(st.sampled_from([("libcudart.so.{M}.{m}", "{M}.{m}"), ("cudart64_{M}{m}.dll", "{M}.{m}")]),
       st.sampled_from([("9", "2"), ("10", "0"), ("10", "2")]),
       st.sampled_from(["/usr/local/cuda/lib64/{f}", "./cuda/targets/x86_64-linux/lib/{f}.89",
                        "-rwxr-xr-x 1 root root 491664 Jan 1 2020 /opt/cuda/lib64/{f}",
                        "lrwxrwxrwx 1 root root 20 Jan 1 2020 libcudart.so -> {f}",
                        "C:\\Program Files\\NVIDIA\\bin\\{f}"]), NOISE)
def test_a_listed_cuda_runtime_says_which_toolkit_is_installed(name, version, listing, noise):
    """find / ls -l / dir output: the runtime's file name carries its toolkit's version."""
    file, want = (part.format(M=version[0], m=version[1]) for part in name)
    assert facts_of(around(noise, [listing.format(f=file)], [])).cuda_stated == {want}


@pytest.mark.parametrize("line, version", [
    ("/usr/local/cuda-12.3/lib64/libcudart.so.12", "12"), ("C:\\cuda\\bin\\cudart64_110.dll", "11"),
    ("C:\\cuda\\bin\\cudart64_12.dll", "12")])
def test_a_listed_runtime_of_cuda_11_or_later_says_only_its_major(line, version):
    assert version in facts_of(line).cuda_stated


@pytest.mark.parametrize("line", [
    "Could not load dynamic library 'libcudart.so.10.2'; dlerror: not found",
    "ImportError: libcudart.so.9.2: cannot open shared object file",
    "cudart64_102.dll", "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] "
    "Successfully opened dynamic library cudart64_101.dll"])
def test_a_runtime_named_in_a_message_is_not_a_listing(line):
    """A loader looking for a file, or a bare name (a list of missing ones), shows nothing
    installed."""
    assert not facts._listed_cuda_runtimes(read_context(line))


@SETTINGS
@given(st.sampled_from(["cuDNN {v}", "cudnn-{v}", "CuDNN v{v}.5", "cudnn version: {v}",
                        "cuDNN版本为{v}", "with cuDNN{v}.32"]),
       st.sampled_from(["5.1", "7.0", "7.6", "8.1"]), NOISE)
def test_a_cudnn_version_is_read_from_any_phrasing(sentence, version, noise):
    assert facts_of(around(noise, [sentence.format(v=version)], [])).cudnn_stated == {version}


@pytest.mark.parametrize("line", ["cudnn64_7.dll not found", "Loaded cuDNN version 8100",
                                  "libcudnn.so.8: cannot open shared object file",
                                  "cudnn_ops_infer64_8.dll", "cudnn-10.0-windows10-x64"])
def test_cudnn_library_names_are_not_stated_versions(line):
    assert not facts_of(line).cudnn_stated


def test_a_toolkit_fits_a_build_when_it_ships_the_same_library_names():
    """CUDA 11.1+ (every name by major) fit each other; 11.0 (libcusolver.so.10) does not,
    nor 10.2 a 10.1 build (libcudart.so.10.1); a major alone fits its major."""
    fits = [("11.2", "11.8"), ("11.x", "11.4"), ("12.x", "12.6"), ("9", "9.0"), ("11.2", "11")]
    misfits = [("11.0", "11.2"), ("11.x", "11.0"), ("10.1", "10.2"), ("9", "9.1"),
               ("11.2", "12"), ("10.0", "10.1")]
    assert all(kb.toolkit_fits(want, have) for want, have in fits)
    assert not any(kb.toolkit_fits(want, have) for want, have in misfits)
    assert [v for v in ("9.1", "9.2", "10.2", "11.1", "11.8", "12.4", "8.0")
            if kb.cuda_without_build(v, "linux")] == ["9.1", "9.2", "10.2"]


LIBRARY_FAILURES = st.sampled_from([
    "Could not load dynamic library '{lib}'; dlerror: {lib}: cannot open shared object file: "
    "No such file or directory; LD_LIBRARY_PATH: /usr/local/lib",
    "ImportError: {lib}: cannot open shared object file: No such file or directory"])


@SETTINGS
@given(st.sampled_from([("2.4.1", "libcusolver.so.10", "11.2"), ("1.6.0", "libcublas.so.9.0",
                                                                 "9.1"),
                        ("2.2.0", "libcudart.so.10.1", "10.2"), ("2.6.0", "libcudart.so.11.0",
                                                                 "10.1")]),
       LIBRARY_FAILURES, CUDA_SAID, NOISE)
def test_a_stated_cuda_that_does_not_ship_the_missing_library_is_first_a_mismatch(
        case, failure, sentence, noise):
    """The text says which CUDA is installed, and its library names are not the ones the
    build loads: the mismatch ranks before "missing" (dev c088, c174)."""
    tf, lib, have = case
    text = around(noise, [failure.format(lib=lib), sentence.format(v=have)], [])
    ids = rule_ids(text, platform="linux", tf_version=tf)
    assert ids[0] == "cuda-version-mismatch" and "missing-cuda-runtime" in ids


@SETTINGS
@given(st.sampled_from(["11.3", "11.4", "11.8"]), CUDA_SAID, NOISE)
def test_a_later_cuda_11_minor_ships_the_builds_libraries(have, sentence, noise):
    """TF 2.5-2.10 load cudart64_110.dll, which every CUDA 11.1+ ships: the DLL not found is
    a search path problem first (dev c006: "installing the CUDA 11.3 libraries fixed it")."""
    text = around(noise, ["Could not load dynamic library 'cudart64_110.dll'; dlerror: "
                           "cudart64_110.dll not found", sentence.format(v=have)], [])
    ids = rule_ids(text, platform="windows", tf_version="2.9.1")
    assert ids[0] == "missing-cuda-runtime" and "cuda-version-mismatch" in ids


@SETTINGS
@given(st.sampled_from(["9.1", "9.2", "10.2"]), CUDA_SAID,
       st.sampled_from(["Failed to load the native TensorFlow runtime.",
                        "  File \"/usr/lib/python3.6/site-packages/tensorflow/__init__.py\", "
                        "line 24, in <module>\n    from tensorflow.python import "
                        "pywrap_tensorflow", "Num GPUs Available:  0"]), NOISE)
def test_a_cuda_no_release_was_built_for_is_a_mismatch(have, sentence, failure, noise):
    """No TensorFlow release named, but the CUDA the text shows is one no build loads (dev
    c174: only CUDA 9.2 is found, and the import fails)."""
    found = explain(around(noise, [sentence.format(v=have), failure], []), platform="linux")
    assert found[0].id == "cuda-version-mismatch"
    assert have in found[0].title and "no TensorFlow release" in found[0].title


@SETTINGS
@given(st.sampled_from([("1.3.0", "ImportError: libcudnn.so.6: cannot open shared object file",
                         "5.1"),
                        ("1.13.1", "Could not load dynamic library 'libcudnn.so.7'", "6.0"),
                        ("2.4.0", "Could not load dynamic library 'cudnn64_8.dll'", "7.6"),
                        ("1.13.1", "Failed to get convolution algorithm.", "7.1")]),
       st.sampled_from(["cuDNN {v}", "I installed cudnn-{v}", "CuDNN v{v}.5"]), NOISE)
def test_a_stated_cudnn_older_than_the_builds_is_a_mismatch(case, sentence, noise):
    """The build (or the missing library) wants another cuDNN major, or a newer minor (TF's
    own check): before "missing cuDNN" (dev c178, c179 in the thread's words)."""
    tf, line, have = case
    text = around(noise, [line, sentence.format(v=have)], [])
    found = explain(text, platform="linux", tf_version=tf)
    assert found[0].id == "cuda-version-mismatch" and f"cuDNN {have}" in found[0].title


@pytest.mark.parametrize("tf, have", [("1.13.1", "7.6"), ("2.4.0", "8.1"), ("1.3.0", "6")])
def test_a_stated_cudnn_the_build_accepts_is_no_mismatch(tf, have):
    text = f"Could not load dynamic library 'libcudnn.so.{have[0]}'\nI have cuDNN {have}"
    assert rule_ids(text, platform="linux", tf_version=tf)[0] == "missing-cudnn"


def test_a_major_alone_names_no_release():
    """"TensorFlow 2" is not 2.0 (dev c099: a TF 2.1-2.3 library with "TF 2")."""
    assert kb.find_build("2", "windows") is None and kb.find_build("2.0", "windows")
    text = ("Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not "
            "found")
    assert rule_ids(text, platform="windows", tf_version="2")[0] == "missing-cuda-runtime"


@pytest.mark.parametrize("line, unset", [
    ("Could not load dynamic library 'libcudart.so.11.0'", False),
    ("Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
     "open shared object file: No such file or directory", True)])
def test_an_unset_library_path_is_read_only_from_the_loaders_whole_line(line, unset):
    """TF prints "; LD_LIBRARY_PATH: ..." after the loader's error whenever it is set: a line
    cut before that error says nothing about the variable (dev c047)."""
    ids = rule_ids(line, platform="linux", tf_version="2.4")
    assert ids[0] == ("conda-env-not-activated" if unset else "missing-cuda-runtime")


@SETTINGS
@given(st.sampled_from(["cudart64_90.dll", "cudart64_100.dll"]), NOISE)
def test_tfs_self_check_naming_the_dll_is_weighed_by_its_name(dll, noise):
    """TF 1.x's self-check quotes build_info and names the DLL: the name's version decides,
    as it does without the build_info line (dev c032, c244)."""
    lines = ["    % (build_info.cudart_dll_name, build_info.cuda_version_number))",
             f"ImportError: Could not find '{dll}'. TensorFlow requires that this DLL be "
             "installed in a directory that is named in your %PATH% environment variable."]
    with_check = rule_ids(around(noise, lines, []), platform="windows")
    assert with_check[:2] == rule_ids(lines[1], platform="windows")[:2]
    assert with_check[0] == "cuda-version-mismatch"


@pytest.mark.parametrize("tf, first", [("1.9.0", True), (None, False), ("2.4.0", None)])
def test_tensorflow_gpu_on_the_cpu_is_a_cpu_package_beside_it(tf, first):
    """Before 2.1 the GPU build does not import without CUDA: one that runs on the CPU is a
    CPU ``tensorflow`` installed beside it (dev c081)."""
    ids = rule_ids("Why my tensorflow-gpu runs only on cpu?", tf_version=tf)
    assert (ids[0] == "mixed-tf-packages") is bool(first)
    assert ("mixed-tf-packages" in ids) is (first is not None)


@SETTINGS
@given(st.sampled_from(["on Windows 11", "Win10 x64", "windows 10 pro", "my Windows laptop"]),
       st.sampled_from(["2.12.0", "2.15.1"]),
       st.sampled_from(["tf.config.list_physical_devices('GPU') returns []",
                        "tensorflow doesn't detect my GPU", "it is not using the GPU",
                        "is_gpu_available() gives False"]), NOISE)
def test_windows_named_in_words_is_the_platform(where, tf, no_gpu, noise):
    text = around(noise, [f"I installed tensorflow {tf} {where}", no_gpu], [])
    assert rule_ids(text)[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text, platform", [
    ("TF on Ubuntu 20.04", "linux"), ("Windows 10, then WSL with Ubuntu", None),
    ("a MacBook Pro", "macos"), ("the window closes", None)])
def test_the_platform_named_in_words_is_one_or_none(text, platform):
    assert facts_of(text).platform_said == platform


def test_cudnns_newer_wording_of_its_version_check_is_a_mismatch():
    line = ("CuDNN library major and minor version needs to match or have higher minor version "
            "in case of CuDNN 7.0 or later version.")
    assert rule_ids(line)[0] == "cuda-version-mismatch"


def test_the_new_titles_are_said_in_both_languages():
    from core.messages import CATALOGUE

    for key in ("cuda-version-mismatch.no-build", "cuda-version-mismatch.cudnn",
                "mixed-tf-packages.cpu-package"):
        assert f"finding.{key}" in CATALOGUE


@SETTINGS
@given(st.sampled_from(["TF {v}", "tf{v}", "tf version: {v}", "tensorflow ({v})",
                        "Name: tensorflow\nVersion: {v}\nSummary: TensorFlow is an open source",
                        "TensorFlow-GPU v{v}"]),
       st.sampled_from(["2.12", "2.15.1", "1.15.0"]), NOISE)
def test_tensorflows_version_is_read_from_any_phrasing(sentence, version, noise):
    said = facts_of(around(noise, [sentence.format(v=version)], [])).tf_version_said
    assert said == kb.parse_version(version)


@pytest.mark.parametrize("text", ["tf.keras 2.4", "tf_keras 2.16.0", "tensorflow_text 2.10.0",
                                  "tf 2.4 and tensorflow 2.5", "TF 2"])
def test_no_single_tensorflow_version_is_said(text):
    assert facts_of(text).tf_version_said is None


@pytest.mark.parametrize("line", [
    "ImportError: Keras requires TensorFlow 2.2 or higher. Install TensorFlow via `pip install "
    "tensorflow`",
    "UserWarning: The versions of TensorFlow you are currently using is 2.15.0 and is not "
    "supported.",
    "ImportError: numpy.core._multiarray_umath failed to import",
    "TypeError: Unable to convert function return value to a Python type! The signature was",
    "ValueError: numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 "
    "from C header, got 80 from PyObject"])
def test_packages_built_for_another_tf_or_numpy_in_their_own_words(line):
    assert rule_ids(line)[0] == "mixed-tf-packages"


@pytest.mark.parametrize("line, keras3", [
    ("ModuleNotFoundError: No module named 'keras.src.engine'", True),
    ("ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, "
     "to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` "
     "package (Keras 2) and set the environment variable `TF_USE_LEGACY_KERAS=True`", True),
    ("ModuleNotFoundError: No module named 'keras.engine.topology'", False)])
def test_keras_3_refusals_in_their_own_words(line, keras3):
    assert (rule_ids(line)[0] == "keras3-strategy-unsupported") is keras3


# --- the real command, and linear reading -----------------------------------------------------

def test_doctor_explain_reasons_from_facts_in_a_real_process(tmp_path):
    """``tensordeck doctor --explain FILE --json`` with the thread's context (dev c183)."""
    out = tmp_path / "question.txt"
    out.write_text("Tensorflow 1.12.0 not working with CUDA 10.0\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "core", "doctor", "--explain", str(out),
                          "--platform", "linux", "--json"], cwd=ROOT, capture_output=True,
                         text=True, timeout=240)
    findings = json.loads(run.stdout)["findings"]
    assert findings[0]["id"] == "cuda-version-mismatch", run.stdout
    assert "wants CUDA 9 " in findings[0]["steps"][0]["text"], findings[0]["steps"]


NEW_PATTERNS = [value for module in (facts, reasons, prose) for value in vars(module).values()
                if isinstance(value, re.Pattern)]


# 400 kB: a quadratic pattern takes minutes there and runs into the timeout; the slowest linear
# one takes 15 s on this CI machine (a run of its words per literal), well under it under Wine
# too. At 100 kB a quadratic one took 14 s here and only Wine's slower run caught it.
@pytest.mark.timeout(120)
@pytest.mark.parametrize("rx", NEW_PATTERNS, ids=[p.pattern[:60] for p in NEW_PATTERNS])
def test_no_new_pattern_backtracks_over_what_it_read(rx):
    for text in pathological(rx, 400_000):
        found = rx.search(text)
        assert found is None or text[found.start():found.end()] == found.group()


# --- names written right after CJK text -----------------------------------------------------

CJK = st.text(alphabet="我安装了的版本显卡是训练时", min_size=1, max_size=5)


@SETTINGS
@given(CJK, st.sampled_from(["cuda", "CUDA", "Cuda"]), st.sampled_from(["10.0", "11.2", "9.0"]),
       st.sampled_from(["cudnn", "cuDNN"]), st.sampled_from(["7.4", "8.1"]))
def test_versions_written_right_after_chinese_words(before, cuda, version, cudnn, cudnn_version):
    """"安装了cuda10.0": a CJK character is a word character, so \\b is no name start there."""
    found = facts_of(f"{before}{cuda}{version}，{before}{cudnn}{cudnn_version}")
    assert found.cuda_stated == {version} and found.cudnn_stated == {cudnn_version}


@SETTINGS
@given(CJK, st.sampled_from(["GPU Available: 0", "GTX 1080 not detected", "GPU usage is 0%",
                             "RTX 3060显卡 is not used"]))
def test_no_gpu_written_right_after_chinese_words(before, said):
    assert facts_of(before + said).no_gpu, before + said
