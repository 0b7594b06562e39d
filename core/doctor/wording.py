"""The doctor's last guess: which cause an output's words point at, when no rule knows it.

A naive Bayes model over the words (and Chinese characters) of the development part of the
doctor's corpus (``tests/data/doctor_corpus``, real outputs with the cause their thread found),
shipped as ``resources/kb/wording_model.json`` and rebuilt by ``scripts/build_wording_model.py``.
The rules stay the doctor's answer; this only speaks where they name no cause, and only when the
model is sure (:data:`THRESHOLD`): then the output's words are those of real reports with that
cause, which a person reading it would want to know before "unrecognized".

Why words and not rules: rules written from one set of reports fired on about half of the next
set's outputs; the model reads every word of every report it was built from. The settings
(:data:`ALPHA`, :data:`THRESHOLD`, :data:`MIN_WORDS`, words one at a time) were chosen on the
development part only, by replaying each round of the corpus against the rules and the model
of the rounds before it (tests/data/doctor_corpus/README.md). The held-out part is never part
of the model.

Reading is linear: one regular-expression pass over the text, one dictionary look-up per word.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from core.findings import Finding
from core.paths import resource

#: Laplace smoothing of the word counts.
ALPHA = 0.1
#: The model's probability of its best cause for it to be said.
THRESHOLD = 0.99
#: Fewer words the model knows than this are too few to judge by (a sentence that only names a
#: subject: "the ps and the worker use the same port").
MIN_WORDS = 10
#: The class of the corpus's gaps (a cause no finding id names).
GAP = "(gap)"
#: Guesses that name no cause, so say nothing the doctor's last resort does not say.
_NO_CAUSE = frozenset({GAP, "no-error-found", "unrecognized-error"})
#: Evidence lines a guess quotes: those whose words point at its cause the most.
MAX_LINES = 3

# A word: a letter, then letters, digits or "_" (cudart64_110, ptxas, keras); a number or a
# version (2.16, 132); one Chinese character (the corpus's Chinese posts are not split in words).
_WORD = re.compile(r"[a-z][a-z0-9_]{1,30}|\d+(?:\.\d+)?|[\u4e00-\u9fff]")


def words(text: str) -> set[str]:
    """The distinct words of ``text`` as the model counts them."""
    return set(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Guess:
    fid: str
    probability: float
    lines: list[str]


class WordingModel:
    """Per cause: how many reports had it, and in how many of them each word appears."""

    def __init__(self, data: dict) -> None:
        self.causes: dict[str, tuple[int, int, dict[str, int]]] = {
            fid: (c["reports"], sum(c["words"].values()), c["words"])
            for fid, c in data["causes"].items()}
        self.reports = sum(n for n, _, _ in self.causes.values())
        self.vocabulary = frozenset(w for _, _, counts in self.causes.values() for w in counts)

    def _log_word(self, fid: str, word: str) -> float:
        _, total, counts = self.causes[fid]
        return math.log((counts.get(word, 0) + ALPHA) / (total + ALPHA * len(self.vocabulary)))

    def known(self, seen: set[str]) -> set[str]:
        return seen & self.vocabulary

    def probabilities(self, text: str) -> dict[str, float]:
        """P(cause | the text's words), over the causes the model knows."""
        known = self.known(words(text))
        logs = {fid: math.log(n / self.reports) + sum(self._log_word(fid, w) for w in known)
                for fid, (n, _, _) in self.causes.items()}
        top = max(logs.values())
        weights = {fid: math.exp(v - top) for fid, v in logs.items()}
        total = sum(weights.values())
        return {fid: w / total for fid, w in weights.items()}

    def guess(self, text: str, lines: list[str]) -> Guess | None:
        """The cause the words point at, if the model is sure and it is one; ``lines`` (the
        text's lines) give the evidence."""
        if len(self.known(words(text))) < MIN_WORDS:
            return None
        probabilities = self.probabilities(text)
        fid = max(probabilities, key=lambda f: (probabilities[f], f))
        if fid in _NO_CAUSE or probabilities[fid] < THRESHOLD:
            return None
        return Guess(fid, probabilities[fid], self._telling_lines(fid, lines))

    def _telling_lines(self, fid: str, lines: list[str]) -> list[str]:
        """The lines whose words point at ``fid`` over every other cause the most, in order."""
        others = [f for f in self.causes if f != fid]
        weight: dict[str, float] = {}

        def telling(word: str) -> float:
            if word not in weight:
                mine = self._log_word(fid, word)
                weight[word] = max(0.0, mine - max(self._log_word(f, word) for f in others))
            return weight[word]

        scored = [(sum(telling(w) for w in self.known(words(line))), i)
                  for i, line in enumerate(lines) if line.strip()]
        top = heapq.nlargest(MAX_LINES, scored)
        # No line's words lean its way on their own (a one-line question): quote the nearest.
        best = sorted(i for s, i in top if s > 0) or [i for _s, i in top[:1]]
        return [lines[i] for i in best]


def build_model(cases: Iterable[dict]) -> dict:
    """The model's data from corpus cases (``text``, ``label``; ``label`` None: a gap). Only
    the development part may be given: a held-out case is refused."""
    reports: Counter[str] = Counter()
    counts: dict[str, Counter[str]] = {}
    for case in cases:
        if case.get("part", "dev") != "dev":
            raise ValueError(f"{case.get('id')}: held-out cases are never part of the model")
        fid = case["label"] or GAP
        reports[fid] += 1
        counts.setdefault(fid, Counter()).update(words(case["text"]))
    return {"alpha": ALPHA, "threshold": THRESHOLD, "causes": {
        fid: {"reports": reports[fid], "words": dict(sorted(counts[fid].items()))}
        for fid in sorted(reports)}}


MODEL_FILE = ("kb", "wording_model.json")
#: The title of a guess's finding (core.messages): "Possibly: <cause> (...)".
GUESS_TITLE = "finding.guessed"


def is_guess(finding: Finding) -> bool:
    """Whether ``finding`` is the wording model's guess, not a rule's diagnosis."""
    return finding.message is not None and finding.message.message_id == GUESS_TITLE


@cache
def shipped_model() -> WordingModel:
    with resource(*MODEL_FILE).open(encoding="utf-8") as f:
        return WordingModel(json.load(f))
