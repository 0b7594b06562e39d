"""The doctor's last guess (core/doctor/wording.py): a model of the words of the corpus's
development part, heard only where no rule names a cause.

The shipped model is the one its script builds from the corpus (never from a held-out case); a
model built here from generated reports guesses the cause whose words a text has, only when it
is sure and has enough words to judge by; through ``explain()`` a guess never displaces a
rule's finding, says in its title that it is a guess, quotes lines of the text, and keeps the
last resort's quoted lines after it; ``doctor --explain`` prints it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.doctor.explain import explain
from core.doctor.wording import (
    GAP,
    MIN_WORDS,
    MODEL_FILE,
    WordingModel,
    build_model,
    is_guess,
    shipped_model,
    words,
)
from core.paths import resource
from tests.conftest import REPO

CORPUS = REPO / "tests" / "data" / "doctor_corpus" / "reports.jsonl"
NO_CAUSE = {"unrecognized-error", "no-error-found"}
SETTINGS = settings(max_examples=60, deadline=None)


def _cases() -> list[dict]:
    with CORPUS.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


DEV = [c for c in _cases() if c["part"] == "dev"]


def test_the_shipped_model_is_built_from_the_development_part_only():
    """scripts/build_wording_model.py was run after the corpus last changed, and the held-out
    part is in no count (every report counted is a development one)."""
    with resource(*MODEL_FILE).open(encoding="utf-8") as f:
        shipped = json.load(f)
    assert shipped == build_model(DEV)
    assert sum(c["reports"] for c in shipped["causes"].values()) == len(DEV)


def test_a_held_out_case_is_refused():
    held_out = next(c for c in _cases() if c["part"] == "heldout")
    with pytest.raises(ValueError, match="held-out"):
        build_model([*DEV[:3], held_out])


def test_the_script_cross_validates_on_the_development_part():
    run = subprocess.run([sys.executable, "scripts/build_wording_model.py", "--cross-validate"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert f"{len(DEV)} development cases" in run.stdout and "it would guess" in run.stdout


# --- the model on generated reports -----------------------------------------------------------

# Three causes, each told by words of its own, over words every report has.
_OWN = {"port-in-use": ["address", "bind", "socket", "occupied", "listen", "errno", "grpc",
                        "server", "only", "usage", "permitted", "protocol"],
        "cpu-no-avx": ["illegal", "instruction", "core", "dumped", "avx", "sigill", "xeon",
                       "opcode", "vector", "extensions", "processor", "flags"],
        GAP: ["shadowing", "local", "module", "named", "same", "folder", "renamed", "file",
              "python", "path", "sys", "clash"]}
_COMMON = ["tensorflow", "import", "error", "line", "file", "traceback"]


def _report(cause: str, picks: list[int]) -> str:
    own = _OWN[cause]
    return "\n".join([" ".join(_COMMON), " ".join(own[i % len(own)] for i in picks)])


def _model() -> WordingModel:
    reports = [{"label": None if cause == GAP else cause, "text": _report(cause, picks)}
               for cause in _OWN for picks in ([0, 1, 2, 3, 4, 5, 6], [5, 6, 7, 8, 9, 10, 11],
                                                [0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11])]
    return WordingModel(build_model(reports))


@SETTINGS
@given(st.sampled_from(["port-in-use", "cpu-no-avx"]),
       st.lists(st.integers(0, 11), min_size=MIN_WORDS, max_size=30, unique=True),
       st.lists(st.sampled_from(["epoch", "loss", "步骤", "0.5"]), max_size=5))
def test_a_text_with_one_causes_words_gets_that_cause(cause, picks, noise):
    lines = [" ".join(noise), *(_OWN[cause][i] for i in picks)]
    guess = _model().guess("\n".join(lines), lines)
    assert guess is not None and guess.fid == cause and guess.probability >= 0.99
    assert guess.lines and set(guess.lines) <= set(lines)
    assert all(words(line) & set(_OWN[cause]) for line in guess.lines)


@SETTINGS
@given(st.lists(st.integers(0, 11), min_size=MIN_WORDS, max_size=12, unique=True))
def test_the_gaps_words_get_no_guess(picks):
    """A report like those whose cause no finding names: the model does not make one up."""
    lines = [_OWN[GAP][i] for i in picks]
    assert _model().guess("\n".join(lines), lines) is None


@SETTINGS
@given(st.lists(st.sampled_from(_OWN["cpu-no-avx"] + _COMMON), max_size=MIN_WORDS - 1,
                unique=True))
def test_too_few_known_words_get_no_guess(known):
    lines = [*known, "some words the model never saw: frobnicate quuxify"]
    assert _model().guess("\n".join(lines), lines) is None


def test_words_split_as_the_model_counts_them():
    assert words("ImportError: cudart64_110.dll; TF 2.16 显存") == {
        "importerror", "cudart64_110", "dll", "tf", "2.16", "显", "存"}


# --- through explain() ----------------------------------------------------------------------

def test_a_guess_comes_only_where_no_rule_names_a_cause():
    """On every development output: a guess is first or absent, and where there is one, the
    rules found nothing but the last resort, which follows it."""
    guessed = 0
    for case in DEV:
        found = explain(case["text"])
        guesses = [f for f in found if is_guess(f)]
        if guesses:
            guessed += 1
            assert found[0] is guesses[0] and len(guesses) == 1, case["id"]
            assert {f.id for f in found[1:]} <= NO_CAUSE, case["id"]
            assert found[0].id not in NO_CAUSE
            said = [line.strip() for line in case["text"].splitlines()]
            for quoted in found[0].evidence.splitlines():  # a long line is quoted cut short
                assert any(line.startswith(quoted.strip()) for line in said), quoted
    assert guessed, "no development output reaches the guess"


def test_the_guess_says_it_is_one_in_both_languages():
    case = _guessed_case()
    [guess, *rest] = explain(case["text"])
    assert is_guess(guess) and guess.title.startswith("Possibly: ")
    assert guess.severity == "warning"  # never an error, whatever the cause it names
    assert guess.message is not None and guess.message.said("zh_CN").startswith("可能是：")
    assert [f.id for f in rest] and all(f.id in NO_CAUSE for f in rest)


def test_doctor_explain_prints_the_guess(tmp_path):
    case = _guessed_case()
    log = tmp_path / "output.txt"
    log.write_text(case["text"], encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "core", "doctor", "--explain", str(log),
                          "--json"], cwd=REPO, capture_output=True, text=True, timeout=240)
    first = json.loads(run.stdout)["findings"][0]
    assert first["id"] == case["label"] and first["title"].startswith("Possibly: ")


def _guessed_case() -> dict:
    """A development output no rule knows whose words the model reads right."""
    for case in DEV:
        first = explain(case["text"])[0]
        if is_guess(first) and first.id == case["label"]:
            return case
    raise AssertionError("no development output is guessed right")


def test_the_shipped_model_loads_once():
    assert shipped_model() is shipped_model()
