"""Worst-case inputs for every parser of text TensorDeck did not write: a task's output (the
line splitter, the terminal and window sanitizers, the progress parser, TensorFlow's noise), a
run folder's metrics files, and an output pasted to ``doctor --explain``. Shared by
``tests/test_linear_parsers.py`` (small sizes, outputs asserted) and
``bench/parsers_worst_case.py`` (10 MB, throughput printed).

Each :class:`Case` builds its input for a size in bytes, runs the parser on it, checks what it
gave, and has a baseline that reads the same input plainly (``bytes.split``, ``str.split``):
its time is what merely touching the input costs.
"""

from __future__ import annotations

import importlib
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.doctor import context, explain, wording
from core.metrics import MetricsTail, ProgressParser
from core.output import MAX_LINE_CHARS, LineSplitter, plain, visible
from core.tfnoise import KNOWN, classify
from core.wsl import distros, paths
from core.wsl.distros import decode_output, parse_listing
from core.wsl.paths import parse_wsl_spec, to_linux_path
from core.wsl.refusals import WslRefusal

try:  # Python 3.11+
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]


@dataclass(frozen=True)
class Case:
    """``make(size)`` -> input; ``run(input)`` -> output; ``check(input, output)`` asserts it;
    ``baseline(input)`` reads the same input plainly."""

    name: str
    make: Callable[[int], Any]
    run: Callable[[Any], Any]
    check: Callable[[Any, Any], None]
    baseline: Callable[[Any], Any]


def _fed(data: bytes, read: int) -> list[str]:
    """Every line the splitter gives for ``data`` read ``read`` bytes at a time."""
    splitter, lines = LineSplitter(), []
    for at in range(0, len(data), read):
        lines += splitter.feed(data[at:at + read])[0]
    return lines + splitter.close()


def _split(data: bytes) -> int:
    return len(data.split(b"\n"))


def _split_each(lines: list[str]) -> int:
    return sum(len(line.split()) for line in lines)


def _check_backspaces(data: bytes, lines: list[str]) -> None:
    # A run of backspaces ended by \r is a redraw: only "done" is a line; a run longer than a
    # line may be is cut into lines of backspaces first.
    assert lines[-1] == "done" and set("".join(lines[:-1])) <= {"\b"}, lines[-1:]


def _check_long_line(data: bytes, lines: list[str]) -> None:
    assert "".join(lines) == data.decode().rstrip("\n")
    assert max(map(len, lines)) <= 2 * MAX_LINE_CHARS


def _progress_lines(line: str) -> Callable[[int], list[str]]:
    return lambda size: [line] * max(1, size // len(line))


def _parsed(lines: list[str]) -> list:
    parser = ProgressParser("worker:0", clock=lambda: 0.0)
    return [parser.feed(line) for line in lines]


def _no_point(lines: list[str], points: list) -> None:
    assert points == [None] * len(lines)


def _one_point_each(lines: list[str], points: list) -> None:
    assert [(p.step, p.metrics) for p in points] == [
        (float(i), {"loss": 1.0}) for i in range(len(lines))]


def _long_step_lines(size: int) -> list[str]:
    body = "loss=1 " * 9000
    return [f"step {i} {body}" for i in range(max(1, size // len(body)))]


def _in_metrics_file(lines: list[bytes], read: Callable[[Path], Any]) -> Any:
    """``read`` of a metrics folder whose file holds ``lines`` (made, read, removed)."""
    with tempfile.TemporaryDirectory(prefix="td-worst-") as folder:
        path = Path(folder) / "worker-0.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        return read(path)


REPORT = json.dumps({"step": 7, "metrics": {"loss": 0.5}}).encode()


def _polled(path: Path) -> tuple[list, int]:
    tail = MetricsTail(path.parent)
    points = tail.poll()
    return [(p.task, p.step, p.metrics) for p in points], tail.skipped


def _tail(lines: list[bytes]) -> tuple[list, int]:
    return _in_metrics_file(lines, _polled)


def _read_lines(lines: list[bytes]) -> int:
    return _in_metrics_file(lines, lambda path: _split(path.read_bytes()))


def _explained(text: str) -> list[str]:
    return [f.id for f in explain.explain(text)]


def _log_with_error(size: int) -> str:
    lines = [f"Epoch {i // 100 + 1}/200 step {i}/20000 loss: 0.{i % 997:03d} - accuracy: 0.5"
             for i in range(max(1, size // 64))]
    lines.insert(max(0, len(lines) - 1000), "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] "
                 "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is "
                 "detected")
    return "\n".join(lines)


def _library_lines(size: int) -> str:
    line = "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: " \
           "cudart64_110.dll not found"
    return "\n".join([line] * max(1, size // len(line)))


def _known_words(size: int) -> str:
    """Lines of eight words each that the wording model knows, all of its words in turn."""
    vocabulary = sorted(wording.shipped_model().vocabulary)
    count = max(1, size // 80)
    return "\n".join(" ".join(vocabulary[(7 * i + k) % len(vocabulary)] for k in range(8))
                     for i in range(count))


def _guessed(text: str) -> wording.Guess | None:
    return wording.shipped_model().guess(text, text.splitlines())


def _wsl_listing(size: int) -> bytes:
    """``wsl.exe -l -v`` as it prints (UTF-16LE, CRLF) with as many distributions as fit."""
    rows = "".join(f"  Distro-{i}    Stopped    2\r\n" for i in range(size // 64))
    return ("  NAME    STATE    VERSION\r\n" + rows).encode("utf-16-le")


def _listed(data: bytes) -> object:
    try:
        return len(parse_listing(decode_output(data)))
    except WslRefusal as exc:
        return str(exc)


def _refused_or_parsed(run: Callable[[str], object]) -> Callable[[str], object]:
    def parse(text: str) -> object:
        try:
            return run(text)
        except WslRefusal as exc:
            return str(exc)
    return parse


def _repeated_words(size: int) -> str:
    """Lines of 4,000 characters, each one rule's word repeated: the input on which a pattern
    that reads the rest of a line again from every place its word appears is quadratic."""
    words = sorted({w for rx in module_patterns() for w in literal_runs(rx) if len(w) > 3})
    lines = [(word + " ") * (4000 // (len(word) + 1)) for word in words]
    count = max(1, size // 4000)
    return "\n".join(lines[i % len(lines)] for i in range(count))


CASES: tuple[Case, ...] = (
    Case("splitter: a flood of \\b in 512-byte reads",
         lambda size: b"\b" * size + b"\rdone\n", lambda data: _fed(data, 512),
         _check_backspaces, _split),
    Case("splitter: a flood of \\r in 7-byte reads",
         lambda size: b"x\r" * (size // 2) + b"end\n", lambda data: _fed(data, 7),
         lambda data, lines: _equal(lines, ["end"]), _split),
    Case("splitter: one line of the whole size, 64 KiB reads",
         lambda size: b"y" * size + b"\n", lambda data: _fed(data, 1 << 16),
         _check_long_line, _split),
    Case("splitter: short lines, 64 KiB reads",
         lambda size: b"step 1 loss=0.5\n" * (size // 16), lambda data: _fed(data, 1 << 16),
         lambda data, lines: _equal(len(lines), data.count(b"\n")), _split),
    Case("terminal sanitizer: a flood of escapes",
         lambda size: "\x1b[" * (size // 2), visible,
         lambda text, out: _equal(out, "\\x1b[" * (len(text) // 2)), str.split),
    Case("window sanitizer: a flood of colours",
         lambda size: "\x1b[1m" * (size // 4), plain, lambda text, out: _equal(out, ""),
         str.split),
    Case("progress: a 4,000-digit number not followed by a separator",
         _progress_lines("step 1 a=" + "1" * 4000 + "x"), _parsed, _no_point, _split_each),
    Case("progress: 4,000 blanks after 'step'",
         _progress_lines("step" + " " * 4000 + "x/"), _parsed, _no_point, _split_each),
    Case("progress: a dotted name of 4,000 characters",
         _progress_lines("step 1 " + "a." * 2000 + "=x"), _parsed, _no_point, _split_each),
    Case("progress: a Keras metric of 4,000 digits",
         _progress_lines("1/2 [ - a: " + "1" * 4000 + "x"), _parsed, _no_point, _split_each),
    Case("progress: lines of 64 KiB (read up to 4 KiB)",
         _long_step_lines, _parsed, _one_point_each, _split_each),
    Case("noise: a line of 'port.cc:' repeated",
         lambda size: ["port.cc:" * (size // 8)], lambda lines: [classify(x) for x in lines],
         lambda lines, out: _equal(out, [None]), _split_each),
    Case("metrics file: one line of the whole size, then a report",
         lambda size: [b"{" * size, REPORT], _tail,
         lambda folder, out: _equal(out, ([("worker:0", 7.0, {"loss": 0.5})], 1)), _read_lines),
    Case("metrics file: reports nested 100,000 deep and 400-digit numbers",
         lambda size: [b'{"step": 1, "metrics": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                       b'{"step": 1, "metrics": {"loss": 1' + b"0" * 400 + b"}}", REPORT]
         * max(1, size // 200_000),
         _tail, lambda folder, out: _equal(out[1], 2 * (len(out[0]))), _read_lines),
    Case("explain: a training log with one error among its lines",
         _log_with_error, _explained,
         lambda text, ids: _equal(ids[0], "no-nvidia-driver"), str.splitlines),
    Case("explain: the same library line on every line",
         _library_lines, _explained,
         lambda text, ids: _equal("missing-cuda-runtime" in ids, True), str.splitlines),
    Case("explain: one line of the whole size",
         lambda size: "NCCL " * (size // 5), _explained,
         lambda text, ids: _equal(ids, ["no-error-found"]), str.splitlines),
    Case("explain: each rule's words repeated on lines of 4,000 characters",
         _repeated_words, _explained, lambda text, ids: _equal(bool(ids), True),
         str.splitlines),
    Case("wording model: lines of the words it knows",
         _known_words, _guessed,
         lambda text, guess: _equal(guess is None or set(guess.lines) <= set(text.splitlines()),
                                    True), str.splitlines),
    Case("wsl listing: as many distributions as fit (UTF-16)",
         _wsl_listing, _listed,
         lambda data, n: _equal(n, data.decode("utf-16-le").count("Distro-")),
         bytes.split),
    Case("wsl listing: one line of the whole size",
         lambda size: ("  NAME " + "x" * size).encode("utf-16-le"), _listed,
         lambda data, n: _equal(n, 0), bytes.split),
    Case("wsl:// name: a path of the whole size",
         lambda size: "wsl://Ubuntu/" + "a/" * (size // 2), _refused_or_parsed(parse_wsl_spec),
         lambda text, out: _equal("longer than" in str(out), True), str.split),
    Case("windows path: '..' and names of the whole size",
         lambda size: "C:\\" + "a\\..\\" * (size // 6),
         _refused_or_parsed(lambda t: to_linux_path(t, "Ubuntu")),
         lambda text, out: _equal("longer than" in str(out), True), str.split),
    Case("explain: blanks after 'tf.__version__'",
         lambda size: "tf.__version__" + " " * size + "x", _explained,
         lambda text, ids: _equal(ids, ["no-error-found"]), str.splitlines),
    Case("explain: blanks after 'nvidia driver'",
         lambda size: "nvidia driver" + " " * size + "x", _explained,
         lambda text, ids: _equal(ids, ["no-error-found"]), str.splitlines),
)


def _equal(got: object, want: object) -> None:
    assert got == want, (str(got)[:200], str(want)[:200])


# --- every pattern, alone ----------------------------------------------------------------

def module_patterns() -> list[re.Pattern]:
    """The patterns the parsers of untrusted text use: the doctor's rules and the context they
    read, the progress parser's, TensorFlow's noise, the sanitizers', WSL's listings and
    paths'."""
    from core import metrics, output

    found: list[re.Pattern] = []
    # Every module of the doctor (a new one included), and the other parsers of untrusted text.
    doctor = [importlib.import_module(f"core.doctor.{p.stem}")
              for p in sorted(Path(context.__file__).parent.glob("*.py"))]
    for module in (*doctor, metrics, output, distros, paths):
        for value in vars(module).values():
            found += _patterns_in(value)
    found += [sig.pattern for sig in explain._SIGNATURES]
    found += [noise.pattern for noise in KNOWN]
    found += [re.compile(p, re.IGNORECASE) for _, p in explain._PIP_FAILURES]
    found += [p for _, p in context._PLATFORM_HINTS]
    found += [p for p, _, _ in context._TF_LOG_ERAS]
    return list(dict.fromkeys(found))


def _patterns_in(value: object) -> list[re.Pattern]:
    if isinstance(value, re.Pattern):
        return [value]
    if isinstance(value, (tuple, list)):
        return [p for item in value for p in _patterns_in(item)]
    return []


def literal_runs(rx: re.Pattern) -> list[str]:
    """Every run of literal characters in ``rx`` ("NCCL", "Connection refused")."""
    runs: list[str] = []

    def walk(items: Any) -> None:
        run: list[str] = []
        for op, arg in items:
            if op is _sre.LITERAL:
                run.append(chr(arg))
                continue
            if run:
                runs.append("".join(run))
                run = []
            if op is _sre.BRANCH:
                for alternative in arg[1]:
                    walk(alternative)
            elif op is _sre.SUBPATTERN:
                walk(arg[3])
            elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
                walk(arg[2])
            elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
                walk(arg[1])
        if run:
            runs.append("".join(run))

    walk(_sre_parse.parse(rx.pattern, rx.flags))
    return runs


#: Texts every pattern is searched in: runs of what its quantifiers take.
CLASS_RUNS = ("1", " ", "a", "a.", "\t", ":", "/", "\n", "'", "-")


def pathological(rx: re.Pattern, length: int) -> Iterator[str]:
    """Texts of ``length`` characters on which a backtracking pattern is quadratic: each of
    its literal runs repeated (alone and between blanks: ``\\bNCCL\\b`` needs them), and runs
    of digits, blanks, letters, dots and separators, each ending in a character that fails
    the match late."""
    words = dict.fromkeys(literal_runs(rx))
    for unit in (*words, *(f"{word} " for word in words), *CLASS_RUNS):
        yield unit * (length // len(unit)) + "\x00"
