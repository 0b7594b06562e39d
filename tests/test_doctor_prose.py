"""Questions and complaints pasted as prose (core/doctor/prose.py): a subject the knowledge base
knows the trouble of and a word of trouble, on one line, in any order and wording, get that
family; the subject alone, or trouble alone, do not. Generated with hypothesis; every pattern
searched in 4 MB of its own words here, and in its worst-case texts by
tests/test_doctor_facts.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor import prose
from core.doctor.explain import explain
from core.doctor.wording import is_guess
from tests.doctor_texts import NOISE

SETTINGS = settings(max_examples=40, deadline=None)
TROUBLE = st.sampled_from(["breaks", "is broken with", "doesn't work with", "fails with",
                           "causes issues with", "is not compatible with", "errors on",
                           "can't be used with", "no longer works with"])
SUBJECTS = {
    "keras3-strategy-unsupported": ["Keras 3", "keras 3.3.3", "keras==3.0.5",
                                    "upgrading to TensorFlow 2.16", "updating to tf 2.17"],
    "mixed-tf-packages": ["numpy 2.0", "NumPy 2", "numpy==2.1.3", "numpy version 2.0.1"],
}
CAUSE_AND_SUBJECT = st.sampled_from([(c, s) for c, ss in SUBJECTS.items() for s in ss])


def _ids(text: str) -> list[str]:
    """What the rules find: the wording model's guesses (tests/test_doctor_wording.py) left out."""
    return [f.id for f in explain(text) if not is_guess(f)]


@SETTINGS
@given(NOISE, CAUSE_AND_SUBJECT, TROUBLE, st.booleans())
def test_a_subject_with_trouble_in_either_order_names_its_family(noise, pair, trouble, first):
    cause, subject = pair
    line = (f"my model {trouble} {subject}" if first else f"{subject} {trouble} my model")
    text = "\n".join([*noise, line])
    assert _ids(text)[0] == cause, (text, _ids(text))


@SETTINGS
@given(NOISE, CAUSE_AND_SUBJECT)
def test_a_subject_without_trouble_is_no_cause(noise, pair):
    _, subject = pair
    text = "\n".join([*noise, f"I use {subject} with a small model."])
    assert _ids(text)[0] == "no-error-found", _ids(text)


@SETTINGS
@given(NOISE, st.sampled_from(["3.8", "3.12", "3.13"]),
       st.sampled_from(["Can't install tensorflow on Python {v}",
                        "pip install tensorflow fails on python {v}",
                        "tensorflow does not support Python{v} anymore?",
                        "Python {v}: unable to install tensorflow"]))
def test_tensorflow_that_will_not_install_on_a_python_is_the_python(noise, version, sentence):
    text = "\n".join([*noise, sentence.format(v=version)])
    assert _ids(text)[0] == "python-unsupported", _ids(text)


def test_a_python_version_and_trouble_without_tensorflow_is_not_pythons():
    assert "python-unsupported" not in _ids("Can't install pandas on Python 3.13")


@SETTINGS
@given(st.sampled_from(["Tensorflow GPU not working on windows 11",
                        "How do I make TensorFlow 2.13 use my GPU on Windows 11?",
                        "How to enable GPU with tensorflow 2.15 on Windows 10",
                        "my RTX 3060 does not work with tensorflow 2.12 on windows"]))
def test_gpu_trouble_in_words_on_windows_is_the_windows_build(sentence):
    assert _ids(sentence)[0] == "tf-windows-gpu-unsupported", _ids(sentence)


def test_the_and_cuda_extras_nvidia_wheels_exist_for_linux_only():
    text = ('ERROR: No matching distribution found for nvidia-nccl-cu12==2.19.3; extra == '
            '"and-cuda"')
    assert _ids(text)[0] == "tf-windows-gpu-unsupported"


def test_a_logs_own_error_outranks_a_prose_line():
    text = "\n".join(["Keras 3 breaks everything, I think", "2024-01-01 W tensorflow/core/"
                      "common_runtime/bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of "
                      "memory trying to allocate 2.0GiB", "ResourceExhaustedError: OOM when "
                      "allocating tensor with shape[1024,1024,512]"])
    assert _ids(text)[0] == "gpu-out-of-memory"


PATTERNS = [v for v in vars(prose).values() if isinstance(v, re.Pattern)]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("rx", PATTERNS, ids=[p.pattern[:60] for p in PATTERNS])
def test_prose_patterns_are_linear_on_4_mb_lines(rx):
    """4 MB of the patterns' own words on one line and on many: a quadratic pattern runs into
    the timeout (no timing is asserted)."""
    words = "Keras 3 numpy 2 python 3.12 can't install fails issues "
    for base in ("\n", words, words + "\n"):
        text = (base * (2**22 // len(base) + 1))[:2**22]
        for line in text.splitlines()[:2000] if base != words else [text]:
            rx.search(line)
