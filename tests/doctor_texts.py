"""What the doctor's fact and rule tests generate outputs from: the noise around an error,
hypothesis settings, and the rules' findings of a text (the wording model's guesses left out:
tests/test_doctor_wording.py tests those)."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

from core.doctor import facts
from core.doctor.context import read_context
from core.doctor.explain import explain
from core.doctor.wording import is_guess

# TensorFlow's info lines, blank lines and a training log: what surrounds an error.
NOISE = st.lists(st.sampled_from([
    "2023-05-01 10:00:00.000001: I tensorflow/core/platform/cpu_feature_guard.cc:182] This "
    "TensorFlow binary is optimized to use available CPU instructions.",
    "Epoch 1/10", "loss: 0.6931 - accuracy: 0.5000", "", "  warnings.warn(", "Using TensorFlow "
    "backend.", "Downloading data from https://storage.googleapis.com/x.npz"]), max_size=6)
SETTINGS = settings(max_examples=40, deadline=None)


def rule_ids(text: str, **context: str | None) -> list[str]:
    """The ids of what the rules find in ``text``, most likely first."""
    return [f.id for f in explain(text, **context) if not is_guess(f)]


def around(noise_before: list[str], lines: list[str], noise_after: list[str]) -> str:
    return "\n".join([*noise_before, *lines, *noise_after])


def facts_of(text: str) -> facts.Facts:
    return facts.read_facts(read_context(text))
