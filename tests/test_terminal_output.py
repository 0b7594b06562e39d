"""Nothing a user or a file names drives the terminal: every command of the CLI, given a folder,
path, job name, host, option value or file content that holds OSC 52 (sets the clipboard), CSI
(clears the screen) and C1 controls, writes no raw escape to stdout or stderr but TensorDeck's
own colours (SGR). Every path the text takes (messages, refusals, argparse's errors, the run's
lines, the final "run folder" line) goes through core.output.visible (core.terminal)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.terminal import VisibleText, raw
from tests.conftest import tensordeck

#: OSC 52 (clipboard "pwned"), CSI clear screen, C1 CSI (U+009B), and a bidi override.
HOSTILE = "x\x1b]52;c;cHduZWQ=\x07y\x1b[2J\u009bz\u202e"
# The project's own colours; anything else that is a control character is a failure.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# Folder and file names cannot hold C0 controls on Windows; C1 and bidi ones they can.
NAME = HOSTILE if sys.platform != "win32" else "x\u009bz\u202e"


def raw_controls(output: bytes) -> list[str]:
    """The control characters in ``output`` a terminal would act on (SGR colours aside)."""
    # A line ends in "\r\n" on Windows (text mode): a control the terminal is meant to get.
    text = _SGR.sub("", output.decode("utf-8", errors="replace").replace("\r\n", "\n"))
    return sorted({ascii(c) for c in _FORBIDDEN.findall(text)})


def _job(folder: Path, **config) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.py").write_text(f"print({HOSTILE!r})\n", encoding="utf-8")
    path = folder / "job.json"
    path.write_text(json.dumps({"name": "t", "strategy": "single", "script": "task.py",
                                **config}), encoding="utf-8")
    return path


def _cases(tmp: Path) -> dict[str, list[str]]:
    """Per command line: its arguments (each holds or leads to a hostile value)."""
    plain = _job(tmp / "plain")
    hostile_folder = _job(tmp / NAME)
    explain = tmp / "error.txt"
    explain.write_text(f"ImportError: DLL load failed while importing {HOSTILE}: \n"
                       f"  File \"C:\\{HOSTILE}\\tensorflow\\__init__.py\"\n", encoding="utf-8")
    out = str(tmp / f"out-{NAME}")
    return {
        "--run": ["--run", str(plain)],
        "--run in a hostile folder": ["--run", str(hostile_folder)],
        "--run --run-dir": ["--run", str(plain), "--run-dir", str(tmp / NAME / "run")],
        "--run --dry-run": ["--run", str(plain), "--dry-run"],
        "run --slurm-login": ["run", str(plain), "--slurm-login", HOSTILE],
        "run: unknown option": ["run", str(plain), f"--{HOSTILE}"],
        "validate": ["validate", str(hostile_folder)],
        "validate: missing file": ["validate", str(tmp / f"{NAME}.json")],
        "schema: extra argument": ["schema", HOSTILE],
        "doctor --python": ["doctor", "--python", str(tmp / NAME / "python")],
        "doctor --explain": ["doctor", "--explain", str(explain)],
        "doctor --explain missing": ["doctor", "--explain", str(tmp / NAME)],
        "doctor --tf-version": ["doctor", "--explain", str(explain), "--tf-version", HOSTILE],
        "doctor --platform": ["doctor", "--platform", HOSTILE],
        "gpus: unknown option": ["gpus", f"--{HOSTILE}"],
        "export --kubeflow": ["export", str(plain), "--kubeflow", out + ".yaml"],
        "export --kubeflow --image": ["export", str(plain), "--kubeflow", "-", "--image", HOSTILE],
        "export --commands": ["export", str(plain), "--commands", out + ".md"],
        "export --slurm": ["export", str(plain), "--slurm", out + ".sbatch"],
        "export --slurm to a missing folder": ["export", str(plain), "--slurm",
                                               str(tmp / NAME / "no" / "x.sbatch")],
        "preflight": ["preflight", str(hostile_folder)],
        "trust": ["trust", HOSTILE],
        "login": ["login", str(plain), HOSTILE],
        "env create --path": ["env", "create", "--path", str(tmp / NAME / "env"), "--dry-run",
                              "--cpu"],
        "env create --python": ["env", "create", "--python", str(tmp / NAME / "python"),
                                "--dry-run"],
        "cache: unknown action": ["cache", HOSTILE],
        "gui: unknown option": ["gui", str(plain), f"--{HOSTILE}"],
        "a file that is no command": [str(tmp / NAME)],
        "unknown command": [HOSTILE],
        "_slurm-task": ["_slurm-task", HOSTILE],
        "_remote-task": ["_remote-task", HOSTILE],
        "_wsl-task": ["_wsl-task", HOSTILE],
    }


CASES = list(_cases(Path("/x")))


def test_the_cases_walk_every_command():
    """A new command gets its case here, or this fails."""
    from core.cli import INTERNAL, build_parser

    commands = {*build_parser().get_default("commands"), *INTERNAL, "--run"}
    assert commands <= {argv[0] for argv in _cases(Path("/x")).values()}


@pytest.mark.parametrize("case", CASES)
def test_no_command_writes_a_raw_control_character(case, tmp_path):
    argv = _cases(tmp_path)[case]
    result = subprocess.run([sys.executable, "-m", "core", *argv], capture_output=True,
                            timeout=120, stdin=subprocess.DEVNULL,
                            cwd=Path(__file__).resolve().parent.parent)
    said = (result.stdout + result.stderr).decode("utf-8", errors="replace")
    assert raw_controls(result.stdout) == [], said
    assert raw_controls(result.stderr) == [], said
    assert "Traceback" not in said, said


def test_the_run_shows_the_hostile_text_as_escapes(tmp_path):
    """What was refused is still said, readable: the escapes are shown, not dropped."""
    job = _job(tmp_path / "plain")
    result = tensordeck("--run", str(job))
    assert result.returncode == 0, result.stderr
    assert "\\x1b]52;c;cHduZWQ=\\x07y\\x1b[2J\\u009bz\\u202e" in result.stdout
    assert "run folder" in result.stderr and raw_controls(result.stderr.encode()) == []


def test_a_traceback_that_quotes_a_hostile_value_shows_it_as_escapes():
    """An error TensorDeck did not foresee: Python's own traceback goes through the same
    sanitizer."""
    code = ("from core.terminal import visible_streams\n"
            "with visible_streams():\n"
            f"    raise ValueError({HOSTILE!r})\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60,
                            cwd=Path(__file__).resolve().parent.parent)
    assert b"Traceback" in result.stderr and b"ValueError: x\\x1b]52" in result.stderr
    assert raw_controls(result.stderr) == []


def test_visible_text_passes_lines_tabs_and_colours_and_shows_the_rest():
    class Sink:
        text = ""

        def write(self, text: str) -> int:
            self.text += text
            return len(text)

    sink = Sink()
    stream = VisibleText(sink)  # type: ignore[arg-type]
    print(f"a\tb\x1b[31mred\x1b[0m\r\n{HOSTILE}", file=stream)
    assert sink.text == ("a\tb\x1b[31mred\x1b[0m\x1b[0m\n"
                         "x\\x1b]52;c;cHduZWQ=\\x07y\\x1b[2J\\u009bz\\u202e\n")
    assert raw(stream) is sink and raw(sink) is sink  # type: ignore[arg-type]
