"""Make a planned environment: run its commands with their output streamed, stop on cancel,
leave nothing half-made, then probe the new interpreter for real and register it.

"Nothing half-made": the target folder must not exist (or be empty) before; a marker file
beside it says a build is under way; on a failure, a cancel or Ctrl+C the folder is removed.
A build killed outright leaves the marker, and the next build into that folder removes what
the killed one left.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.envcreate.plan import Plan
from core.findings import Finding
from core.interpreters.probe import ProbeResult

#: How long a step's output may pause before TensorDeck looks at the cancel flag again.
_CANCEL_POLL = 0.2


class BuildRefused(ValueError):
    """The target cannot be built into (it holds files TensorDeck did not make)."""


@dataclass
class BuildResult:
    ok: bool
    message: str
    cancelled: bool = False
    probe: ProbeResult | None = None
    #: The doctor's reading of the failed step's output (a pip that cannot reach its index).
    findings: list[Finding] = field(default_factory=list)


def marker(target: Path) -> Path:
    return target.parent / f".{target.name}.tensordeck-building"


def check_target(target: Path) -> None:
    """Raise BuildRefused unless ``target`` is new, empty, or left by an interrupted build."""
    if target.exists() and not marker(target).exists() and (
            not target.is_dir() or any(target.iterdir())):
        raise BuildRefused(f"{target} already exists and is not empty: choose a new folder "
                           "(--path DIR), or delete it first")


def remove_env(target: Path) -> None:
    """Remove ``target`` and the marker; a file a killed process held a moment ago (Windows)
    gets a few tries."""
    for attempt in range(5):
        try:
            if target.exists():
                shutil.rmtree(target)
            break
        except OSError:
            if attempt == 4:
                raise
            time.sleep(0.5)
    with contextlib.suppress(FileNotFoundError):
        marker(target).unlink()


def build(plan: Plan, on_line: Callable[[str], None], cancel: threading.Event, *,
          env: Mapping[str, str] | None = None, register: bool = True) -> BuildResult:
    """Run ``plan``; ``on_line`` gets each output line (from this thread), ``cancel`` stops
    it. Ctrl+C (KeyboardInterrupt) removes what was made, then propagates."""
    if not plan.buildable:
        return BuildResult(False, "this plan is for you to follow: " + "; ".join(plan.manual))
    target = plan.target
    check_target(target)
    if marker(target).exists():
        on_line(f"Removing what an interrupted build left in {target}")
        remove_env(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    marker(target).write_text("TensorDeck is building this environment\n", encoding="utf-8")
    base_env = dict(os.environ if env is None else env)
    try:
        for step in plan.steps:
            on_line(f"== {step.text}")
            on_line(f"$ {step.shown()}")
            code, output = _run(step.argv, base_env, on_line, cancel)
            if cancel.is_set():
                remove_env(target)
                return BuildResult(False, f"Cancelled; {target} was removed.", cancelled=True)
            if code != 0:
                remove_env(target)
                return _failed(step.text, code, output, target)
        return _verify(plan, on_line, register)
    except BaseException:
        cancel.set()
        remove_env(target)
        raise


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
                       f"{target} was removed; nothing was registered.", findings=findings)


def _verify(plan: Plan, on_line: Callable[[str], None], register: bool) -> BuildResult:
    """A real probe of the new interpreter (import tensorflow, the GPU list), then the
    training interpreter list."""
    from core.interpreters.discover import add_user_interpreter
    from core.interpreters.probe import probe_interpreter

    python = str(plan.python)
    on_line(f"== Checking the new environment: import tensorflow in {python}")
    probe = probe_interpreter(python, import_tf=True)
    if not probe.import_ok:
        remove_env(plan.target)
        return BuildResult(False, f"TensorFlow was installed but does not import "
                           f"({probe.error}); {plan.target} was removed.", probe=probe)
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
