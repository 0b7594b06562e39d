"""Why a run did not start, from the typed refusal core raised (as ``tensordeck --run`` gets
it): its problems as text, one per problem, and the host keys a Trust dialog may offer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.config import ConfigError
from core.doctor.report import render_finding
from core.session import DoctorRefused
from gui.views.field_problems import problem_text

if TYPE_CHECKING:  # the SSH stack: loaded by then when a node was refused
    from core.remote.connect import HostKey


def refusal_problems(error: Exception) -> list[str]:
    """One text per problem, in the window's language where core's catalogue has it: a
    config's (a node that is not ready is one of them), the doctor's findings, the run
    folder's, or an unexpected failure with its type."""
    if isinstance(error, ConfigError):
        return [problem_text(p) for p in error.problems]
    if isinstance(error, DoctorRefused):
        return [render_finding(f) for f in error.findings]
    if isinstance(error, OSError):  # RunFolderError: its message names the folder
        return [str(error)]
    return [f"{type(error).__name__}: {error}"]


def unknown_host_keys(error: Exception) -> list[HostKey]:
    """The keys that the nodes refused as unknown hosts presented, each once. A host known with
    another key (HostKeyChangedError) is not among them: it is never offered for trust."""
    from core.remote.connect import NodesNotReady, UnknownHostError

    if not isinstance(error, NodesNotReady):
        return []
    return list(dict.fromkeys(e.key for e in error.errors if isinstance(e, UnknownHostError)))
