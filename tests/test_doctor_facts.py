"""The doctor reasons from facts (core/doctor/facts.py, core/doctor/reasons.py): any phrasing
of the same facts gets the same cause. Each rule is given generated outputs (hypothesis: the
versions, paths, order and surrounding noise vary) written from the facts of the corpus's
development cases (tests/data/doctor_corpus, part "dev"), never from held-out ones. Every new
pattern is searched in its own worst-case text (linear, as tests/test_linear_parsers.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor import facts, kb, prose, reasons
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.fixes import make_finding
from core.doctor.wording import is_guess
from tests.worst_cases import pathological

ROOT = Path(__file__).resolve().parent.parent
# TensorFlow's info lines, blank lines and a training log: what surrounds an error.
NOISE = st.lists(st.sampled_from([
    "2023-05-01 10:00:00.000001: I tensorflow/core/platform/cpu_feature_guard.cc:182] This "
    "TensorFlow binary is optimized to use available CPU instructions.",
    "Epoch 1/10", "loss: 0.6931 - accuracy: 0.5000", "", "  warnings.warn(", "Using TensorFlow "
    "backend.", "Downloading data from https://storage.googleapis.com/x.npz"]), max_size=6)
SETTINGS = settings(max_examples=40, deadline=None)


def _ids(text: str, **context) -> list[str]:
    """What the rules find: the wording model's guesses (tests/test_doctor_wording.py) left out."""
    return [f.id for f in explain(text, **context) if not is_guess(f)]


def _around(noise_before: list[str], lines: list[str], noise_after: list[str]) -> str:
    return "\n".join([*noise_before, *lines, *noise_after])


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
    assert _ids(_around(before, [line], after))[0] == "cuda-version-mismatch"


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
    text = _around(noise, [sentence.format(tf=tf, cuda=cuda)], [])
    assert _ids(text, platform="linux")[0] == "cuda-version-mismatch"


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
    ids = _ids(_around(noise, [line.format(lib=lib)], []))
    assert ids[0] == "cuda-version-mismatch" and "missing-cuda-runtime" in ids


@pytest.mark.parametrize("lib", ["cudart64_80.dll", "cudart64_110.dll", "cudart64_101.dll"])
def test_a_cuda_without_a_later_minor_or_named_by_major_is_first_missing(lib):
    text = f"Could not load dynamic library '{lib}'; dlerror: {lib} not found"
    assert _ids(text, platform="windows")[0] == "missing-cuda-runtime"


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
    assert _ids(sentence.format(want=want, have=have))[0] == "cuda-version-mismatch"


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
    found = explain(_around(before, [line.format(gpu=gpu, cc=cc, need=need)], after))
    assert found[0].id == "gpu-arch-unsupported"


@pytest.mark.parametrize("line", [
    "no kernel image is available for execution on the device",
    "InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: device "
    "kernel image is invalid"])
def test_no_code_for_the_gpu_is_gpu_arch(line):
    assert _ids(line)[0] == "gpu-arch-unsupported"


@SETTINGS
@given(st.sampled_from(["2.11.0", "2.12.1", "2.16.1", "2.18.0"]),
       st.sampled_from(["Is GPU Available: []", "print(tf.config.list_physical_devices('GPU')) "
                        "# [] is returned", "the GPU could not be found",
                        "tensorflow can't utilize the gpu", "[name: \"/device:CPU:0\"\n"
                        "device_type: \"CPU\"\n]", "tf.test.is_gpu_available()\nFalse"]), NOISE)
def test_no_gpu_on_native_windows_with_tf_211_or_later(tf, line, noise):
    """Dev c012, c013, c016, c165, c166: any way of saying "no GPU" with TF >= 2.11 on
    native Windows."""
    text = _around(noise, [f"TensorFlow version: {tf}", line], [])
    assert _ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text", [
    "Collecting tensorflow-gpu\n  Downloading tensorflow-gpu-2.12.0.tar.gz (2.6 kB)\n"
    "  error: subprocess-exited-with-error\nERROR: metadata-generation-failed",
    "WARNING: tensorflow 2.15.0 does not provide the extra 'and-cuda'",
    "the cuda version of my laptop is 12.1, but I can not find the correspond tensorflow-gpu"])
def test_windows_gpu_dead_ends_are_tf_windows_gpu_unsupported(text):
    assert _ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("libcuda, kernel, expect", [
    ("384.111.0", "384.90.0", True), ("535.104.5", "535.104.5", False)])
def test_the_drivers_two_version_reports_differing_is_driver_not_loaded(libcuda, kernel, expect):
    text = (f"failed call to cuInit: CUDA_ERROR_NO_DEVICE\nlibcuda reported version is: "
            f"{libcuda}\nkernel reported version is: {kernel}")
    assert (_ids(text)[0] == "driver-not-loaded") is expect


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
    found = explain(_around(noise, [f"NotFoundError: {prefix}{line}"], []))
    assert found[0].id == "mixed-tf-packages"
    assert found[0].steps and "pip" in (found[0].steps[0].command or "")


@SETTINGS
@given(st.sampled_from(["tensorflow.python.framework.ops' has no attribute '_TensorLike'",
                        "tensorflow.compat.v2.__internal__' has no attribute 'tf2'",
                        "tensorflow._api.v1.compat.v2.compat' has no attribute 'v1'"]), NOISE)
def test_a_name_missing_from_tf_internals_is_mixed_packages(message, noise):
    """Standalone keras (or another library) written for another TF (dev c139, c140, c226)."""
    assert _ids(_around(noise, [f"AttributeError: module '{message}"], []))[0] == \
        "mixed-tf-packages"


def test_a_tf1_name_missing_inside_standalone_keras_is_keras_vs_tf():
    """Dev c283: the frame is keras's own backend: keras and TF do not match."""
    text = ('  File "/opt/py/lib/python3.6/site-packages/keras/backend/tensorflow_backend.py", '
            "line 47, in get_uid\nAttributeError: module 'tensorflow' has no attribute "
            "'get_default_graph'")
    assert _ids(text)[0] == "mixed-tf-packages"
    user_code = ('  File "train.py", line 3, in <module>\nAttributeError: module '
                 "'tensorflow' has no attribute 'get_default_graph'")
    assert _ids(user_code)[0] == "tf1-api-on-tf2"


@pytest.mark.parametrize("line", [
    "TypeError: Descriptors cannot not be created directly.",
    "We expect that some modules will need time to support NumPy 2.",
    "Numpy version error compiled with API 0x10 installed 0xf",
    "ImportError: cannot import name 'abs'"])
def test_package_mismatches_in_their_real_wording(line):
    assert _ids(line)[0] == "mixed-tf-packages"


# --- memory, modules, distribution, warnings ---------------------------------------------------

@SETTINGS
@given(st.sampled_from(["[16,19,19,1024]", "[1024,98,98]"]), NOISE)
def test_an_oom_on_the_cpu_is_the_hosts_memory(shape, noise):
    line = (f"ResourceExhaustedError: OOM when allocating tensor with shape{shape} and type "
            "float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu")
    found = explain(_around(noise, [line], []))
    assert found[0].id == "host-out-of-memory" and found[0].steps
    gpu = line.replace("device:CPU:0 by allocator cpu", "device:GPU:0 by allocator GPU_0_bfc")
    assert _ids(gpu)[0] == "gpu-out-of-memory"


@pytest.mark.parametrize("text", ["怎么解决oom", "Resource exhausted error during training",
                                  "BLAS GEMM Launch Failured"])
def test_out_of_memory_in_few_words(text):
    assert _ids(text)[0] == "gpu-out-of-memory"


def test_zoom_and_room_are_not_out_of_memory():
    assert "gpu-out-of-memory" not in _ids("zoom into the room")


@SETTINGS
@given(NOISE, st.sampled_from(["main_IRT.py", "train.py"]))
def test_no_module_named_tensorflow_is_an_env_not_activated(noise, script):
    text = _around(noise, [f'  File "{script}", line 7, in <module>', "    import tensorflow",
                           "ModuleNotFoundError: No module named 'tensorflow'"], [])
    ids = _ids(text)
    assert ids[0] == "conda-env-not-activated" and "tf-not-installed" in ids
    assert "conda-env-not-activated" not in _ids("No module named 'tensorflow.contrib'")


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
    assert _ids(text)[0] == cause


@pytest.mark.parametrize("language", [
    "Le module spécifié est introuvable.", "Das angegebene Modul wurde nicht gefunden.",
    "找不到指定的模块。", "No se puede encontrar el módulo especificado."])
def test_module_not_found_in_windows_languages_is_the_msvc_runtime(language):
    text = f"ImportError: DLL load failed: {language}"
    assert _ids(text, platform="windows")[0] == "missing-msvc-runtime"


@pytest.mark.parametrize("name, cause", [("cudnn", "missing-cudnn"),
                                         ("msvcp", "missing-msvc-runtime"),
                                         ("cudart", "missing-cuda-runtime")])
def test_tfs_self_check_names_the_dll_its_build_needs(name, cause):
    text = ('  File "C:\\t\\tensorflow\\python\\platform\\self_check.py", line 87, in '
            f"preload_check\n    ctypes.WinDLL(build_info.{name}_dll_name)\n"
            "OSError: [WinError 126] 找不到指定的模块。")
    assert _ids(text)[0] == cause


@pytest.mark.parametrize("tf, first", [("1.6", "cpu-no-avx"), ("2.2", "missing-msvc-runtime")])
def test_a_bare_dll_load_failure_is_ranked_by_what_the_release_needs(tf, first):
    """TF 2.1+ needs the VC++ 2019 runtime; 1.6-2.0 needed AVX but no new runtime."""
    ids = _ids("ImportError: DLL load failed while importing _pywrap_tensorflow_internal\n"
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


def _facts(text: str) -> facts.Facts:
    return facts.read_facts(read_context(text))


@SETTINGS
@given(CUDA_SAID, CUDA_VERSIONS, NOISE, NOISE)
def test_a_cuda_version_is_read_from_any_phrasing(sentence, version, before, after):
    """A person's words, nvcc, a conda list, an exported path, a patch version after it."""
    found = _facts(_around(before, [sentence.format(v=version)], after))
    assert found.cuda_stated == {version} and not found.cuda_wanted


@SETTINGS
@given(st.sampled_from(["Download and install CUDA {v} from this URL",
                        "TensorFlow requires CUDA {v}", "Could not find CUDA {v}",
                        "CUDA {v} is required", "built against CUDA {v}"]), CUDA_VERSIONS, NOISE)
def test_a_cuda_the_text_wants_is_read_as_wanted(sentence, version, noise):
    found = _facts(_around(noise, [sentence.format(v=version)], []))
    assert found.cuda_wanted == {version} and not found.cuda_stated


@pytest.mark.parametrize("line", [
    "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |",
    "pip install cupy-cuda11x", "tensor on cuda:0", "CUDA_VISIBLE_DEVICES=0 python train.py"])
def test_what_only_looks_like_a_cuda_version_is_not_read(line):
    """nvidia-smi's CUDA Version is what the driver supports, not a toolkit."""
    assert not _facts(line).cuda_stated


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
    assert _facts(_around(noise, [listing.format(f=file)], [])).cuda_stated == {want}


@pytest.mark.parametrize("line, version", [
    ("/usr/local/cuda-12.3/lib64/libcudart.so.12", "12"), ("C:\\cuda\\bin\\cudart64_110.dll", "11"),
    ("C:\\cuda\\bin\\cudart64_12.dll", "12")])
def test_a_listed_runtime_of_cuda_11_or_later_says_only_its_major(line, version):
    assert version in _facts(line).cuda_stated


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
    assert _facts(_around(noise, [sentence.format(v=version)], [])).cudnn_stated == {version}


@pytest.mark.parametrize("line", ["cudnn64_7.dll not found", "Loaded cuDNN version 8100",
                                  "libcudnn.so.8: cannot open shared object file",
                                  "cudnn_ops_infer64_8.dll", "cudnn-10.0-windows10-x64"])
def test_cudnn_library_names_are_not_stated_versions(line):
    assert not _facts(line).cudnn_stated


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
    text = _around(noise, [failure.format(lib=lib), sentence.format(v=have)], [])
    ids = _ids(text, platform="linux", tf_version=tf)
    assert ids[0] == "cuda-version-mismatch" and "missing-cuda-runtime" in ids


@SETTINGS
@given(st.sampled_from(["11.3", "11.4", "11.8"]), CUDA_SAID, NOISE)
def test_a_later_cuda_11_minor_ships_the_builds_libraries(have, sentence, noise):
    """TF 2.5-2.10 load cudart64_110.dll, which every CUDA 11.1+ ships: the DLL not found is
    a search path problem first (dev c006: "installing the CUDA 11.3 libraries fixed it")."""
    text = _around(noise, ["Could not load dynamic library 'cudart64_110.dll'; dlerror: "
                           "cudart64_110.dll not found", sentence.format(v=have)], [])
    ids = _ids(text, platform="windows", tf_version="2.9.1")
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
    found = explain(_around(noise, [sentence.format(v=have), failure], []), platform="linux")
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
    text = _around(noise, [line, sentence.format(v=have)], [])
    found = explain(text, platform="linux", tf_version=tf)
    assert found[0].id == "cuda-version-mismatch" and f"cuDNN {have}" in found[0].title


@pytest.mark.parametrize("tf, have", [("1.13.1", "7.6"), ("2.4.0", "8.1"), ("1.3.0", "6")])
def test_a_stated_cudnn_the_build_accepts_is_no_mismatch(tf, have):
    text = f"Could not load dynamic library 'libcudnn.so.{have[0]}'\nI have cuDNN {have}"
    assert _ids(text, platform="linux", tf_version=tf)[0] == "missing-cudnn"


def test_a_major_alone_names_no_release():
    """"TensorFlow 2" is not 2.0 (dev c099: a TF 2.1-2.3 library with "TF 2")."""
    assert kb.find_build("2", "windows") is None and kb.find_build("2.0", "windows")
    text = ("Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not "
            "found")
    assert _ids(text, platform="windows", tf_version="2")[0] == "missing-cuda-runtime"


@pytest.mark.parametrize("line, unset", [
    ("Could not load dynamic library 'libcudart.so.11.0'", False),
    ("Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
     "open shared object file: No such file or directory", True)])
def test_an_unset_library_path_is_read_only_from_the_loaders_whole_line(line, unset):
    """TF prints "; LD_LIBRARY_PATH: ..." after the loader's error whenever it is set: a line
    cut before that error says nothing about the variable (dev c047)."""
    ids = _ids(line, platform="linux", tf_version="2.4")
    assert ids[0] == ("conda-env-not-activated" if unset else "missing-cuda-runtime")


@SETTINGS
@given(st.sampled_from(["cudart64_90.dll", "cudart64_100.dll"]), NOISE)
def test_tfs_self_check_naming_the_dll_is_weighed_by_its_name(dll, noise):
    """TF 1.x's self-check quotes build_info and names the DLL: the name's version decides,
    as it does without the build_info line (dev c032, c244)."""
    lines = ["    % (build_info.cudart_dll_name, build_info.cuda_version_number))",
             f"ImportError: Could not find '{dll}'. TensorFlow requires that this DLL be "
             "installed in a directory that is named in your %PATH% environment variable."]
    with_check = _ids(_around(noise, lines, []), platform="windows")
    assert with_check[:2] == _ids(lines[1], platform="windows")[:2]
    assert with_check[0] == "cuda-version-mismatch"


@pytest.mark.parametrize("tf, first", [("1.9.0", True), (None, False), ("2.4.0", None)])
def test_tensorflow_gpu_on_the_cpu_is_a_cpu_package_beside_it(tf, first):
    """Before 2.1 the GPU build does not import without CUDA: one that runs on the CPU is a
    CPU ``tensorflow`` installed beside it (dev c081)."""
    ids = _ids("Why my tensorflow-gpu runs only on cpu?", tf_version=tf)
    assert (ids[0] == "mixed-tf-packages") is bool(first)
    assert ("mixed-tf-packages" in ids) is (first is not None)


@SETTINGS
@given(st.sampled_from(["on Windows 11", "Win10 x64", "windows 10 pro", "my Windows laptop"]),
       st.sampled_from(["2.12.0", "2.15.1"]),
       st.sampled_from(["tf.config.list_physical_devices('GPU') returns []",
                        "tensorflow doesn't detect my GPU", "it is not using the GPU",
                        "is_gpu_available() gives False"]), NOISE)
def test_windows_named_in_words_is_the_platform(where, tf, no_gpu, noise):
    text = _around(noise, [f"I installed tensorflow {tf} {where}", no_gpu], [])
    assert _ids(text)[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text, platform", [
    ("TF on Ubuntu 20.04", "linux"), ("Windows 10, then WSL with Ubuntu", None),
    ("a MacBook Pro", "macos"), ("the window closes", None)])
def test_the_platform_named_in_words_is_one_or_none(text, platform):
    assert _facts(text).platform_said == platform


def test_cudnns_newer_wording_of_its_version_check_is_a_mismatch():
    line = ("CuDNN library major and minor version needs to match or have higher minor version "
            "in case of CuDNN 7.0 or later version.")
    assert _ids(line)[0] == "cuda-version-mismatch"


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
    said = _facts(_around(noise, [sentence.format(v=version)], [])).tf_version_said
    assert said == kb.parse_version(version)


@pytest.mark.parametrize("text", ["tf.keras 2.4", "tf_keras 2.16.0", "tensorflow_text 2.10.0",
                                  "tf 2.4 and tensorflow 2.5", "TF 2"])
def test_no_single_tensorflow_version_is_said(text):
    assert _facts(text).tf_version_said is None


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
    assert _ids(line)[0] == "mixed-tf-packages"


@pytest.mark.parametrize("line, keras3", [
    ("ModuleNotFoundError: No module named 'keras.src.engine'", True),
    ("ImportError: `keras.optimizers.legacy` is not supported in Keras 3. When using `tf.keras`, "
     "to continue using a `tf.keras.optimizers.legacy` optimizer, you can install the `tf_keras` "
     "package (Keras 2) and set the environment variable `TF_USE_LEGACY_KERAS=True`", True),
    ("ModuleNotFoundError: No module named 'keras.engine.topology'", False)])
def test_keras_3_refusals_in_their_own_words(line, keras3):
    assert (_ids(line)[0] == "keras3-strategy-unsupported") is keras3


# --- issue 21, second round: facts the dev misses stated in other words ------------------------

GPU_QUERIES = ["gpus = tf.config.experimental.list_physical_devices('GPU')",
               "tf.config.list_physical_devices(device_type=\"GPU\")",
               "print(tf.test.gpu_device_name())", "device_lib.list_local_devices()",
               "tf.config.get_visible_devices('GPU')"]
EMPTY_ANSWERS = ["This piece of code return empty array", "it returns an empty list",
                 "I just get an empty list", "and it gave an empty array", "Output: is empty list",
                 "an empty list is returned", "but it prints an empty []",
                 "The call shows only an empty list"]


@SETTINGS
@given(NOISE, NOISE, st.sampled_from(GPU_QUERIES), st.sampled_from(EMPTY_ANSWERS),
       st.sampled_from(["2.11.0", "2.12.0", "2.15.1", "2.18"]),
       st.sampled_from(["", "When in reality I have two GTX 1070", "RTX 3060 here"]))
def test_an_empty_answer_told_in_words_after_a_gpu_query_is_no_gpu(before, after, query,
                                                                   answer, tf, gpu):
    """A GPU query, then the answer in words on its own line ("This piece of code return empty
    array", dev c290): on native Windows with TF 2.11+ that is the Windows build's missing
    GPU support, as the printed ``[]`` is."""
    text = _around(before, [query, answer, gpu], after)
    assert _ids(text, platform="windows", tf_version=tf)[0] == "tf-windows-gpu-unsupported"
    printed = _around(before, [query, "[]", gpu], after)
    assert facts.read_facts(read_context(text)).no_gpu
    assert _ids(printed, platform="windows", tf_version=tf)[0] == "tf-windows-gpu-unsupported"


@SETTINGS
@given(NOISE, st.sampled_from(EMPTY_ANSWERS))
def test_an_empty_answer_without_a_gpu_query_says_nothing_of_the_gpu(noise, answer):
    """"returns an empty list" alone is about anything: only a text that asks for the GPUs
    makes it a device list."""
    text = _around(noise, ["files = glob.glob('data/*.csv')", answer], [])
    assert not facts.read_facts(read_context(text)).no_gpu


@SETTINGS
@given(NOISE, NOISE, st.sampled_from([("cusolver64_10.dll", "cusolver64_11.dll"),
                                      ("libcusolver.so.10", "libcusolver.so.11"),
                                      ("cudart64_101.dll", "cudart64_102.dll"),
                                      ("libcublas.so.9.0", "libcublas.so.9.1")]),
       st.sampled_from(["tensorflow is looking for {want} on a CUDA installation",
                        "TF looks for {want} and I can't find it",
                        "tensorflow-nightly-gpu looking for {want} on my machine",
                        "it searches for {want}"]),
       st.sampled_from(["but my CUDA installed {have}.", "{have} is in the bin folder",
                        "All of them doesn't install {want} but installed {have}."]))
def test_a_library_looked_for_beside_its_other_version_is_a_mismatch(before, after, pair,
                                                                     asks, has):
    """"looking for cusolver64_10.dll" while the text names cusolver64_11.dll (dev c321): the
    library is wanted and missing, another version of it is there."""
    want, have = pair
    text = _around(before, [asks.format(want=want), has.format(want=want, have=have)], after)
    assert want.lower() in facts.read_facts(read_context(text)).libraries_missing
    assert _ids(text)[0] == "cuda-version-mismatch"


@SETTINGS
@given(NOISE, st.sampled_from(["2.5.0", "2.6.2", "2.8.0", "2.11.0"]),
       st.sampled_from(["libcudart.so.11.0", "libcudart.so. 11.0"]))
def test_a_name_every_minor_ships_pins_no_minor(noise, tf, cut):
    """libcudart.so.11.0 is the soname of every CUDA 11.x: its absence under a CUDA 11 build
    says the runtime is missing, not that another 11.x minor replaced it (dev c308); a cut
    line that leaves "libcudart.so." beside it names no other version."""
    line = (f"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
            f"dynamic library 'libcudart.so.11.0'; dlerror: {cut}: cannot open shared object "
            f"file: No such file or director")
    assert _ids(_around(noise, [line], []), platform="linux",
                tf_version=tf)[0] == "missing-cuda-runtime"


@pytest.mark.parametrize("name, pinned", [
    ("libcublas.so.9.0", True), ("cublas64_90.dll", True), ("libcudart.so.11.0", False),
    ("libcusolver.so.11", False)])
def test_only_names_that_carry_their_minor_pin_it(name, pinned):
    """A CUDA library name pins a toolkit minor only when every toolkit that ships it has it."""
    labels = kb.library_info(name).cuda_versions
    assert (bool(labels) and all(kb.minor_pinned_and_superseded(lb) for lb in labels)) is pinned


@SETTINGS
@given(st.sampled_from(["libcudart.so.11.0", "libcublas.so.11", "libcusparse.so.11"]),
       st.integers(1, 40))
def test_only_a_loader_line_read_to_its_end_says_the_library_path_is_unset(lib, cut):
    """The loader's line ends "No such file or directory" when LD_LIBRARY_PATH is unset, and
    goes on with "; LD_LIBRARY_PATH: ..." when it is set: a line cut anywhere before that end
    says nothing about the variable (dev c308), the whole one does (dev c047)."""
    whole = (f"Could not load dynamic library '{lib}'; dlerror: {lib}: cannot open shared "
             f"object file: No such file or directory")
    ids = _ids(whole[:-cut], platform="linux", tf_version="2.4")
    assert "conda-env-not-activated" not in ids[:1]
    assert _ids(whole, platform="linux", tf_version="2.4")[0] == "conda-env-not-activated"


@SETTINGS
@given(NOISE, st.sampled_from(["Module", "module", "AttributeError: module"]),
       st.sampled_from(["contrib", "placeholder", "Session", "examples"]))
def test_a_tf1_attribute_is_read_whatever_the_case_of_its_first_word(noise, word, attr):
    """"Module 'tensorflow' has no attribute 'contrib'" as a title (dev c340) is the same fact
    as the exception's lower-case message."""
    line = f"{word} 'tensorflow' has no attribute '{attr}'"
    assert _ids(_around(noise, [line], []), tf_version="2.3.0")[0] == "tf1-api-on-tf2"


# --- versions written number first, TensorFlow's module not found, a port used twice ---------

NUMBER_FIRST = st.sampled_from([
    ("CUDA/cuDNN version: {c}", False), ("CUDA/cuDNN version: {c}/{d}", True),
    ("CUDA/cuDNN version\n{c} / {d}", True), ("CUDA / cuDNN version: {c} and {d}", True),
    ("- CUDA/cuDNN version:  {c}.1, {d}.5", True), ("cuda/cudnn: v{c} + {d}", True),
    ("{c} cuda / {d} cudnn", True), ("I use {c} CUDA with {d} cuDNN", True)])


@SETTINGS
@given(NUMBER_FIRST, st.sampled_from(["9.0", "10.0", "10.2", "11.2", "11.8", "12.3"]),
       st.sampled_from(["7.6", "8.1", "8.9"]), NOISE, NOISE)
def test_versions_written_number_first_are_read(form, cuda, cudnn, before, after):
    """The issue template's "CUDA/cuDNN version: 10.0" (dev c357), its value on the next line,
    and "10.2 cuda / 7.6 cudnn" (dev c356): the number before its component's name."""
    sentence, has_cudnn = form
    found = _facts(_around(before, [sentence.format(c=cuda, d=cudnn)], after))
    assert found.cuda_stated == {cuda} and not found.cuda_wanted
    assert found.cudnn_stated == ({cudnn} if has_cudnn else set())


@pytest.mark.parametrize("text, cuda, cudnn", [
    ("CUDA/cuDNN version: 8.1", set(), set()),  # no CUDA 8.1: a cuDNN in CUDA's place
    ("cuDNN 7.6 cuda 10.1", {"10.1"}, {"7.6"}), ("cuda 10.1 cudnn", {"10.1"}, set()),
    ("Ubuntu 20.04 cuda", set(), set()), ("requires 10.0 cuda", set(), set()),
    ("Ubuntu 20.04\nCUDA/cuDNN version: N/A", set(), set())])
def test_a_number_first_is_read_only_where_it_is_that_components(text, cuda, cudnn):
    found = _facts(text)
    assert found.cuda_stated == cuda and found.cudnn_stated == cudnn


@SETTINGS
@given(st.sampled_from([("2.1.0", "windows", "cudart64_101.dll"), ("2.3.0", "windows",
                                                                    "cudart64_101.dll"),
                        ("2.2.0", "linux", "libcudart.so.10.1"), ("1.13.1", "linux",
                                                                  "libcublas.so.10.0")]),
       st.sampled_from(["CUDA/cuDNN version: {v}", "CUDA/cuDNN version: {v} / 7.6",
                        "{v} cuda / 7.6 cudnn", "CUDA/cuDNN version\n{v}/7"]),
       st.sampled_from(["9.2", "10.2", "11.0", "11.4"]), NOISE)
def test_a_cuda_stated_number_first_against_the_builds_is_a_mismatch(build, field, cuda, noise):
    """The template's CUDA is not the one the release or the missing library wants (dev c356,
    c357): the mismatch comes before "missing"."""
    tf, platform, lib = build
    text = _around(noise, [f"TensorFlow version: {tf}", field.format(v=cuda),
                           f"Could not load dynamic library '{lib}'; dlerror: {lib} not found"],
                   [])
    assert _ids(text, platform=platform, tf_version=tf)[0] == "cuda-version-mismatch"


@SETTINGS
@given(NOISE, st.sampled_from(["import tensorflow", ">>> import tensorflow as tf",
                               "from tensorflow import keras", "import tensorflow as tf"]),
       st.sampled_from(["Error: ModuleNotFoundError", "ModuleNotFoundError",
                        "ImportError: No module named tensorflow.\"",
                        "ModuleNotFoundError: No module named"]),
       st.integers(0, 2))
def test_tensorflows_import_failing_with_no_module_named_is_an_env_not_activated(
        noise, statement, error, gap):
    """The import, then an error that names no module (dev c355: "Error:
    ModuleNotFoundError"), or "No module named tensorflow." ending a sentence (dev c380)."""
    lines = [statement, *["  File \"<stdin>\", line 1, in <module>"] * gap, error]
    assert _ids(_around(noise, lines, []))[0] == "conda-env-not-activated"


@pytest.mark.parametrize("text", [
    "import tensorflow as tf\nModuleNotFoundError: No module named 'keras'",
    "import tensorflow as tf\nModuleNotFoundError                 Traceback (most recent call "
    "last)\n----> 1 import cv2\nModuleNotFoundError: No module named 'cv2'",
    "ModuleNotFoundError\nimport tensorflow as tf",
    "import tensorflow as tf\n" + "Epoch 1/10\n" * 6 + "ModuleNotFoundError"])
def test_a_module_error_about_another_module_or_far_away_is_not_tensorflows(text):
    assert "conda-env-not-activated" not in _ids(text)[:1]


@SETTINGS
@given(st.sampled_from(["start_server is called twice per worker (with the same ports)",
                        "both workers were given the same port 2222",
                        "the server starts again on the same port and fails",
                        "two tasks use the same host port", "训练时提示端口被占用",
                        "端口已经被占用了怎么办"]), NOISE, NOISE)
def test_a_port_used_twice_said_in_words_is_port_in_use(sentence, before, after):
    """Two servers on one port, told in words (dev c385)."""
    assert _ids(_around(before, [sentence], after))[0] == "port-in-use"


@pytest.mark.parametrize("text", ["the ps and the worker use the same port number format",
                                  "two GPUs were found", "use port 2222 twice as fast"])
def test_a_port_or_twice_alone_is_not_port_in_use(text):
    assert "port-in-use" not in _ids(text)


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


# --- fourth round (tests/data/doctor_corpus c386-c417): facts of its development cases -------

@SETTINGS
@given(NOISE, NOISE, st.sampled_from([
    "Intel(R) Xeon(R) CPU           X5650  @ 2.67GHz", "CPU: Intel Xeon x5450",
    "Intel(R) Core(TM)2 Quad CPU    Q9650  @ 3.00GHz", "I have an i7 920 CPU",
    "Intel(R) Core(TM) i3 CPU       M 330  @ 2.13GHz", "Intel(R) Pentium(R) CPU G4560 @ 3.50GHz",
    "AMD Phenom(tm) II X4 965 Processor", "Intel(R) Atom(TM) CPU D525", "Xeon E5520 server"]),
    st.sampled_from(["Illegal instruction (core dumped)", "\"import tensorflow as tf\" fails",
                     "Process finished with exit code 132", "Traceback (most recent call last):"]))
def test_a_cpu_model_without_avx_named_is_the_cause(before, after, cpu, failure):
    """c393, c417: a CPU the text names whose generation has no AVX (Intel before Sandy Bridge,
    Pentium / Celeron / Atom, AMD before Bulldozer), whatever else the output says."""
    text = _around(before, [cpu, failure], after)
    assert _ids(text)[0] == "cpu-no-avx", _ids(text)


@SETTINGS
@given(NOISE, st.sampled_from([
    "Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz", "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz",
    "11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz", "Intel(R) Xeon(R) Gold 6130 CPU",
    "AMD Ryzen 9 3900X", "Intel(R) Xeon(R) Platinum 8269CY CPU", "Core i5-3230M",
    "AMD Athlon 200GE"]))
def test_a_cpu_with_avx_is_not_read_as_one_without(noise, cpu):
    text = _around(noise, [cpu, "Traceback (most recent call last):"], [])
    ctx = read_context(text)
    assert facts.read_facts(ctx).cpu_without_avx == []


@SETTINGS
@given(NOISE, NOISE, st.sampled_from(["Variable", "constant", "__version__", "Tensor"]),
       st.sampled_from(["Module", "module", "AttributeError: module"]))
def test_an_attribute_every_tensorflow_has_missing_is_a_broken_install(before, after, attr, word):
    """c405: ``module 'tensorflow' has no attribute 'Variable'``: every release has it, so the
    package is not a whole TensorFlow (two distributions, one uninstalled), not TF 1.x code."""
    text = _around(before, [f"{word} 'tensorflow' has no attribute '{attr}'"], after)
    assert _ids(text)[0] == "mixed-tf-packages", _ids(text)


def test_a_tf1_only_attribute_stays_tf1_code() -> None:
    assert _ids("AttributeError: module 'tensorflow' has no attribute 'Session'")[0] == (
        "tf1-api-on-tf2")


_TF_DISTS = ["tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly"]


@SETTINGS
@given(NOISE, st.sampled_from(_TF_DISTS), st.sampled_from(_TF_DISTS),
       # Up to 2.10: later tensorflow-gpu releases are placeholders that only fail to install.
       st.sampled_from(["1.3.0", "1.8.0", "2.4.1", "2.10.0"]),
       st.sampled_from(["1.5.0", "2.0.0", "2.6.0rc1", "2.9.1"]),
       st.sampled_from(["show", "freeze"]), st.booleans())
def test_two_tensorflow_distributions_as_pip_prints_them(noise, one, two, v1, v2, tool, location):
    """c401: pip show (``Name:`` then ``Version:``) or pip freeze (``==``) lists two
    TensorFlow distributions of two versions: they share one tensorflow folder."""
    if one == two:
        two = "tensorflow-gpu" if one != "tensorflow-gpu" else "tensorflow"
    if tool == "show":
        where = ["Location: /usr/lib/python3/dist-packages"] if location else []
        lines = ["AttributeError: 'module' object has no attribute 'Exporter'",
                 f"Name: {one}", f"Version: {v1}", *where, "---", f"Name: {two}",
                 f"Version: {v2}", *where]
    else:
        lines = ["absl-py==0.9.0", f"{one}=={v1}", "numpy==1.18.2", f"{two}=={v2}"]
    text = _around(noise, lines, [])
    assert _ids(text)[0] == "mixed-tf-packages", _ids(text)


def test_tensorflow_and_its_windows_wheel_of_one_version_are_not_two() -> None:
    """``tensorflow`` on Windows depends on ``tensorflow-intel`` of its own version: one."""
    text = "Name: tensorflow\nVersion: 2.15.0\n---\nName: tensorflow-intel\nVersion: 2.15.0"
    assert "mixed-tf-packages" not in _ids(text)


@SETTINGS
@given(NOISE, NOISE, st.sampled_from(["tf-nightly", "tf_nightly", "tf-estimator-nightly",
                                      "tensorflow nightly", "2.6.0.dev20210526"]),
       st.sampled_from(["cannot import tensorflow", "Failed to import tensorflow",
                        "I can't import tensorflow"]))
def test_a_nightly_beside_an_import_that_fails_for_no_said_reason(before, after, nightly,
                                                                   failed):
    """c406: the import fails, the loader says nothing, and a nightly is installed: what is
    left of the other TensorFlow in the same folder, before the CPU / runtime guesses."""
    text = _around(before, [f"{nightly}: {failed}"], after)
    assert _ids(text)[0] == "mixed-tf-packages", _ids(text)


@SETTINGS
@given(NOISE, NOISE, st.sampled_from([
    "tensorflow module not found", "TensorFlow module not found", "module tensorflow not found",
    "Module 'tensorflow' was not found", "can't find the tensorflow module",
    "could not find tensorflow package"]), st.sampled_from(["For any Win 64 users running into ",
                                                           "Jupyter says ", ""]))
def test_no_tensorflow_module_said_in_words(before, after, words, lead):
    """c414: "running into tensorflow module not found": ``No module named 'tensorflow'``."""
    text = _around(before, [lead + words], after)
    assert _ids(text)[0] == "conda-env-not-activated", _ids(text)


@SETTINGS
@given(NOISE, NOISE, st.integers(1024, 65535), st.sampled_from([
    "I will get an error because the port {p} is already used",
    "fails in colab, with the error `Port {p} is in use by another program`",
    "ERROR: TensorBoard could not bind to port {p}, it was already in use",
    "the port {p} was taken by another process", "Unable to bind to port {p}"]))
def test_a_port_in_use_said_in_words(before, after, port, sentence):
    """c415, c416: a port already used, in a person's or a tool's words."""
    text = _around(before, [sentence.format(p=port)], after)
    assert _ids(text)[0] == "port-in-use", _ids(text)


@SETTINGS
@given(NOISE, st.sampled_from(["keras.src.backend.common.keras_tensor.KerasTensor",
                               "keras.src.engine.keras_tensor.KerasTensor"]),
       st.sampled_from(["Data of type <class '{c}'> is not allowed only (<class "
                        "'tensorflow.python.framework.tensor.Tensor'>,",
                        "TypeError: <class '{c}'> is not supported",
                        "ValueError: Expected a tf.Tensor, got <class '{c}'> which cannot be "
                        "converted"]))
def test_a_keras3_tensor_refused_by_keras2_code(noise, cls, sentence):
    """c387: a Keras 3 object (``keras.src.``) handed to code written for Keras 2."""
    text = _around(noise, [sentence.format(c=cls)], [])
    assert _ids(text)[0] == "keras3-strategy-unsupported", _ids(text)


def _signature(fid: str, score: int) -> re.Pattern:
    from core.doctor import explain as explain_module
    return next(sig.pattern for sig in explain_module._SIGNATURES
                if sig.fid == fid and sig.score == score)


def _fourth_round() -> list[tuple[str, re.Pattern, str]]:
    from core.doctor import explain as explain_module
    return [
        ("cpu-without-avx", facts._CPU_WITHOUT_AVX, "Xeon X5450 Core 2 i7 920 Celeron Atom "),
        ("no-tf-module", reasons._NO_TF_MODULE, "tensorflow module not can't find the "),
        ("pip-show", explain_module._PIP_SHOW, "Name: tensorflow-gpu\nVersion: 1.3\n"),
        ("pip-freeze", explain_module._PIP_FREEZE, "tensorflow==1.3.0 tensorflow-gpu=="),
        ("nightly", explain_module._NIGHTLY, "tf-nightly 2.6.0.dev2021 tf_nightly "),
        ("port-words", _signature("port-in-use", 86), "port already could not bind port "),
        ("keras3-tensor", _signature("keras3-strategy-unsupported", 86),
         "keras.src.keras_tensor.KerasTensor keras.src. "),
    ]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "rx", "words"), _fourth_round(),
                         ids=[n for n, _, _ in _fourth_round()])
def test_the_fourth_rounds_patterns_are_linear(name, rx, words):
    """4 MB of newlines and of the pattern's own words, searched to the end: a linear pattern
    takes well under a second, a quadratic one minutes and fails on the timeout (no timing is
    asserted, as in tests/test_linear_parsers.py)."""
    for base in ("\n", words):
        text = (base * (2**22 // len(base) + 1))[:2**22]
        for found in rx.finditer(text):
            assert text[found.start():found.end()] == found.group(), name


# --- issue 21, fifth round: facts the dev misses stated in other words -------------------------

@SETTINGS
@given(NOISE, st.sampled_from(["libcudart.so.7.5", "libcublas.so.8.0", "cudart64_75.dll",
                               "cufft64_80.dll"]),
       st.sampled_from(["os:ubuntu 16.04 LTS,cuda:{have}", "Installed:\nCuda {have}\ncuDNN 7.5.0",
                        "cuda={have}", "CUDA/cuDNN version\n\n{have}"]),
       st.sampled_from(["10.0", "9.1", "12.0"]))
def test_an_old_toolkits_library_missing_beside_another_installed_cuda_is_a_mismatch(
        noise, lib, said, have):
    """c457, c464, c466: a library named for CUDA 7.5 / 8.0 (up to 10.0 every name carries its
    toolkit's version), and another CUDA said installed in the poster's words."""
    text = _around(noise, [f"ImportError: {lib}: cannot open shared object file: No such file "
                           "or directory", said.format(have=have)], [])
    assert kb.library_info(lib).cuda_versions, lib
    assert _ids(text)[0] == "cuda-version-mismatch", _ids(text)


@pytest.mark.parametrize("name, stem", [("cudart_91.dll", "cudart64_.dll"),
                                        ("cudart64_80.dll", "cudart64_.dll"),
                                        ("libcusolver.so.10", "libcusolver.so")])
def test_a_runtime_named_without_its_64_is_the_same_library(name, stem):
    """c458: "the dll in my BIN is cudart_91.dll" names cudart64_91.dll."""
    assert facts.library_stem(name) == stem


@SETTINGS
@given(NOISE, st.sampled_from(["Is GPU available? []", "GPU available?: False",
                               "Is TensorFlow built with CUDA?: False"]),
       st.sampled_from(["2.11.0", "2.16.1"]))
def test_a_gpu_check_printed_as_a_question_is_no_gpu(noise, line, tf):
    """c431: a script's own question-and-answer lines."""
    text = _around(noise, [f"TensorFlow version: {tf}", line], [])
    assert _ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported", _ids(text)


@pytest.mark.parametrize("line", [
    "No such object: tensorflow/libtensorflow/libtensorflow-gpu-windows-x86_64-2.11.0.zip",
    "libtensorflow-gpu-windows-x86_64-2.15.0.zip: 404 Not Found"])
def test_a_windows_gpu_build_after_210_is_asked_for(line):
    """c435: the C library's GPU zip for Windows ends with 2.10 as the wheels do."""
    assert _ids(line)[0] == "tf-windows-gpu-unsupported", _ids(line)


@SETTINGS
@given(NOISE, st.sampled_from(["3.6", "3.11", "3.12"]),
       st.sampled_from(["0.12.0rc0", "1.15", "2.10.0"]))
def test_condas_conflict_of_python_and_tensorflow_is_the_python(noise, python, tf):
    """c449: conda lists the specs it found in conflict."""
    text = _around(noise, ["UnsatisfiableError: The following specifications were found to be "
                           "in conflict:", f"  - python {python}*", f"  - tensorflow {tf}*",
                           'Use "conda info <package>" to see the dependencies for each package.'],
                   [])
    assert _ids(text)[0] == "python-unsupported", _ids(text)


@SETTINGS
@given(st.sampled_from(["a", "b", "0xa", "0x10"]), st.sampled_from(["9", "0x9", "8"]))
def test_numpys_api_versions_with_or_without_0x(built, installed):
    """c473: NumPy before 1.11 printed the API versions without 0x."""
    text = (f"RuntimeError: module compiled against API version {built} but this version of "
            f"numpy is {installed}")
    assert _ids(text)[0] == "mixed-tf-packages", _ids(text)


@SETTINGS
@given(st.sampled_from(["tensorflow_addons", "tensorflow_text", "tensorflow_probability"]),
       st.sampled_from(["tensorflow_core.keras.utils", "tensorflow.keras.layers",
                        "tensorflow.python.ops"]),
       st.sampled_from(["register_keras_serializable", "experimental", "__internal__"]))
def test_a_companion_asking_tf_for_a_name_it_lacks_is_mixed_packages(package, module, name):
    """c476: tensorflow-addons built for a newer TF than the one installed."""
    text = _around([], ["Traceback (most recent call last):",
                        f'  File "C:\\envs\\tf\\lib\\site-packages\\{package}\\__init__.py", line '
                        "21, in <module>",
                        f"AttributeError: module '{module}' has no attribute '{name}'"], [])
    assert _ids(text)[0] == "mixed-tf-packages", _ids(text)


@pytest.mark.parametrize("text", [
    "from keras.preprocessing.text import Tokenizer\nwe found out the text module is missing in "
    "Keras 3.\ntensorflow version: 2.16.1",
    'File "/usr/lib/python3.11/site-packages/keras/src/callbacks/model_checkpoint.py", line 191\n'
    "ValueError: The filepath provided must end in `.keras` (Keras model format). Received: "
    "filepath=./weights.h5",
    "---> 97             raise ValueError(\n     98                 \"Only instances of "
    "`keras.Layer` can be \""])
def test_keras3_in_the_fifth_rounds_words(text):
    """c427, c424, c418: a person's words, Keras 3's .keras format, a message cut where its
    string literal breaks."""
    assert _ids(text)[0] == "keras3-strategy-unsupported", _ids(text)


@SETTINGS
@given(NOISE, st.sampled_from(["TensorFlow 2.15 on Windows 11 does not use my RTX 3060",
                               "Only CPU is being used. tf version 2.16.1",
                               "GPU usage stays at 0% while training",
                               "Default GPU Device: None",
                               "tf.test.gpu_device_name() returns ''"]))
def test_no_gpu_in_more_words(noise, line):
    text = _around(noise, [line], [])
    assert facts.read_facts(read_context(text)).no_gpu, text
    assert _ids(text, platform="windows", tf_version="2.12")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text, python", [("on python 3.11 on windows", (3, 11)),
                                          ("Python3.12 here", (3, 12)),
                                          ("python 3.10.4", (3, 10))])
def test_pythons_version_said_in_words(text, python):
    assert read_context(text).python == python


def test_a_release_for_an_older_python_said_in_words_is_python_unsupported():
    text = "tensorflow-gpu 2.10 cannot be installed on python 3.11 on windows"
    assert _ids(text)[0] == "python-unsupported", _ids(text)


@SETTINGS
@given(NOISE, st.sampled_from([
    "W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES failed at xla_ops.cc:446 : "
    "INTERNAL: libdevice not found at ./libdevice.10.bc",
    "W external/local_xla/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:102] Can't find "
    "libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime "
    "failures, if the program we try to run uses routines from libdevice.",
    "W tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:85] Couldn't get ptxas "
    "version string: INTERNAL: Couldn't invoke ptxas --version",
    "E external/local_xla/xla/stream_executor/gpu/asm_compiler.cc] ptxas: not found"]),
       st.sampled_from([("2.12", "cu11"), ("2.16.1", "cu12")]))
def test_xla_without_the_toolkits_compiler_pieces(noise, line, release):
    """XLA's JIT needs ptxas and libdevice, which pip's CUDA runtime wheels do not bring: the
    fix installs NVIDIA's nvcc wheel for the CUDA major the release wants, or points
    XLA_FLAGS at a toolkit (domain knowledge, written before round 6 was read)."""
    tf, wheel = release
    [first, *_] = explain(_around(noise, [line], []), platform="linux", tf_version=tf)
    assert first.id == "missing-cuda-runtime", first
    assert "ptxas" in first.title_in()
    commands = [s.command or "" for s in first.steps]
    assert any(f"nvidia-cuda-nvcc-{wheel}" in c for c in commands), commands
    assert any("--xla_gpu_cuda_data_dir=" in c for c in commands), commands


# --- issue 21, sixth round (a representative sample): facts of its development cases --------

@SETTINGS
@given(NOISE, st.sampled_from([
    "  File \"/usr/local/lib/python3.6/dist-packages/keras/engine/topology.py\", line 3114, in "
    "load_weights_from_hdf5_group_by_name", "keras.load_model会报错",
    "model.load_weights('yolo.h5')"]))
def test_h5py_3_under_old_keras_loading_is_pinned_below_3(noise, frame):
    """c522-c524: h5py 3 gives str where Keras' HDF5 loading decodes bytes."""
    text = _around(noise, [frame, "    original_keras_version = f.attrs['keras_version']"
                                  ".decode('utf8')",
                           "AttributeError: 'str' object has no attribute 'decode'"], [])
    [first, *_] = explain(text)
    assert first.id == "dependency-version-conflict", first
    assert any("h5py<3" in (s.command or "") for s in first.steps), first.steps


def test_a_str_decode_error_elsewhere_is_not_h5pys():
    text = "line.decode('utf8')\nAttributeError: 'str' object has no attribute 'decode'"
    assert "dependency-version-conflict" not in _ids(text)[:1]


@pytest.mark.parametrize("tf, expected", [(None, True), ("2.4.1", True), ("1.15", True),
                                          ("2.8.0", False)])
def test_numpy_120_under_tf_before_25_is_pinned(tf, expected):
    """c528: 'Cannot convert a symbolic Tensor ... to a numpy array' is NumPy 1.20 under
    TF < 2.5; with a newer TF it is the code's own doing."""
    text = ("NotImplementedError: Cannot convert a symbolic Tensor (lstm/strided_slice:0) to a "
            "numpy array.")
    found = explain(text, tf_version=tf) if tf else explain(text)
    pinned = found[0].id == "dependency-version-conflict" and any(
        "numpy<1.20" in (s.command or "") for s in found[0].steps)
    assert pinned is expected, [f.id for f in found]


@pytest.mark.parametrize("line", [
    "MemoryError", "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.35 GiB for an "
    "array with shape (60000, 7500) and data type float64",
    "numpy.core._exceptions.MemoryError: Unable to allocate 512 MiB for an array"])
def test_pythons_and_numpys_memory_errors_are_the_hosts_ram(line):
    """c530: Python's MemoryError while preparing data."""
    assert _ids(f"Traceback (most recent call last):\n{line}")[0] == "host-out-of-memory"


@pytest.mark.parametrize("line, cause", [
    ("AttributeError: 'Activation' object has no attribute 'outbound_nodes'", "mixed-tf-packages"),
    ("AttributeError: module 'keras.preprocessing.image' has no attribute 'img_to_array'",
     "mixed-tf-packages"),
    ("AttributeError: module 'tensorboard.util' has no attribute 'Retrier'", "mixed-tf-packages"),
    ("If you cannot immediately regenerate your protos, some other possible workarounds are:\n"
     " 1. Downgrade the protobuf package to 3.20.x or lower.", "mixed-tf-packages"),
    ("TF 2.0 is not compatible with the version of keras that we install i.e. 2.2.4.",
     "mixed-tf-packages"),
    ("Running setup.py egg_info for package from https://storage.googleapis.com/tensorflow/linux/"
     "gpu/tensorflow-0.5.0-cp27-none-linux_x86_64.whl", "pip-install-failed"),
    ("OSError: [Errno 1] Operation not permitted: '/tmp/pip-XcfgD6-uninstall/System/Library/"
     "Frameworks/Python.framework/Versions/2.7/Extras/lib/python/six-1.4.1-py2.7.egg-info'",
     "pip-install-failed"),
    ("tensorflow couldn't be installed in python 3.7", "python-unsupported"),
    ("Are there any TensorFlow GPU for Windows? Any Recent version?",
     "tf-windows-gpu-unsupported")])
def test_the_sixth_rounds_facts_in_other_cases(line, cause):
    """c506, c534, c537, c516, c533, c478, c480, c482, c484."""
    assert _ids(line)[0] == cause, _ids(line)


def test_an_old_pip_is_told_to_upgrade():
    [first, *_] = explain("Running setup.py egg_info for package from https://x/tensorflow-0.5.0"
                          "-cp27-none-linux_x86_64.whl")
    assert any("--upgrade pip" in (s.command or "") for s in first.steps), first.steps


@SETTINGS
@given(NOISE, st.sampled_from(["10", "9", "12"]), st.sampled_from(["avalable", "avaliable",
                                                                   "available"]))
def test_the_template_field_with_a_cuda_major_alone(noise, major, typed):
    """c490: "CUDA/cuDNN version: 10" beside TF 1.11 (built for CUDA 9.0), "GPU is not
    avalable"."""
    want = "cuda-version-mismatch" if major != "9" else None
    text = _around(noise, ["- TensorFlow version: 1.11.0", f"- CUDA/cuDNN version: {major}",
                           f"I'm getting a error GPU is not {typed}"], [])
    assert facts.read_facts(read_context(text)).no_gpu
    found = _ids(text, platform="windows")
    assert (found[0] == want) if want else (found[0] != "cuda-version-mismatch"), found


@pytest.mark.parametrize("paths, first", [
    ('  File "/home/u/.local/lib/python3.5/site-packages/keras/backend/tensorflow_backend.py", '
     'line 1, in <module>', "tf-not-installed"),
    ('  File "C:\\Users\\u\\anaconda3\\envs\\tf\\lib\\site-packages\\keras\\__init__.py", line 3',
     "conda-env-not-activated"),
    ("", "conda-env-not-activated")])
def test_no_tensorflow_module_outside_any_conda_is_not_installed(paths, first):
    """c499: a plain Python's site-packages and no word of conda: TensorFlow is not installed
    there, not an env left inactive."""
    text = "\n".join(filter(None, ["Traceback (most recent call last):", paths,
                                   "ImportError: No module named 'tensorflow'"]))
    assert _ids(text)[0] == first, _ids(text)


def test_cudnn_failing_to_start_under_a_cuda_no_build_uses_is_a_mismatch():
    """c511: CUDA 10.2 (no TensorFlow release was built for it) and cuDNN failing to start."""
    text = ("Fresh install Ubuntu 18.04, CUDA 10.2 installed and working, cuDNN v7.6.5\n"
            "(0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN "
            "failed to initialize")
    assert _ids(text)[0] == "cuda-version-mismatch", _ids(text)


# --- issue 21, seventh round (a representative sample of TF-based projects): dev facts -------

@SETTINGS
@given(NOISE, st.sampled_from(["You are using pip version 18.1, however version 20.0.2 is "
                               "available.", "pip 9.0.1 from /usr/lib/python3/dist-packages/pip "
                               "(python 3.6)"]),
       st.sampled_from(["tensorflow<2.2,>=2.1", "tensorflow==2.4.0", "tensorflow"]))
def test_a_pip_older_than_19_finding_no_tensorflow_is_the_pip(noise, pip, spec):
    """c542: pip before 19 cannot install TF 2.1+'s manylinux2010 wheels, and says no version
    exists; pip 19+ saying the same is the Python's doing."""
    lines = [f"Could not find a version that satisfies the requirement {spec} (from versions: "
             "1.13.1, 1.14.0, 2.0.0b1)", f"No matching distribution found for {spec}"]
    [first, *_] = explain(_around(noise, [*lines, pip], []))
    assert first.id == "pip-install-failed", first
    assert any("--upgrade pip" in (s.command or "") for s in first.steps), first.steps
    newer = _around(noise, [*lines, "You are using pip version 19.2.3, however version 20.0.2 "
                                    "is available."], [])
    assert _ids(newer)[0] == "python-unsupported"


@pytest.mark.parametrize("line, cause", [
    ("2023-10-02 16:01:32.433368: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:"
     "461] Possibly insufficient driver version: 450.203.8", "driver-too-old"),
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.8, please "
     "update your driver to a newer version", "driver-too-old"),
    ("RuntimeError: `get_session` is not available when using TensorFlow 2.0.",
     "tf1-api-on-tf2")])
def test_the_seventh_rounds_words(line, cause):
    """c594, c548."""
    assert _ids(line)[0] == cause, _ids(line)


@SETTINGS
@given(st.sampled_from(["RTX 3090", "RTX 4080", "A100", "H100", "RTX A6000", "RTX 30 series"]),
       st.sampled_from(["1.12.0", "1.15", "2.3.1"]))
def test_an_ampere_or_later_gpu_under_a_tf_built_before_cuda_11(gpu, tf):
    """c563: those GPUs need CUDA 11, which no TF before 2.4 was built with."""
    text = f"Cannot run on {gpu}. I use tensorflow {tf}"
    assert _ids(text, tf_version=tf)[0] == "gpu-arch-unsupported", _ids(text, tf_version=tf)
    assert "gpu-arch-unsupported" not in _ids(text, tf_version="2.10")


@pytest.mark.parametrize("text, cpu_only", [
    ("and when I run the demo, GPU doesn't work!", True),
    ("When I ran the demo.ipynb notebook no GPU memory is utilized.", True),
    ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
     "library 'libcudart.so.11.0'\nGPU doesn't work", False)])
def test_no_gpu_and_no_cuda_library_looked_for_is_likely_a_cpu_build(text, cpu_only):
    """c549, c555: a GPU build says which CUDA library it could not open; a CPU-only build
    (tensorflow before 2.1, tensorflow-cpu) looks for none."""
    assert (_ids(text, platform="linux")[0] == "cpu-only-build") is cpu_only, _ids(text)
