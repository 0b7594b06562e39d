"""Keras 3 read from facts (core/doctor/facts.py ``keras3``, core/doctor/reasons.py
``_keras3_rules``): a file, module or version only Keras 3 has, and an exception that says the
code asked for something Keras 3 does not have, in any words. A user's own bug under Keras 3 is
not Keras 3's fault, and Keras 3 beside a TensorFlow older than 2.16 is a package that does not
fit. Generated with hypothesis; the patterns searched in worst-case texts."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from core.doctor import facts, reasons
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.wording import is_guess
from tests.doctor_texts import NOISE

SETTINGS = settings(max_examples=40, deadline=None)
SITE = st.sampled_from(["/usr/local/lib/python3.11/dist-packages/",
                        "C:\\Users\\me\\venv\\Lib\\site-packages\\",
                        "/opt/conda/envs/tf/lib/python3.10/site-packages/"])
# Files only Keras 3 has (Keras 2.13-2.15 also live under keras/src, with layers in engine/).
KERAS3_FILES = st.sampled_from([
    "keras/src/backend/tensorflow/trainer.py", "keras/src/trainers/trainer.py",
    "keras/src/ops/operation.py", "keras/src/models/functional.py",
    "keras/src/layers/layer.py", "keras/src/optimizers/base_optimizer.py",
    "keras/src/models/sequential.py", "keras/api/preprocessing/image/__init__.py"])
KERAS2_FILES = st.sampled_from([
    "keras/src/engine/training.py", "keras/engine/base_layer.py", "keras/src/backend.py",
    "keras/api/_v2/keras/__init__.py", "keras/optimizers/optimizer_v2/adam.py",
    "keras/src/utils/traceback_utils.py"])
KERAS3_VERSIONS = st.sampled_from(["keras 3.3.3", "keras==3.0.5", "Keras version: 3.6.0",
                                   "keras                        3.1.1", "keras-3.4.1",
                                   "keras: 3.10.0"])
# What code written for Keras 2 raises on Keras 3 (its own words and Python's).
API_MISMATCHES = st.sampled_from([
    "ValueError: Argument(s) not recognized: {'lr': 0.001}",
    "AttributeError: 'Adam' object has no attribute 'get_updates'",
    "TypeError: Layer.__init__() got an unexpected keyword argument 'trainable_weights'",
    "ImportError: cannot import name 'ImageDataGenerator' from 'keras.preprocessing.image'",
    "ValueError: Unrecognized keyword arguments passed to LSTM: {'time_major': False}",
    "TypeError: Could not locate class 'Functional'. Make sure custom classes are decorated",
    "AttributeError: module 'keras.backend' has no attribute 'get_session'",
    "ValueError: Only instances of `keras.Layer` can be added to a Sequential model.",
    "tensorflow.python.framework.errors_impl.NotImplementedError: not supported here",
])
# A user's own bug: Keras 3 runs, nothing is missing.
OWN_BUGS = st.sampled_from([
    "ValueError: Arguments `target` and `output` must have the same shape. Received: "
    "target.shape=(None, 1), output.shape=(None, 10)",
    "ValueError: Input 0 of layer \"dense\" is incompatible with the layer: expected axis -1 of "
    "input shape to have value 784, but received input with shape (None, 28, 28)",
    "KeyError: 'val_loss'", "ZeroDivisionError: division by zero"])


def _ids(text: str, **context: str) -> list[str]:
    """What the rules find: the wording model's guesses (tests/test_doctor_wording.py) left out."""
    return [f.id for f in explain(text, **context) if not is_guess(f)]


def _frame(site: str, path: str) -> str:
    if "\\" in site:
        path = path.replace("/", "\\")
    return f'  File "{site}{path}", line 120, in error_handler'


@SETTINGS
@given(NOISE, SITE, KERAS3_FILES, API_MISMATCHES, st.sampled_from([{}, {"tf_version": "2.16.1"},
                                                                     {"tf_version": "2.18"}]))
def test_a_missing_api_under_keras3s_files_is_keras3(noise, site, path, error, context):
    text = "\n".join([*noise, "Traceback (most recent call last):", _frame(site, path), error])
    assert _ids(text, **context)[0] == "keras3-strategy-unsupported", _ids(text, **context)


@SETTINGS
@given(NOISE, KERAS3_VERSIONS, API_MISMATCHES)
def test_a_missing_api_beside_a_keras3_version_is_keras3(noise, version, error):
    text = "\n".join([version, *noise, error])
    assert _ids(text)[0] == "keras3-strategy-unsupported", _ids(text)


@SETTINGS
@given(NOISE, SITE, KERAS3_FILES, OWN_BUGS)
def test_a_users_own_bug_under_keras3_is_not_keras3s_fault(noise, site, path, error):
    text = "\n".join([*noise, _frame(site, path), error])
    assert "keras3-strategy-unsupported" not in _ids(text), _ids(text)


@SETTINGS
@given(NOISE, SITE, KERAS2_FILES, API_MISMATCHES)
def test_keras_2s_files_are_not_keras3(noise, site, path, error):
    """Keras 2.13-2.15 keep their files under ``keras/src`` too: only Keras 3's own count (an
    error that says Keras 3 by itself, a class it dropped, is not the files' doing)."""
    assume(not facts.read_facts(read_context(error)).keras3)
    text = "\n".join([*noise, _frame(site, path), error])
    assert not facts.read_facts(read_context(text)).keras3


@SETTINGS
@given(NOISE, SITE, KERAS3_FILES, API_MISMATCHES, st.sampled_from(["2.13.0", "2.14", "2.15.1"]))
def test_keras3_beside_a_tensorflow_older_than_216_is_a_package_that_does_not_fit(
        noise, site, path, error, tf):
    text = "\n".join([*noise, _frame(site, path), error])
    assert "mixed-tf-packages" in _ids(text, tf_version=tf), _ids(text, tf_version=tf)


@pytest.mark.parametrize("line", [
    "ValueError: The `save_format` argument is deprecated in Keras 3. Please remove this "
    "argument and pass a file path with either `.keras` or `.h5` extension.",
    "`keras.optimizers.legacy` has been removed in Keras 3",
    "This is no longer supported in Keras 3."])
def test_what_keras3_says_it_no_longer_does(line):
    assert _ids(line)[0] == "keras3-strategy-unsupported", _ids(line)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("rx", [facts._KERAS3, reasons._API_MISMATCH],
                         ids=["keras3", "api-mismatch"])
def test_the_keras3_patterns_are_linear(rx):
    """4 MB of newlines and of the patterns' own words, searched line by line as the doctor
    does: a quadratic pattern runs into the timeout (no timing is asserted)."""
    words = "keras/src/backend/ keras==3. ValueError: TypeError: Unrecognized "
    for base in ("\n", words):
        text = (base * (2**22 // len(base) + 1))[:2**22]
        for line in text.splitlines():
            rx.search(line)
