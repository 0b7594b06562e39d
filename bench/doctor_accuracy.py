"""The doctor's accuracy on real failure outputs: ``tests/data/doctor_corpus/reports.jsonl``.

Every case goes through ``explain()``, the function ``tensordeck doctor --explain`` calls, with
the platform and TensorFlow version the thread states (the CLI's ``--platform`` /
``--tf-version``; ``--text-only`` leaves them out). For each part of the corpus (``dev``, and
``heldout``, which rule work never looks at) and each family (the label), it prints:

- top-1: the first finding is the labelled cause;
- listed: the labelled cause is among the findings;
- no cause: the first finding names no cause (``unrecognized-error`` / ``no-error-found``)
  where the thread found one (a case labelled ``no-error-found``, a warning pasted as if it
  were the error, is right to get it);
- guessed: how many first findings are the wording model's guess (core/doctor/wording.py: no
  rule knew the output, its words point at a cause), and in brackets how many of those are
  right. The model is built from the development part, so its figures there flatter it; the
  held-out ones do not.

Top-1 and listed count the labelled cases; a case whose cause no finding id names (``label``
null, a gap in the vocabulary) counts only in N and in "no cause". The development part's
misses are listed (case id, label, first finding: the work list); the held-out part's are only
counted, so that no rule is ever written for one of them. A measurement, not a test: nothing
fails.

    python bench/doctor_accuracy.py [--text-only] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from _common import REPO

sys.path.insert(0, str(REPO))

from core.doctor.explain import explain  # after the sys.path line: the repository root
from core.doctor.wording import is_guess

CORPUS = REPO / "tests" / "data" / "doctor_corpus" / "reports.jsonl"
PARTS = ("dev", "heldout")
NO_CAUSE = frozenset({"unrecognized-error", "no-error-found"})
PLATFORMS = frozenset({"windows", "linux", "wsl"})  # the CLI's --platform choices
GAP = "(no id: gap)"


@dataclass(frozen=True)
class Outcome:
    """What the doctor answered for one case."""

    case: str
    part: str
    label: str | None
    found: tuple[str, ...]
    guessed: bool = False  # the first finding is the wording model's guess (no rule knew it)

    @property
    def family(self) -> str:
        return self.label or GAP

    @property
    def top1(self) -> bool:
        return bool(self.found) and self.found[0] == self.label

    @property
    def listed(self) -> bool:
        return self.label in self.found

    @property
    def no_cause(self) -> bool:
        first = self.found[0] if self.found else None
        return self.label not in NO_CAUSE and (first is None or first in NO_CAUSE)


@dataclass(frozen=True)
class Score:
    n: int
    labelled: int
    top1: float | None  # percentages of the labelled cases; None when there are none
    listed: float | None
    no_cause: float  # percentage of all cases
    guessed: int = 0  # cases whose first finding is the wording model's guess
    guessed_right: int = 0


def load_cases() -> list[dict]:
    with CORPUS.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def diagnose(case: dict, *, with_context: bool) -> Outcome:
    context = {}
    if with_context:
        platform = case["platform"] if case["platform"] in PLATFORMS else None
        context = {"platform": platform, "tf_version": case["tf_version"]}
    findings = explain(case["text"], **context)
    guessed = bool(findings) and is_guess(findings[0])
    return Outcome(case["id"], case["part"], case["label"], tuple(f.id for f in findings),
                   guessed)


def _percent(hits: int, total: int) -> float | None:
    return round(100 * hits / total, 1) if total else None


def score(outcomes: Iterable[Outcome]) -> Score:
    outcomes = list(outcomes)
    labelled = [o for o in outcomes if o.label is not None]
    return Score(
        n=len(outcomes),
        labelled=len(labelled),
        top1=_percent(sum(o.top1 for o in labelled), len(labelled)),
        listed=_percent(sum(o.listed for o in labelled), len(labelled)),
        no_cause=_percent(sum(o.no_cause for o in outcomes), len(outcomes)) or 0.0,
        guessed=sum(o.guessed for o in outcomes),
        guessed_right=sum(o.guessed and o.top1 for o in outcomes),
    )


def report(outcomes: list[Outcome]) -> dict:
    """Scores per part, and per family within each part; the development part's misses."""
    out: dict = {"parts": {}, "families": {}}
    for part in PARTS:
        mine = [o for o in outcomes if o.part == part]
        out["parts"][part] = asdict(score(mine))
        families = sorted({o.family for o in mine})
        out["families"][part] = {
            fam: asdict(score(o for o in mine if o.family == fam)) for fam in families}
    out["dev_misses"] = [
        {"case": o.case, "label": o.label, "first": o.found[0] if o.found else None}
        for o in outcomes if o.part == "dev" and not o.top1]
    return out


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _rows(title: str, scores: dict[str, dict]) -> list[str]:
    lines = [f"{title:<32} {'N':>4} {'labelled':>8} {'top-1 %':>8} {'listed %':>8} "
             f"{'no cause %':>10} {'guessed':>8}"]
    for name, s in scores.items():
        lines.append(f"{name:<32} {s['n']:>4} {s['labelled']:>8} {_cell(s['top1']):>8} "
                     f"{_cell(s['listed']):>8} {_cell(s['no_cause']):>10} "
                     f"{s['guessed']:>3} ({s['guessed_right']})")
    return lines


def render(result: dict) -> str:
    lines = [f"corpus: {CORPUS.relative_to(REPO)} ({result['context']})", ""]
    lines += _rows("part", result["parts"])
    for part in PARTS:
        lines += ["", *_rows(f"family ({part})", result["families"][part])]
    misses = result["dev_misses"]
    lines += ["", f"development misses ({len(misses)}): case: labelled -> first finding"]
    lines += [f"  {m['case']}: {m['label'] or GAP} -> {m['first']}" for m in misses]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text-only", action="store_true",
                        help="leave out the platform / TF version the threads state")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    outcomes = [diagnose(c, with_context=not args.text_only) for c in load_cases()]
    result = {"context": "text only" if args.text_only else "with the thread's context",
              **report(outcomes)}
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
