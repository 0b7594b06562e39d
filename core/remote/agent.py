"""The node agent as a program to send (core/remote/node_agent.py, which runs one task where
it is sent: a LAN node over SSH, a Slurm cluster's login node, a WSL distribution over a
wsl.exe pipe) and the first bytes of its stdin. No SSH here: a WSL task's stand-in imports
this without loading asyncssh."""

from __future__ import annotations

import json
from pathlib import Path

from core.paths import resource
from core.remote.shell import bootstrap_line

#: Exit status when the agent's machine cannot be reached or the agent cannot start (as ssh
#: uses).
EXIT_UNREACHABLE = 255


def agent_source() -> str:
    """The node agent as one program: core/wintree.py (its Windows process trees, the same as
    local tasks get), then core/remote/node_agent.py."""
    from core import wintree

    here = Path(__file__).with_name("node_agent.py")
    return Path(wintree.__file__).read_text(encoding="utf-8") + "\n" + here.read_text("utf-8")


def runtime_files() -> dict[str, str]:
    """TensorDeck's runtime module (``resources/runtime``): file name -> source."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(resource("runtime").glob("*.py"))}


def agent_task(argv: list[str], env: dict[str, str], cwd: str, runtime: bool = True) -> dict:
    """The node agent's first line: the task, and the runtime module to put on its path
    (``runtime`` False: the task's environment already has it, core.slurm.login)."""
    return {"argv": argv, "env": env, "cwd": cwd, "runtime": runtime_files() if runtime else {}}


def agent_input(argv: list[str], env: dict[str, str], cwd: str, runtime: bool = True) -> bytes:
    """What the agent reads first on its stdin: its own program (for the bootstrap), then its
    task (:func:`agent_task`). Later lines are ``stop`` and ``kill``."""
    task = agent_task(argv, env, cwd, runtime)
    return bootstrap_line(agent_source()) + json.dumps(task).encode() + b"\n"
