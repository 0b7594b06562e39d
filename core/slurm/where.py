"""Where Slurm's client commands run: on this machine (``--slurm``), or on the cluster's login
node over SSH (``--slurm-login NODE``, core.slurm.login). core.slurm.launch and
core.slurm.stand_in talk to Slurm only through a :class:`SlurmHost`, so both runs have one code
path:

- :meth:`SlurmHost.run`: a client command to its end (``sinfo``, ``squeue``, ``scontrol``,
  ``scancel``, a ports step), as a ``subprocess.CompletedProcess``;
- :meth:`SlurmHost.hold`: ``salloc``, which holds the job while its stdin stays open (closed by
  ``communicate``, or when this process dies: the pipe, or the SSH channel, closes);
- :meth:`SlurmHost.step`: a task's ``srun``, its output on this process's stdout;
- :meth:`SlurmHost.place_run`: the run's folder where the tasks find their script and
  TensorDeck's runtime (None: this machine's own files).

The processes :meth:`hold` and :meth:`step` return answer the part of ``subprocess.Popen`` the
launcher uses: ``stderr`` (lines; hold only), ``communicate``, ``poll``, ``wait``,
``terminate``, ``kill`` (:class:`SlurmProcess`, :class:`SlurmHolder`).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from core.proctree import pdeathsig_preexec

if TYPE_CHECKING:
    from core.placements.slurm import ClusterPlace
    from core.plan import RunPlan

CLIENT_SECONDS = 60.0


class SlurmProcess(Protocol):
    """A client process (subprocess.Popen here, or one over SSH: core.slurm.login)."""

    @property
    def returncode(self) -> int | None: ...

    # timeout by keyword only: Popen's first parameter is the input.
    def communicate(self, *, timeout: float | None = None) -> object: ...
    def poll(self) -> int | None: ...
    def wait(self) -> int: ...
    def send_signal(self, signum: int) -> None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...


class SlurmHolder(SlurmProcess, Protocol):
    """salloc, whose stderr (text lines) says when the job is granted."""

    @property
    def stderr(self) -> Iterable[str] | None: ...


class SlurmHost(Protocol):
    """Where the Slurm commands of a run run (see the module's docstring)."""

    #: Words for messages: "this machine", "the login node NAME".
    label: str
    #: How a fix names this way in (``--slurm``, ``--slurm-login``).
    option: str

    def run(self, argv: list[str], timeout: float | None = CLIENT_SECONDS
            ) -> subprocess.CompletedProcess: ...
    def missing(self, tools: tuple[str, ...]) -> list[str]: ...
    def missing_fix(self) -> str: ...
    def hold(self, argv: list[str]) -> SlurmHolder: ...
    def step(self, argv: list[str], env: dict[str, str] | None = None,
             cwd: str | None = None) -> SlurmProcess: ...
    def srun(self) -> str: ...
    def python(self, plan: RunPlan) -> str: ...
    def place_run(self, plan: RunPlan) -> ClusterPlace | None: ...
    def close(self) -> None: ...


class LocalSlurm:
    """Slurm's commands on this machine's PATH; the tasks' files are this machine's."""

    label = "this machine"
    option = "--slurm"

    def run(self, argv: list[str], timeout: float | None = CLIENT_SECONDS
            ) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def missing(self, tools: tuple[str, ...]) -> list[str]:
        return [tool for tool in tools if shutil.which(tool) is None]

    def missing_fix(self) -> str:
        return ("on PATH: run on a machine with Slurm's client commands (a login node; Debian: "
                "apt-get install slurm-client) or put them on PATH")

    def hold(self, argv: list[str]) -> subprocess.Popen[str]:
        """salloc in a session of its own (a Ctrl+C is the launcher's to handle)."""
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)

    def step(self, argv: list[str], env: dict[str, str] | None = None,
             cwd: str | None = None) -> subprocess.Popen[bytes]:
        """srun in a session of its own, dying with this process (parent-death signal);
        ``env`` None: this process's environment, which is the task's."""
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=pdeathsig_preexec(), env=env, cwd=cwd)

    def srun(self) -> str:
        return shutil.which("srun") or "srun"

    def python(self, plan: RunPlan) -> str:
        return plan.python

    def place_run(self, plan: RunPlan) -> ClusterPlace | None:
        return None

    def close(self) -> None:
        pass


def slurm_host(plan: RunPlan, login: str | None) -> SlurmHost:
    """This machine (``login`` None), or the login node ``login`` names, connected (ConfigError
    naming the fix when it cannot be used: an unknown name, an unknown host key, no answer)."""
    if login is None:
        return LocalSlurm()
    from core.slurm.login import connect_login

    return connect_login(plan, login)
