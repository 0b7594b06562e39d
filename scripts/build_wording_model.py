"""Rebuild resources/kb/wording_model.json (core/doctor/wording.py) from the development part
of the doctor's corpus; ``--cross-validate`` prints how the model alone does on each
development case when built without that case's thread.

    python scripts/build_wording_model.py [--cross-validate]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.doctor.wording import GAP, MIN_WORDS, MODEL_FILE, WordingModel, build_model  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "doctor_corpus" / "reports.jsonl"


def development_cases() -> list[dict]:
    with CORPUS.open(encoding="utf-8") as f:
        return [case for case in map(json.loads, filter(str.strip, f)) if case["part"] == "dev"]


def model_text(cases: list[dict]) -> str:
    return json.dumps(build_model(cases), ensure_ascii=False, indent=0, sort_keys=True) + "\n"


def cross_validate(cases: list[dict]) -> None:
    right = said = said_right = 0
    for case in cases:
        model = WordingModel(build_model(c for c in cases if c["source"] != case["source"]))
        label = case["label"] or GAP
        probabilities = model.probabilities(case["text"])
        right += max(probabilities, key=lambda f: (probabilities[f], f)) == label
        guess = model.guess(case["text"], case["text"].splitlines())
        said += guess is not None
        said_right += guess is not None and guess.fid == label
    n = len(cases)
    print(f"{n} development cases, each with a model built without its thread:")
    print(f"  its most likely cause is the thread's: {right} ({100 * right / n:.1f} %)")
    print(f"  it would guess (sure, {MIN_WORDS}+ words, a cause): {said}, right {said_right} "
          f"({100 * said_right / max(said, 1):.1f} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cross-validate", action="store_true")
    args = parser.parse_args()
    cases = development_cases()
    if args.cross_validate:
        cross_validate(cases)
        return
    out = ROOT / "resources" / Path(*MODEL_FILE)
    out.write_text(model_text(cases), encoding="utf-8")
    print(f"{out.relative_to(ROOT)}: {len(cases)} development cases")


if __name__ == "__main__":
    main()
