"""Past runs, read back from their run folders (``summary.json``, ``config.json``, ``logs/``).

A run folder is recognised by its ``summary.json`` (:mod:`core.summary`). A summary that says
"running" while its launcher is gone is shown as ``abandoned``; one that cannot be read as a
summary as ``unreadable``, with the reason: both are what the user needs to know.

"Run again" runs what a run ran: the config its folder keeps (``config.json``), not the config
file as it is now (:func:`write_rerun_config`), in a new run folder next to the others.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.bounded import is_regular_file, loads, read_file, regular_files
from core.events import RunStatus
from core.metrics import MetricPoint, MetricsTail, ProgressParser
from core.summary import SUMMARY_FILE, RunSummary, SummaryError, observed_status, read_summary


@dataclass(frozen=True)
class RunRecord:
    """One past (or current) run, as its folder describes it. ``summary`` is None for an
    unreadable folder, and ``problem`` says why."""

    run_dir: Path
    status: RunStatus
    summary: RunSummary | None = None
    problem: str | None = None

    @property
    def name(self) -> str:
        return (self.summary and self.summary.name) or self.run_dir.name

    @property
    def strategy(self) -> str | None:
        return self.summary.strategy if self.summary else None

    @property
    def exit_code(self) -> int | None:
        return self.summary.exit_code if self.summary else None

    @property
    def reason(self) -> str | None:
        return self.summary.reason if self.summary else self.problem

    @property
    def config_path(self) -> str | None:
        return self.summary.config_path if self.summary else None

    @property
    def started_at(self) -> float | None:
        if self.summary is None:
            return None
        if self.summary.started_at is not None:
            return self.summary.started_at
        # Version 0's first summary had no start time: its first task's.
        return min((t.started_at for t in self.summary.tasks if t.started_at), default=None)

    @property
    def ended_at(self) -> float | None:
        return self.summary.ended_at if self.summary else None

    @property
    def tasks(self) -> tuple:
        return tuple(self.summary.tasks) if self.summary else ()

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)

    def log_paths(self) -> dict[str, Path]:
        """Task key (``worker:0``) -> its complete log file, for the tasks that have one: the
        file the summary names, in this folder's ``logs/`` (where the run wrote it, and where
        it is when the folder was moved; never another file the summary would name), a
        regular file, not a link."""
        logs = self.run_dir / "logs"
        out = {}
        for task in self.tasks:
            name = re.split(r"[\\/]", task.log)[-1] if task.log else ""
            if name and is_regular_file(logs / name):
                out[task.task] = logs / name
        if not out:  # summary without log paths: fall back to the folder's files
            for path in regular_files(logs, "*.log"):
                out[path.stem.replace("-", ":", 1)] = path
        return out


def read_run(run_dir: str | Path) -> RunRecord | None:
    """The run in ``run_dir``; None when the folder has no summary.json (not a run folder);
    an ``unreadable`` record when its summary is not one."""
    run_dir = Path(run_dir)
    if not os.path.lexists(run_dir / SUMMARY_FILE):
        return None
    try:
        summary = read_summary(run_dir)
    except SummaryError as exc:
        return RunRecord(run_dir, RunStatus.UNREADABLE, problem=str(exc))
    return RunRecord(run_dir, observed_status(summary), summary)


def list_runs(folders: Iterable[str | Path]) -> list[RunRecord]:
    """Every run found in ``folders``, newest first (unreadable ones last). Each folder may be
    a run folder, a ``runs`` folder, or a config folder (its ``runs/`` is searched)."""
    seen: set[Path] = set()
    records = []
    for folder in folders:
        folder = Path(folder)
        candidates = [folder, *_children(folder), *_children(folder / "runs")]
        for run_dir in candidates:
            key = run_dir.resolve()
            if key in seen:
                continue
            record = read_run(run_dir)
            if record is not None:
                seen.add(key)
                records.append(record)
    return sorted(records, key=lambda r: (r.started_at or 0.0, str(r.run_dir)), reverse=True)


def _children(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir()]
    except OSError:
        return []


class RerunError(Exception):
    """The run folder's ``config.json`` cannot be read back as a config."""


#: A run folder's config.json is a few KiB: anything far larger is not one.
MAX_CONFIG_JSON_BYTES = 16 * 1024 * 1024


def _resolved(run_dir: Path) -> dict:
    """The run folder's ``config.json``, read as any file of a run folder (core.bounded)."""
    path = run_dir / "config.json"
    try:
        capped = read_file(path, MAX_CONFIG_JSON_BYTES)
        if capped.cut:
            raise ValueError(f"larger than {MAX_CONFIG_JSON_BYTES >> 20} MiB")
        data = loads(capped.data, strict=True)
        if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
            raise ValueError("not a resolved config")
    except (OSError, ValueError) as exc:
        raise RerunError(f"{path}: {exc}") from exc
    return data


def run_env(run_dir: str | Path) -> dict[str, str]:
    """The ``env`` of the config the run ran (its ``config.json``); {} when it cannot be read."""
    try:
        env = _resolved(Path(run_dir))["config"].get("env")
    except RerunError:
        return {}
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


def stored_config(run_dir: str | Path) -> tuple[dict, Path]:
    """The config a run ran, as a config file would hold it, and the file it came from.

    Its script and interpreter are the ones that ran (absolute, as resolved then), so that the
    config means the same wherever it is written; ``run_dir`` is dropped (a folder that was used
    is not empty)."""
    data = _resolved(Path(run_dir))
    try:
        config = {**data["config"], "script": str(data["script"]), "python": str(data["python"])}
        source = Path(data["config_path"])
    except (KeyError, TypeError) as exc:
        raise RerunError(f"{Path(run_dir) / 'config.json'}: no {exc}") from exc
    config.pop("run_dir", None)
    return config, source


def config_changed(run_dir: str | Path) -> bool:
    """Whether the run's config file now says something else than the run ran (or is gone)."""
    from core.config import ConfigError, config_to_json, load_config

    try:
        data = _resolved(Path(run_dir))
        return config_to_json(load_config(data["config_path"])) != data["config"]
    except (RerunError, ConfigError, OSError, KeyError, TypeError):
        return True


def write_rerun_config(run_dir: str | Path, folder: str | Path) -> tuple[Path, Path]:
    """Write the config ``run_dir`` ran into ``folder`` (named after the run); returns it and
    the new run's folder: beside the first run's (``<config folder>/runs/<stamp>-<name>``)."""
    from core.fsio import write_private
    from core.job_paths import default_run_dir

    run_dir = Path(run_dir)
    config, source = stored_config(run_dir)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{run_dir.name}.json"
    write_private(target, json.dumps(config, indent=2))  # 0600: it holds the job's env
    return target, default_run_dir(source, str(config.get("name") or run_dir.name))


#: Log bytes read per task for its metrics (a log may be gigabytes; its head has the curve's
#: start, and the runtime's metrics files, when there are any, are read whole).
METRIC_LOG_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class RunMetrics:
    """A past run's metric points, and the lines of its metrics files that were skipped (not
    a report: see :class:`core.metrics.MetricsTail`)."""

    points: list[MetricPoint]
    skipped: int = 0


def run_metrics(run_dir: str | Path) -> RunMetrics:
    """Every metric point of a past run: what its tasks reported (``metrics/*.jsonl``, exact,
    up to :data:`core.metrics.MAX_POLL_BYTES` a file) and, for the tasks that reported
    nothing, what their logs' progress lines say (the first :data:`METRIC_LOG_BYTES`)."""
    run_dir = Path(run_dir)
    tail = MetricsTail(run_dir / "metrics")
    reported = tail.poll()
    have = {p.task for p in reported}
    record = read_run(run_dir)
    parsed: list[MetricPoint] = []
    for task, path in (record.log_paths() if record else {}).items():
        if task in have:
            continue
        parser = ProgressParser(task)
        try:
            data = read_file(path, METRIC_LOG_BYTES).data
        except OSError:
            continue
        for line in data.decode("utf-8", "replace").splitlines():
            point = parser.feed(line.rsplit("\r", 1)[-1])
            if point is not None:
                parsed.append(point)
    return RunMetrics(reported + parsed, tail.skipped)


def _task_order(task: str) -> tuple[int, str, int]:
    """chief first, then workers, ps and the others, each by index."""
    role, _, index = task.partition(":")
    rank = {"chief": 0, "worker": 1, "ps": 2, "evaluator": 3}.get(role, 4)
    return rank, role, int(index) if index.isdigit() else 0


def ordered_tasks(tasks: Iterable[str]) -> list[str]:
    """Task keys as History shows them: the chief first (it reports the run's result)."""
    return sorted(tasks, key=_task_order)


def final_metrics(points: Iterable[MetricPoint]) -> dict[str, float]:
    """Each metric's last value, as the first task that has it says (the chief first)."""
    last: dict[tuple[str, str], tuple[float, float]] = {}
    for point in points:
        for name, value in point.metrics.items():
            key = (name, point.task)
            if key not in last or point.step >= last[key][0]:
                last[key] = (point.step, value)
    out: dict[str, float] = {}
    for name, task in sorted(last, key=lambda k: _task_order(k[1])):
        out.setdefault(name, last[(name, task)][1])
    return out


class DeleteRefused(Exception):
    """A folder History must not delete: not a TensorDeck run folder, or a run going on."""


_DELETE_ATTEMPTS, _DELETE_PAUSE = 20, 0.05


def delete_run(run_dir: str | Path) -> None:
    """Delete a past run's folder. Only a TensorDeck run folder (it holds the claim marker,
    ``.tensordeck-run``) that is not running: anything else raises DeleteRefused."""
    import shutil

    from core.run import MARKER

    run_dir = Path(run_dir)
    if run_dir.is_symlink() or not (run_dir / MARKER).is_file():
        raise DeleteRefused(f"{run_dir} is not a TensorDeck run folder (no {MARKER}): "
                            "not deleted")
    record = read_run(run_dir)
    if record is not None and record.status is RunStatus.RUNNING:
        raise DeleteRefused(f"{run_dir} is a run going on: stop it first")
    # On Windows a file that is open (the History's own refresh reading it, an indexer, a
    # virus scanner) cannot be deleted until it is closed (WinError 32), a matter of moments:
    # try again for up to a second before saying it failed.
    for attempt in range(_DELETE_ATTEMPTS):
        try:
            shutil.rmtree(run_dir)
            return
        except PermissionError:
            if attempt == _DELETE_ATTEMPTS - 1:
                raise
            time.sleep(_DELETE_PAUSE)
