"""WSL paths: interpreters named ``wsl://DISTRO/absolute/linux/path`` (``wsl:///...`` is the
default distribution), and Windows paths as a distribution reaches them: ``C:\\x y\\z`` ->
``/mnt/c/x y/z``, ``\\\\wsl$\\Distro\\x`` or ``\\\\wsl.localhost\\Distro\\x`` -> ``/x`` inside
Distro; a POSIX absolute path stays as it is. Each function answers or raises
:class:`WslPathError` with one line, never anything else, and no control character ever
passes (it would reach a command line or a terminal).

Drives are where WSL mounts them unless told otherwise (``/mnt/<letter>``): a distribution
whose /etc/wsl.conf moves ``automount.root`` is not followed.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass

from core.wsl.refusals import WslPathError

SCHEME = "wsl://"
MOUNT_ROOT = "/mnt"
#: Linux's PATH_MAX: longer text is refused before it is looked at.
MAX_LENGTH = 4096
#: WSL's distribution names; the first character may not be '-' (it would read as an option).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_DRIVE = re.compile(r"([A-Za-z]):(\\.*)?", re.DOTALL)
#: Characters no Windows file name may hold.
_NOT_IN_WINDOWS_NAMES = frozenset('<>:"|?*\\')
_WSL_SHARES = ("wsl$", "wsl.localhost")


@dataclass(frozen=True)
class WslPath:
    """A Linux path inside a distribution (None: the default one)."""

    distro: str | None
    path: str

    def spec(self) -> str:
        """``wsl://DISTRO/path``, as a job file names the interpreter."""
        return f"{SCHEME}{self.distro or ''}{self.path}"


def is_wsl_spec(text: str) -> bool:
    """Whether ``text`` names an interpreter inside WSL (``wsl://``, any case)."""
    return text[:len(SCHEME)].lower() == SCHEME


def valid_distro_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def _check_text(text: str, what: str) -> None:
    """Refuse text too long to be a path, or holding a control character or an unpaired
    surrogate (no file system names it; shown by code point, never as itself)."""
    if len(text) > MAX_LENGTH:
        raise WslPathError(f"{what} is longer than {MAX_LENGTH} characters")
    for char in text:
        category = unicodedata.category(char)
        if category == "Cc":
            raise WslPathError(f"{what} holds the control character U+{ord(char):04X}")
        if category == "Cs":
            raise WslPathError(f"{what} holds U+{ord(char):04X}, half of a UTF-16 pair")


def linux_path_problem(path: str) -> str | None:
    """Why ``path`` is not an absolute Linux path TensorDeck can name (None when it is)."""
    if not path.startswith("/"):
        return "it is not an absolute Linux path (one that starts with /)"
    if "\\" in path:
        return "Linux paths are written with /, not \\"
    if path == "/~" or path.startswith("/~/"):
        return "~ is not expanded here: write the home folder's path (/home/USER/...)"
    return None


def parse_wsl_spec(text: str) -> WslPath:
    """``wsl://DISTRO/absolute/linux/path`` (``wsl:///path``: the default distribution)."""
    _check_text(text, "the WSL interpreter name")
    if not is_wsl_spec(text):
        raise WslPathError(f"{text} is not a WSL interpreter name: "
                           "wsl://DISTRO/absolute/linux/path")
    if "\\" in text:
        raise WslPathError(f"{text}: Linux paths are written with /, not \\")
    name, slash, tail = text[len(SCHEME):].partition("/")
    if not slash:
        raise WslPathError(f"{text} names no Linux path: wsl://{name or 'DISTRO'}/absolute/path")
    if name and not valid_distro_name(name):
        raise WslPathError(f"{text}: {name} is not a WSL distribution name (letters, digits, "
                           "'.', '_' and '-', starting with a letter or digit)")
    problem = linux_path_problem("/" + tail)
    if problem:
        raise WslPathError(f"{text}: {problem}")
    return WslPath(name or None, "/" + tail)


def _components(rest: str, path: str) -> list[str]:
    """The names of a Windows path after its root, with ``.`` and ``..`` resolved as Windows
    resolves them (by their text; ``..`` stops at the root)."""
    out: list[str] = []
    for name in rest.split("\\"):
        if name in ("", "."):
            continue
        if name == "..":
            if out:
                out.pop()
            continue
        bad = sorted(set(name) & _NOT_IN_WINDOWS_NAMES)
        if bad:
            raise WslPathError(f"{path} holds {bad[0]!r}, which no Windows file name holds")
        out.append(name)
    return out


def to_linux_path(path: str, distro: str) -> str:
    """``path`` as programs in ``distro`` (its real name) reach it. A POSIX absolute path is
    taken as a Linux path already."""
    _check_text(path, "the path")
    if path.startswith("/") and not path.startswith("//"):
        problem = linux_path_problem(path)
        if problem:
            raise WslPathError(f"{path}: {problem}")
        return path
    windows = path.replace("/", "\\")
    if windows.startswith("\\\\?\\"):  # the long-path form: \\?\C:\x, \\?\UNC\server\share
        windows = windows[4:]
        if windows[:4].upper() == "UNC\\":
            windows = "\\\\" + windows[4:]
    if windows.startswith("\\\\"):
        return _from_share(windows, path, distro)
    drive = _DRIVE.fullmatch(windows)
    if drive is None or drive[2] is None:
        raise WslPathError(f"{path or 'an empty path'} is not an absolute path: give it whole, "
                           "with its drive (C:\\...)")
    names = _components(drive[2], path)
    return f"{MOUNT_ROOT}/{drive[1].lower()}" + "".join(f"/{name}" for name in names)


def _from_share(windows: str, path: str, distro: str) -> str:
    """``\\\\wsl$\\Distro\\x`` (or ``\\\\wsl.localhost\\``): ``/x`` when Distro is ``distro``;
    any other share is out of reach."""
    server, _, rest = windows[2:].partition("\\")
    share, _, rest = rest.partition("\\")
    if server.lower() not in _WSL_SHARES:
        raise WslPathError(f"{path} is on a network share, which WSL does not mount: copy it to "
                           "a drive (C:\\...) or map the share to a drive letter")
    if share.lower() != distro.lower():
        raise WslPathError(f"{path} is inside the WSL distribution {share or '(none)'}, not "
                           f"{distro}: copy it to a drive (C:\\...) or into {distro}")
    return "/" + "/".join(_components(rest, path))


def to_windows_path(path: str, distro: str) -> str:
    """The Windows path of a Linux path in ``distro``: ``/mnt/c/x`` -> ``C:\\x``, any other
    -> ``\\\\wsl.localhost\\Distro\\...``. The reverse of :func:`to_linux_path`."""
    _check_text(path, "the path")
    problem = linux_path_problem(path)
    if problem:
        raise WslPathError(f"{path}: {problem}")
    names = [name for name in path.split("/") if name]
    for name in names:
        if name in (".", "..") or set(name) & _NOT_IN_WINDOWS_NAMES:
            raise WslPathError(f"{path}: {name} cannot be named from Windows")
    if (len(names) >= 2 and names[0] == MOUNT_ROOT[1:] and len(names[1]) == 1
            and names[1] in string.ascii_lowercase):
        return f"{names[1].upper()}:\\" + "\\".join(names[2:])
    return f"\\\\wsl.localhost\\{distro}\\" + "\\".join(names)
