"""Code written for an older release (``api-removed``, ``core/doctor/removed.py``) and pip too
old for TensorFlow's wheel tags: every row of ``resources/kb/removed_apis.csv`` in each way
Python says a name is missing, and the facts that rule each out."""

from __future__ import annotations

import csv
import re

from hypothesis import given
from hypothesis import strategies as st

from core.doctor import kb
from core.doctor.explain import explain
from core.doctor.removed import canonical
from tests.doctor_texts import NOISE, SETTINGS, around, rule_ids

ROWS = sorted(kb.removed_apis().values(), key=lambda r: r.api)
# Rows named by a module path and a name (not the optimizers' decay argument, said in words).
NAMED = [r for r in ROWS if "(" not in r.api]
# Where each package's names are imported from in real code, beside the table's spelling.
KERAS_HOMES = ["keras", "tensorflow.keras", "tensorflow.python.keras", "tf_keras"]


def _module_and_name(row: kb.RemovedApi) -> tuple[str, str]:
    if row.api.startswith("keras.Model."):
        return "keras.Model", row.api.rsplit(".", 1)[1]
    module, _, name = row.api.rpartition(".")
    return module, name


def _said_missing(row: kb.RemovedApi, form: int, keras_home: str) -> list[str]:
    """The lines Python prints when code asks for ``row``'s name, in one of its forms."""
    module, name = _module_and_name(row)
    if module == "keras.Model":
        owner = ["Sequential", "Functional", "Model"][form % 3]
        return [f"AttributeError: '{owner}' object has no attribute '{name}'"]
    if module.startswith("keras"):
        module = keras_home + module.removeprefix("keras")
    is_module = row.kind == "module"
    forms = [f"AttributeError: module '{module}' has no attribute '{name}'",
             f"ImportError: cannot import name '{name}' from '{module}' (/x/{module}.py)",
             f"ModuleNotFoundError: No module named '{module}.{name}'"]
    if is_module:
        return [forms[form % 3]]
    return [forms[form % 2]]


@SETTINGS
@given(st.sampled_from(NAMED), st.integers(0, 5), st.sampled_from(KERAS_HOMES), NOISE,
       st.sampled_from(["linux", "windows", None]))
def test_every_removed_name_is_code_for_an_older_release(row, form, home, noise, platform):
    """Any removed name of the table, in any of Python's wordings and Keras's homes: the code
    was written for an older release; the fix says what replaced it and pins the old release
    where the table has a pin."""
    text = around(noise, ["Traceback (most recent call last):", *_said_missing(row, form, home)],
                  [])
    [first, *_] = explain(text, platform=platform)
    assert first.id == "api-removed", (text, first)
    assert row.instead in first.fix
    pins = [s.command for s in first.steps if s.command]
    assert bool(pins) == bool(row.pin) and all(row.pin in p for p in pins), first.steps


@SETTINGS
@given(st.sampled_from([r for r in NAMED if r.api.startswith("tensorflow.")]), NOISE)
def test_python_2s_words_need_the_code_line_that_asked(row, noise):
    """Python 2 names no module ("'module' object has no attribute 'mul'"): the traceback's
    code line ("tf.mul(") says whose name it was; without it, nothing is claimed."""
    name = row.api.rsplit(".", 1)[1]
    said = f"AttributeError: 'module' object has no attribute '{name}'"
    code = f"    y = {row.shown}(x)"
    assert rule_ids(around(noise, [code, said], []))[0] == "api-removed"
    assert "api-removed" not in rule_ids(around(noise, [said], []))


@SETTINGS
@given(st.sampled_from(["predict_classes", "predict_proba"]), st.sampled_from(
    ["2.0.0", "2.3.1", "2.5.0"]), NOISE)
def test_a_tensorflow_that_still_has_the_name_is_not_told_it_was_removed(name, tf, noise):
    """TF 2.5 still has predict_classes: its absence there is something else (a model that is
    not a Sequential, a mix), never "removed in 2.6"."""
    text = around(noise, [f"AttributeError: 'Functional' object has no attribute '{name}'"], [])
    assert "api-removed" not in rule_ids(text, tf_version=tf)
    assert rule_ids(text, tf_version="2.6.0")[0] == "api-removed"


@SETTINGS
@given(st.from_regex(r"[a-z][a-z_]{2,12}", fullmatch=True), st.sampled_from(
    ["tensorflow", "keras.layers", "scipy.misc", "tensorflow.python.keras.layers"]), NOISE)
def test_a_name_the_table_does_not_know_is_not_claimed(name, module, noise):
    rows = kb.removed_apis()
    if f"{canonical(module)}.{name}" in rows:
        return
    text = around(noise, [f"AttributeError: module '{module}' has no attribute '{name}'"], [])
    assert "api-removed" not in rule_ids(text)


@SETTINGS
@given(NOISE, st.sampled_from(["Adam", "SGD", "RMSprop"]))
def test_the_new_optimizers_refusing_decay_is_code_for_the_old_ones(noise, optimizer):
    """TF 2.11's optimizers take no ``decay``: a schedule, or the legacy optimizers."""
    said = (f"ValueError: decay is deprecated in the new Keras optimizer, please check the "
            f"docstring for valid arguments, or use the legacy optimizer, e.g., "
            f"tf.keras.optimizers.legacy.{optimizer}.")
    [first, *_] = explain(around(noise, [said], []))
    assert first.id == "api-removed" and "tensorflow<2.11" in first.fix


@SETTINGS
@given(NOISE, st.sampled_from(["SGD", "Adam", "Adagrad"]))
def test_the_new_optimizers_ignoring_lr_is_said_below_any_error(noise, optimizer):
    """TF 2.11's optimizers take lr but ignore it, warning (tensorflow/tensorflow#58831): the
    model trains at the default rate. A warning: an error the text shows comes first; TF
    2.3-2.10's own deprecation warning (lr still works there) is nothing."""
    said = (f"WARNING:absl:`lr` is deprecated in Keras optimizer, please use `learning_rate` or "
            f"use the legacy optimizer, e.g.,tf.keras.optimizers.legacy.{optimizer}.")
    assert rule_ids(around(noise, [said], []))[0] == "api-removed"
    oom = ("ResourceExhaustedError: OOM when allocating tensor with shape[64,224,224,3] on "
           "/job:localhost/replica:0/task:0/device:GPU:0")
    assert rule_ids(around(noise, [said, oom], []))[:2] == ["gpu-out-of-memory", "api-removed"]
    old = ("/usr/lib/python3/dist-packages/keras/optimizer_v2/optimizer_v2.py:356: UserWarning: "
           "The `lr` argument is deprecated, use `learning_rate` instead.")
    assert "api-removed" not in rule_ids(around(noise, [old], []))


@SETTINGS
@given(st.sampled_from(["concatenate", "add", "Concatenate"]), st.booleans(), NOISE)
def test_a_removed_name_covers_nothing_under_it(name, module_missing, noise):
    """Keras 1's function keras.layers.merge is not Keras 2's module of that name: a name
    missing from that module, or the module missing, is not the Keras 1 function's removal. A
    removed module covers what is under it (keras.wrappers.scikit_learn)."""
    said = ("ModuleNotFoundError: No module named 'keras.layers.merge'" if module_missing else
            f"ImportError: cannot import name '{name}' from 'keras.layers.merge' (/x/merge.py)")
    assert "api-removed" not in rule_ids(around(noise, [said], []))
    under = "ImportError: cannot import name 'KerasClassifier' from 'keras.wrappers.scikit_learn'"
    assert rule_ids(around(noise, [under], []))[0] == "api-removed"


def test_every_row_is_complete_and_cited():
    rows = list(kb.removed_apis().values())
    assert len({r.api for r in rows}) == len(rows)
    for row in rows:
        assert row.instead and kb.parse_version(row.removed_in), row
        assert row.kind in ("module", "name", "argument"), row
        assert re.fullmatch(r"[\w.-]+<[\d.]+", row.pin) if row.pin else row.package == "tensorflow"
    with kb.resource("kb", "removed_apis.csv").open(newline="", encoding="utf-8") as f:
        assert all(row["source"].strip() for row in csv.DictReader(f)), "a row without a source"


# --- pip too old for TensorFlow's wheel tags --------------------------------------------------

MANYLINUX1_LISTS = st.sampled_from([
    "1.13.0rc1, 1.13.0rc2, 1.13.1, 1.13.2, 1.14.0rc0, 1.14.0rc1, 1.14.0, 2.0.0a0, 2.0.0b0, "
    "2.0.0b1",
    "0.12.1, 1.0.0, 1.1.0, 1.12.0, 1.13.1, 1.14.0, 2.0.0a0, 2.0.0b1",
    "1.13.1, 1.14.0"])


@SETTINGS
@given(MANYLINUX1_LISTS, st.sampled_from(["tensorflow<2.0,>=1.15", "tensorflow==2.4.0",
                                          "tensorflow-gpu>=2.1", "tensorflow~=1.15.0"]), NOISE)
def test_a_list_that_stops_at_manylinux1_for_a_newer_ask_is_an_old_pip(listed, spec, noise):
    """c917: asked for 1.15+, pip lists only the manylinux1 wheels (up to 1.14 and 2.0's
    betas): that pip cannot read manylinux2010 tags. Upgrading pip is the fix."""
    lines = [f"Could not find a version that satisfies the requirement {spec} (from versions: "
             f"{listed})", f"No matching distribution found for {spec}"]
    [first, *_] = explain(around(noise, lines, []))
    assert first.id == "pip-install-failed" and "--upgrade pip" in first.fix, first
    assert "manylinux" in first.fix


@SETTINGS
@given(st.sampled_from([
    ("tensorflow==1.7.1", "1.13.0rc1, 1.13.0rc2, 1.13.1, 2.0.0a0", ""),  # c940: an old ask
    ("tensorflow==2.4.0", "1.13.1, 1.14.0, 1.15.0, 2.0.0, 2.1.0", ""),  # 1.15 is there
    ("tensorflow>=2.1", "1.13.1, 1.14.0, 2.0.0b1",
     "You are using pip version 19.2.3, however version 20.0.2 is available."),
]), NOISE)
def test_what_rules_the_old_pip_out(case, noise):
    """An ask older than 1.15, a list with manylinux2010 releases in it, or a pip 19+ the text
    states: the list's end is the Python's or the thread's age, not pip's."""
    spec, listed, pip = case
    lines = [f"Could not find a version that satisfies the requirement {spec} (from versions: "
             f"{listed})", f"No matching distribution found for {spec}", pip]
    found = explain(around(noise, [line for line in lines if line], []))
    assert not any(f.id == "pip-install-failed" and "manylinux" in f.fix for f in found)


@SETTINGS
@given(st.sampled_from(["numpy-1.18.5-cp38-cp38-macosx_11_0_x86_64.whl",
                        "grpcio-1.41.0-cp39-cp39-macosx_12_0_universal2.whl"]), NOISE)
def test_a_macos_11_wheel_refused_is_a_pip_older_than_20_3(wheel, noise):
    """c1169: pip before 20.3 calls Big Sur 10.16 and knows no macosx_11 tag; an arm64 wheel
    refused on an Intel Mac is the architecture, not pip. (TensorFlow's own wheel refused is
    first its Python tag: another Python's wheel is the commoner cause.)"""
    said = f"ERROR: {wheel} is not a supported wheel on this platform."
    [first, *_] = explain(around(noise, [said], []))
    assert first.id == "pip-install-failed" and "--upgrade pip" in first.fix, first
    arm = said.replace("x86_64", "arm64").replace("universal2", "arm64")
    assert not any("manylinux" in f.fix for f in explain(around(noise, [arm], [])))
