"""Find the Python interpreters a user could train with, without starting any of them.

Sources, in order (the first one to find an interpreter names its ``kind``): the running
interpreter (never the frozen app's own exe), the user's own list (which may name interpreters
inside WSL, ``wsl://DISTRO/path``: listed as they are, with kind ``user``), an activated venv
(VIRTUAL_ENV), conda (``conda env list --json``, ``~/.conda/environments.txt``, the usual
Anaconda/Miniconda/Miniforge folders), the Windows ``py`` launcher (``py -0p``), then PATH.
A conda env or venv found on PATH or by the launcher is reported as ``conda``/``venv``.

Only two programs are ever run, each with a short timeout: ``conda`` (its answer is cached for
the process) and, on Windows, ``py``. Without them discovery is a few ``stat`` calls. With
``wsl=True`` the Pythons inside the WSL 2 distributions come last (kind ``wsl``, named
``wsl://DISTRO/path``; :mod:`core.wsl.discover` runs a short search in each): without wsl.exe
that costs one PATH lookup.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from core.fsio import write_private
from core.interpreters.layout import env_layout, python_in
from core.paths import user_config_dir
from core.wsl.paths import is_wsl_spec, parse_wsl_spec
from core.wsl.refusals import WslPathError

CONDA_TIMEOUT = 8.0
PY_LAUNCHER_TIMEOUT = 5.0
#: The windowed app has no console: without this each console program it runs opens a window.
NO_WINDOW = getattr(subprocess, "CREATE_NO_WINDOW", 0)
_CONDA_ROOTS = ("anaconda3", "miniconda3", "miniforge3", "mambaforge", "Anaconda3", "Miniconda3")
_conda_cache: dict[str, list[str]] = {}


@dataclass(frozen=True)
class Interpreter:
    """A Python found on this machine. ``kind``: current, user, conda, venv, py-launcher, path,
    wsl (``path`` is then a ``wsl://DISTRO/path`` name; a user's may be one too)."""

    path: str
    kind: str
    #: The conda env's name ("base" for the root) when it is one.
    env_name: str | None = None
    #: The environment folder (conda env, venv, or the install folder).
    prefix: str | None = None

    def to_json(self) -> dict:
        return asdict(self)


def _store() -> Path:
    return user_config_dir() / "interpreters.json"


def user_interpreters() -> list[str]:
    """The paths (and ``wsl://`` names) the user added, in the order added."""
    try:
        data = json.loads(_store().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"{_store()} is not a readable interpreter list ({exc}); delete it to start over"
        ) from exc
    return [str(p) for p in data.get("interpreters", [])]


def _save(paths: list[str]) -> None:
    store = _store()
    store.parent.mkdir(parents=True, exist_ok=True)
    write_private(store, json.dumps({"interpreters": paths}, indent=2))


def add_user_interpreter(path: str) -> str:
    """Remember ``path`` (a python executable, or an environment folder containing one), or
    the interpreter inside WSL named ``wsl://DISTRO/path``: that name is checked as a name (it
    says nothing here of whether that file exists there: its probe does). Raises ValueError."""
    if is_wsl_spec(path):
        resolved = parse_wsl_spec(path).spec()  # WslPathError (a ValueError): why not a name
    else:
        candidate = Path(path).expanduser()
        if candidate.is_dir():
            candidate = python_in(candidate)
        if not candidate.is_file():
            raise ValueError(
                f"{path} is not a Python executable or an environment folder with one "
                f"(expected e.g. {python_in(Path('ENV'))})"
            )
        resolved = os.path.abspath(candidate)
    paths = user_interpreters()
    if resolved not in paths:
        _save([*paths, resolved])
    return resolved


def remove_user_interpreter(path: str) -> bool:
    """Forget ``path``; False when it was not in the list."""
    resolved = _listed_as(path)
    paths = user_interpreters()
    if resolved not in paths:
        return False
    _save([p for p in paths if p != resolved])
    return True


def _listed_as(path: str) -> str:
    """``path`` as the user's list holds it (see :func:`add_user_interpreter`)."""
    if is_wsl_spec(path):
        try:
            return parse_wsl_spec(path).spec()
        except WslPathError:
            return path  # no name the list can hold
    return os.path.abspath(Path(path).expanduser())


def conda_executable(env: Mapping[str, str]) -> str | None:
    """conda as the shell would find it: CONDA_EXE (set by `conda init` shells), else PATH."""
    exe = env.get("CONDA_EXE")
    if exe and os.path.isfile(exe):
        return exe
    return shutil.which("conda", path=env.get("PATH"))


def conda_env_prefixes(conda: str) -> list[str]:
    """``conda env list --json`` (cached per conda executable; [] when conda fails)."""
    if conda not in _conda_cache:
        try:
            done = subprocess.run(
                [conda, "env", "list", "--json"],
                capture_output=True, text=True, timeout=CONDA_TIMEOUT, check=False,
                creationflags=NO_WINDOW,
            )
            _conda_cache[conda] = json.loads(done.stdout).get("envs", [])
        except (OSError, ValueError, subprocess.TimeoutExpired):
            _conda_cache[conda] = []
    return _conda_cache[conda]


def _conda_prefixes(env: Mapping[str, str], home: Path, platform: str,
                    use_conda: bool) -> Iterator[Path]:
    """Every conda environment known: conda's own list (when ``use_conda``), the user's
    ``environments.txt``, then the usual install folders and their ``envs``."""
    conda = conda_executable(env) if use_conda else None
    if conda:
        yield from map(Path, conda_env_prefixes(conda))
    yield from _listed_environments(home)
    for root in _conda_roots(env, home, platform):
        if (root / "conda-meta").is_dir():
            yield root
            envs = root / "envs"
            if envs.is_dir():
                yield from sorted(p for p in envs.iterdir() if (p / "conda-meta").is_dir())


def _listed_environments(home: Path) -> list[Path]:
    """The environments conda recorded for this user (``~/.conda/environments.txt``)."""
    try:
        listed = (home / ".conda" / "environments.txt").read_text(encoding="utf-8")
    except OSError:
        return []  # no such file: conda never ran for this user
    return [Path(line.strip()) for line in listed.splitlines() if line.strip()]


def _conda_roots(env: Mapping[str, str], home: Path, platform: str) -> list[Path]:
    """Where conda installs itself on ``platform``: the home folder, and on Windows the
    machine-wide and per-user program folders, elsewhere /opt."""
    roots = [home / name for name in _CONDA_ROOTS]
    if platform == "win32":
        for var in ("ProgramData", "LOCALAPPDATA"):
            if env.get(var):
                roots += [Path(env[var]) / name for name in _CONDA_ROOTS]
    else:
        roots += [Path("/opt/conda"), *(Path("/opt") / name for name in _CONDA_ROOTS)]
    return roots


_PY_LAUNCHER_LINE = re.compile(r"^\s*-\S+(?:\s+\*)?\s+(?P<path>\S.*?)\s*$")


def parse_py_launcher(text: str) -> list[str]:
    """Paths from ``py -0p`` output, old (`` -3.11-64 *  C:\\...``) and new (`` -V:3.11 *``)."""
    paths = []
    for line in text.splitlines():
        match = _PY_LAUNCHER_LINE.match(line)
        if match and match["path"].lower().endswith(".exe"):
            paths.append(match["path"])
    return paths


def _py_launcher() -> list[str]:
    py = shutil.which("py")
    if py is None:
        return []
    try:
        done = subprocess.run([py, "-0p"], capture_output=True, text=True,
                              timeout=PY_LAUNCHER_TIMEOUT, check=False, creationflags=NO_WINDOW)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return parse_py_launcher(done.stdout)


def _on_path(env: Mapping[str, str], platform: str) -> Iterator[str]:
    names = ("python.exe",) if platform == "win32" else ("python3", "python")
    for folder in env.get("PATH", "").split(os.pathsep):
        # WindowsApps holds the Store's "python.exe" aliases that open the Store instead.
        if not folder or "windowsapps" in folder.lower():
            continue
        for name in names:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                yield candidate


def _identity(path: str, platform: str) -> tuple[str, str]:
    """Same interpreter and same environment: symlinks to one binary outside a venv are one
    interpreter, but a venv's symlinked python is its own environment."""
    layout = env_layout(path, platform)
    return (
        os.path.normcase(os.path.realpath(path)),
        os.path.normcase(str(layout.prefix)) if layout.kind == "venv" else "",
    )


def discover_interpreters(
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    platform: str = sys.platform,
    use_conda: bool = True,
    wsl: bool = False,
) -> list[Interpreter]:
    """Every interpreter found, deduplicated, in source order. ``use_conda=False`` skips
    running conda (the folders conda uses are still read); ``wsl`` adds the Pythons inside
    WSL."""
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    found: list[tuple[str, str]] = []
    if not getattr(sys, "frozen", False):  # a frozen app's sys.executable is the app itself
        found.append((sys.executable, "current"))
    found += [(p, "user") for p in user_interpreters()]
    if env.get("VIRTUAL_ENV"):
        found.append((str(python_in(Path(env["VIRTUAL_ENV"]), platform)), "venv"))
    found += [(str(python_in(p, platform)), "conda")
              for p in _conda_prefixes(env, home, platform, use_conda)]
    if platform == "win32":
        found += [(p, "py-launcher") for p in _py_launcher()]
    found += [(p, "path") for p in _on_path(env, platform)]
    if wsl:
        from core.wsl.discover import survey_wsl

        found += [(python, "wsl") for python in survey_wsl(env).pythons()]
    return _existing_once(found, platform)


def _existing_once(found: list[tuple[str, str]], platform: str) -> list[Interpreter]:
    """Each (path, source) that exists, once per interpreter (:func:`_identity`), in order;
    a conda env or venv found by another source is reported as ``conda``/``venv``. A ``wsl://``
    name is listed once, unchecked: nothing of it is here to look at."""
    seen: set[tuple[str, str]] = set()
    result = []
    for path, source in found:
        if is_wsl_spec(path):
            if (path, "wsl") not in seen:
                seen.add((path, "wsl"))
                result.append(Interpreter(path, source))
            continue
        path = os.path.abspath(path)
        if not os.path.isfile(path):
            continue
        key = _identity(path, platform)
        if key in seen:
            continue
        seen.add(key)
        layout = env_layout(path, platform)
        kind = source if source in ("current", "user") or layout.kind == "plain" else layout.kind
        result.append(Interpreter(path, kind, layout.name, str(layout.prefix)))
    return result
