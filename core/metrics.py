"""Training metrics as the window draws them: from the JSON-lines files written by
``tensordeck_runtime.report`` (exact), and from the progress lines training scripts already
print (Keras ``fit`` bars, ``step 100/300 loss=0.1234``) for scripts that do not report.

Both produce :class:`MetricPoint` objects: one task, one step, a few named numbers. The
progress lines also say how far a task is (``step 1300/100000``, Keras' ``Epoch 2/5`` and
batch counter): :meth:`ProgressParser.progress` gives it with the task's steps/s and ETA.

Both read text a task (or a file in a run folder) wrote, so both are bounded and linear: a
progress line is read up to :data:`MAX_PARSE_CHARS` (a longer line's rest gives no metric), no
pattern backtracks over what it already read, numbers are read as floats (never ``int()`` of a
thousand digits); a metrics file is read at most :data:`MAX_POLL_BYTES` a poll, only when it is
a regular file (not a link to ``/dev/zero``, not a FIFO), and a line that is not a report
(not JSON, too long, too deep, a number too large) is skipped and counted in
:attr:`MetricsTail.skipped`.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.bounded import loads, number, read_file, regular_files

#: ANSI colour/style codes: Keras 3 prints them even into a pipe.
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Each part matches in one way only (``\d+\.?\d*`` splits a run of digits in n ways: a
# quadratic backtrack on a long number that is not followed by a separator).
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf"
#: Keras: "Epoch 2/5".
_EPOCH = re.compile(r"^\s*Epoch (\d+)/(\d+)\s*$")
#: Keras batch counter at the start of a line, then its bar: "12/60 [====" (Keras 2) or
#: "12/60 ━━━" (Keras 3), or the one line per epoch of ``verbose=2``: "20/20 - 1s - loss: ...".
_KERAS_BAR = re.compile(r"^\s*(\d+)/(\d+)\s+(?:\[|━|- )")
#: Keras metrics: " - loss: 0.6931" (value ends at a space or the end, so "ETA: 2s" is no metric).
_KERAS_METRIC = re.compile(rf" - ([A-Za-z_][\w.]*): ({_NUMBER})(?=\s|$)")
#: Hand-written loops: "step 100/300 loss=0.1234", "Step 5: loss: 0.3 acc=0.9".
_STEP = re.compile(r"\bstep\b\s*(?:[:=#]\s*)?(\d+)(?:\s*/\s*(\d+))?", re.IGNORECASE)
#: The rate is measured over this many seconds of recent steps (a slow start is forgotten).
RATE_WINDOW = 60.0
# A name starts where a run of name characters starts (after leading dots): a start inside
# the run ("a.a.a.a") would read the rest of the run again from every dot.
_PAIR = re.compile(rf"(?<![\w.])\.*([A-Za-z_][\w.]*)\s*[=:]\s*({_NUMBER})(?=[\s,;)]|$)")
#: A progress line is read up to here for metrics (Keras' longest are a few hundred characters).
MAX_PARSE_CHARS = 4096


def lines_to_parse(lines: Sequence[str], most: int = 200,
                   chars: int = 16 * MAX_PARSE_CHARS) -> list[str]:
    """The last lines of a batch worth parsing for metrics: at most ``most`` lines and about
    ``chars`` characters (a flood's tail is enough for a chart and the progress, and the window
    parses on its GUI thread)."""
    taken = list(lines[-most:])
    if sum(map(len, taken)) <= chars:  # the usual short lines: one pass in C
        return taken
    kept: list[str] = []
    for line in reversed(taken):
        if chars <= 0:
            break
        kept.append(line)
        chars -= min(len(line), MAX_PARSE_CHARS)
    kept.reverse()
    return kept


@dataclass(frozen=True)
class MetricPoint:
    """Named values of one task (``worker:1``) at one training step."""

    task: str
    step: float
    metrics: dict[str, float]
    time: float | None = None


@dataclass(frozen=True)
class Progress:
    """How far one task is: ``done`` of ``total`` steps, at ``rate`` steps/s (None until two
    steps were seen a moment apart)."""

    done: float
    total: float
    rate: float | None = None

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate; None while the rate is unknown."""
        if not self.rate:
            return None
        return max(0.0, self.total - self.done) / self.rate


def overall(progress: list[Progress]) -> Progress | None:
    """The run's progress from its tasks' (the slowest task sets the ETA): the mean fraction,
    in percent steps, at the rate that leaves that ETA."""
    if not progress:
        return None
    fraction = sum(p.fraction for p in progress) / len(progress)
    etas = [p.eta for p in progress]
    if any(e is None for e in etas):
        return Progress(fraction * 100, 100.0)
    eta = max(e for e in etas if e is not None)
    rate = (100 - fraction * 100) / eta if eta > 0 else None
    return Progress(fraction * 100, 100.0, rate)


def strip_ansi(text: str) -> str:
    return ANSI_RE.sub("", text) if "\x1b" in text else text


def _floats(pairs: list[tuple[str, str]], skip: frozenset[str] = frozenset()) -> dict[str, float]:
    out = {}
    for name, value in pairs:
        if name.lower() in skip:
            continue
        try:
            out[name] = float(value)
        except ValueError:
            continue
    return out


class ProgressParser:
    """Metrics from one task's output lines. Keras bars count batches within an epoch, so the
    step drawn is ``(epoch - 1) * batches_per_epoch + batch``; a repeat of the last step (a
    ``\\r`` redraw seen again as the finished line) is dropped."""

    _SKIP = frozenset({"step", "epoch", "eta"})

    def __init__(self, task: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.task = task
        self._clock = clock
        self._epoch = 1.0
        self._epochs: float | None = None
        self._last: tuple[float, frozenset[str]] | None = None
        self._done: tuple[float, float] | None = None  # (step, total) as last printed
        self._seen: deque[tuple[float, float]] = deque()  # (time, step), the rate's window

    def progress(self) -> Progress | None:
        """How far the task is, from the last progress line with a total; None before one."""
        if self._done is None:
            return None
        seen = self._seen
        rate = None
        if len(seen) > 1 and seen[-1][0] - seen[0][0] >= 1.0:
            rate = max(0.0, (seen[-1][1] - seen[0][1]) / (seen[-1][0] - seen[0][0]))
        return Progress(*self._done, rate)

    def _progressed(self, step: float, total: float) -> None:
        if self._done is not None and step < self._done[0]:
            self._seen.clear()  # a restart counts from 0 again
        self._done = (step, total)
        now = self._clock()
        seen = self._seen
        if seen and seen[-1][1] == step:
            return
        seen.append((now, step))
        while len(seen) > 2 and now - seen[1][0] >= RATE_WINDOW:
            seen.popleft()

    def feed(self, line: str) -> MetricPoint | None:
        """A point for a line with metrics; any progress line also moves :meth:`progress`."""
        if ":" not in line and "=" not in line and "/" not in line:
            return None
        line = strip_ansi(line[:MAX_PARSE_CHARS])
        if line.lstrip().startswith("Epoch "):
            match = _EPOCH.match(line)
            if match:
                self._epoch, self._epochs = float(match.group(1)), float(match.group(2))
            return None
        bar = _KERAS_BAR.match(line)
        if bar:
            batch, per_epoch = float(bar.group(1)), float(bar.group(2))
            step = (self._epoch - 1) * per_epoch + batch
            self._progressed(step, (self._epochs or self._epoch) * per_epoch)
            metrics = _floats(_KERAS_METRIC.findall(line))
        else:
            match = _STEP.search(line)
            if not match:
                return None
            step = float(match.group(1))
            if match.group(2):
                self._progressed(step, float(match.group(2)))
            metrics = _floats(_PAIR.findall(line[match.end():]), self._SKIP)
        if not metrics:
            return None
        key = (step, frozenset(metrics))
        if key == self._last:
            return None
        self._last = key
        return MetricPoint(self.task, step, metrics)


#: A metrics file is read at most this much a poll (the rest at the next ones).
MAX_POLL_BYTES = 16 * 1024 * 1024
#: A report is one short line; a longer "line" is skipped (up to its end, however far).
MAX_REPORT_BYTES = 64 * 1024


class MetricsTail:
    """Follows ``<run_dir>/metrics/*.jsonl`` (one file per task): each :meth:`poll` returns the
    points appended since the last one. A line still being written is kept for the next poll;
    a line that is not a report is skipped and counted in :attr:`skipped`, and a file that is
    not a regular file (a link, a FIFO, a device) is not read."""

    def __init__(self, metrics_dir: str | Path, max_bytes: int = MAX_POLL_BYTES) -> None:
        self.dir = Path(metrics_dir)
        self.max_bytes = max_bytes
        #: Lines skipped: not JSON, not a report, too long, too deep, a number too large.
        self.skipped = 0
        self._offsets: dict[Path, int] = {}
        # The unfinished last line of each file; None while one too long is being skipped.
        self._partial: dict[Path, bytes | None] = {}

    def poll(self) -> list[MetricPoint]:
        points: list[MetricPoint] = []
        for path in regular_files(self.dir, "*.jsonl"):
            points += self._read_new(path)
        return points

    def _read_new(self, path: Path) -> list[MetricPoint]:
        offset = self._offsets.get(path, 0)
        try:
            data = read_file(path, self.max_bytes, offset=offset).data
        except OSError:
            return []
        if not data:
            return []
        self._offsets[path] = offset + len(data)
        *lines, rest = data.split(b"\n")
        carried = self._partial.pop(path, b"")
        if lines:
            if carried is None:  # the end of a line too long: skipped (counted already)
                del lines[0]
            else:
                lines[0] = carried + lines[0]
            carried = b""
        carried = None if carried is None else carried + rest
        if carried is not None and len(carried) > MAX_REPORT_BYTES:
            self.skipped += 1
            carried = None
        if carried != b"":
            self._partial[path] = carried
        task = path.stem.replace("-", ":", 1) if "-" in path.stem else path.stem
        points = []
        for line in lines:
            if not line.strip():
                continue
            point = _point(line, task) if len(line) <= MAX_REPORT_BYTES else None
            if point is None:
                self.skipped += 1
            else:
                points.append(point)
        return points


def _point(line: bytes, default_task: str) -> MetricPoint | None:
    """The report on ``line``; None when it is not one (bounded JSON: see core.bounded)."""
    try:
        data = loads(line, strict=True)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), dict):
        return None
    step = number(data.get("step"))
    metrics = {str(k): v for k, v in ((k, number(v)) for k, v in data["metrics"].items())
               if v is not None}
    if step is None or not metrics:
        return None
    task = data.get("task")
    return MetricPoint(task if isinstance(task, str) and task else default_task, step, metrics,
                       number(data.get("time")))
