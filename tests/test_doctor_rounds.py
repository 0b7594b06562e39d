"""The facts each of the doctor corpus's collection rounds 2-7 brought (issue 21): rules
written from the development cases of a round (tests/data/doctor_corpus, part "dev"), each given
generated outputs (hypothesis: versions, paths, order and noise vary), never held-out ones. The
facts by kind are in tests/test_doctor_facts.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.doctor import explain as explain_module
from core.doctor import facts, kb, reasons
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.fixes import FixContext, make_finding
from core.doctor.wording import WordingModel, build_model, is_guess
from tests.doctor_texts import NOISE, SETTINGS, around, facts_of, rule_ids

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
    text = around(before, [query, answer, gpu], after)
    assert rule_ids(text, platform="windows", tf_version=tf)[0] == "tf-windows-gpu-unsupported"
    printed = around(before, [query, "[]", gpu], after)
    assert facts.read_facts(read_context(text)).no_gpu
    assert rule_ids(printed, platform="windows", tf_version=tf)[0] == "tf-windows-gpu-unsupported"


@SETTINGS
@given(NOISE, st.sampled_from(EMPTY_ANSWERS))
def test_an_empty_answer_without_a_gpu_query_says_nothing_of_the_gpu(noise, answer):
    """"returns an empty list" alone is about anything: only a text that asks for the GPUs
    makes it a device list."""
    text = around(noise, ["files = glob.glob('data/*.csv')", answer], [])
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
    text = around(before, [asks.format(want=want), has.format(want=want, have=have)], after)
    assert want.lower() in facts.read_facts(read_context(text)).libraries_missing
    assert rule_ids(text)[0] == "cuda-version-mismatch"


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
    assert rule_ids(around(noise, [line], []), platform="linux",
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
    ids = rule_ids(whole[:-cut], platform="linux", tf_version="2.4")
    assert "conda-env-not-activated" not in ids[:1]
    assert rule_ids(whole, platform="linux", tf_version="2.4")[0] == "conda-env-not-activated"


@SETTINGS
@given(NOISE, st.sampled_from(["Module", "module", "AttributeError: module"]),
       st.sampled_from(["contrib", "placeholder", "Session", "examples"]))
def test_a_tf1_attribute_is_read_whatever_the_case_of_its_first_word(noise, word, attr):
    """"Module 'tensorflow' has no attribute 'contrib'" as a title (dev c340) is the same fact
    as the exception's lower-case message."""
    line = f"{word} 'tensorflow' has no attribute '{attr}'"
    assert rule_ids(around(noise, [line], []), tf_version="2.3.0")[0] == "tf1-api-on-tf2"


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
    found = facts_of(around(before, [sentence.format(c=cuda, d=cudnn)], after))
    assert found.cuda_stated == {cuda} and not found.cuda_wanted
    assert found.cudnn_stated == ({cudnn} if has_cudnn else set())


@pytest.mark.parametrize("text, cuda, cudnn", [
    ("CUDA/cuDNN version: 8.1", set(), set()),  # no CUDA 8.1: a cuDNN in CUDA's place
    ("cuDNN 7.6 cuda 10.1", {"10.1"}, {"7.6"}), ("cuda 10.1 cudnn", {"10.1"}, set()),
    ("Ubuntu 20.04 cuda", set(), set()), ("requires 10.0 cuda", set(), set()),
    ("Ubuntu 20.04\nCUDA/cuDNN version: N/A", set(), set())])
def test_a_number_first_is_read_only_where_it_is_that_components(text, cuda, cudnn):
    found = facts_of(text)
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
    text = around(noise, [f"TensorFlow version: {tf}", field.format(v=cuda),
                           f"Could not load dynamic library '{lib}'; dlerror: {lib} not found"],
                   [])
    assert rule_ids(text, platform=platform, tf_version=tf)[0] == "cuda-version-mismatch"


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
    assert rule_ids(around(noise, lines, []))[0] == "conda-env-not-activated"


@pytest.mark.parametrize("text", [
    "import tensorflow as tf\nModuleNotFoundError: No module named 'keras'",
    "import tensorflow as tf\nModuleNotFoundError                 Traceback (most recent call "
    "last)\n----> 1 import cv2\nModuleNotFoundError: No module named 'cv2'",
    "ModuleNotFoundError\nimport tensorflow as tf",
    "import tensorflow as tf\n" + "Epoch 1/10\n" * 6 + "ModuleNotFoundError"])
def test_a_module_error_about_another_module_or_far_away_is_not_tensorflows(text):
    assert "conda-env-not-activated" not in rule_ids(text)[:1]


@SETTINGS
@given(st.sampled_from(["start_server is called twice per worker (with the same ports)",
                        "both workers were given the same port 2222",
                        "the server starts again on the same port and fails",
                        "two tasks use the same host port", "训练时提示端口被占用",
                        "端口已经被占用了怎么办"]), NOISE, NOISE)
def test_a_port_used_twice_said_in_words_is_port_in_use(sentence, before, after):
    """Two servers on one port, told in words (dev c385)."""
    assert rule_ids(around(before, [sentence], after))[0] == "port-in-use"


@pytest.mark.parametrize("text", ["the ps and the worker use the same port number format",
                                  "two GPUs were found", "use port 2222 twice as fast"])
def test_a_port_or_twice_alone_is_not_port_in_use(text):
    assert "port-in-use" not in rule_ids(text)


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
    text = around(before, [cpu, failure], after)
    assert rule_ids(text)[0] == "cpu-no-avx", rule_ids(text)


@SETTINGS
@given(NOISE, st.sampled_from([
    "Intel(R) Core(TM) i7-8700K CPU @ 3.70GHz", "Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz",
    "11th Gen Intel(R) Core(TM) i5-1135G7 @ 2.40GHz", "Intel(R) Xeon(R) Gold 6130 CPU",
    "AMD Ryzen 9 3900X", "Intel(R) Xeon(R) Platinum 8269CY CPU", "Core i5-3230M",
    "AMD Athlon 200GE"]))
def test_a_cpu_with_avx_is_not_read_as_one_without(noise, cpu):
    text = around(noise, [cpu, "Traceback (most recent call last):"], [])
    ctx = read_context(text)
    assert facts.read_facts(ctx).cpu_without_avx == []


@SETTINGS
@given(NOISE, NOISE, st.sampled_from(["Variable", "constant", "__version__", "Tensor"]),
       st.sampled_from(["Module", "module", "AttributeError: module"]))
def test_an_attribute_every_tensorflow_has_missing_is_a_broken_install(before, after, attr, word):
    """c405: ``module 'tensorflow' has no attribute 'Variable'``: every release has it, so the
    package is not a whole TensorFlow (two distributions, one uninstalled), not TF 1.x code."""
    text = around(before, [f"{word} 'tensorflow' has no attribute '{attr}'"], after)
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


def test_a_tf1_only_attribute_stays_tf1_code() -> None:
    assert rule_ids("AttributeError: module 'tensorflow' has no attribute 'Session'")[0] == (
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
    text = around(noise, lines, [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


def test_tensorflow_and_its_windows_wheel_of_one_version_are_not_two() -> None:
    """``tensorflow`` on Windows depends on ``tensorflow-intel`` of its own version: one."""
    text = "Name: tensorflow\nVersion: 2.15.0\n---\nName: tensorflow-intel\nVersion: 2.15.0"
    assert "mixed-tf-packages" not in rule_ids(text)


@SETTINGS
@given(NOISE, NOISE, st.sampled_from(["tf-nightly", "tf_nightly", "tf-estimator-nightly",
                                      "tensorflow nightly", "2.6.0.dev20210526"]),
       st.sampled_from(["cannot import tensorflow", "Failed to import tensorflow",
                        "I can't import tensorflow"]))
def test_a_nightly_beside_an_import_that_fails_for_no_said_reason(before, after, nightly,
                                                                   failed):
    """c406: the import fails, the loader says nothing, and a nightly is installed: what is
    left of the other TensorFlow in the same folder, before the CPU / runtime guesses."""
    text = around(before, [f"{nightly}: {failed}"], after)
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(NOISE, NOISE, st.sampled_from([
    "tensorflow module not found", "TensorFlow module not found", "module tensorflow not found",
    "Module 'tensorflow' was not found", "can't find the tensorflow module",
    "could not find tensorflow package"]), st.sampled_from(["For any Win 64 users running into ",
                                                           "Jupyter says ", ""]))
def test_no_tensorflow_module_said_in_words(before, after, words, lead):
    """c414: "running into tensorflow module not found": ``No module named 'tensorflow'``."""
    text = around(before, [lead + words], after)
    assert rule_ids(text)[0] == "conda-env-not-activated", rule_ids(text)


@SETTINGS
@given(NOISE, NOISE, st.integers(1024, 65535), st.sampled_from([
    "I will get an error because the port {p} is already used",
    "fails in colab, with the error `Port {p} is in use by another program`",
    "ERROR: TensorBoard could not bind to port {p}, it was already in use",
    "the port {p} was taken by another process", "Unable to bind to port {p}"]))
def test_a_port_in_use_said_in_words(before, after, port, sentence):
    """c415, c416: a port already used, in a person's or a tool's words."""
    text = around(before, [sentence.format(p=port)], after)
    assert rule_ids(text)[0] == "port-in-use", rule_ids(text)


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
    text = around(noise, [sentence.format(c=cls)], [])
    assert rule_ids(text)[0] == "keras3-strategy-unsupported", rule_ids(text)


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
    text = around(noise, [f"ImportError: {lib}: cannot open shared object file: No such file "
                           "or directory", said.format(have=have)], [])
    assert kb.library_info(lib).cuda_versions, lib
    assert rule_ids(text)[0] == "cuda-version-mismatch", rule_ids(text)


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
    text = around(noise, [f"TensorFlow version: {tf}", line], [])
    assert rule_ids(text, platform="windows")[0] == "tf-windows-gpu-unsupported", rule_ids(text)


@pytest.mark.parametrize("line", [
    "No such object: tensorflow/libtensorflow/libtensorflow-gpu-windows-x86_64-2.11.0.zip",
    "libtensorflow-gpu-windows-x86_64-2.15.0.zip: 404 Not Found"])
def test_a_windows_gpu_build_after_210_is_asked_for(line):
    """c435: the C library's GPU zip for Windows ends with 2.10 as the wheels do."""
    assert rule_ids(line)[0] == "tf-windows-gpu-unsupported", rule_ids(line)


@SETTINGS
@given(NOISE, st.sampled_from(["3.6", "3.11", "3.12"]),
       st.sampled_from(["0.12.0rc0", "1.15", "2.10.0"]))
def test_condas_conflict_of_python_and_tensorflow_is_the_python(noise, python, tf):
    """c449: conda lists the specs it found in conflict."""
    text = around(noise, ["UnsatisfiableError: The following specifications were found to be "
                           "in conflict:", f"  - python {python}*", f"  - tensorflow {tf}*",
                           'Use "conda info <package>" to see the dependencies for each package.'],
                   [])
    assert rule_ids(text)[0] == "python-unsupported", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["a", "b", "0xa", "0x10"]), st.sampled_from(["9", "0x9", "8"]))
def test_numpys_api_versions_with_or_without_0x(built, installed):
    """c473: NumPy before 1.11 printed the API versions without 0x."""
    text = (f"RuntimeError: module compiled against API version {built} but this version of "
            f"numpy is {installed}")
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["tensorflow_addons", "tensorflow_text", "tensorflow_probability"]),
       st.sampled_from(["tensorflow_core.keras.utils", "tensorflow.keras.layers",
                        "tensorflow.python.ops"]),
       st.sampled_from(["register_keras_serializable", "experimental", "__internal__"]))
def test_a_companion_asking_tf_for_a_name_it_lacks_is_mixed_packages(package, module, name):
    """c476: tensorflow-addons built for a newer TF than the one installed."""
    text = around([], ["Traceback (most recent call last):",
                        f'  File "C:\\envs\\tf\\lib\\site-packages\\{package}\\__init__.py", line '
                        "21, in <module>",
                        f"AttributeError: module '{module}' has no attribute '{name}'"], [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


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
    assert rule_ids(text)[0] == "keras3-strategy-unsupported", rule_ids(text)


@SETTINGS
@given(NOISE, st.sampled_from(["TensorFlow 2.15 on Windows 11 does not use my RTX 3060",
                               "Only CPU is being used. tf version 2.16.1",
                               "GPU usage stays at 0% while training",
                               "Default GPU Device: None",
                               "tf.test.gpu_device_name() returns ''"]))
def test_no_gpu_in_more_words(noise, line):
    text = around(noise, [line], [])
    assert facts.read_facts(read_context(text)).no_gpu, text
    assert rule_ids(text, platform="windows", tf_version="2.12")[0] == "tf-windows-gpu-unsupported"


@pytest.mark.parametrize("text, python", [("on python 3.11 on windows", (3, 11)),
                                          ("Python3.12 here", (3, 12)),
                                          ("python 3.10.4", (3, 10))])
def test_pythons_version_said_in_words(text, python):
    assert read_context(text).python == python


def test_a_release_for_an_older_python_said_in_words_is_python_unsupported():
    text = "tensorflow-gpu 2.10 cannot be installed on python 3.11 on windows"
    assert rule_ids(text)[0] == "python-unsupported", rule_ids(text)


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
    [first, *_] = explain(around(noise, [line], []), platform="linux", tf_version=tf)
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
    text = around(noise, [frame, "    original_keras_version = f.attrs['keras_version']"
                                  ".decode('utf8')",
                           "AttributeError: 'str' object has no attribute 'decode'"], [])
    [first, *_] = explain(text)
    assert first.id == "dependency-version-conflict", first
    assert any("h5py<3" in (s.command or "") for s in first.steps), first.steps


def test_a_str_decode_error_elsewhere_is_not_h5pys():
    text = "line.decode('utf8')\nAttributeError: 'str' object has no attribute 'decode'"
    assert "dependency-version-conflict" not in rule_ids(text)[:1]


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
    assert rule_ids(f"Traceback (most recent call last):\n{line}")[0] == "host-out-of-memory"


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
    assert rule_ids(line)[0] == cause, rule_ids(line)


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
    text = around(noise, ["- TensorFlow version: 1.11.0", f"- CUDA/cuDNN version: {major}",
                           f"I'm getting a error GPU is not {typed}"], [])
    assert facts.read_facts(read_context(text)).no_gpu
    found = rule_ids(text, platform="windows")
    assert (found[0] == want) if want else (found[0] != "cuda-version-mismatch"), found


@pytest.mark.parametrize("paths, first", [
    ('  File "/home/u/.local/lib/python3.5/site-packages/keras/backend/tensorflow_backend.py", '
     'line 1, in <module>', "tf-not-installed"),
    ('  File "C:\\Users\\u\\anaconda3\\envs\\tf\\lib\\site-packages\\keras\\__init__.py", line 3',
     "conda-env-not-activated"),
    ("I installed tensorflow using pip in python 2.7.", "tf-not-installed"),
    ("I installed tensorflow with conda and pip", "conda-env-not-activated"),
    ("Python 3.5.3 (default, Dec  7 2017, 09:41:57)", "tf-not-installed"),
    ("Python 3.6.5 |Anaconda, Inc.| (default, Apr 29 2018, 16:14:56)", "conda-env-not-activated"),
    ("", "conda-env-not-activated")])
def test_no_tensorflow_module_outside_any_conda_is_not_installed(paths, first):
    """c499, c716, c867: a Python that is no conda's (its site-packages, pip as the installer,
    its banner) and no word of conda: TensorFlow is not installed there (pip put it into another
    Python), not an env left inactive."""
    text = "\n".join(filter(None, ["Traceback (most recent call last):", paths,
                                   "ImportError: No module named 'tensorflow'"]))
    assert rule_ids(text)[0] == first, rule_ids(text)


def test_cudnn_failing_to_start_under_a_cuda_no_build_uses_is_a_mismatch():
    """c511: CUDA 10.2 (no TensorFlow release was built for it) and cuDNN failing to start."""
    text = ("Fresh install Ubuntu 18.04, CUDA 10.2 installed and working, cuDNN v7.6.5\n"
            "(0) Unknown: Failed to get convolution algorithm. This is probably because cuDNN "
            "failed to initialize")
    assert rule_ids(text)[0] == "cuda-version-mismatch", rule_ids(text)


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
    [first, *_] = explain(around(noise, [*lines, pip], []))
    assert first.id == "pip-install-failed", first
    assert any("--upgrade pip" in (s.command or "") for s in first.steps), first.steps
    newer = around(noise, [*lines, "You are using pip version 19.2.3, however version 20.0.2 "
                                    "is available."], [])
    assert rule_ids(newer)[0] == "python-unsupported"


@pytest.mark.parametrize("line, cause", [
    ("2023-10-02 16:01:32.433368: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:"
     "461] Possibly insufficient driver version: 450.203.8", "driver-too-old"),
    ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.8, please "
     "update your driver to a newer version", "driver-too-old"),
    ("RuntimeError: `get_session` is not available when using TensorFlow 2.0.",
     "tf1-api-on-tf2")])
def test_the_seventh_rounds_words(line, cause):
    """c594, c548."""
    assert rule_ids(line)[0] == cause, rule_ids(line)


@SETTINGS
@given(st.sampled_from(["RTX 3090", "RTX 4080", "A100", "H100", "RTX A6000", "RTX 30 series"]),
       st.sampled_from(["1.12.0", "1.15", "2.3.1"]))
def test_an_ampere_or_later_gpu_under_a_tf_built_before_cuda_11(gpu, tf):
    """c563: those GPUs need CUDA 11, which no TF before 2.4 was built with."""
    text = f"Cannot run on {gpu}. I use tensorflow {tf}"
    assert rule_ids(text, tf_version=tf)[0] == "gpu-arch-unsupported", rule_ids(text, tf_version=tf)
    assert "gpu-arch-unsupported" not in rule_ids(text, tf_version="2.10")


@pytest.mark.parametrize("text, cpu_only", [
    ("and when I run the demo, GPU doesn't work!", True),
    ("When I ran the demo.ipynb notebook no GPU memory is utilized.", True),
    ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
     "library 'libcudart.so.11.0'\nGPU doesn't work", False)])
def test_no_gpu_and_no_cuda_library_looked_for_is_likely_a_cpu_build(text, cpu_only):
    """c549, c555: a GPU build says which CUDA library it could not open; a CPU-only build
    (tensorflow before 2.1, tensorflow-cpu) looks for none."""
    assert (rule_ids(text, platform="linux")[0] == "cpu-only-build") is cpu_only, rule_ids(text)


# --- issue 21, eighth round (a representative sample): facts of its development cases --------

@SETTINGS
@given(st.sampled_from(["libcudart", "libcublas", "libcufft", "libcurand"]),
       st.sampled_from([("8.0", "7.5"), ("9.0", "8.0"), ("10.0", "9.2"), ("9.1", "9.0")]),
       st.sampled_from(["I have", "I've got only", "we have installed", "I HAVE the"]),
       NOISE)
def test_macos_names_a_library_version_before_its_extension(lib, versions, have, noise):
    """c629: macOS's loader ("Library not loaded: @rpath/libcudart.8.0.dylib") and a person
    saying which version is there: another CUDA is installed."""
    wanted, there = versions
    loader = [f"ImportError: dlopen(/Library/Frameworks/Python.framework/Versions/3.6/lib/"
              f"python3.6/site-packages/tensorflow/python/_pywrap_tensorflow.so, 10): Library "
              f"not loaded: @rpath/{lib}.{wanted}.dylib", "  Reason: image not found"]
    said = f"it is looking for {lib}.{wanted}.dylib but in /usr/local/cuda/lib {have} " \
           f"{lib}.{there}.dylib"
    assert rule_ids(around(noise, [*loader, said], []))[0] == "cuda-version-mismatch"
    alone = rule_ids(around(noise, loader, []))
    assert "missing-cuda-runtime" in alone and alone[0] in ("missing-cuda-runtime",
                                                             "cuda-version-mismatch"), alone


def test_a_library_a_person_does_not_have_is_not_there():
    said = "it is looking for libcudart.8.0.dylib and I don't have libcudart.7.5.dylib either"
    assert facts_of(said).libraries_missing.keys() == {"libcudart.so.8.0", "libcudart.so.7.5"}


@given(st.from_regex(r"lib[a-z]{1,8}", fullmatch=True),
       st.lists(st.integers(0, 99).map(str), max_size=3))
def test_a_dylib_name_is_linuxs_with_the_same_versions(stem, versions):
    name = kb.linux_library_name(".".join([stem, *versions, "dylib"]))
    assert name == ".".join([stem, "so", *versions])
    assert kb.linux_library_name(name) == name


@SETTINGS
@given(st.sampled_from(["file too short", "invalid ELF header"]),
       st.sampled_from(["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1",
                        "/usr/local/nvidia/lib64/libcuda.so"]), NOISE)
def test_a_driver_library_that_is_no_library_is_no_driver(words, path, noise):
    """c608: a container started without the NVIDIA runtime holds an empty libcuda."""
    text = around(noise, ["Traceback (most recent call last):", f"ImportError: {path}: {words}"],
                  [])
    assert rule_ids(text)[0] == "no-nvidia-driver", rule_ids(text)


@pytest.mark.parametrize("line, cause", [
    ("W tensorflow/stream_executor/cuda/cuda_driver.cc:312] failed call to cuInit: UNKNOWN ERROR "
     "(303)", "no-nvidia-driver"),
    ("E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
     "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "no-nvidia-driver"),
    ("W tensorflow/stream_executor/cuda/cuda_driver.cc:312] failed call to cuInit: UNKNOWN ERROR "
     "(999)", "driver-not-loaded")])
def test_cuinit_303_is_a_stub_driver(line, cause):
    """c618: 303 (shared object init failed) is the toolkit's stub libcuda, no driver's."""
    assert rule_ids(line)[0] == cause, rule_ids(line)


@pytest.mark.parametrize("line", [
    "RuntimeError: Exporting/importing meta graphs is not supported when eager execution is "
    "enabled. No graph exists when eager execution is enabled.",
    "RuntimeError: tf.gradients is not supported when eager execution is enabled. Use "
    "tf.GradientTape instead.",
    "RuntimeError: tf.placeholder() is not compatible with eager execution.",
    "NotImplementedError: TF Hub module 'https://tfhub.dev/google/nnlm-en-dim128/1' is stored "
    "using TF 1.x format. Loading of the module using hub.load() is not supported."])
def test_tf2_refusing_tf1s_graph_apis(line):
    """c612."""
    assert rule_ids(line)[0] == "tf1-api-on-tf2", rule_ids(line)


@SETTINGS
@given(st.sampled_from(["numpy", "protobuf", "h5py", "gast", "grpcio", "absl-py", "wrapt"]),
       st.sampled_from(["{tf} has requirement {p}<=1.14.5,>=1.13.3, but you'll have {p} 1.15.4 "
                        "which is incompatible.",
                        "ERROR: {tf} requires {p}~=1.19.2, but you have {p} 1.19.0 which is "
                        "incompatible."]),
       st.sampled_from(["tensorflow 1.10.0", "tensorflow-gpu 2.4.0", "tf-nightly 2.6.0.dev1"]),
       NOISE)
def test_pip_on_a_dependency_at_a_version_tf_does_not_accept(package, said, tf, noise):
    """c613: pip names the package TensorFlow requires at another version."""
    text = around(noise, [said.format(tf=tf, p=package)], [])
    first = explain(text)[0]
    assert first.id == "dependency-version-conflict" and package in first.title, first


@pytest.mark.parametrize("package", ["tensorboard", "keras", "tf-estimator-nightly",
                                     "tensorflow-estimator"])
def test_pip_on_tfs_own_family_is_not_a_dependency(package):
    line = (f"tensorflow 2.8.0 requires {package}<2.9,>=2.8, but you have {package} 2.10.0 "
            "which is incompatible.")
    assert rule_ids(line)[0] == "mixed-tf-packages", rule_ids(line)


TF_SOURCE_ROOTS = st.sampled_from(["tensorflow", "/home/me/src/tensorflow/tensorflow",
                                   "C:\\Users\\me\\tensorflow\\tensorflow",
                                   "/Users/me/code/tf/tensorflow"])
TF_MODULES = st.sampled_from(["__init__.py", "python/__init__.py", "core/framework/__init__.py",
                              "python/platform/self_check.py"])
SHADOWED_ERRORS = st.sampled_from([
    "ImportError: No module named core.framework.graph_pb2",
    "ModuleNotFoundError: No module named 'tensorflow.python.platform'",
    "ImportError: cannot import name 'pywrap_tensorflow' from 'tensorflow.python'",
    "AttributeError: module 'tensorflow' has no attribute 'keras'"])


def _frames(root: str, module: str) -> list[str]:
    sep = "\\" if "\\" in root else "/"
    return ["Traceback (most recent call last):", '  File "<stdin>", line 1, in <module>',
            f'  File "{root}{sep}{module.replace("/", sep)}", line 4, in <module>',
            "    from tensorflow.python import *"]


@SETTINGS
@given(TF_SOURCE_ROOTS, TF_MODULES, SHADOWED_ERRORS, NOISE)
def test_tensorflows_source_tree_imported_instead_of_the_package(root, module, error, noise):
    """c625 (and c481, TF 1.x's own words): Python started in TensorFlow's source tree."""
    text = around(noise, [*_frames(root, module), error], [])
    assert rule_ids(text)[0] == "tf-shadowed", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["/usr/lib/python3/dist-packages/tensorflow",
                        "C:\\Users\\me\\miniconda3\\envs\\tf\\lib\\site-packages\\tensorflow",
                        "/home/me/.local/lib/python3.10/site-packages/tensorflow"]),
       TF_MODULES, SHADOWED_ERRORS)
def test_the_installed_package_is_not_shadowed(root, module, error):
    assert "tf-shadowed" not in rule_ids("\n".join([*_frames(root, module), error]))


@pytest.mark.parametrize("text", [
    "Error importing tensorflow.  Unless you are using bazel,\nyou should not try to import "
    "tensorflow from its source directory;\nplease exit the tensorflow source tree, and relaunch "
    "your python interpreter\nfrom there.",
    'Traceback (most recent call last):\n  File "C:\\Users\\me\\proj\\tensorflow.py", line 1, '
    "in <module>\n    import tensorflow as tf\nAttributeError: partially initialized module "
    "'tensorflow' has no attribute 'constant' (most likely due to a circular import)",
    'Traceback (most recent call last):\n  File "/home/me/proj/tensorflow.py", line 2, in '
    "<module>\n    tf.Session()\nAttributeError: module 'tensorflow' has no attribute 'Session'"])
def test_a_script_named_tensorflow_or_tfs_own_words(text):
    found = explain(text)
    assert found[0].id == "tf-shadowed", [f.id for f in found]
    assert "print(tensorflow.__file__)" in found[0].steps[-1].command


def test_a_users_folder_named_tensorflow_is_not_tensorflows_package():
    text = ('Traceback (most recent call last):\n  File "/home/me/tensorflow/proj/train.py", '
            "line 3, in <module>\n    import utils\nModuleNotFoundError: No module named 'utils'")
    assert "tf-shadowed" not in rule_ids(text)


# --- issue 21, ninth round (a representative sample): facts of its development cases ---------

@SETTINGS
@given(st.sampled_from(["tensorflow_estimator/python/estimator/util.py",
                        "tensorflow_probability/python/internal/dtype_util.py",
                        "tensorflow_hub/module_v2.py"]),
       st.sampled_from(["compat", "estimator", "__internal__"]),
       st.sampled_from(["/Users/me/.spconda/lib/python3.7/site-packages",
                        "C:\\Users\\me\\anaconda3\\Lib\\site-packages"]), NOISE)
def test_a_companion_of_another_tf_missing_tfs_names(module, name, site, noise):
    """c653: tensorflow_estimator out of sync with its TensorFlow."""
    sep = "\\" if "\\" in site else "/"
    frame = f'  File "{site}{sep}{module.replace("/", sep)}", line 75, in <module>'
    text = around(noise, [frame, "    class _Hook(tf.compat.v1.train.SessionRunHook):",
                          f"AttributeError: module 'tensorflow' has no attribute '{name}'"], [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["ImageDataGenerator", "DirectoryIterator", "NumpyArrayIterator",
                        "TimeseriesGenerator"]),
       st.sampled_from(["keras.preprocessing.image", "keras.src.preprocessing.image",
                        "keras.preprocessing.sequence"]), NOISE)
def test_classes_keras_3_dropped_from_preprocessing(name, module, noise):
    """c675: every Keras 2 has them; an import that finds none is Keras 3."""
    text = around(noise, ["Traceback (most recent call last):",
                          f"    from {module} import {name}",
                          f"ImportError: cannot import name '{name}' from '{module}' "], [])
    assert rule_ids(text)[0] == "keras3-strategy-unsupported", rule_ids(text)


# --- issue 21, tenth round (a representative sample): facts of its development cases ---------

@SETTINGS
@given(st.sampled_from(["nvcr.io/nvidia/tensorflow:19.08-py3",
                        "nvcr.io/nvidia/tensorflow:23.10-tf2-py3"]), NOISE)
def test_nvidias_container_started_without_the_gpu(image, noise):
    """c713: the NGC images' banner when docker ran them without --gpus."""
    text = around(noise, [f"$ docker run -it {image}",
                          "WARNING: The NVIDIA Driver was not detected.  GPU functionality will "
                          "not be available.",
                          "   Use 'nvidia-docker run' to start this container"], [])
    found = [f for f in explain(text) if f.id == "no-nvidia-driver"]
    assert rule_ids(text)[0] == "no-nvidia-driver" and "--gpus all" in found[0].title


@SETTINGS
@given(st.sampled_from(["1.13.1", "1.14.0", "1.13.0rc1"]), NOISE)
def test_tfs_bfloat16_registration_on_another_numpy(tf, noise):
    """c708: TF 1.13-1.14's bfloat16 type on a NumPy older than the one it needs."""
    text = around(noise, ["PyBfloat16_Type.tp_base != nullptr"], [])
    assert rule_ids(text, tf_version=tf)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["CudnnRNN", "CudnnRNNV3", "CudnnRNNParamsToCanonical"]),
       st.sampled_from(["[CPU]", "[CPU, XLA_CPU]"]), NOISE)
def test_a_gpu_only_kernel_where_only_the_cpu_is_registered(op, devices, noise):
    """c696: cuDNN's RNN asked of a TensorFlow that registered no GPU."""
    text = around(noise, ["tensorflow.python.framework.errors_impl.InvalidArgumentError: No "
                          f"OpKernel was registered to support Op '{op}' with these attrs.  "
                          f"Registered devices: {devices}, Registered kernels:",
                          "  <no registered kernels>"], [])
    assert rule_ids(text)[0] == "cpu-only-build", rule_ids(text)
    gpu_there = text.replace(devices, "[CPU, GPU]")
    assert "cpu-only-build" not in rule_ids(gpu_there)[:1], rule_ids(gpu_there)


@SETTINGS
@given(st.sampled_from(["napi-v8", "napi-v4", "napi-v6"]),
       st.sampled_from(["D:\\Projects\\bot", "C:\\Users\\me\\app"]), NOISE)
def test_tfjs_nodes_binding_failing_its_start_up_code(napi, project, noise):
    """c728: Node loading tfjs-node's binding (TensorFlow's C library inside) and the DLL's
    start-up code failing: the CPU, as for TensorFlow's own import."""
    text = around(noise, ["Error: A dynamic link library (DLL) initialization routine failed.",
                          f"\\\\?\\{project}\\node_modules\\@tensorflow\\tfjs-node\\lib\\{napi}"
                          "\\tfjs_binding.node",
                          "    at Object.Module._extensions..node (node:internal/modules/cjs/"
                          "loader:1183:18)"], [])
    assert rule_ids(text, platform="windows")[0] == "cpu-no-avx", rule_ids(text)


# The first finding id grown from this round's gaps: os-too-old (c624, c718 relabelled).
@SETTINGS
@given(st.sampled_from([("/lib/x86_64-linux-gnu/libc.so.6", "GLIBC", "glibc"),
                        ("/usr/lib/arm-linux-gnueabihf/libstdc++.so.6", "GLIBCXX", "libstdc++"),
                        ("/usr/lib64/libstdc++.so.6", "CXXABI", "libstdc++"),
                        ("/lib/aarch64-linux-gnu/libm.so.6", "GLIBC", "glibc")]),
       st.from_regex(r"[1-3]\.[0-9]{1,2}(\.[0-9]{1,2})?", fullmatch=True),
       st.sampled_from([("`", "'"), ("'", "'"), ("‘", "’")]),
       st.sampled_from(["/usr/local/lib/python2.7/dist-packages/tensorflow/python/"
                        "_pywrap_tensorflow_internal.so",
                        "/home/me/venv/lib/python3.8/site-packages/tensorflow/libtensorflow_"
                        "framework.so.2"]), NOISE)
def test_a_system_runtime_older_than_the_build(lib, version, quotes, needed_by, noise):
    path, prefix, library = lib
    symbol = f"{prefix}_{version}"
    text = around(noise, ["Traceback (most recent call last):",
                          "    from tensorflow.python.pywrap_tensorflow_internal import *",
                          f"ImportError: {path}: version {quotes[0]}{symbol}{quotes[1]} not found "
                          f"(required by {needed_by})",
                          "Failed to load the native TensorFlow runtime."], [])
    found = [f for f in explain(text, platform="linux") if not is_guess(f)]
    assert found[0].id == "os-too-old", [f.id for f in found]
    assert symbol in found[0].title and library in found[0].title
    assert "cpu-no-avx" not in [f.id for f in found]  # the import failure is explained
    conda = [s for s in found[0].steps if s.command and "libstdcxx-ng" in s.command]
    assert bool(conda) == (library == "libstdc++")


@pytest.mark.parametrize("said, symbol", [
    ("I get GLIBCXX_3.4.26 not found when I import tensorflow", "GLIBCXX_3.4.26"),
    ("import fails: 'CXXABI_1.3.9' was not found", "CXXABI_1.3.9"),
    ("GLIBC_2.27 is not found on CentOS 7", "GLIBC_2.27")])
def test_the_missing_symbol_in_a_persons_words(said, symbol):
    found = [f for f in explain(said) if not is_guess(f)]
    assert found[0].id == "os-too-old" and symbol in found[0].title, found[0].title


def test_a_runtime_version_that_is_there_is_no_finding():
    listing = "GLIBCXX_3.4.29\nGLIBCXX_3.4.30\nGLIBC_2.36 found in /lib/x86_64-linux-gnu/libc.so.6"
    assert "os-too-old" not in rule_ids(listing)


# Grown from two development gaps (c587, c588): no-windows-build, from the knowledge base's table
# (resources/kb/windows_wheels.csv) of packages with no native-Windows build.
NO_DISTRIBUTION = ["ERROR: Could not find a version that satisfies the requirement {req} "
                   "(from versions: {versions})", "ERROR: No matching distribution found for {req}"]


@SETTINGS
@given(st.sampled_from([("tensorflow-text", "2.10.0"), ("tensorflow_text", "2.10.0"),
                        ("TensorFlow-Text", "2.10.0"), ("tensorflow-io", "0.31.0"),
                        ("tensorflow-decision-forests", None), ("tfx_bsl", None)]),
       st.sampled_from(["", "==2.13.0", ">=2.11"]), st.sampled_from(["none", "2.5.0, 2.10.0"]),
       st.booleans(), NOISE)
def test_pip_on_windows_finding_no_build_of_a_package_with_none(package, pin, versions,
                                                                one_line, noise):
    name, last = package
    req = name + pin
    lines = [line.format(req=req, versions=versions) for line in NO_DISTRIBUTION]
    text = around(noise, [f"(env) C:\\Users\\me>pip install {req}",
                          *(lines[1:] if one_line else lines)], [])
    found = [f for f in explain(text, platform="windows") if not is_guess(f)]
    assert found[0].id == "no-windows-build", [f.id for f in found]
    canonical = name.lower().replace("_", "-")
    assert canonical in found[0].title
    pins = [s.command for s in found[0].steps if s.command]
    if last:
        assert last in found[0].title and any(f"{canonical}=={last}" in c for c in pins), pins
    else:
        assert pins == []
    assert "no-windows-build" not in rule_ids(text.replace("C:\\Users\\me>", "$ "),
                                              platform="linux")


@pytest.mark.parametrize("package", ["tensorflow", "tensorflow-gpu", "tensorflow-addons",
                                     "tensorflow-textual"])
def test_a_package_the_table_does_not_name_is_not_this(package):
    text = "\n".join(line.format(req=package, versions="none") for line in NO_DISTRIBUTION)
    assert "no-windows-build" not in rule_ids(text, platform="windows")


# --- issue 21, eleventh round: facts of its development cases --------------------------------

@SETTINGS
@given(st.sampled_from(["older", "newer"]), st.sampled_from(["3.9.2", "3.21.12"]), NOISE)
def test_code_from_another_protoc_than_tfs(which, version, noise):
    """c757: Horovod built against TF's protobuf headers with another protoc."""
    text = around(noise, ["/usr/local/lib/python3.8/site-packages/tensorflow/include/tensorflow/"
                          "core/framework/tensor.pb.h:12:2: error: #error This file was "
                          f"generated by a{'n' if which == 'older' else ''} {which} version of "
                          "protoc which is",
                          "error incompatible with your Protocol Buffer headers. Please",
                          "error regenerate this file with a newer version of protoc "
                          f"({version})."], [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(st.integers(min_value=1 << 30, max_value=1 << 36),
       st.sampled_from(["Nov 16, 2020, 10:20:09 PM | INFO | KernelRestarter: restarting kernel "
                        "(1/5), keep random ports",
                        "The kernel appears to have died. It will restart automatically.",
                        "Killed"]), NOISE)
def test_a_large_host_allocation_then_the_process_dies(size, died, noise):
    """c764: Colab's tcmalloc warning, then the kernel restarts: the host's RAM."""
    large = f"tcmalloc: large alloc {size} bytes == 0x7f8880000000 @  0x7f94b4551001 0x50a4a5"
    text = around(noise, [large, died], [])
    assert rule_ids(text)[0] == "host-out-of-memory", rule_ids(text)
    assert "host-out-of-memory" not in rule_ids(around(noise, [large], []))  # a warning alone


# --- issue 21, twelfth round: facts of its development cases ---------------------------------

@SETTINGS
@given(st.sampled_from(["legacy.backend", "ops", "trainers.trainer", "tree"]),
       st.sampled_from(["C:\\ProgramData\\anaconda3\\Lib\\site-packages",
                        "/usr/lib/python3/dist-packages"]), NOISE)
def test_code_for_keras_3_on_a_keras_2(module, site, noise):
    """c796: a library written for Keras 3 importing its modules from a Keras 2."""
    sep = "\\" if "\\" in site else "/"
    text = around(noise, [f'  File "{site}{sep}classification_models_3D{sep}models{sep}'
                          '_common_blocks.py", line 2, in <module>',
                          f"    from keras.src.{module} import x",
                          f"ModuleNotFoundError: No module named 'keras.src.{module}'"], [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)


@SETTINGS
@given(st.sampled_from(["Model", "Functional", "Sequential", "InputLayer"]), NOISE)
def test_a_saved_models_built_in_class_another_keras_cannot_find(name, noise):
    """c798: a model saved by Keras 2, loaded by Keras 3 (TF 2.16+)."""
    text = around(noise, [f"Could not locate class '{name}'. Make sure custom classes are "
                          "decorated with `@keras.saving.register_keras_serializable()`."], [])
    assert rule_ids(text)[0] == "keras3-strategy-unsupported", rule_ids(text)
    mine = text.replace(f"'{name}'", "'MonoDense'")  # the user's own class: not this
    assert "keras3-strategy-unsupported" not in rule_ids(mine)[:1]


@SETTINGS
@given(st.sampled_from([("x86_64", "arm64e"), ("x86_64", "arm64"), ("arm64", "x86_64")]),
       st.sampled_from(["3.9", "3.10", "3.11"]), NOISE)
def test_a_tensorflow_of_another_architecture_than_pythons(archs, python, noise):
    """c803: an x86_64 TensorFlow in an arm64 Python on Apple silicon."""
    have, need = archs
    text = around(noise, [f"tried: '/Library/Frameworks/Python.framework/Versions/{python}/lib/"
                          f"python{python}/site-packages/tensorflow/python/_pywrap_tensorflow.so'"
                          f" (mach-o file, but is an incompatible architecture (have ({have}), "
                          f"need ({need})))"], [])
    found = [f for f in explain(text) if not is_guess(f)]
    assert found[0].id == "python-unsupported" and "architecture" in found[0].title


@pytest.mark.parametrize("check", [
    "ImportError: Không thể tìm thấy DLL ( s) 'msvcp140.dll hoặc msvcp140_1.dll'. TensorFlow yêu "
    "cầu các tệp DLL này",
    "ImportError: 找不到 DLL 'msvcp140.dll 或 msvcp140_1.dll'。TensorFlow 需要这些 DLL",
    "ImportError: Die DLL(s) 'msvcp140.dll oder msvcp140_1.dll' wurden nicht gefunden."])
def test_tfs_self_check_of_the_vc_runtime_in_any_language(check):
    """c823: TF's preload check, shown translated."""
    text = "\n".join(['  File "C:\\Python\\Lib\\site-packages\\tensorflow\\python\\platform\\'
                      'self_check.py", line 61, in preload_check', check])
    assert rule_ids(text)[0] == "missing-msvc-runtime", rule_ids(text)


@pytest.mark.parametrize("text, cause", [
    ("我感觉应该是在unfreeze的时候内存溢出，但是我将batch_size已经设置为1了，\n"
     "我的gpu是980ti，6G显存，够用吗？", "gpu-out-of-memory"),
    ("训练时显存溢出怎么办", "gpu-out-of-memory"),
    ("batch_size 调大就爆显存", "gpu-out-of-memory")])
def test_chinese_words_for_the_gpus_memory_running_out(text, cause):
    """c826: "内存溢出" with the GPU's video memory in the same question."""
    assert rule_ids(text)[0] == cause, rule_ids(text)
    assert "gpu-out-of-memory" not in rule_ids("读取数据时内存溢出")[:1]  # no GPU said


# --- issue 21, thirteenth round: facts of its development cases ------------------------------

# The thirteenth round's facts: (a line, the cause it names).
ROUND_13_FACTS = [
    # c869: NumPy older than TF's code.
    ("    from numpy.core.multiarray import c_einsum\nImportError: cannot import name 'c_einsum'",
     "dependency-version-conflict"),
    # c833: a package's own check of the TensorFlow it needs.
    ("You are using tensorflow version 1.15.0. The minimum required version is 2.3.0 "
     "(blacklisted: []).", "mixed-tf-packages"),
    # c843: TF's extension modules built for another Python.
    ("RuntimeWarning: compiletime version 3.6 of module 'tensorflow.python.framework."
     "fast_tensor_util' does not match runtime version 3.7", "python-unsupported"),
    # c863: the C++ allocator failing.
    ("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  "
     "std::bad_alloc\nAborted (core dumped)", "host-out-of-memory"),
    # c835, c849, c862, c839: Keras 3's words, and what it removed from Model.
    ("ValueError: The layer sequential_6 has never been called and thus has no defined input.",
     "keras3-strategy-unsupported"),
    ("ValueError: Unrecognized keyword arguments passed to Dense: {'weights': None}",
     "keras3-strategy-unsupported"),
    ("AttributeError: 'Functional' object has no attribute 'fit_generator'",
     "keras3-strategy-unsupported"),
    ("AttributeError: 'Sequential' object has no attribute 'predict_generator'",
     "keras3-strategy-unsupported"),
    ("with TF 2.16 I get an error stating that `KerasLayer` cannot be added to the Sequential "
     "model", "keras3-strategy-unsupported"),
    # c852: TF 1's contrib, said gone in words.
    ("The code can't work with TF 2.2.0 because the tf.contrib module has been removed?",
     "tf1-api-on-tf2"),
]


@SETTINGS
@given(NOISE, NOISE)
def test_the_thirteenth_rounds_facts_among_noise(before, after):
    text = around(before, ["Traceback (most recent call last):",
                           "AttributeError: 'Functional' object has no attribute "
                           "'evaluate_generator'"], after)
    assert rule_ids(text)[0] == "keras3-strategy-unsupported", rule_ids(text)


@SETTINGS
@given(st.text(alphabet="我的训练时是模型数据", max_size=6), st.sampled_from(["GPU", "gpu", "Gpu"]),
       st.text(alphabet="我的训练时是模型数据", max_size=6))
def test_the_gpu_said_right_beside_chinese_words(before, gpu, after):
    """"GPU训练时内存溢出": no word boundary between GPU and a CJK character."""
    text = f"{before}{gpu}{after}，训练时内存溢出"
    assert rule_ids(text)[0] == "gpu-out-of-memory", rule_ids(text)


# --- issue 21, first-sight misses by class: code for one release of TF / Keras on another -----
# Rounds 5-13 replayed against the rules before each round: Keras 3 and mixed packages were most
# of the outputs named no cause, each in words no earlier case had. These rules read the class.

SITES = ["C:\\Users\\me\\anaconda3\\envs\\tf\\Lib\\site-packages",
         "/home/me/.local/lib/python3.11/site-packages", "/usr/local/lib/python3.10/dist-packages"]


def _frame(site: str, *parts: str) -> str:
    sep = "\\" if "\\" in site else "/"
    return f'  File "{site}{sep}{sep.join(parts)}", line 88, in __init__'


@SETTINGS
@given(st.sampled_from(["tensorflow.compat", "tensorflow.compat.v2", "tensorflow.keras.engine",
                        "tensorflow.python.keras.engine.base_layer_v1", "tensorflow_core.estimator",
                        "keras.engine.topology", "keras.legacy", "keras.layers.preprocessing",
                        "keras.src.legacy.backend", "tf_keras.src.engine"]),
       st.sampled_from(["1.12.0", "2.4.1", "2.13.0", "2.15.1", "2.16.1", "2.18.0", None]),
       st.booleans(), NOISE)
def test_a_module_another_release_has(module, tf, quoted, noise):
    """"No module named 'keras.engine.topology'": code or a package written for another release
    of TensorFlow or Keras. Keras's own modules under a TF that installs Keras 3 (2.16+) are
    Keras 3; the rest is a mix of releases."""
    name = f"'{module}'" if quoted else module
    text = around(noise, ["Traceback (most recent call last):",
                          f"ModuleNotFoundError: No module named {name}"], [])
    # Keras 3's own modules missing: a Keras 2 is installed, whatever the TF.
    keras3 = (module.startswith("keras.") and not module.startswith("keras.src.legacy")
              and tf in ("2.16.1", "2.18.0"))
    # A TF 1 the text states, missing a module of TensorFlow: code for a later release.
    too_old = module.startswith("tensorflow.") and tf == "1.12.0"
    want = ("keras3-strategy-unsupported" if keras3 else "tf-too-old" if too_old
            else "mixed-tf-packages")
    assert rule_ids(text, tf_version=tf)[0] == want, rule_ids(text, tf_version=tf)


@pytest.mark.parametrize("module, cause", [
    ("tensorflow.contrib", "tf1-api-on-tf2"),  # TF 1's, with its own fix
    ("tensorflow.contrib.layers", "tf1-api-on-tf2"),
])
def test_tf1s_modules_stay_tf1s(module, cause):
    assert rule_ids(f"ModuleNotFoundError: No module named '{module}'")[0] == cause


@pytest.mark.parametrize("module", ["tensorflow.python", "tensorflow.core",
                                    "tensorflow.python._pywrap_tensorflow_internal"])
def test_a_part_every_tensorflow_has_is_no_other_release(module):
    """c482: TensorFlow's own core missing is a broken install, not code for another release."""
    text = f"ModuleNotFoundError: No module named '{module}'"
    assert "mixed-tf-packages" not in rule_ids(text)


@SETTINGS
@given(st.sampled_from(SITES),
       st.sampled_from([("layers", "core", "dense.py"), ("engine", "base_layer.py"),
                        ("layers", "layer.py"), ("saving", "saving_lib.py")]),
       st.sampled_from(["TypeError: Layer.__init__() got an unexpected keyword argument "
                        "'weights'",
                        "ValueError: Unrecognized keyword arguments: ['input_dim']",
                        "TypeError: __init__() missing 1 required positional argument: "
                        "'units'"]),
       st.sampled_from(["2.16.1", "2.17.0", "2.19.0"]), NOISE)
def test_an_error_raised_inside_keras_under_tf_216_is_keras_3(site, parts, error, tf, noise):
    """TF 2.16+ installs Keras 3 as ``keras``: an API error raised inside ``keras`` there is
    code written for Keras 2, whatever its words. Under TF 2.15 ``keras`` is Keras 2."""
    text = around(noise, ["Traceback (most recent call last):", _frame(site, "keras", *parts),
                          "    super().__init__(**kwargs)", error], [])
    assert rule_ids(text, tf_version=tf)[0] == "keras3-strategy-unsupported"
    assert "keras3-strategy-unsupported" not in rule_ids(text, tf_version="2.15.0")


@SETTINGS
@given(st.sampled_from(["lr", "decay"]), st.sampled_from(["0.001", "1e-05", "1e-6"]),
       st.sampled_from([None, "2.16.2", "2.18.0"]), NOISE)
def test_keras_3s_optimizer_refusing_keras_2s_arguments(name, value, tf, noise):
    """Keras 3's optimizers refuse ``lr`` and ``decay`` in their own words; beside a TF that
    ships Keras 2 the Keras 3 is the package that does not fit."""
    text = around(noise, ["    optimizer = Adam(lr=0.001)",
                          f"ValueError: Argument(s) not recognized: {{'{name}': {value}}}"], [])
    assert rule_ids(text, tf_version=tf)[0] == "keras3-strategy-unsupported"
    assert rule_ids(text, tf_version="2.12.0")[0] == "mixed-tf-packages"
    # Keras 2's regularizers say the same of their own arguments: not an optimizer's.
    l1 = around(noise, ["TypeError: Argument(s) not recognized: {'l': 0.01}"], [])
    assert "keras3-strategy-unsupported" not in rule_ids(l1, tf_version=tf)


@SETTINGS
@given(st.booleans(), st.sampled_from([None, "2.16.1", "2.17.0"]), NOISE)
def test_tf_keras_asked_for_and_not_installed(quoted, tf, noise):
    """TF 2.16+ code (or ``TF_USE_LEGACY_KERAS=1``) asking for tf-keras, which is not installed:
    the Keras 2 that the keras3 finding's fix installs."""
    name = "'tf_keras'" if quoted else "tf_keras"
    text = around(noise, [f"ModuleNotFoundError: No module named {name}"], [])
    found = explain(text, tf_version=tf)
    assert found[0].id == "keras3-strategy-unsupported"
    assert "tf-keras" in found[0].title
    assert "keras3-strategy-unsupported" not in rule_ids(text, tf_version="2.10.0")


# --- issue 21, fourteenth round: facts of its development cases, and tf-too-old ---------------

@SETTINGS
@given(st.sampled_from(["AUTO_REUSE", "py_function", "function", "keras", "data", "compat",
                        "random", "lite", "distribute"]),
       st.sampled_from(["1.4.0", "1.8.0", "1.9", "1.12.3"]), st.booleans(), NOISE)
def test_a_name_a_stated_tf_1_lacks_is_code_for_a_later_release(name, tf, in_text, noise):
    """c883, c921: TF 1.8 lacks tf.AUTO_REUSE, TF 1.9 tf.py_function. A TF 1 has TF 1's API, so
    what it lacks came later: the installed TF is too old (not TF 1 code on TF 2). The version
    stated by the user or in the text alike; the fix keeps TF 1 (1.15, the last)."""
    lines = [f"AttributeError: module 'tensorflow' has no attribute '{name}'"]
    text = around(noise, [f"tensorflow=={tf}", *lines] if in_text else lines, [])
    found = explain(text, tf_version=None if in_text else tf)
    assert found[0].id == "tf-too-old", [f.id for f in found]
    assert f"tf.{name}" in found[0].title and tf in found[0].title
    assert any("tensorflow==1.15.*" in (step.command or "") for step in found[0].steps)


@pytest.mark.parametrize("tf, cause", [("2.3.0", "tf1-api-on-tf2"), (None, "tf1-api-on-tf2"),
                                       ("1.15.0", "tf-too-old")])
def test_tf1_code_on_tf2_stays_that(tf, cause):
    """The same missing name under TF 2 (or no version) is TF 1 code on TF 2."""
    text = "AttributeError: module 'tensorflow' has no attribute 'placeholder'"
    assert rule_ids(text, tf_version=tf)[0] == cause


@SETTINGS
@given(st.sampled_from(["tensorflow.keras", "tensorflow.keras.layers", "tensorflow.compat.v1"]),
       st.sampled_from(["No module named", "no module named",
                        "ModuleNotFoundError: No module named"]),
       st.sampled_from(["1.5", "1.12.0"]), NOISE)
def test_a_tensorflow_module_a_stated_tf_1_lacks(module, said, tf, noise):
    """c870: "no module named 'tensorflow.keras'" under TF 1.5, for code written for TF 2. Raised
    inside a companion package, the companion was built for another TF (c851)."""
    text = around(noise, [f"{said} '{module}'"], [])
    assert rule_ids(text, tf_version=tf)[0] == "tf-too-old", rule_ids(text, tf_version=tf)
    site = "/usr/lib/python3.6/site-packages"  # a Python TF 1 was built for
    companion = around(noise, [_frame(site, "tensorflow_probability", "python", "__init__.py"),
                               f"ModuleNotFoundError: No module named '{module}'"], [])
    assert rule_ids(companion, tf_version=tf)[0] == "mixed-tf-packages"


@SETTINGS
@given(st.sampled_from(["ValueError: Unknown layer: Functional",
                        "ValueError: Unknown layer: 'Functional'",
                        "Unknown layer: Functional. Please ensure this object is passed to the "
                        "`custom_objects` argument."]), NOISE)
def test_a_model_saved_by_a_newer_tf(line, noise):
    """c526: a model saved by TF 2.3+ (class "Functional") loaded by an older TF; the fix
    upgrades TensorFlow. A custom layer unknown is the user's, not this."""
    found = explain(around(noise, [line], []))
    assert found[0].id == "tf-too-old"
    assert "saved" in found[0].title
    assert any("--upgrade" in (step.command or "") for step in found[0].steps)
    assert "tf-too-old" not in rule_ids(line.replace("Functional", "AttentionLayer"))


@SETTINGS
@given(st.sampled_from(["DeprecationWarning: inspect.getargspec() is deprecated, use "
                        "inspect.signature() instead",
                        "FutureWarning: Passing (type, 1) or '1type' as a synonym of type is "
                        "deprecated",
                        "UserWarning: h5py is running against HDF5 1.10.5 when it was built "
                        "against 1.10.4"]),
       st.sampled_from(["C:\\Python35\\site-packages\\tensorflow\\python\\util\\tf_inspect.py:45:",
                        "/usr/lib/python3/dist-packages/tensorflow/python/framework/dtypes.py:516:"]))
def test_python_warnings_alone_are_no_error(warning, path):
    """c916: a DeprecationWarning pasted as the error. Only warnings: nothing failed. With an
    exception after them, the exception is what failed."""
    text = f"{path}\n {warning}\n  if d.decorator_argspec is not None)"
    found = explain(text)
    assert next(f.id for f in found if not is_guess(f)) == "no-error-found"
    failing = f"{text}\nTraceback (most recent call last):\nKeyError: 'image'"
    assert "no-error-found" not in rule_ids(failing)


# The fourteenth round's facts: (a line, the cause it names).
ROUND_14_FACTS = [
    # c887: Keras 3's own words for a TF 1 layer function.
    ("AttributeError: `conv2d` is not available with Keras 3.", "keras3-strategy-unsupported"),
    ("it has an AttributeError: `dense` is not available with Keras 3 which in model.py",
     "keras3-strategy-unsupported"),
]


@SETTINGS
@given(st.sampled_from(["'keras' and 'tensorflow'", "'numpy', 'tensorflow'",
                        "keras or tensorflow"]), NOISE)
def test_no_module_named_lists_tensorflow_among_others(names, noise):
    """c899: "No module named 'keras' and 'tensorflow'" (a notebook outside the env)."""
    text = around(noise, [f"ModuleNotFoundError: No module named {names}"], [])
    assert rule_ids(text)[0] in ("conda-env-not-activated", "tf-not-installed")


@SETTINGS
@given(st.sampled_from(["0.32.0", "0.34.0", "0.37.1"]), st.sampled_from(["==", ">="]))
def test_pip_on_windows_finding_no_tensorflow_io_gcs_filesystem(version, op):
    """c890, c891: tensorflow-io-gcs-filesystem publishes Windows wheels up to 0.31.0."""
    text = ("ERROR: Could not find a version that satisfies the requirement "
            f"tensorflow-io-gcs-filesystem{op}{version} (from versions: none)\n"
            f"ERROR: No matching distribution found for tensorflow-io-gcs-filesystem{op}{version}")
    found = explain(text, platform="windows")
    assert found[0].id == "no-windows-build"
    assert "0.31.0" in found[0].title


# --- issue 21, fifteenth round: facts of its development cases --------------------------------

@SETTINGS
@given(st.sampled_from(["cuda", "CUDA", "Cuda"]), st.sampled_from(["9.2", "10.1", "11.2", "12"]),
       st.sampled_from(["", " in the image", " on my machine", " inside the container",
                        " of the server"]), st.sampled_from(["the ", "my ", ""]),
       st.sampled_from(["is", "was"]))
def test_the_version_of_cuda_said_name_last(name, version, where, the, verb):
    """c933: "the version of cuda in the image is 9.2" states the CUDA installed, as "CUDA 9.2"
    does; cuDNN the same."""
    text = f"However {the}version of {name}{where} {verb} {version}."
    assert version in facts_of(text).cuda_stated
    assert "8.1" in facts_of(text.replace(name, "cuDNN").replace(version, "8.1")).cudnn_stated


def test_the_stated_cuda_against_the_builds_is_a_mismatch():
    """c933 in other words: TF 2.3 wants CUDA 10.1; the image has 9.2."""
    text = ("I cannot use the GPU with tensorflow 2.3.1.\n"
            "The version of CUDA inside the container is 9.2.")
    assert rule_ids(text, platform="linux")[0] == "cuda-version-mismatch"


@SETTINGS
@given(NOISE, st.sampled_from(["tensorflow.python.framework.errors_impl.InternalError: ",
                               "InternalError: ", ""]))
def test_the_cuda_runtime_failing_to_start_on_the_driver(noise, prefix):
    """c934: a bundled CUDA 11 runtime on a driver made for CUDA 10."""
    text = around(noise, [f"{prefix}cudaGetDevice() failed. Status: initialization error"], [])
    assert rule_ids(text)[0] == "driver-too-old"


@SETTINGS
@given(st.sampled_from([("tensorflow.contrib", "distribute"),
                        ("tensorflow.compat.v1", "AUTO_REUSE"), ("tensorflow.data", "experimental"),
                        ("tensorflow.keras", "mixed_precision")]),
       st.sampled_from(["1.7", "1.8.0", "1.12"]), NOISE)
def test_a_name_a_submodule_of_a_stated_tf_1_lacks(where, tf, noise):
    """c952: "module 'tensorflow.contrib' has no attribute 'distribute'" on TF 1.7: TF 1.8
    brought it. Raised inside a package (Keras), the package is built for another TF."""
    module, name = where
    line = f"AttributeError: module '{module}' has no attribute '{name}'"
    found = explain(around(noise, ['  File "train.py", line 9, in <module>', line], []),
                    tf_version=tf)
    assert found[0].id == "tf-too-old"
    assert "tf" + module.removeprefix("tensorflow") + "." + name in found[0].title
    keras = around(noise, [_frame("/usr/lib/python3.6/site-packages", "keras", "backend.py"),
                           line], [])
    assert "tf-too-old" not in rule_ids(keras, tf_version=tf)


@SETTINGS
@given(st.sampled_from([("tensorflow.python", "tf2"), ("tensorflow.keras.layers", "Layer"),
                        ("tensorflow", "function")]), st.sampled_from(["1.8", "1.12"]), NOISE)
def test_an_import_a_stated_tf_1_cannot_satisfy(where, tf, noise):
    """c942: "from tensorflow.python import tf2" failing on TF 1.12 (the Object Detection API
    is written for 1.15 and 2.x). No version stated: a mix of releases, as before."""
    module, name = where
    text = around(noise, ['  File "object_detection/utils/tf_version.py", line 17, in <module>',
                          f"    from {module} import {name}",
                          f"ImportError: cannot import name '{name}'"], [])
    found = explain(text, tf_version=tf)
    assert found[0].id == "tf-too-old", [f.id for f in found]
    assert "tf" + module.removeprefix("tensorflow") + "." + name in found[0].title
    assert rule_ids(text)[0] == "mixed-tf-packages"


@SETTINGS
@given(st.sampled_from(["set_random_seed", "placeholder", "Session"]), NOISE)
def test_python_2s_words_for_a_name_tensorflow_lacks(name, noise):
    """c953: Python 2 says "'module' object has no attribute 'set_random_seed'"; the quoted
    code asks it of ``tf``. TF 1 code on TF 2, or a TF 1 too old when one is stated. Without
    ``tf.`` in the code the module is anything's."""
    text = around(noise, ['  File "utils.py", line 22, in <module>', f"    tf.{name}(seed)",
                          f"AttributeError: 'module' object has no attribute '{name}'"], [])
    assert rule_ids(text)[0] == "tf1-api-on-tf2"
    assert rule_ids(text, tf_version="1.2.0")[0] == "tf-too-old"
    other = text.replace(f"tf.{name}", f"np.{name}")
    assert "tf1-api-on-tf2" not in rule_ids(other)


# --- issue 21, sixteenth round: facts of its development cases --------------------------------

# The sixteenth round's facts: (a line, the cause it names).
ROUND_16_FACTS = [
    # c974, c975: Colab dropped TF 1.
    ("ValueError: Tensorflow 1 is unsupported in Colab.", "tf1-api-on-tf2"),
    # c981: a library reaching into TF 2.1's internals (tensorflow_core) for what TF 2.3 has.
    ("AttributeError: module 'tensorflow_core.python.keras.api._v2.keras.activations' has no "
     "attribute 'swish'", "mixed-tf-packages"),
    # c1007: NumPy 2 in words.
    ("Numpy's version has been already upgraded to 2.x, but now tensorflow can't support it.",
     "mixed-tf-packages"),
    ("after installing numpy 2.0.1 tensorflow is not compatible anymore", "mixed-tf-packages"),
    # c1008: TF's library asking protobuf for a symbol another protobuf has.
    ("ImportError: /usr/local/lib/python3.6/dist-packages/tensorflow/python/"
     "_pywrap_tensorflow_internal.so: undefined symbol: "
     "_ZN6google8protobuf8internal26fixed_address_empty_stringE", "dependency-version-conflict"),
]


@pytest.mark.parametrize("line", [
    "I have 2 GPUs; numpy works, tensorflow is not compatible with my driver",
    "numpy 1.26.2 is installed, tensorflow does not work"])
def test_numpy_2_in_words_needs_numpy_2(line):
    """A 2 that is not NumPy's major version ("2 GPUs", "1.26.2") is not NumPy 2."""
    assert "mixed-tf-packages" not in rule_ids(line)


@SETTINGS
@given(st.sampled_from(["TFBertForSequenceClassification", "TFAutoModel", "TFGPT2LMHeadModel"]),
       st.sampled_from([" (unknown location)", " (/usr/lib/python3/site-packages/transformers/"
                                                "__init__.py)", ""]), NOISE)
def test_transformers_without_its_tf_classes(name, where, noise):
    """c979: transformers hides its TF classes when the TF it finds is missing or older than
    it supports (TF 2.0 under transformers 4.2)."""
    text = around(noise, [f"ImportError: cannot import name '{name}' from 'transformers'{where}"],
                  [])
    found = explain(text)
    assert found[0].id == "mixed-tf-packages"
    assert "companion package" in found[0].title


@SETTINGS
@given(st.sampled_from(["a saved H5 model that is built on Tensorflow 2.12",
                        "the model was trained with TF 2.15 on my desktop",
                        "weights saved with tensorflow 2.10"]),
       st.sampled_from(["2.4", "2.4.1", "2.9.0"]))
def test_a_model_saved_by_a_newer_tf_in_words(line, tf):
    """c995: an H5 model built on TF 2.12, loaded by a Jetson's TF 2.4. Loaded by the same or a
    newer TF, it is not this."""
    assert rule_ids(line, tf_version=tf)[0] == "tf-too-old"
    assert "tf-too-old" not in rule_ids(line, tf_version="2.16.1")
    assert "tf-too-old" not in rule_ids(line)


# --- issue 21: module-not-installed, grown from five development gaps -------------------------

NAMES = st.from_regex(r"[a-z][a-z0-9_]{2,14}", fullmatch=True).filter(
    lambda n: not n.startswith(("tensorflow", "tf_keras", "keras", "pywrap", "_pywrap")))


@SETTINGS
@given(NAMES, NOISE, st.sampled_from(["ModuleNotFoundError: ", "ImportError: ", "E   "]))
def test_a_module_no_package_provides(name, noise, prefix):
    """c892, c988: "No module named 'commentjson'" / 'keras_core': the package is not in the
    Python that runs the code; the fix installs it with that Python's pip."""
    text = around(noise, ["Traceback (most recent call last):", '  File "train.py", line 18',
                          f"    import {name}", f"{prefix}No module named '{name}'"], [])
    found = explain(text)
    assert found[0].id == "module-not-installed", [f.id for f in found]
    assert name in found[0].title
    assert any(f"pip install {name.replace('_', '-')}" in (step.command or "")
               for step in found[0].steps)


@pytest.mark.parametrize("line, package", [
    ("ImportError: No module named protobuf", "protobuf"),  # c886: Python 2's last part
    ("ModuleNotFoundError: No module named 'google.protobuf'", "protobuf"),
    ("Original import error: No module named 'absl'", "absl-py"),  # c824
    ("ModuleNotFoundError: No module named 'cv2'", "opencv-python"),
    ("ModuleNotFoundError: No module named 'sklearn'", "scikit-learn"),
])
def test_the_package_of_a_module_named_otherwise(line, package):
    found = explain(line)
    assert found[0].id == "module-not-installed"
    assert f"pip install {package}" in found[0].steps[0].command


@pytest.mark.parametrize("line", [
    "ModuleNotFoundError: No module named 'sklearn.externals.joblib'",  # a submodule: an API
    "ImportError: No module named contrib",  # Python 2: the last part of tensorflow.contrib
    "ModuleNotFoundError: No module named 'tensorflow'",  # tf-not-installed's
    "ModuleNotFoundError: No module named 'keras'",
    "ImportError: No module named pywrap_tensorflow",
])
def test_what_is_no_package_missing(line):
    assert "module-not-installed" not in rule_ids(line)


def test_the_last_error_is_what_failed_not_a_cuda_warning_before_it():
    """c892: TF's dlerror for cudart (a warning on a machine without CUDA), then the script's
    import of a package that is not installed."""
    text = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
            "dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n"
            "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror "
            "if you do not have a GPU set up on your machine.\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 18, in <module>\n"
            "    import commentjson\nModuleNotFoundError: No module named 'commentjson'")
    assert rule_ids(text, platform="windows")[0] == "module-not-installed"


def test_tf_1s_source_tree_words_after_a_missing_dependency():
    """c886: TF 1 says "you should not try to import tensorflow from its source directory"
    after any import error; protobuf not installed is the error. Its own native module
    missing there is still the source tree."""
    tail = ("\n\nError importing tensorflow.  Unless you are using bazel,\nyou should not try "
            "to import tensorflow from its source directory;\nplease exit the tensorflow source "
            "tree, and relaunch your python interpreter\nfrom there.")
    assert rule_ids("ImportError: No module named protobuf" + tail)[0] == "module-not-installed"
    assert rule_ids("ImportError: No module named pywrap_tensorflow" + tail)[0] == "tf-shadowed"


# --- issue 21, seventeenth round: facts of its development cases ------------------------------

@SETTINGS
@given(st.sampled_from(["_ZN10tensorflow12OpDefBuilder4AttrESs",
                        "_ZN10tensorflow8internal21CheckOpMessageBuilder9NewStringEv",
                        "_ZNK10tensorflow8OpKernel11TraceStringEPNS_15OpKernelContextEb"]),
       st.sampled_from(["import fails: \"undefined symbol: {s}\"",
                        "tensorflow.python.framework.errors_impl.NotFoundError: /usr/lib/python3/"
                        "site-packages/tensorflow_text/python/ops/_regex_split_ops.so: undefined "
                        "symbol: {s}"]), NOISE)
def test_a_library_asking_tensorflows_cpp_for_a_symbol_it_lacks(symbol, line, noise):
    """c1052: tensorflow-text from pip under a conda TF 2.0: its ops ask TF's C++ for a symbol
    of another release. protobuf's symbols are protobuf's (dependency-version-conflict)."""
    text = around(noise, [line.format(s=symbol)], [])
    assert rule_ids(text)[0] == "mixed-tf-packages", rule_ids(text)
    if "tensorflow_text" not in text:  # a companion's op library failing is the companion's
        protobuf = text.replace("10tensorflow", "6google8protobuf")
        assert rule_ids(protobuf)[0] == "dependency-version-conflict"


@SETTINGS
@given(st.sampled_from(["ModuleNotFoundError: No module named 'numpy.core._multiarray_umath'",
                        "ImportError: No module named 'numpy.core._multiarray_umath'"]), NOISE)
def test_numpy_older_than_tfs_build(line, noise):
    """c1039: NumPy older than the one TF was built against (NumPy 1.16 renamed its core); the
    fix upgrades NumPy."""
    found = explain(around(noise, ["from keras.models import Sequential",
                                   "Using TensorFlow backend.", line], []))
    assert found[0].id == "mixed-tf-packages"
    assert any("--upgrade numpy" in (step.command or "") for step in found[0].steps)


# --- issue 21, eighteenth round: facts of its development cases -------------------------------

# The eighteenth round's facts: (a line, the cause it names).
ROUND_18_FACTS = [
    # c1065: a placement on the GPU in a TF built without CUDA.
    ("InvalidArgumentError (see above for traceback): Cannot assign a device for operation "
     "input_image: node input_image was explicitly assigned to /device:GPU:0 but available "
     "devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device "
     "specification refers to a valid device. The requested device appears to be a GPU, but "
     "CUDA is not enabled.", "cpu-only-build"),
    # c1071: TF 1's Dimension.value on TF 2's int dimensions.
    ("AttributeError: 'int' object has no attribute 'value'", "tf1-api-on-tf2"),
    # c1081: a tensor as a variable's initial value inside a TF 2 function.
    ("ValueError: Tensor-typed variable initializers must either be wrapped in an init_scope or "
     "callable (e.g., `tf.Variable(lambda : tf.truncated_normal([10, 40]))`) when building "
     "functions.", "tf1-api-on-tf2"),
    # c1073: cuBLAS could not start (its memory taken).
    ("Attempting to perform BLAS operation using StreamExecutor without BLAS support",
     "gpu-out-of-memory"),
]


@SETTINGS
@given(st.sampled_from(["Resource exhausted: OOM when allocating tensor with shape[5000,28,28,32]",
                        "ResourceExhaustedError: OOM when allocating tensor"]),
       st.integers(min_value=0, max_value=3), st.sampled_from([" ", "\n\t "]), NOISE)
def test_an_oom_on_tf_1_0s_lower_case_cpu_device(oom, task, between, noise):
    """c1059: TF 1.0 names devices as paths ("/job:localhost/replica:0/task:0/cpu:0"): the OOM
    is the host's RAM (a 3 GB virtual machine), as "device:CPU:0" is; the node, with its
    device, on the OOM's line or the next one."""
    line = (f'{oom}{between}[[Node: Conv2D_2 = Conv2D[_device="/job:localhost/replica:0/'
            f'task:{task}/cpu:0"]')
    assert rule_ids(around(noise, [line], []))[0] == "host-out-of-memory"
    gpu = line.replace("/cpu:0", "/gpu:0")
    assert rule_ids(around(noise, [gpu], []))[0] == "gpu-out-of-memory"
    # The node two lines below belongs to something else.
    far = line.replace(between, "\nEpoch 1/10\n")
    assert rule_ids(around(noise, [far], []))[0] == "gpu-out-of-memory"


@pytest.mark.parametrize("line, cause",
                         [*ROUND_13_FACTS, *ROUND_14_FACTS, *ROUND_16_FACTS, *ROUND_18_FACTS])
def test_a_rounds_fact_names_its_cause(line, cause):
    """Each line above, alone, is read as its cause."""
    assert rule_ids(line)[0] == cause, rule_ids(line)


def test_a_module_not_installed_without_its_name_still_says_what_to_do():
    """The wording model's guess names the cause without the module (no rule read it): the fix
    says to install the package the project names, and where."""
    found = make_finding("module-not-installed", ["(guessed)"], FixContext())
    assert [step.command for step in found.steps] == [None, None]
    assert "README or requirements.txt" in found.steps[0].text


# --- issue 21, nineteenth round: facts of its development cases -------------------------------

@SETTINGS
@given(st.sampled_from(["keras.src", "keras.src.saving", "keras.src.engine"]),
       st.sampled_from([("2.12.0", True), ("2.11", True), ("2.13.1", False), ("2.15", False)]),
       NOISE)
def test_keras_src_asked_of_a_tf_before_2_13_is_tf_too_old(module, stated, noise):
    """c1134: keras.src came with Keras 2.13; a library that imports it on TF 2.12 wants a newer
    TensorFlow (the maintainer: upgrade). On 2.13+ the module is there: another Keras."""
    tf, too_old = stated
    text = around(noise, ["  File \"/home/u/lib/python3.11/site-packages/tcn/tcn.py\", line 6",
                          f"    from {module} import x",
                          f"ModuleNotFoundError: No module named '{module}'"], [])
    found = rule_ids(text, tf_version=tf)
    assert (found[0] == "tf-too-old") == too_old, found
    assert rule_ids(text)[0] != "tf-too-old"  # no TF stated: nothing says it is older


@SETTINGS
@given(st.sampled_from([">>> print(tf.config.list_physical_devices('GPU'))\n[]",
                        "Num GPUs Available:  0", "tf.test.is_gpu_available() returns False"]),
       NOISE)
def test_no_gpu_inside_wsl_lists_wsl_offering_none(no_gpu, noise):
    """c1108: inside WSL the GPU is the Windows driver's, through /usr/lib/wsl/lib: none listed is
    listed as WSL offering none (updating WSL fixed it); TF not finding the driver's libcuda
    there puts it first. Outside WSL it is not named."""
    text = around(noise, [no_gpu], [])
    assert "wsl-gpu-unavailable" in rule_ids(text, platform="wsl")
    assert "wsl-gpu-unavailable" not in rule_ids(text, platform="linux")
    drivers = around(noise, ["I external/local_tsl/tsl/cuda/cudart_stub.cc:28] Could not find "
                             "cuda drivers on your machine, GPU will not be used.", no_gpu], [])
    assert rule_ids(drivers, platform="wsl")[0] == "wsl-gpu-unavailable"


@SETTINGS
@given(st.sampled_from(["TF sees the GPUs on {shell}, but not on {front}.",
                        "import tensorflow works in {shell} but fails in {front}",
                        "It only fails in {front}, the {shell} is fine"]),
       st.sampled_from(["terminal", "the command line", "cmd", "shell"]),
       st.sampled_from(["jupyter lab", "Jupyter Notebook", "PyCharm", "VS Code", "Spyder"]),
       NOISE)
def test_works_from_a_terminal_not_from_a_notebook_is_another_env(sentence, shell, front,
                                                                  noise):
    """c1139: the notebook or editor runs another Python or env than the terminal (one without
    the env's library paths): the fix shows both Pythons, then starts it from the env."""
    found = explain(around(noise, [sentence.format(shell=shell, front=front)], []))
    assert found[0].id == "conda-env-not-activated", [f.id for f in found]
    assert "sys.executable" in found[0].fix and "ipykernel install" in found[0].fix
    both = around(noise, [f"I use {front} and the {shell} every day."], [])
    assert "conda-env-not-activated" not in rule_ids(both)


@SETTINGS
@given(st.sampled_from(["print(tf.test.is_gpu_available())", "tf.test.is_gpu_available()"]),
       NOISE, st.sampled_from(["pip show tensorflow-gpu", "tensorflow-gpu==1.15.4"]))
def test_a_gpu_yes_no_answered_false_after_tfs_log_is_no_gpu(query, log, package):
    """c875: the question, TF's log lines, then "False" alone: no GPU. With tensorflow-gpu
    installed under a TF 1 that is its CPU twin written over it (both packages in the env)."""
    text = around([f'python -c "import tensorflow as tf; {query}"'], log, ["False", package])
    assert facts_of(text).no_gpu
    assert rule_ids(text, tf_version="1.15.4")[0] == "mixed-tf-packages"
    assert not facts_of(around(["print(model.trainable)"], log, ["False"])).no_gpu


# --- issue 21, twentieth round: facts of its development cases --------------------------------

@SETTINGS
@given(st.sampled_from([("tensorflow-io-gcs-filesystem", "0.37.1", "after"),
                        ("tensorflow-text", "2.15.0", "after"), ("somepkg", "1.2.3", None)]),
       st.sampled_from(["", " @ registry+https://pypi.org/simple"]), NOISE)
def test_uvs_no_wheel_for_windows_is_no_windows_build(package, registry, noise):
    """c1152: uv's words for pip's "no matching distribution", with its hint naming Windows;
    the table's packages name their last Windows release, another is named as having none."""
    name, version, variant = package
    text = around(noise, [f"error: Distribution `{name}=={version}{registry}` can't be installed "
                          "because it doesn't have a source distribution or wheel for the "
                          "current platform", "", "hint: You're on Windows (`win_amd64`), but "
                          f"`{name}` (v{version}) only has wheels for the following platforms: "
                          "`manylinux_2_17_x86_64`, `macosx_12_0_arm64`"], [])
    found = explain(text)
    assert found[0].id == "no-windows-build", [f.id for f in found]
    assert name in found[0].title and (variant != "after" or "after" in found[0].title)


@pytest.mark.parametrize("platform, cause", [("windows", "no-windows-build"),
                                             ("linux", "python-unsupported"),
                                             (None, "python-unsupported")])
@pytest.mark.parametrize("line", ["ERROR: No matching distribution found for tflite_runtime",
                                  "ERROR: Could not find a version that satisfies the "
                                  "requirement tflite-runtime (from versions: none)"])
def test_no_tflite_runtime_names_litert(line, platform, cause):
    """c1153, c1154: tflite-runtime's last wheels are for Linux and Python up to 3.11: elsewhere
    its successor LiteRT (ai-edge-litert); on Windows, the table of packages without Windows
    builds says so first."""
    found = explain(line, platform=platform)
    assert found[0].id == cause, [f.id for f in found]
    litert = next(f for f in found if f.id == "python-unsupported")
    assert "pip install ai-edge-litert" in litert.fix


@SETTINGS
@given(st.sampled_from(["NCCL WARN Call to connect timeout : Connection refused",
                        "misc/socket.cc:456 NCCL WARN Connect to 10.0.0.2<43123> failed : "
                        "Connection timed out", "WARN Connection closed by remote peer"]), NOISE)
def test_nccl_failing_to_connect_is_a_peer_out_of_reach(line, noise):
    """c1145: NCCL's socket transport (Horovod, MirroredStrategy across machines) connects on an
    interface the other machine cannot reach: the fix names NCCL_SOCKET_IFNAME first."""
    found = explain(around(noise, [line], []))
    assert found[0].id == "peer-unreachable", [f.id for f in found]
    assert "NCCL_SOCKET_IFNAME" in found[0].steps[0].command


@SETTINGS
@given(st.sampled_from(["it can only find the CPU devices",
                        "tf.config.experimental.list_physical_devices('GPU') cannot list the GPU "
                        "devices"]), NOISE)
def test_an_xla_gpu_without_a_gpu_is_cuda_not_loading(said, noise):
    """c1149: TF 2.1-2.3 list an XLA_GPU device when the driver works and CUDA's libraries do not
    load (CUDA 10.2 for TF 2.1's 10.1): the mismatch first, not a missing driver."""
    text = around(noise, [said, "After I check, my gpu device type is XLA_GPU."], [])
    assert facts_of(text).no_gpu
    assert rule_ids(text, platform="linux")[0] == "cuda-version-mismatch"
    assert rule_ids(said, platform="linux")[0] != "cuda-version-mismatch"


@SETTINGS
@given(st.sampled_from(["numpy", "protobuf", "ml-dtypes"]), NOISE)
def test_a_resolvers_conflict_with_tensorflows_requirement_is_a_dependency_conflict(package,
                                                                                    noise):
    """c1160: Poetry (and uv) find the project's requirement of a package against TensorFlow's:
    the package is named."""
    poetry = around(noise, [f"and tensorflow (2.13.0) depends on {package} (>=1.22,<=1.24.3), "
                            "tensorflow requires it.", f"So, because proj depends on both "
                            f"{package} (^9.0) and tensorflow (^2.12.0), version solving "
                            "failed."], [])
    uv = (f"Because tensorflow==2.13.0 depends on {package}>=1.22,<=1.24.3 and you require "
          f"{package}>=9.0, we can conclude that your requirements are unsatisfiable.")
    for text in (poetry, uv):
        found = explain(text)
        assert found[0].id == "dependency-version-conflict" and package in found[0].title
    assert "dependency-version-conflict" not in rule_ids(poetry.replace("version solving failed",
                                                                        "it installed"))


# --- issue 21, twenty-first round: facts of its development cases -----------------------------

@SETTINGS
@given(st.sampled_from(["Node: 'sequential_2/conv2d_2/Conv2D'", "UnimplementedError  Traceback"]),
       NOISE)
def test_dnn_library_not_found_is_a_cudnn_that_would_not_start(before, noise):
    """c1190, c1192: "DNN library is not found" with no missing library line: cuDNN loaded and
    is not the build's (Colab's cuDNN against an upgraded TF). With the library's own line,
    cuDNN is missing."""
    text = around(noise, [before, "DNN library is not found."], [])
    found = rule_ids(text)
    assert found[0] == "cuda-version-mismatch" and "missing-cudnn" in found
    missing = around(noise, ["Could not load dynamic library 'libcudnn.so.8'; dlerror: "
                             "libcudnn.so.8: cannot open shared object file", before,
                             "DNN library is not found."], [])
    assert rule_ids(missing)[0] == "missing-cudnn"


@SETTINGS
@given(st.sampled_from(["2022-02-13 17:05:33.353387: I tensorflow/core/common_runtime/"
                        "pluggable_device/pluggable_device_factory.cc:305] Could not identify "
                        "NUMA node of platform GPU ID 0, defaulting to 0.",
                        "I tensorflow/core/platform/cpu_feature_guard.cc:142] This TensorFlow "
                        "binary could not find the optimal instructions"]), NOISE)
def test_tensorflows_information_lines_alone_are_no_error(line, noise):
    """c1173: the Metal plugin's NUMA line (level I) pasted as the error: nothing failed. An
    error line after it is quoted instead."""
    found = [f for f in explain(around(noise, ["Metal device set to: Apple M1 Max", line], []))
             if not is_guess(f)]
    assert found[0].id == "no-error-found" and "information lines" in found[0].title
    failed = around(noise, [line, "E tensorflow/core/common_runtime/executor.cc:1] failed"], [])
    assert rule_ids(failed)[0] != "no-error-found"


@SETTINGS
@given(st.sampled_from(["dyld: Symbol not found: ____chkstk_darwin (which was built for Mac OS "
                        "X {v})", "Symbol not found: _x (built for macOS {v} which is newer than "
                        "running OS)"]), st.sampled_from(["10.15", "11.0", "12.3"]), NOISE)
def test_a_binary_built_for_a_newer_macos_is_os_too_old(line, version, noise):
    """c1175: macOS's loader names the macOS a binary was built for (the TF C library 2.6+ for
    10.15, on High Sierra): the system is older; the fix checks the macOS version first."""
    found = explain(around(noise, [line.format(v=version)], []))
    assert found[0].id == "os-too-old" and f"macOS {version}" in found[0].title
    assert found[0].steps[0].command == "sw_vers -productVersion"


@SETTINGS
@given(st.sampled_from(["我的显卡是A100，跑不起来", "显卡:RTX3090，跑不起来", "用的A6000训练报错"]),
       st.sampled_from(["1.13.1", "2.3.0"]))
def test_an_ampere_gpu_named_in_chinese_under_an_old_tf_is_unsupported(sentence, tf):
    """c1183: a GPU model right after CJK text (a word character in Unicode's sense: the
    doctor's patterns are re.ASCII) under a TF before 2.4: no code for its architecture."""
    assert rule_ids(sentence, tf_version=tf)[0] == "gpu-arch-unsupported"
    assert "gpu-arch-unsupported" not in rule_ids(sentence, tf_version="2.10.0")


# --- issue 21, twenty-second round: facts of its development cases ----------------------------

@SETTINGS
@given(st.sampled_from(["AWS GPU instance isn't supported because it requires >= 3.5 cuda compute "
                        "capability", "compute capability 3.0 is not supported any more?",
                        "my GPU's compute capability is too low for TF 2.x"]), NOISE)
def test_a_compute_capability_said_to_be_too_low_is_an_unsupported_gpu(said, noise):
    """c1208: a person says the GPU's compute capability is below what TF requires; the same
    capability named without a requirement is not that."""
    assert rule_ids(around(noise, [said], []))[0] == "gpu-arch-unsupported"
    assert "gpu-arch-unsupported" not in rule_ids(around(noise, [
        "Found device 0 with properties: name: Tesla K80 computeCapability: 3.7"], []))


@SETTINGS
@given(st.sampled_from(["LeakyRelu", "ResizeBilinearV2", "StatelessRandomUniformV2"]),
       st.sampled_from(["ValueError: No op named {op} in defined operations.",
                        "Op type not registered '{op}' in binary running on host. Make sure the "
                        "Op and Kernel are registered in the binary running in this process."]),
       NOISE)
def test_an_op_this_tensorflow_lacks_is_a_tensorflow_too_old(op, line, noise):
    """c1203: a graph that uses an op this TF does not have was made by a newer TF. An add-on's
    op (tensorflow_text's CaseFoldUTF8) is that add-on not imported: not this, yet an error."""
    assert rule_ids(around(noise, [line.format(op=op)], []))[0] == "tf-too-old"
    add_on = rule_ids(around(noise, [line.format(op="CaseFoldUTF8")], []))
    assert "tf-too-old" not in add_on and add_on[0] != "no-error-found"


@SETTINGS
@given(st.sampled_from(["print(len(tf.config.experimental.list_physical_devices('GPU')))",
                        "tf.config.list_physical_devices('GPU')"]),
       st.sampled_from(["returns me 0", "it prints 0", "gives 0"]), NOISE)
def test_a_gpu_count_answered_zero_in_words_is_no_gpu(query, answer, noise):
    """c1220: "... list_physical_devices('GPU'))) returns me 0": no GPU listed. A 0 that is part
    of a number is not that."""
    assert facts_of(around(noise, [f"when I enter {query} {answer}"], [])).no_gpu
    assert not facts_of(around(noise, [f"when I enter {query} it returns 0.5"], [])).no_gpu


@SETTINGS
@given(st.sampled_from([("object_detection.protos", "string_int_label_map_pb2"),
                        ("mypkg.protos", "config_pb2"), ("deeplab.core", "model_pb2")]),
       st.sampled_from(["py3", "py2", "no-module"]), st.sampled_from(["linux", "windows"]),
       NOISE)
def test_a_projects_pb2_module_not_generated_is_protos_not_compiled(where, python, platform,
                                                                  noise):
    """c1229, c1231: a project's _pb2 module that cannot be imported was never generated by
    protoc; the fix compiles that package's .proto files (a per-file loop on Windows, where
    protoc does not expand *.proto). TensorFlow's own _pb2 modules come built: not this."""
    package, module = where
    said = {"py3": f"ImportError: cannot import name '{module}' from '{package}' (x.py)",
            "py2": f"ImportError: cannot import name {module}",
            "no-module": f"ModuleNotFoundError: No module named '{package}.{module}'"}[python]
    text = around(noise, [f"from {package} import {module}", said], [])
    [finding] = [f for f in explain(text, platform=platform) if f.id == "protos-not-compiled"]
    assert rule_ids(text, platform=platform)[0] == "protos-not-compiled"
    assert module in finding.title
    folder = package.replace(".", "\\" if platform == "windows" else "/")
    command = finding.steps[-1].command
    assert command is not None and f"protoc {folder}" in command and "--python_out=." in command
    for shipped in (["ImportError: cannot import name 'graph_pb2' from "
                     "'tensorflow.core.framework'"],  # Python 2 names the last parts (dev c625):
                    ["from tensorflow.core.framework.graph_pb2 import *",
                     "ImportError: No module named core.framework.graph_pb2"]):
        assert "protos-not-compiled" not in rule_ids(around(noise, shipped, []))


@SETTINGS
@given(st.sampled_from(['object_detection/protos/anchor_generator.proto:11:3: Expected '
                        '"required", "optional", or "repeated".',
                        "object_detection\\protos\\ssd.proto:88:5: Missing field number."]),
       NOISE)
def test_protoc_failing_on_a_projects_proto_is_protos_not_compiled_with_a_newer_protoc(line,
                                                                                      noise):
    """c1228: protoc's own error on a project's .proto (an old protoc reading proto3 files):
    the fix installs a newer protoc first, then generates the modules."""
    [finding] = [f for f in explain(around(noise, [line], []), platform="linux")
                 if f.id == "protos-not-compiled"]
    assert rule_ids(around(noise, [line], []))[0] == "protos-not-compiled"
    assert "newer protoc" in finding.steps[0].text
    assert finding.steps[-1].command == "protoc object_detection/protos/*.proto --python_out=."


# --- issue 21, twenty-third round: facts of its development cases -----------------------------

@SETTINGS
@given(st.sampled_from(["the version of glibc installed on [Cluster] (2.12) is not new enough",
                        "Tensorflow requires even newer version glibc: 2.16",
                        "our compute nodes run CentOS 6 whose glibc is too old"]), NOISE)
def test_a_glibc_said_to_be_too_old_is_an_old_system(said, noise):
    """c1247: a person says the system's glibc is older than TensorFlow needs (a cluster that
    cannot upgrade it); glibc named without that is not this."""
    assert rule_ids(around(noise, [said], []), platform="linux")[0] == "os-too-old"
    assert "os-too-old" not in rule_ids(around(noise, ["*** glibc detected *** python: double "
                                                       "free or corruption"], []))


@SETTINGS
@given(st.sampled_from(["Failed to get convolution algorithm",
                        "UnknownError: Failed to get convolution algorithm. This is probably "
                        "because cuDNN failed to initialize"]), NOISE)
def test_the_cudnn_start_failure_cut_short_reads_as_the_whole(line, noise):
    """c1274: an issue's title cuts TF's sentence short: the same cause comes first (cuDNN could
    not start: its memory taken, most often), a mismatch listed."""
    found = rule_ids(around(noise, [line], []))
    assert found[0] == "gpu-out-of-memory" and "cuda-version-mismatch" in found


@SETTINGS
@given(st.sampled_from(["unable to pip install tensorflow in windows : wheel not supported in "
                        "this platform", "tensorflow-1.0.0-cp35-cp35m-win_amd64.whl is not a "
                        "supported wheel on this platform."]), NOISE)
def test_pips_wheel_refusal_in_a_persons_words_is_the_python(said, noise):
    """c1276: pip's refusal of TensorFlow's wheel, in the title's words: a Python the release
    has no build for."""
    assert rule_ids(around(noise, [said], []))[0] == "python-unsupported"


@SETTINGS
@given(st.sampled_from(["No module named '_pywrap_tensorflow_internal'",
                        "ModuleNotFoundError: No module named '_pywrap_tensorflow_internal'",
                        "ImportError: No module named _pywrap_tensorflow"]), NOISE)
def test_tf1s_windows_words_for_the_native_module_are_an_import_failure(line, noise):
    """c1263, c1264, c1282: TF 1.0-1.2 on Windows once the native module's DLLs failed: a
    Python it has no build for, its CUDA or cuDNN DLLs; never AVX (those builds predate it)."""
    found = rule_ids(around(noise, [line], []), platform="windows")
    assert found[:3] == ["python-unsupported", "missing-cuda-runtime", "cuda-version-mismatch"]
    assert "cpu-no-avx" not in found


@SETTINGS
@given(st.text(max_size=40), st.sampled_from(["linux", "windows"]))
def test_a_protos_folder_reaches_the_shell_only_as_plain_path_words(folder, platform):
    """The folder goes into a command unquoted (its *.proto glob must expand): any value the
    rule could pass, hostile or not, is either plain path words there or left out."""
    ctx = FixContext(platform=platform, tf_version=None, detail={"protos": folder})
    step = make_finding("protos-not-compiled", "x", ctx).steps[-1]
    if step.command is None:
        return
    assert re.fullmatch(r"[A-Za-z_][\w/.-]*", folder, re.ASCII) and ".." not in folder
    words = step.command.replace("'dir /b ", "").replace("')", "").split()
    assert all(re.fullmatch(r"[\w/\\.%*=()-]+", word, re.ASCII) for word in words), step.command


# --- issue 21, twenty-fourth round (pip-CUDA Linux users; old code on new releases): dev facts -

@SETTINGS
@given(st.sampled_from(["", "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call "
                            "to cuInit: UNKNOWN ERROR (34)",
                        "failed call to cuInit: CUDA_ERROR_STUB_LIBRARY: the stub library"]),
       st.sampled_from(["mv-inference-5f7d446b77-kmsxn", "gpu-node-1"]), NOISE)
def test_tfs_no_kernel_driver_diagnostic_is_no_driver(cuinit, host, noise):
    """c1307 (and c208, c255, c1306): "kernel driver does not appear to be running" is no NVIDIA
    kernel module on the host (or a container given no GPU), with or without the stub libcuda's
    error 34 before it."""
    said = ("I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not "
            f"appear to be running on this host ({host})")
    assert rule_ids(around(noise, [line for line in (cuinit, said) if line], []))[0] == (
        "no-nvidia-driver")


@SETTINGS
@given(st.sampled_from(['"Invalid GPU Compute Capability"', "invalid gpu compute capability",
                        "Tensorflow: Invalid GPU compute capability"]), NOISE)
def test_an_invalid_compute_capability_is_the_gpus_architecture(said, noise):
    """c1305: a title's words for a GPU whose capability the build has no code for."""
    assert rule_ids(around(noise, [f"Hi, i have this warning {said}"], []))[0] == (
        "gpu-arch-unsupported")


@SETTINGS
@given(st.sampled_from(["/usr/lib/python3.7/site-packages", "C:\\Python38\\lib\\site-packages"]),
       NOISE)
def test_protobufs_missing_message_procedure_is_a_mix(site, noise):
    """c1323: protobuf's C++ part without the _message the generated code asks: a protobuf of
    another release than TensorBoard's or TF's generated code (the `_message` of the labelling
    rules), not some dependency's own error."""
    sep = "\\" if "\\" in site else "/"
    said = (f"ImportError: cannot import name '_message' from 'google.protobuf.pyext' "
            f"({site}{sep}google{sep}protobuf{sep}pyext{sep}__init__.py)")
    assert rule_ids(around(noise, [said], []))[0] == "mixed-tf-packages"


@SETTINGS
@given(st.sampled_from(["tensorflow.compat.v2 has no attribute '__internal__'",
                        "Attribute Error: module 'tensorflow._api.v1.compat.v2' has no attribute "
                        "'__internal__'.",
                        "AttributeError: module 'tensorflow.compat.v2.__internal__' has no "
                        "attribute 'tf2'"]),
       st.sampled_from(["1.14.0", "2.2.0", None]), NOISE)
def test_tfs_internal_namespace_missing_is_a_mix_on_any_tf(said, tf, noise):
    """c1325, c1326: only Keras and companions ask TF's __internal__: missing, a Keras newer
    than the TF, also on a TF 1 (not code for a later TF), also said without "module"."""
    assert rule_ids(around(noise, [said], []), tf_version=tf)[0] == "mixed-tf-packages"


@SETTINGS
@given(st.sampled_from(["config", "function", "distribute", "AUTO_REUSE", "py_function"]),
       NOISE)
def test_a_name_tf_gained_late_in_1x_is_a_tf_too_old_for_the_code(name, noise):
    """c1309: "module 'tensorflow' has no attribute 'config'" where no TF 2 is stated: every TF
    2 has the name, so this TensorFlow is older than the code (tf-too-old), not TF 1 code on TF 2.
    A TF 2 stated that lacks it is another matter."""
    said = f"AttributeError: module 'tensorflow' has no attribute '{name}'"
    assert rule_ids(around(noise, [said], []))[0] == "tf-too-old"
    assert rule_ids(around(noise, [said], []), tf_version="2.4.1")[0] != "tf-too-old"


@SETTINGS
@given(st.sampled_from([("CaseFoldUTF8", "tensorflow-text"), ("RegexSplitWithOffsets",
                                                              "tensorflow-text"),
                        ("SentencepieceOp", "tensorflow-text"),
                        ("Addons>ImageProjectiveTransformV3", "tensorflow-addons")]),
       st.sampled_from(["Op type not registered '{op}' in binary running on host. Make sure the "
                        "Op and Kernel are registered in the binary running in this process.",
                        "ValueError: No op named {op} in defined operations."]),
       st.sampled_from(["2.15.0", "2.8.1", "1.15.0", None]), NOISE)
def test_an_add_ons_op_not_registered_is_the_add_on_not_imported(op, said, tf, noise):
    """c1243: TF Hub's BERT preprocessing uses tensorflow_text's ops, registered only when the
    library is imported: import it (installing the release made for this TF), not a TF too old
    for the model (which TF's own missing ops are)."""
    name, package = op
    [first, *_] = explain(around(noise, [said.format(op=name)], []), tf_version=tf)
    assert first.id == "addon-ops-not-loaded" and package in first.fix, first
    pinned = package == "tensorflow-text" and tf is not None and tf.startswith("2.")
    assert (f"{package}=={tf.rsplit('.', 1)[0]}.*" in first.fix) if pinned else "==" not in (
        first.fix)


# --- issue 21, twenty-fifth round (IDE and notebook users; a driver or GPU changed): dev facts -

@SETTINGS
@given(st.sampled_from(["tensorpack.utils.nvml.NvmlException: NVML_ERROR_LIB_RM_VERSION_"
                        "MISMATCH", "pynvml.NVMLError_LibRmVersionMismatch: "
                        "NVML_ERROR_LIB_RM_VERSION_MISMATCH"]), NOISE)
def test_nvmls_library_and_module_mismatch_is_a_driver_not_loaded(said, noise):
    """c1346: NVML's name for a driver library whose kernel module is another version (an update
    without a reboot)."""
    assert rule_ids(around(noise, [said], []))[0] == "driver-not-loaded"


@SETTINGS
@given(st.sampled_from(["- Nvidia Drivers: 390.116", "NVIDIA driver version is 390.87",
                        "nvidia driver: 384.130"]), NOISE)
def test_a_driver_version_in_words_older_than_the_builds_cuda_needs_is_too_old(said, noise):
    """c1345: "Nvidia Drivers: 390.116" with TF 1.13 (CUDA 10.0, which needs 410.48 on Linux):
    the driver is too old for the build; a package name ("nvidia-driver-430") is no version."""
    lines = [said, "- TF version: v1.13.1-0-g6612da8951 (installed using pip3)", "- Cuda: 10.0",
             "If I do so it freezes completely my pc."]
    assert rule_ids(around(noise, lines, []), platform="linux", tf_version="1.13.1")[0] == (
        "driver-too-old")
    package = ["sudo apt install nvidia-driver-390", *lines[1:]]
    assert "driver-too-old" not in rule_ids(around(noise, package, []), platform="linux",
                                            tf_version="1.13.1")


@SETTINGS
@given(st.sampled_from(["RTX 4090", "RTX 3080", "A100"]), st.sampled_from(["2.3", "1.14.0"]),
       NOISE)
def test_a_gpu_newer_than_any_cuda_the_build_knows_outranks_the_cuda_said(gpu, tf, noise):
    """c1352: an RTX 4090 with TF 2.3 and nvidia-smi's CUDA 12.1: no CUDA installed beside that
    TF runs on the card (no TF before 2.4 was built with CUDA 11): the build, not the CUDA."""
    lines = ["- Ubuntu 20.04.", f"- {gpu} is only working  CUDA Version: 12.1.",
             "- Python version: 3.8", f"- TensorFlow=={tf}."]
    assert rule_ids(around(noise, lines, []), tf_version=tf)[0] == "gpu-arch-unsupported"


# --- issue 21, twenty-sixth round (the GPU stack; packages): dev facts --------------------------

CUDA10_SAID = ["cudatoolkit=10.0", "cudatoolkit==10.1", "CUDA 10.1, cuDNN 7.6",
               "Successfully opened dynamic library libcublas.so.10",
               "Successfully opened dynamic library cudart64_101.dll"]
CUDA11_SAID = ["cudatoolkit=11.2", "CUDA 11.2, cuDNN 8.1",
               "Successfully opened dynamic library libcublas.so.11",
               "Successfully opened dynamic library cudart64_110.dll"]


@SETTINGS
@given(st.sampled_from(["RTX3070", "RTX 3090", "RTX 4060", "A100"]),
       st.sampled_from(CUDA10_SAID), st.sampled_from(CUDA11_SAID),
       st.sampled_from(["failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED",
                        "failed to run cuBLAS routine: CUBLAS_STATUS_NOT_SUPPORTED"]), NOISE)
def test_a_new_gpu_under_a_cuda_10_build_is_unsupported_however_cuda_10_is_said(
        gpu, cuda10, cuda11, failure, noise):
    """c1374: an RTX 3070 with tensorflow-gpu 1.13-1.15 and "cudatoolkit=10.0" (conda's spec):
    CUDA 10 has no code for an Ampere or later GPU, whichever way the text says CUDA 10 (a
    version, a library of it opened) and whatever TF version it does not state; with CUDA 11
    said instead, the build has that code and the GPU is not the cause."""
    lines = [failure, f"still won't work on my {gpu}.", cuda10]
    assert rule_ids(around(noise, lines, []))[0] == "gpu-arch-unsupported"
    assert "gpu-arch-unsupported" not in rule_ids(around(noise, [*lines[:2], cuda11], []))


@SETTINGS
@given(st.sampled_from(["tensorflow-gpu=1.13.1", "tensorflow=1.15.0", "tensorflow-gpu==1.14.0",
                        "tensorflow-gpu=1.13.1/1.14.0/1.15.0"]), NOISE)
def test_condas_spec_states_the_tensorflow_version(spec, noise):
    """c1374: conda's "tensorflow-gpu=1.13.1" (one "=") states the release as pip's "==" does:
    an Ampere GPU beside it is the build's missing code for the card."""
    lines = ["failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED",
             "still won't work on my RTX3070.", f"Already tried on {spec} ."]
    assert read_context(around(noise, lines, [])).tf_at_least((2, 4)) is False
    assert rule_ids(around(noise, lines, []))[0] == "gpu-arch-unsupported"


NO_GPU_WORDS = ["GPU not showing up in tensorflow", "my GPU isn't being detected by TensorFlow",
                "The GPU is not listed", "Tensorflow can't access GPU",
                "Could not identify NVIDIA GPU", "tensorflow-gpu is installed but it runs on cpu",
                "It is still running on the CPU instead of the GPU", "training falls back to CPU",
                "Num GPUs: 0", "tf.config.list_physical_devices('GPU') returns nothing",
                "print(len(tf.config.list_physical_devices('GPU')))\n0",
                "tensorflow检测不到GPU", "tensorflow无法使用GPU", "GPU不可用", "只能使用CPU",
                "训练的时候GPU没有被调用"]
GPU_FINE_WORDS = ["I want to train on the GPU", "GPU memory is full after one epoch",
                  "it runs on the GPU, 3 s per step", "the CPU version works fine",
                  "print(len(tf.config.list_physical_devices('GPU')))\n1", "GPU利用率很高"]


@SETTINGS
@given(st.sampled_from(NO_GPU_WORDS), st.sampled_from(["2.11.0", "2.13", "2.16.1"]), NOISE)
def test_no_gpu_in_a_persons_words_is_read_however_it_is_put(said, tf, noise):
    """The no-GPU family on native Windows (tf-windows-gpu-unsupported) was the held-out part's
    weakest after the seventh round: its rules knew TF's own words and a few of a person's. A
    person says it many ways, in English and Chinese; each is the fact, and on Windows with TF
    2.11+ the cause."""
    text = around(noise, said.split("\n"), [])
    assert facts_of(text).no_gpu
    assert rule_ids(text, platform="windows", tf_version=tf)[0] == "tf-windows-gpu-unsupported"


@SETTINGS
@given(st.sampled_from(GPU_FINE_WORDS), NOISE)
def test_a_gpu_that_works_or_is_wanted_is_no_no_gpu_fact(said, noise):
    """Words about a GPU that is there (its memory, its speed, a count of 1) state no missing
    GPU."""
    assert not facts_of(around(noise, said.split("\n"), [])).no_gpu


@SETTINGS
@given(st.sampled_from(reasons._LATER_KERAS_CLASSES),
       st.sampled_from(["ValueError: Unknown layer: {}", "ValueError: Unknown layer: '{}'. Please "
                        "ensure you are using a `keras.utils.custom_object_scope`",
                        "ValueError: Unknown layer:{}"]),
       st.sampled_from(["2.2.0", "2.3.1", None]), NOISE)
def test_a_built_in_class_the_loading_keras_lacks_is_a_model_from_a_newer_release(
        name, said, tf, noise):
    """c526's "Unknown layer: Functional" (a TF 2.3+ model under an older TF), as a class: any
    built-in class tf.keras gained after 2.0, said in any Keras's words, means the model was
    saved by a newer release than the one loading it."""
    assert rule_ids(around(noise, [said.format(name)], []), tf_version=tf)[0] == "tf-too-old"


@SETTINGS
@given(st.sampled_from(sorted(reasons._KERAS2_ONLY_CLASSES)), st.booleans(), NOISE)
def test_keras2s_op_records_unknown_to_keras3_are_keras3s(name, by_path, noise):
    """Keras 3 dropped the op records a tf.keras 2 functional model saves (TFOpLambda,
    SlicingOpLambda): under Keras 3, told by its legacy loader's path or a TF 2.16+, such a
    model is Keras 3's break, not an old TF."""
    frame = ('  File "/usr/local/lib/python3.10/dist-packages/keras/src/legacy/saving/'
             'serialization.py", line 495, in deserialize_keras_object')
    lines = [frame, f"ValueError: Unknown layer: '{name}'."] if by_path else [
        f"ValueError: Unknown layer: '{name}'."]
    tf = None if by_path else "2.17.0"
    assert rule_ids(around(noise, lines, []), tf_version=tf)[0] == (
        "keras3-strategy-unsupported")


@SETTINGS
@given(st.sampled_from(["BatchNorm", "KerasLayer", "CustomScaleLayer", "Functionality",
                        "MyNormalization"]), NOISE)
def test_a_class_keras_never_had_is_no_sign_of_an_old_release(name, noise):
    """A project's own class (or TF Hub's) unknown to Keras needs custom_objects: no release of
    TensorFlow has it, so the release is not the cause."""
    assert "tf-too-old" not in rule_ids(around(noise, [f"ValueError: Unknown layer: {name}"], []))


# --- issue 21, twenty-seventh round (representative: projects built on TF): dev facts ---------

@SETTINGS
@given(st.sampled_from([("dilations", "Conv2D"), ("explicit_paddings", "Conv2D"),
                        ("half_pixel_centers", "ResizeBilinear"), ("Tidx", "Cumsum")]),
       st.sampled_from(["E tensorflow/core/common_runtime/executor.cc:643] Executor failed to "
                        "create kernel. Invalid argument: ", "ValueError: ", ""]), NOISE)
def test_a_graph_attribute_the_running_op_lacks_is_a_graph_from_a_newer_release(
        attr_op, before, noise):
    """c1443: "NodeDef mentions attr 'dilations' not in Op<name=Conv2D; ...>" (a graph made by
    TF 1.5+, run by TF 1.4): an op attribute the running TF does not know came in a later one,
    whichever attribute and op."""
    attr, op = attr_op
    line = (f"{before}NodeDef mentions attr '{attr}' not in Op<name={op}; signature=input:T, "
            f"filter:T -> output:T; attr=T:type>")
    assert rule_ids(around(noise, [line], []))[0] == "tf-too-old"


@SETTINGS
@given(st.sampled_from(["tensorpack.dataflow", "pycocotools.coco", "imgaug.augmenters",
                        "tf_pose.common"]), NOISE)
def test_python2s_dotted_missing_module_is_its_top_level_package(module, noise):
    """c1444: Python 2 names the whole dotted path ("No module named tensorpack.dataflow") when
    the top-level package is missing: install that one. The same words for a name the code asks
    for inside another package ("from tensorflow.core.framework import ...", c625's relative
    import) say nothing of what is installed."""
    top = module.split(".")[0]
    lines = [f"    from {module} import Something", f"ImportError: No module named {module}"]
    first = explain(around(noise, lines, []))[0]
    assert first.id == "module-not-installed" and top in str(first.title)
    inside = [f"    from tensorflow.{module} import *", f"ImportError: No module named {module}"]
    assert "module-not-installed" not in rule_ids(around(noise, inside, []))


@SETTINGS
@given(st.sampled_from(["contrib.tpu.InputPipelineConfig", "data.experimental.AUTOTUNE",
                        "keras.layers.Attention"]), st.sampled_from(["1.4.0", "1.8", "1.12.0"]),
       NOISE)
def test_a_nested_tf_name_missing_under_a_stated_tf1_is_a_later_1x_name(path, tf, noise):
    """c1430: TF 1.4 and Python 2's "'module' object has no attribute 'InputPipelineConfig'"
    for the code's ``tf.contrib.tpu.InputPipelineConfig``: a name under a module TF 1 has came
    in a later 1.x (TF 2, which the words alone may suggest, is ruled out by the TF stated)."""
    name = path.rsplit(".", 1)[-1]
    lines = [f"    is_per_host = tf.{path}.PER_HOST_V2",
             f"AttributeError: 'module' object has no attribute '{name}'"]
    first = explain(around(noise, lines, []), tf_version=tf)[0]
    assert first.id == "tf-too-old" and f"tf.{path}" in str(first.title)


@pytest.mark.parametrize("tf", ["1.4.0", "1.15"])
def test_a_guess_the_stated_release_rules_out_is_not_said(tf, monkeypatch):
    """c1430 before its rule: Python 2's words of a missing name, which the wording model took
    for TF 1 code on TF 2 although the text states TF 1.4. A guess the facts stated rule out is
    not said. The model here is built from a few such outputs (the shipped one changes with
    the corpus): it guesses that cause with no release said, and is silent under a TF 1."""
    lines = ["Traceback (most recent call last):", "    sess = tf.Session()",
             "AttributeError: module 'tensorflow' has no attribute 'Session'",
             "tf.placeholder tf.contrib graph session feed_dict run variable scope"]
    other = ["ValueError: shapes (None, 10) and (None, 5) are incompatible in dense layer",
             "model fit epoch batch loss accuracy optimizer tensor output"]
    model = WordingModel(build_model(
        [{"label": "tf1-api-on-tf2", "text": "\n".join(lines)}] * 30
        + [{"label": "gpu-out-of-memory", "text": "\n".join(other)}] * 30))
    monkeypatch.setattr(explain_module, "shipped_model", lambda: model)
    text = "\n".join([*lines[3:], "Something went wrong in my graph, the session run stops",
                      "tf.placeholder tf.contrib feed_dict variable scope again"])
    assert [f.id for f in explain(text) if is_guess(f)] == ["tf1-api-on-tf2"]  # words alone
    assert "tf1-api-on-tf2" not in rule_ids(text, tf_version=tf)


@SETTINGS
@given(st.sampled_from(["RTX2070", "RTX 2080 Ti", "GTX 1660", "Tesla T4"]),
       st.sampled_from([("CUDA 9.0", None), ("cudatoolkit=9.0", None),
                        ("Successfully opened CUDA library libcublas.so.9.0 locally", None),
                        ("cudNN 7.1.4", "1.11"), ("", "1.12.0")]), NOISE)
def test_a_turing_gpu_under_a_cuda_9_build_is_unsupported(gpu, said_tf, noise):
    """c1425: an RTX 2070 with tensorflow-gpu 1.11 and CUDA 9.0: Turing's code came with CUDA
    10 (TF 1.13), however the older build is said; with CUDA 10 said, the card is not the
    cause."""
    said, tf = said_tf
    lines = [f"i have bought a {gpu}", said, "but training does not start"]
    assert rule_ids(around(noise, lines, []), tf_version=tf)[0] == "gpu-arch-unsupported"
    assert "gpu-arch-unsupported" not in rule_ids(
        around(noise, [lines[0], "CUDA 10.0, cuDNN 7.4", lines[2]], []), tf_version="1.13.1")


# --- issue 21, twenty-eighth round (representative: Windows users; Chinese threads): dev facts -

@SETTINGS
@given(st.sampled_from([("tensorflow-gpu1.13", (1, 13)), ("tensorflow2.0", (2, 0)),
                        ("tensorflow1.15.0", (1, 15)), ("TensorFlow 2.3", (2, 3))]),
       st.sampled_from(["3060的显卡", "RTX 3060", "3080 GPU", "3070 Ti graphics card"]), NOISE)
def test_a_version_run_into_its_name_and_a_bare_model_number_are_read(tf_said, gpu, noise):
    """c1465: "CUDA 10.0+tensorflow-gpu1.13+py3.6 3060的显卡" (an RTX 3060 under TF 1.13's CUDA
    10): the release written against the package's name, and the card by its model number
    before a word for a card, are the facts an Ampere card under a CUDA 10 build needs."""
    said, version = tf_said
    text = around(noise, [f"我的环境是：CUDA 10.0+{said}+py3.6 {gpu}",
                          "InternalError: Blas SGEMM launch failed : m=294, n=6, k=3"], [])
    assert read_context(text).tf_version[:2] == version
    assert rule_ids(text)[0] == "gpu-arch-unsupported"


@SETTINGS
@given(st.sampled_from(["listening on port 3060", "3060 images in the set", "batch 4050 of 9000",
                        "step 3080/5000"]), NOISE)
def test_a_bare_number_without_a_word_for_a_card_is_no_gpu(said, noise):
    """Only a word for the card after it makes "3060" a GPU's model number."""
    lines = ["CUDA 10.0", said, "InternalError: Blas SGEMM launch failed : m=294, n=6, k=3"]
    assert "gpu-arch-unsupported" not in rule_ids(around(noise, lines, []))
