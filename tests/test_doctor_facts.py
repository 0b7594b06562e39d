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

from core.doctor import facts, kb, reasons
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.fixes import make_finding
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
    return [f.id for f in explain(text, **context)]


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


NEW_PATTERNS = [value for module in (facts, reasons) for value in vars(module).values()
                if isinstance(value, re.Pattern)]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("rx", NEW_PATTERNS, ids=[p.pattern[:60] for p in NEW_PATTERNS])
def test_no_new_pattern_backtracks_over_what_it_read(rx):
    for text in pathological(rx, 100_000):
        found = rx.search(text)
        assert found is None or text[found.start():found.end()] == found.group()
