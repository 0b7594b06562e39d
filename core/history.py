"""Past runs, read back from their run folders (``summary.json``, ``config.json``, ``logs/``).

A run folder is recognised by its ``summary.json``. A summary that still says "running" while
none of its task processes exists belongs to a launcher that was killed: it is reported as
"abandoned", which is what the user needs to know.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ABANDONED = "abandoned"


@dataclass(frozen=True)
class RunRecord:
    """One past (or current) run, as its folder describes it."""

    run_dir: Path
    name: str
    strategy: str | None
    status: str
    exit_code: int | None
    reason: str | None
    started_at: float | None
    ended_at: float | None
    config_path: str | None
    tasks: tuple[dict, ...] = field(default_factory=tuple)

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)

    def log_paths(self) -> dict[str, Path]:
        """Task key (``worker:0``) -> its complete log file, for the tasks that have one."""
        out = {}
        for task in self.tasks:
            key = task.get("task")
            path = Path(task["log"]) if task.get("log") else None
            if key and path is not None and path.is_file():
                out[key] = path
        if not out:  # summary without log paths: fall back to the folder's files
            for path in sorted((self.run_dir / "logs").glob("*.log")):
                out[path.stem.replace("-", ":", 1)] = path
        return out


def _alive(pid: object) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def read_run(run_dir: str | Path) -> RunRecord | None:
    """The run in ``run_dir``, or None when it is not a readable run folder."""
    run_dir = Path(run_dir)
    try:
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict):
        return None
    tasks = tuple(t for t in summary.get("tasks") or () if isinstance(t, dict))
    status = str(summary.get("status") or "unknown")
    if status == "running" and not any(_alive(t.get("pid")) for t in tasks):
        status = ABANDONED
    started = summary.get("started_at")
    if started is None:
        started = min((t["started_at"] for t in tasks if t.get("started_at")), default=None)
    return RunRecord(
        run_dir=run_dir,
        name=str(summary.get("name") or run_dir.name),
        strategy=summary.get("strategy"),
        status=status,
        exit_code=summary.get("exit_code"),
        reason=summary.get("reason"),
        started_at=started,
        ended_at=summary.get("ended_at"),
        config_path=summary.get("config_path"),
        tasks=tasks,
    )


def list_runs(folders: Iterable[str | Path]) -> list[RunRecord]:
    """Every run found in ``folders``, newest first. Each folder may be a run folder, a
    ``runs`` folder, or a config folder (its ``runs/`` is searched)."""
    seen: set[Path] = set()
    records = []
    for folder in folders:
        folder = Path(folder)
        candidates = [folder, *_children(folder), *_children(folder / "runs")]
        for run_dir in candidates:
            key = run_dir.resolve()
            if key in seen or not (run_dir / "summary.json").is_file():
                continue
            seen.add(key)
            record = read_run(run_dir)
            if record is not None:
                records.append(record)
    return sorted(records, key=lambda r: (r.started_at or 0.0, str(r.run_dir)), reverse=True)


def _children(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []
