"""The folder a build makes inside a WSL 2 distribution, and its steps run there.

Each step runs under the node agent (core/remote/node_agent.py, as a WSL task does) started
with the distribution's python3 through ``wsl.exe -e`` (no shell): killing wsl.exe does not end
the Linux process it started, but the agent ends the step's whole tree when told ``kill`` or
when its stdin closes (this process gone, however it ended). A cancel or Ctrl+C says ``kill``
and waits for the step to be gone before anything is removed: a pip still writing would race
the removal.

Removal is ``rm -rf -- PATH`` there, only of a folder that holds the build's proof (which the
build writes first into the folder it makes: core.envcreate.wsl_facts).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable

from core.envcreate.plan import Plan
from core.envcreate.stream import stream_lines
from core.envcreate.target import PROOF, SCRATCH, TEMP_VARIABLES, BuildRefused, interrupts_held
from core.envcreate.wsl_facts import NoPython, ask, refusal
from core.messages import tr
from core.wsl.bounded_run import Overrun, run_bounded
from core.wsl.command import own_group, wsl_environment

#: How long a step told ``kill`` may take to be gone before wsl.exe itself is killed (which
#: closes the agent's stdin: the agent kills the step then too).
STOP_WAIT = 15.0
#: Removing a TensorFlow venv (tens of thousands of files; a distribution may start first).
REMOVE_TIMEOUT = 600.0
_LIMIT = 64 * 1024
#: Removes $1 only when it is a folder (not a link) that holds the proof $2.
_REMOVE = '[ -d "$1" ] && [ ! -L "$1" ] && [ -f "$1/$2" ] || exit 0; exec rm -rf -- "$1"'
_CANCEL_POLL = 0.2


class _AgentStep:
    """One step running under the node agent inside the distribution."""

    def __init__(self, argv: list[str], task: bytes) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0,
                                     env=wsl_environment({}), **own_group())
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both PIPE
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self._lock = threading.Lock()
        self.send(task)

    def send(self, data: bytes) -> None:
        with self._lock:
            try:
                self.stdin.write(data)
                self.stdin.flush()
            except (OSError, ValueError):  # the agent is gone (or its pipe closed here)
                pass

    def read(self, size: int) -> bytes:
        return os.read(self.stdout.fileno(), size)

    def end(self) -> None:
        """``kill`` to the agent, then wait until wsl.exe is gone (killed past STOP_WAIT);
        what the step still prints is read and dropped meanwhile. A second Ctrl+C waits too:
        what follows removes the folder the step writes in."""
        with interrupts_held():
            if self.proc.poll() is None:
                self.send(b"kill\n")
                threading.Thread(target=self._drain, daemon=True, name="env-wsl-drain").start()
                try:
                    self.proc.wait(STOP_WAIT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            with self._lock:
                self.stdin.close()

    def _drain(self) -> None:
        try:
            while self.read(65536):
                pass
        except OSError:
            pass


class WslFolder:
    """A plan's folder inside its WSL distribution (``plan.wsl``): what core.envcreate.build
    asks of the place it builds in."""

    def __init__(self, plan: Plan) -> None:
        assert plan.wsl is not None, "a plan that builds inside WSL"
        self.where = plan.wsl.target
        self.path = str(plan.target)
        self.shown = plan.wsl.spec(plan.target)
        self.interpreter = plan.interpreter()
        self.language = plan.language
        scratch = f"{self.path}/{SCRATCH}"
        self.variables = {"PYTHONUNBUFFERED": "1", "PYTHONUTF8": "1",
                          **dict.fromkeys(TEMP_VARIABLES, scratch)}

    def prepare(self, on_line: Callable[[str], None]) -> str | None:
        """Claim the folder (removing what an interrupted build left there first); why it
        cannot be, or None."""
        try:
            state = self._claim()
            if state == "interrupted":
                on_line(tr("env.build.removing", self.language, target=self.shown))
                if not self._remove():
                    return tr("env.build.left_stays_wsl", self.language, target=self.shown,
                              path=self.path, distro=self.where.distro.name)
                state = self._claim()
        except (NoPython, BuildRefused) as exc:
            return exc.said(self.language)
        refused = refusal(state, self.shown)
        return refused.said(self.language) if refused else None

    def _claim(self) -> str:
        answer = ask(self.where, "claim", self.path)
        if not (isinstance(answer, list) and len(answer) == 2 and isinstance(answer[0], str)):
            raise NoPython("env.wsl.unreadable", distro=self.where.distro.name)
        if answer[0] == "error":
            raise BuildRefused("env.wsl.cannot_make", folder=self.shown, error=answer[1])
        return answer[0]

    def run(self, argv: tuple[str, ...], on_line: Callable[[str], None],
            cancel: threading.Event) -> tuple[int, list[str]]:
        """Run ``argv`` there under the agent; its exit status and output lines."""
        from core.remote.agent import agent_input
        from core.remote.shell import BOOTSTRAP

        step = _AgentStep(self.where.argv("python3", ["-u", "-c", BOOTSTRAP], cwd="/"),
                          agent_input(list(argv), self.variables, "/", runtime=False))
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                if cancel.wait(_CANCEL_POLL):
                    step.end()
                    return

        threading.Thread(target=watch, daemon=True, name="env-wsl-cancel").start()
        try:
            lines = stream_lines(step.read, on_line)
            return step.proc.wait(), lines
        finally:  # also on Ctrl+C: the step is gone before anything is removed
            done.set()
            step.end()

    def tidy(self) -> None:
        """The builders' temporary folder goes once the steps are done."""
        self._run(["rm", "-rf", "--", f"{self.path}/{SCRATCH}"], 120.0)

    def done(self) -> None:
        """The environment works: it is the user's now (the proof goes). Raises OSError when
        the proof stays (a later build would take the folder for an interrupted one)."""
        if not self._run(["rm", "-f", "--", f"{self.path}/{PROOF}"], 120.0):
            raise OSError(f"cannot remove {PROOF} from {self.shown}")

    def remove(self) -> str:
        """Remove what this build made; the truth about it, as the end of a sentence in the
        plan's language."""
        with interrupts_held():
            removed = self._remove()
        if removed:
            return tr("env.removed", self.language, target=self.shown)
        return tr("env.removed.not_all_wsl", self.language, target=self.shown, path=self.path,
                  distro=self.where.distro.name)

    def _remove(self) -> bool:
        return self._run(["sh", "-c", _REMOVE, "sh", self.path, PROOF], REMOVE_TIMEOUT)

    def _run(self, argv: list[str], timeout: float) -> bool:
        try:
            ran = run_bounded(self.where.argv(argv[0], argv[1:], cwd="/"), timeout=timeout,
                              limit=_LIMIT, env=wsl_environment({}))
        except (Overrun, OSError):
            return False
        return ran.returncode == 0
