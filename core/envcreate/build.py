"""Make a planned environment: run its commands with their output streamed, stop on cancel,
leave nothing half-made, then probe the new interpreter for real and register it.

"Nothing half-made": the target folder must not exist (or be empty) before; the build claims it
with a proof inside (core.envcreate.target); on a failure, a cancel or Ctrl+C what it made is
removed. A build killed outright leaves the proof, and the next build into that folder removes
what the killed one left (the plan says so first).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.envcreate.plan import Plan
from core.envcreate.target import (
    check_target,
    claim,
    interrupted,
    marker,
    remove_env,
    removed_note,
    scratch,
)
from core.findings import Finding
from core.interpreters.probe import ProbeResult

#: How long a step's output may pause before TensorDeck looks at the cancel flag again.
_CANCEL_POLL = 0.2


@dataclass
class BuildResult:
    ok: bool
    message: str
    cancelled: bool = False
    probe: ProbeResult | None = None
    #: The doctor's reading of the failed step's output (a pip that cannot reach its index).
    findings: list[Finding] = field(default_factory=list)


#: Where pip, venv and conda put temporary files, on POSIX and on Windows.
TEMP_VARIABLES = ("TMPDIR", "TEMP", "TMP")


def build(plan: Plan, on_line: Callable[[str], None], cancel: threading.Event, *,
          env: Mapping[str, str] | None = None, register: bool = True) -> BuildResult:
    """Run ``plan``; ``on_line`` gets each output line (from this thread), ``cancel`` stops
    it. Ctrl+C (KeyboardInterrupt) removes what was made, then propagates."""
    if not plan.buildable:
        return BuildResult(False, "this plan is for you to follow: " + "; ".join(plan.manual))
    target = plan.target
    check_target(target)
    if interrupted(target):
        on_line(f"Removing what an interrupted build left in {target}")
        if not remove_env(target):
            return BuildResult(False, f"What an interrupted build left in {target} cannot be "
                               "removed (a program still uses it?): delete it, then try again")
    claim(target)
    temp = scratch(target)
    temp.mkdir()
    base_env = {**(os.environ if env is None else env), **dict.fromkeys(TEMP_VARIABLES, str(temp))}
    try:
        for step in plan.steps:
            on_line(f"== {step.text}")
            on_line(f"$ {step.shown()}")
            code, output = _run(step.argv, base_env, on_line, cancel)
            if cancel.is_set():
                return BuildResult(False, f"Cancelled; {_removed(target)}.", cancelled=True)
            if code != 0:
                return _failed(step.text, code, output, target)
        shutil.rmtree(temp, ignore_errors=True)
        return _verify(plan, on_line, register)
    except BaseException:
        cancel.set()
        remove_env(target)
        raise


def _removed(target: Path) -> str:
    remove_env(target)
    return removed_note(target)


def _run(argv: tuple[str, ...], env: dict[str, str], on_line: Callable[[str], None],
         cancel: threading.Event) -> tuple[int, list[str]]:
    from core.proctree import TaskProcess  # its own process group / Job Object: killed whole

    proc = TaskProcess(argv, {**env, "PYTHONUNBUFFERED": "1", "PYTHONUTF8": "1"})
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel.wait(_CANCEL_POLL):
                proc.kill_tree()
                return

    watcher = threading.Thread(target=watch, daemon=True, name="env-build-cancel")
    watcher.start()
    lines: list[str] = []
    pending = b""
    try:
        while chunk := proc.read(65536):
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                # pip and conda redraw progress with \r: the last state of the line counts.
                line = raw.decode("utf-8", "replace").rstrip("\r").rsplit("\r", 1)[-1]
                lines.append(line)
                on_line(line)
        if pending:
            lines.append(pending.decode("utf-8", "replace"))
            on_line(lines[-1])
        code = proc.wait()
    finally:
        done.set()
        proc.release()
    return code, lines


def _failed(text: str, code: int, output: list[str], target: Path) -> BuildResult:
    from core.doctor.explain import explain
    from core.proctree import exit_status

    findings = explain("\n".join(output[-200:]))
    reason = f": {findings[0].title}" if findings else ""
    return BuildResult(False, f"{text} failed (exit status {exit_status(code)}){reason}. "
                       f"{_removed(target)}; nothing was registered.", findings=findings)


def _verify(plan: Plan, on_line: Callable[[str], None], register: bool) -> BuildResult:
    """A real probe of the new interpreter (import tensorflow, the GPU list), then the
    training interpreter list."""
    from core.interpreters.discover import add_user_interpreter
    from core.interpreters.probe import probe_interpreter

    python = str(plan.python)
    on_line(f"== Checking the new environment: import tensorflow in {python}")
    probe = probe_interpreter(python, import_tf=True)
    if not probe.import_ok:
        return BuildResult(False, f"TensorFlow was installed but does not import "
                           f"({probe.error}); {_removed(plan.target)}.", probe=probe)
    marker(plan.target).unlink()
    gpus = ", ".join(probe.gpus) or "none"
    on_line(f"TensorFlow {probe.tf_version} imports; GPUs it sees: {gpus}")
    if register:
        add_user_interpreter(python)
    registered = " and added to the training interpreters" if register else ""
    if plan.variant == "gpu" and not probe.gpus:
        return BuildResult(True, f"Built {python}{registered}, but TensorFlow sees no GPU: run "
                           f"'tensordeck doctor --python {python}' for why.", probe=probe)
    return BuildResult(True, f"Built {python}{registered}: TensorFlow {probe.tf_version}, "
                       f"GPUs: {gpus}.", probe=probe)
