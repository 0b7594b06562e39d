"""The paths of a job: the interpreter and the script it names, and the run folder it writes,
resolved and checked before anything touches them (too long for the OS, in /proc, a file where
a folder belongs, another user's, read-only, not empty). Nothing here makes or changes a file:
validate and --dry-run write nothing."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from pathlib import Path

from core.config import ConfigError, ConfigProblem, show
from core.fsio import foreign_owner
from core.local_checks import os_length
from core.paths import resource, user_data_dir
from core.wsl.paths import is_wsl_spec, parse_wsl_spec
from core.wsl.refusals import WslPathError

IS_WINDOWS = sys.platform == "win32"
#: Not for files: kernel state (/proc, /sys) and devices (/dev, its tmpfs gone at boot).
_PSEUDO_FS = ("/proc", "/sys", "/dev")


def _refused(base: Path, message: str) -> ConfigError:
    return ConfigError(str(base), [ConfigProblem(where="python", message=message)])


def resolve_python(spec: str | None, base: Path) -> str:
    """The training interpreter: the config's ``python`` (a path, a name on PATH, or one inside
    WSL: ``wsl://DISTRO/path``, which core.topology asks the distribution about), or the one
    running TensorDeck. Raises ConfigError when it does not exist."""
    if spec is None:
        if getattr(sys, "frozen", False):
            raise _refused(base, "choose the training interpreter (a Python with TensorFlow); "
                           "the app's own executable cannot train")
        return sys.executable
    if is_wsl_spec(spec):
        try:
            return parse_wsl_spec(spec).spec()
        except WslPathError as exc:
            raise _refused(base, str(exc)) from None
    # Only ~ is expanded, as in every other path of a config: %NAME% and $NAME are legal in
    # folder names, and a path names exactly the folder the user picked.
    expanded = os.path.expanduser(spec)
    if os.sep in expanded or (os.altsep and os.altsep in expanded):
        path = Path(expanded)
        return _python_at(path if path.is_absolute() else base / path, base)
    found = shutil.which(expanded) if not path_problem(Path(expanded)) else None
    if not found:
        raise _refused(base, f"{spec!r} is not on PATH; give the interpreter's full path")
    return found


def _python_at(path: Path, base: Path) -> str:
    """The interpreter a path names: the file, or a conda env's or venv's own."""
    if problem := path_problem(path):
        raise _refused(base, problem)
    # os.path's checks: Path's raise on EACCES, a folder this user may not enter.
    if os.path.isdir(path):
        for candidate in ("python.exe", "bin/python", "Scripts/python.exe", "bin/python3"):
            if os.path.isfile(path / candidate):
                return str(path / candidate)
        what = "is a folder without python(.exe), bin/python or Scripts/python.exe"
    elif os.path.isfile(path):
        return str(path)
    else:
        what = "is not a file" if os.path.exists(path) else "does not exist"
    raise _refused(base, f"{path} {what}; give the path of python(.exe) in the training "
                   "environment")


def _path_limits(path: Path) -> tuple[int, int]:
    """(longest name, longest path + 1) on the file system that would hold ``path``."""
    if IS_WINDOWS or not hasattr(os, "pathconf"):
        return 255, 260  # MAX_PATH counts the final NUL
    anchor = next((p for p in (path, *path.parents) if os.path.isdir(p)), Path(os.sep))
    try:
        name_max, path_max = os.pathconf(anchor, "PC_NAME_MAX"), os.pathconf(anchor, "PC_PATH_MAX")
    except (OSError, ValueError):
        return 255, 4096
    return (name_max if name_max > 0 else 255), (path_max if path_max > 0 else 4096)


def path_problem(path: Path) -> str | None:
    """Why the OS would refuse ``path`` as too long, as a whole or in one name (None: it fits).
    Checked before anything touches the path: the error would come at the start otherwise."""
    name_max, path_max = _path_limits(path)
    longest = max(path.parts, key=os_length, default="")
    if os_length(longest) > name_max:
        return (
            f"the name '{show(longest, 24)}' in the path is {os_length(longest)} characters long; "
            f"this system allows {name_max}: shorten it"
        )
    if os_length(str(path)) >= path_max:
        return (
            f"the path is {os_length(str(path))} characters long; this system allows "
            f"{path_max - 1}: shorten it"
        )
    return None


#: What a run folder needs of this user: to write in it, and to enter it.
_WRITABLE = os.W_OK | os.X_OK


def run_dir_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a run folder (None: it can). A run folder is new or empty, so no
    file of the user's is ever overwritten, on a disk, where this user may create it. Nothing
    is made here: validate and --dry-run write nothing."""
    if problem := path_problem(path) or _pseudo_fs_problem(path):
        return problem
    if os.path.lexists(path):
        return _existing_run_dir_problem(path)
    return _new_run_dir_problem(path)


def _pseudo_fs_problem(path: Path) -> str | None:
    """Why ``path`` is no place for files: it is in a Linux pseudo file system (/proc ...)."""
    if not sys.platform.startswith("linux"):
        return None
    real = os.path.realpath(path)
    for fs in _PSEUDO_FS:
        if real == fs or real.startswith(fs + "/"):
            return f"{path} is in {fs}, which is not for files; choose a folder on a disk"
    return None


def _existing_run_dir_problem(path: Path) -> str | None:
    """Why ``path``, which exists, cannot be a run folder: not an empty folder of this user's
    that they may write in."""
    if not os.path.isdir(path):
        return f"{path} is a file; choose a folder that is new or empty"
    try:
        entries = sorted(os.listdir(path))
    except OSError as exc:
        return f"cannot read {path} ({exc.strerror}); choose another folder"
    if entries:
        listed = ", ".join(show(e, 30) for e in entries[:3]) + (", ..." * (len(entries) > 3))
        return (
            f"{path} is not empty ({listed}); a run folder must be new or empty, so that "
            "no file in it is overwritten: choose another, or leave run_dir out"
        )
    if problem := foreign_owner(path):
        return problem
    return None if os.access(path, _WRITABLE) else f"{path} is read-only for you"


def _new_run_dir_problem(path: Path) -> str | None:
    """Why ``path``, which does not exist, cannot be made: its nearest existing ancestor is
    not a folder this user may write in."""
    ancestor = next((p for p in path.parents if os.path.lexists(p)), None)
    if ancestor is None:
        return f"cannot create {path}"
    if not os.path.isdir(ancestor):
        return f"{path} is under {ancestor}, which is a file; choose a folder"
    if not os.access(ancestor, _WRITABLE):
        return f"cannot create {path}: {ancestor} is read-only for you; choose another folder"
    return None


def default_run_dir(config_path: Path, name: str, now: float | None = None) -> Path:
    """``<config folder>/runs/<stamp>-<name>``; for a config in a read-only folder or among
    the examples TensorDeck ships (the app's own folder, or the source tree), the same under
    the user's data folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    folder = config_path.parent
    if not os.access(folder, os.W_OK) or folder.resolve() == resource("examples").resolve():
        folder = user_data_dir()
    base = folder / "runs" / f"{stamp}-{name}"
    candidate, n = base, 2
    while os.path.lexists(candidate):
        candidate, n = base.with_name(f"{base.name}-{n}"), n + 1
    return candidate


def script_problem(script: Path) -> str | None:
    """A script is a regular file: a FIFO or a device would block or flood the doctor's scan."""
    try:
        mode = os.stat(script).st_mode
    except (OSError, ValueError):
        return f"{script} does not exist"
    if stat.S_ISDIR(mode):
        return f"{script} is a folder; give the training script (a .py file)"
    if not stat.S_ISREG(mode):
        return f"{script} is not a regular file (a pipe or a device?); give the training script"
    return None
