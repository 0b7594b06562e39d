"""What decides an environment built inside a WSL 2 distribution, read there: its python3
(version; whether it can make a venv), the home folder and what is in it, the folder asked for.

One small script (any CPython 3.6+, the standard library only) answers inside the distribution,
started through ``wsl.exe -e python3 -c`` (never a shell line: core.wsl.command), in ``/`` (a
module in the home folder would shadow the standard library's). It also claims the build's
folder there, as :mod:`core.envcreate.target` claims one here: it makes the folder and writes
the proof inside it first. Inside WSL a build only ever builds into a folder it makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath, PurePosixPath

from core import bounded
from core.doctor.kb import Version
from core.envcreate.target import PROOF, SCRATCH, BuildRefused
from core.findings import Text
from core.messages import tr
from core.wsl.bounded_run import Overrun, run_bounded
from core.wsl.command import WslTarget, wsl_environment, wsl_target
from core.wsl.distros import decode_output
from core.wsl.paths import WslPath, linux_path_problem, to_linux_path
from core.wsl.refusals import NoDistribution, WslNotInstalled, WslRefusal

#: A stopped distribution starts first (seconds).
ASK_TIMEOUT = 60.0
ASK_LIMIT = 256 * 1024
MARK = "@@tensordeck-env@@ "
#: Home folder entries read for the default folder's name (``tf-2.21``, ``tf-2.21-2`` ...).
MAX_FOLDERS = 1000

# argv: ACTION PATH PROOF SCRATCH. "facts": the interpreter, the home folder, the state of PATH
# ("" for none) and of each ~/tf-*; "claim": PATH made (with its parents), the proof written in
# it first, then the scratch folder; the state it found, and the error that stopped it.
_SCRIPT = r"""
import json, os, sys
MARK = "@@tensordeck-env@@ "
action, path, proof, scratch = sys.argv[1:5]

def state(path):
    if os.path.islink(path):
        return "link"
    if os.path.isdir(path):
        return "interrupted" if os.path.isfile(os.path.join(path, proof)) else "exists"
    if os.path.lexists(path):
        return "file"
    parent = os.path.dirname(path)
    while not os.path.lexists(parent):
        parent = os.path.dirname(parent)
    return "new" if os.path.isdir(parent) else "under-file"

def facts():
    from importlib.util import find_spec
    home = os.path.expanduser("~")
    try:
        names = sorted(n for n in os.listdir(home) if n.startswith("tf-"))[:1000]
    except OSError:
        names = []
    folder = os.path.abspath(os.path.expanduser(path)) if path else None
    return {"python": list(sys.version_info[:3]), "executable": sys.executable,
            "venv": all(find_spec(m) is not None for m in ("venv", "ensurepip")),
            "home": home, "folders": {n: state(os.path.join(home, n)) for n in names},
            "path": folder, "state": state(folder) if folder else None}

def claim():
    found = state(path)
    if found != "new":
        return [found, None]
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(os.path.join(path, proof), flags, 0o600), "w") as out:
            out.write("made\nTensorDeck is building an environment here; a build that did not "
                      "finish left this, and the next build into this folder removes it.\n")
        os.mkdir(os.path.join(path, scratch))
    except OSError as exc:
        return ["error", str(exc)]
    return ["claimed", None]

print(MARK + json.dumps(facts() if action == "facts" else claim()))
"""


class NoPython(WslRefusal):
    """The distribution's python3 cannot make the environment (missing, broken, or without
    venv); ``str()`` names the fix."""


@dataclass(frozen=True)
class InWsl:
    """Where a plan builds: a folder inside this WSL 2 distribution."""

    target: WslTarget
    #: An interrupted build left that folder: the build removes it first.
    left_over: bool = False

    def spec(self, path: PurePath) -> str:
        """``path`` as TensorDeck names it: ``wsl://DISTRO/path``."""
        return WslPath(self.target.distro.name, str(path)).spec()


@dataclass(frozen=True)
class WslFacts:
    """A WSL 2 distribution to build in, read; or why none can be used (``problem``: one line
    that names the fix; ``installs``: WSL itself or a distribution must be installed first,
    which needs an administrator and a restart)."""

    target: WslTarget | None = None
    problem: str | None = None
    installs: bool = False
    #: python3 there: the executable (a Linux path) and its version.
    python: tuple[str, Version] | None = None
    home: str = ""
    #: The home folder's entries named ``tf-*``, each with its state (see the script).
    folders: tuple[tuple[str, str], ...] = ()
    #: The folder asked for (``--path``), absolute, and whether an interrupted build left it.
    path: str | None = None
    path_left_over: bool = False
    #: ``problem`` as a catalogue message (None: English only).
    problem_text: Text | None = None

    def problem_in(self, language: str) -> str | None:
        """``problem`` in ``language`` where it has a message id."""
        return self.problem_text.said(language) if self.problem_text else self.problem

    def folder(self, name: str, language: str = "en") -> InWslFolder:
        """The folder asked for, else a new one in the home folder: ``NAME``, or ``NAME-2``
        ... when that one is taken (one an interrupted build left is reused). Raises
        ValueError, said in ``language``, when the home folder has no such name left."""
        assert self.target is not None, "only a distribution that was read has folders"
        if self.path:
            return InWslFolder(PurePosixPath(self.path), InWsl(self.target, self.path_left_over))
        states = dict(self.folders)
        for n in range(1, MAX_FOLDERS + 2):
            candidate = name if n == 1 else f"{name}-{n}"
            state = states.get(candidate, "new")
            if state in ("new", "interrupted"):
                return InWslFolder(PurePosixPath(self.home) / candidate,
                                   InWsl(self.target, state == "interrupted"))
        raise ValueError(tr("env.wsl.too_many", language, home=self.home, limit=MAX_FOLDERS,
                            name=name))


@dataclass(frozen=True)
class InWslFolder:
    path: PurePosixPath
    where: InWsl


def refusal(state: str, shown: str) -> BuildRefused | None:
    """Why a folder in that state (the script's word) cannot be built into; None: it can."""
    message_ids = {"link": "env.refused.link", "file": "env.refused.file",
                   "under-file": "env.refused.under_file", "exists": "env.refused.exists_wsl"}
    return BuildRefused(message_ids[state], folder=shown) if state in message_ids else None


def ask(where: WslTarget, action: str, path: str, *, timeout: float = ASK_TIMEOUT) -> object:
    """The script's answer to ``action`` about ``path``. Raises :class:`NoPython` when
    python3 did not answer there."""
    name = where.distro.name
    argv = where.argv("python3", ["-c", _SCRIPT, action, path, PROOF, SCRATCH], cwd="/")
    try:  # nothing of this machine's environment crosses (WSLENV names nothing)
        ran = run_bounded(argv, timeout=timeout, limit=ASK_LIMIT, env=wsl_environment({}))
    except (Overrun, OSError) as exc:
        raise NoPython("env.wsl.no_answer", distro=name, error=exc) from None
    text = ran.stdout.decode("utf-8", "replace")
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith(MARK)), None)
    if line is None:
        said = next((ln.strip() for ln in decode_output(ran.stderr).splitlines() if ln.strip()),
                    f"exit status {ran.returncode}")
        shown = "".join(c if c.isprintable() else "?" for c in said[:160])
        raise NoPython("env.wsl.no_python", distro=name, said=shown)
    try:
        return bounded.loads(line[len(MARK):])
    except ValueError:
        raise NoPython("env.wsl.unreadable", distro=name) from None


def _linux_folder(path: str, distro: str) -> str:
    """``--path`` as the distribution names it: ``~`` or ``~/...`` (expanded there), a Linux
    path, or a Windows one (``C:\\envs\\tf`` -> ``/mnt/c/envs/tf``)."""
    if path == "~" or path.startswith("~/"):
        return path
    return to_linux_path(path, distro)


def _version(value: object) -> Version | None:
    if isinstance(value, list) and len(value) == 3 and all(type(v) is int for v in value):
        return (value[0], value[1], value[2])
    return None


def _linux_path(value: object) -> str | None:
    if isinstance(value, str) and value.isprintable() and linux_path_problem(value) is None:
        return value
    return None


def _read(where: WslTarget, answer: object) -> WslFacts:
    """The facts script's answer, every field checked."""
    name = where.distro.name
    fields = answer if isinstance(answer, dict) else {}
    version, home = _version(fields.get("python")), _linux_path(fields.get("home"))
    folders = fields.get("folders")
    if version is None or home is None or not isinstance(folders, dict):
        raise NoPython("env.wsl.unreadable", distro=name)
    if fields.get("venv") is not True:
        raise NoPython("env.wsl.no_venv", distro=name)
    executable = _linux_path(fields.get("executable")) or "python3"
    path, state = _linux_path(fields.get("path")), fields.get("state")
    if path and isinstance(state, str) and (refused := refusal(state, WslPath(name, path).spec())):
        raise refused
    return WslFacts(where, python=(executable, version), home=home, path=path,
                    path_left_over=state == "interrupted",
                    folders=tuple((n, s) for n, s in list(folders.items())[:MAX_FOLDERS]
                                  if isinstance(n, str) and isinstance(s, str)))


def read_wsl(distro: str | None, path: str | None = None,
             env: Mapping[str, str] | None = None) -> WslFacts:
    """The facts of ``distro`` (None: the default distribution), and of the folder ``path``
    there. Raises BuildRefused (a ValueError) for a folder that cannot be built into, or a
    ``path`` no distribution can name (WslPathError, a ValueError)."""
    try:
        where = wsl_target(distro, env)
    except WslRefusal as exc:
        installs = isinstance(exc, (WslNotInstalled, NoDistribution))
        return WslFacts(problem=str(exc), installs=installs, problem_text=exc.text)
    folder = _linux_folder(path, where.distro.name) if path else ""
    try:
        return _read(where, ask(where, "facts", folder))
    except NoPython as exc:
        return WslFacts(where, problem=str(exc), problem_text=exc.text)
