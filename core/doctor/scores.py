"""The causes a text supports and their evidence, merged across the doctor's rules: the same
cause from several rules keeps its best score, its title from that rule, and the first
:data:`MAX_EVIDENCE` lines any rule gave."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.findings import Text

#: Evidence lines kept per finding.
MAX_EVIDENCE = 8


@dataclass
class Candidate:
    score: int
    evidence: list[str] = field(default_factory=list)
    title: Text | None = None
    detail: dict = field(default_factory=dict)


class Scores:
    """Causes and their support, merged across rules."""

    def __init__(self) -> None:
        self.by_id: dict[str, Candidate] = {}

    def add(self, fid: str, score: int, evidence: list[str] | str = "", *,
            title: Text | None = None, **detail) -> None:
        lines = ([evidence] if evidence else []) if isinstance(evidence, str) else list(evidence)
        cand = self.by_id.get(fid)
        if cand is None:
            cand = self.by_id[fid] = Candidate(score, [], title, detail)
        elif score > cand.score:
            cand.score, cand.title = score, title or cand.title
        for line in lines:
            if len(cand.evidence) >= MAX_EVIDENCE:
                break
            if line not in cand.evidence:
                cand.evidence.append(line)
        cand.detail.update({k: v for k, v in detail.items() if k not in cand.detail})

    def has(self, fid: str) -> bool:
        return fid in self.by_id

    def score(self, fid: str) -> int:
        """The score a cause has so far; 0 when none supports it."""
        cand = self.by_id.get(fid)
        return cand.score if cand else 0
