"""The doctor's corpus of real failure outputs (tests/data/doctor_corpus/reports.jsonl) is
well formed, and its split into a development and a held-out part is the one made once.

The file is measured by bench/doctor_accuracy.py; these tests check the file itself, through
one function (``corpus_problems``) that is also given generated broken files, so that each
check is seen to fail.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.doctor.fixes import is_known

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "doctor_corpus" / "reports.jsonl"
FIELDS = {"id": str, "label": (str, type(None)), "secondary": list, "cause": (str, type(None)),
          "platform": str, "tf_version": (str, type(None)), "source": str, "confirmed": str,
          "resolution": str, "part": str, "text": str}
PLATFORMS = {"windows", "linux", "wsl", "macos", "unknown"}
CONFIRMED = {"fix", "maintainer", "answer", "stated", "shared"}


def thread(source: str) -> str:
    """The thread a source URL points into: a comment's anchor or a query names the same one."""
    parts = urlsplit(source)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}"


def split_part(source: str) -> str:
    """The split made once: a thread is held out when the first byte of the SHA-256 of its
    URL is 0 or 1 modulo 5 (two fifths), unless rule work had already seen it."""
    return "heldout" if hashlib.sha256(source.encode()).digest()[0] % 5 < 2 else "dev"


def seen_sources() -> set[str]:
    """Threads the rules were written against (tests/data/corpus): never held out."""
    return {json.loads(line)["source"] for f in (DATA / "corpus").glob("*.jsonl")
            for line in f.read_text(encoding="utf-8").splitlines() if line.strip()}


def _case_problems(case: object, where: str, seen: set[str]) -> list[str]:
    if not isinstance(case, dict):
        return [f"{where}: not a JSON object"]
    missing = sorted(FIELDS.keys() - case.keys())
    wrong = sorted(k for k, t in FIELDS.items() if k in case and not isinstance(case[k], t))
    if missing or wrong:
        return [f"{where}: missing {missing}, wrong type {wrong}"]
    out = []
    if case["label"] is None and not case["cause"]:
        out.append(f"{where}: no label and no cause (a gap needs its cause in words)")
    for fid in [case["label"], *case["secondary"]]:
        if fid is not None and (not isinstance(fid, str) or not is_known(fid)):
            out.append(f"{where}: {fid!r} is not a finding id")
    if case["platform"] not in PLATFORMS or case["confirmed"] not in CONFIRMED:
        out.append(f"{where}: platform or confirmed outside {PLATFORMS} / {CONFIRMED}")
    if not case["source"].startswith("https://") or not case["text"].strip():
        out.append(f"{where}: no https source or an empty text")
    expected = "dev" if case["source"] in seen else split_part(case["source"])
    if case["part"] != expected:
        out.append(f"{where}: part {case['part']!r}, the split says {expected!r}")
    return out


def corpus_problems(text: str, seen: set[str]) -> list[str]:
    """Every problem of a corpus file's text; [] for a good one."""
    out, cases = [], []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            case = json.loads(line)
        except ValueError as exc:
            out.append(f"line {number}: not JSON ({exc})")
            continue
        found = _case_problems(case, f"line {number}", seen)
        out += found
        if not found:
            cases.append(case)
    for key, name in (("id", "id"), (lambda c: thread(c["source"]), "thread")):
        values = [key(c) if callable(key) else c[key] for c in cases]
        out += [f"{name} {v} appears {values.count(v)} times"
                for v in sorted(set(values)) if values.count(v) > 1]
    held = sum(c["part"] == "heldout" for c in cases)
    if 3 * held < len(cases):
        out.append(f"{held} of {len(cases)} cases held out: under a third")
    return out


def _good_case(n: int, source: str) -> dict:
    return {"id": f"t{n}", "label": "missing-cudnn", "secondary": [], "cause": None,
            "platform": "windows", "tf_version": None, "source": source, "confirmed": "fix",
            "resolution": "r", "part": split_part(source), "text": "DLL load failed"}


def _good_file(n: int) -> list[dict]:
    """``n`` valid cases whose split holds a third or more out."""
    cases, i = [], 0
    while len(cases) < n:
        case = _good_case(i, f"https://github.com/o/r/issues/{i}")
        held = sum(c["part"] == "heldout" for c in cases)
        if case["part"] == "heldout" or 3 * held >= len(cases) + 1:
            cases.append(case)
        i += 1
    return cases


def _text(cases: list) -> str:
    return "\n".join(json.dumps(c) for c in cases)


def test_the_corpus_file_is_well_formed_and_split_once() -> None:
    assert corpus_problems(CORPUS.read_text(encoding="utf-8"), seen_sources()) == []


def test_the_corpus_holds_the_shared_public_cases() -> None:
    sources = {json.loads(line)["source"] for line in CORPUS.read_text("utf-8").splitlines()}
    shared = {json.loads(line)["source"] for line in
              (DATA / "corpus" / "public.jsonl").read_text("utf-8").splitlines()}
    assert shared <= sources


def test_threads_rule_work_has_seen_are_never_held_out() -> None:
    seen = seen_sources()
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        assert case["source"] not in seen or case["part"] == "dev", case["id"]


def test_a_good_generated_file_passes() -> None:
    assert corpus_problems(_text(_good_file(12)), set()) == []


BREAKAGES = {
    "not JSON": lambda c: "{" + json.dumps(c),
    "missing field": lambda c: {k: v for k, v in c.items() if k != "source"},
    "wrong type": lambda c: {**c, "secondary": "missing-cudnn"},
    "unknown id": lambda c: {**c, "label": "cuda-is-sad"},
    "unknown secondary": lambda c: {**c, "secondary": ["nope"]},
    "gap without cause": lambda c: {**c, "label": None, "cause": ""},
    "bad platform": lambda c: {**c, "platform": "amiga"},
    "not https": lambda c: {**c, "source": "http://example.com/1"},
    "empty text": lambda c: {**c, "text": "  \n"},
    "moved part": lambda c: {**c, "part": "dev" if c["part"] == "heldout" else "heldout"},
}


@given(n=st.integers(6, 20), index=st.data(), breakage=st.sampled_from(sorted(BREAKAGES)))
def test_each_broken_case_is_named(n: int, index: st.DataObject, breakage: str) -> None:
    cases: list = _good_file(n)
    i = index.draw(st.integers(0, n - 1))
    cases[i] = BREAKAGES[breakage](cases[i])
    lines = [c if isinstance(c, str) else json.dumps(c) for c in cases]
    problems = corpus_problems("\n".join(lines), set())
    assert any(p.startswith(f"line {i + 1}:") for p in problems), (breakage, problems)


@given(n=st.integers(4, 20), anchor=st.sampled_from(["#issuecomment-1", "/", "?x=1", ""]))
def test_two_cases_from_one_thread_are_refused(n: int, anchor: str) -> None:
    cases = _good_file(n)
    copy = {**cases[-1], "id": "copy", "source": cases[-1]["source"] + anchor}
    copy["part"] = split_part(copy["source"])
    problems = corpus_problems(_text([*cases, copy]), set())
    assert any(p.startswith("thread ") for p in problems), problems


def test_duplicate_ids_and_a_small_held_out_part_are_refused() -> None:
    cases = _good_file(9)
    twin = {**cases[1], "source": "https://github.com/o/r/issues/twin"}
    twin["part"] = split_part(twin["source"])
    assert any(p.startswith("id t1") for p in corpus_problems(_text([*cases, twin]), set()))
    dev = [c for c in (_good_case(i, f"https://x.org/{i}") for i in range(60))
           if c["part"] == "dev"]
    assert any("under a third" in p for p in corpus_problems(_text(dev), set()))


@pytest.mark.parametrize("source", sorted(seen_sources())[:3])
def test_a_seen_thread_held_out_is_refused(source: str) -> None:
    case = {**_good_case(0, source), "part": "heldout"}
    assert any("the split says" in p for p in corpus_problems(_text([case]), {source}))
