"""Make a planned environment: run its commands with their output streamed, stop on cancel,
leave nothing half-made, then probe the new interpreter for real and register it.

"Nothing half-made": the target folder must not exist (or be empty) before; the build claims it
with a proof inside (core.envcreate.target); on a failure, a cancel or Ctrl+C what it made is
removed. A build killed outright leaves the proof, and the next build into that folder removes
what the killed one left (the plan says so first).

The same holds inside a WSL 2 distribution (``plan.wsl``): there the folder, its steps and its
removal are reached through wsl.exe (core.envcreate.wsl_folder).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from core.envcreate.plan import Plan
from core.envcreate.stream import stream_lines
from core.envcreate.target import (
    TEMP_VARIABLES,
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
from core.messages import tr

#: How long a step's output may pause before TensorDeck looks at the cancel flag again.
_CANCEL_POLL = 0.2


@dataclass
class BuildResult:
    ok: bool
    #: In the plan's language (the window's; the command line's is English).
    message: str
    cancelled: bool = False
    probe: ProbeResult | None = None
    #: The doctor's reading of the failed step's output (a pip that cannot reach its index).
    findings: list[Finding] = field(default_factory=list)


class BuildInterrupted(KeyboardInterrupt):
    """Ctrl+C during a build, after what it made was removed; ``note`` says so (the end of a
    sentence)."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


class _Place(Protocol):
    """Where a build makes its environment: this machine, or inside WSL."""

    def prepare(self, on_line: Callable[[str], None]) -> str | None: ...

    def run(self, argv: tuple[str, ...], on_line: Callable[[str], None],
            cancel: threading.Event) -> tuple[int, list[str]]: ...

    def tidy(self) -> None: ...

    def done(self) -> None: ...

    def remove(self) -> str: ...


class _Here:
    """The plan's folder on this machine."""

    def __init__(self, plan: Plan, env: Mapping[str, str] | None) -> None:
        self.target = Path(plan.target)
        self.language = plan.language
        self.env = {**(os.environ if env is None else env),
                    **dict.fromkeys(TEMP_VARIABLES, str(scratch(self.target))),
                    "PYTHONUNBUFFERED": "1", "PYTHONUTF8": "1"}

    def prepare(self, on_line: Callable[[str], None]) -> str | None:
        """Claim the folder (removing what an interrupted build left there first); why it
        cannot be, or None. Raises BuildRefused for a folder that is not the build's to use."""
        check_target(self.target)
        if interrupted(self.target):
            on_line(tr("env.build.removing", self.language, target=self.target))
            if not remove_env(self.target):
                return tr("env.build.left_stays", self.language, target=self.target)
        claim(self.target)
        scratch(self.target).mkdir()
        return None

    def run(self, argv: tuple[str, ...], on_line: Callable[[str], None],
            cancel: threading.Event) -> tuple[int, list[str]]:
        from core.proctree import TaskProcess  # its own process group / Job Object: killed whole

        proc = TaskProcess(argv, self.env)
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                if cancel.wait(_CANCEL_POLL):
                    proc.kill_tree()
                    return

        threading.Thread(target=watch, daemon=True, name="env-build-cancel").start()
        try:
            lines = stream_lines(proc.read, on_line)
            return proc.wait(), lines
        finally:
            done.set()
            proc.release()

    def tidy(self) -> None:
        shutil.rmtree(scratch(self.target), ignore_errors=True)

    def done(self) -> None:
        marker(self.target).unlink()

    def remove(self) -> str:
        remove_env(self.target)
        return removed_note(self.target, self.language)


def _place(plan: Plan, env: Mapping[str, str] | None) -> _Place:
    if plan.wsl is None:
        return _Here(plan, env)
    from core.envcreate.wsl_folder import WslFolder

    return WslFolder(plan)


def build(plan: Plan, on_line: Callable[[str], None], cancel: threading.Event, *,
          env: Mapping[str, str] | None = None, register: bool = True) -> BuildResult:
    """Run ``plan``; ``on_line`` gets each output line (from this thread), ``cancel`` stops
    it. Ctrl+C removes what was made, then raises :class:`BuildInterrupted` (a
    KeyboardInterrupt). ``env``: the environment of steps run on this machine (default: this
    process's); inside WSL the distribution's own. What it says is in ``plan.language``."""
    lang = plan.language
    if not plan.buildable:
        return BuildResult(False, tr("env.build.for_you", lang, steps="; ".join(plan.manual)))
    place = _place(plan, env)
    problem = place.prepare(on_line)
    if problem:
        return BuildResult(False, problem)
    try:
        for step in plan.steps:
            on_line(f"== {step.text}")
            on_line(f"$ {plan.shown(step)}")
            code, output = place.run(step.argv, on_line, cancel)
            if cancel.is_set():
                return BuildResult(False, tr("env.build.cancelled", lang, removed=place.remove()),
                                   cancelled=True)
            if code != 0:
                return _failed(step.text, code, output, place, lang)
        place.tidy()
        return _verify(plan, place, on_line, register)
    except BaseException as exc:
        cancel.set()
        note = place.remove()
        if isinstance(exc, KeyboardInterrupt):
            raise BuildInterrupted(note) from None
        raise


def _failed(text: str, code: int, output: list[str], place: _Place, lang: str) -> BuildResult:
    """Step ``text`` failed: why (the doctor's reading of its output), in ``lang``."""
    from core.doctor.explain import explain
    from core.proctree import exit_status

    findings = explain("\n".join(output[-200:]))
    said = {"step": text, "status": exit_status(code), "removed": place.remove()}
    message = (tr("env.build.failed_because", lang, why=findings[0].title_in(lang), **said)
               if findings else tr("env.build.failed", lang, **said))
    return BuildResult(False, message, findings=findings)


def _verify(plan: Plan, place: _Place, on_line: Callable[[str], None],
            register: bool) -> BuildResult:
    """A real probe of the new interpreter (import tensorflow, the GPU list), then the
    training interpreter list."""
    from core.interpreters.discover import add_user_interpreter
    from core.interpreters.probe import probe_interpreter

    lang, python = plan.language, plan.interpreter()
    on_line("== " + tr("env.build.checking", lang, python=python))
    probe = probe_interpreter(python, import_tf=True)
    if not probe.import_ok:
        return BuildResult(False, tr("env.build.no_import", lang, error=probe.error,
                                     removed=place.remove()), probe=probe)
    place.done()
    gpus = tr("env.list_separator", lang).join(probe.gpus) or tr("env.none", lang)
    on_line(tr("env.build.imports", lang, tf=probe.tf_version, gpus=gpus))
    if register:
        add_user_interpreter(python)
    sees_none = plan.variant == "gpu" and not probe.gpus
    built = "env.build.built_no_gpu" if sees_none else "env.build.built"
    return BuildResult(True, tr(built, lang, python=python, tf=probe.tf_version, gpus=gpus,
                                registered=tr("env.build.registered", lang) if register else ""),
                       probe=probe)
