"""Find ``wsl.exe`` and the WSL distributions it knows (``wsl.exe -l -v``).

``wsl.exe`` prints its own text (listings, errors) in UTF-16LE without a BOM, lines ending
CRLF, unless WSL_UTF8=1 (newer versions print UTF-8 then); its words are in the Windows
language ("NAME STATE VERSION" in English), so a listing is read by its shape: a header line,
then one line per distribution: ``*`` for the default, the name, a state (one word or more),
the WSL version. Anything else is refused whole: a reader that guesses would run programs in
the wrong place.
"""

from __future__ import annotations

import codecs
import os
import shutil
import sys
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from core.findings import Text
from core.messages import recognise
from core.wsl.bounded_run import Overrun, run_bounded
from core.wsl.paths import valid_distro_name
from core.wsl.refusals import (
    NoDefaultDistribution,
    NoDistribution,
    UnknownDistribution,
    Wsl1Distribution,
    WslNotInstalled,
    WslUnreadable,
)

#: The first call may start WSL's service (seconds on a cold machine).
LIST_TIMEOUT = 30.0
#: A listing of a hundred distributions is under 10 KB.
LIST_LIMIT = 64 * 1024
#: What wsl.exe's error text says when no distribution is installed (its error codes are
#: never translated, unlike its sentences).
_NO_DISTRIBUTION = ("WSL_E_DEFAULT_DISTRO_NOT_FOUND", "has no installed distributions")
_NOT_INSTALLED = ("is not installed", "has not been enabled", "0x8007019e",
                  "WSL_E_WSL_OPTIONAL_COMPONENT_REQUIRED")


@dataclass(frozen=True)
class Distro:
    name: str
    version: int
    default: bool = False
    #: As wsl.exe says it, in the Windows language ("Running", "Stopped").
    state: str = ""


@dataclass(frozen=True)
class Distros:
    """The distributions of one ``wsl.exe``, in its order."""

    wsl_exe: str
    items: tuple[Distro, ...]

    def names(self) -> list[str]:
        return [d.name for d in self.items]

    def default(self) -> Distro | None:
        return next((d for d in self.items if d.default), None)

    def pick(self, name: str | None, *, wsl2: bool = True) -> Distro:
        """The distribution called ``name`` (any case, as wsl.exe matches it; None: the
        default); with ``wsl2``, a WSL 1 one is refused (no GPU)."""
        if name is None:
            found = self.default()
            if found is None:
                raise NoDefaultDistribution(self.names())
        else:
            found = next((d for d in self.items if d.name.lower() == name.lower()), None)
            if found is None:
                raise UnknownDistribution(name, self.names())
        if wsl2 and found.version != 2:
            raise Wsl1Distribution(found.name)
        return found


def _variable(env: Mapping[str, str], name: str) -> str | None:
    """``env[name]``, the name in any case (Windows variable names ignore case)."""
    return next((v for k, v in env.items() if k.upper() == name), None)


def find_wsl_exe(env: Mapping[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """wsl.exe: on Windows the system's own (System32; Sysnative for a 32-bit process), else
    the one on PATH (the Store's WSL installs an alias there); elsewhere PATH only (the tests'
    stand-in, or WSL's interop from inside a distribution). None: there is none."""
    env = os.environ if env is None else env
    if platform == "win32":
        root = _variable(env, "SYSTEMROOT") or "C:\\Windows"
        for folder in ("System32", "Sysnative"):
            candidate = os.path.join(root, folder, "wsl.exe")
            if os.path.isfile(candidate):
                return candidate
    return shutil.which("wsl.exe", path=_variable(env, "PATH") or "")


def decode_output(data: bytes) -> str:
    """wsl.exe's text: UTF-16LE (with or without a BOM) or UTF-8, NUL padding dropped.
    Undecodable bytes become U+FFFD, which :func:`parse_listing` refuses."""
    if data.startswith(codecs.BOM_UTF16_LE):
        text = data[2:].decode("utf-16-le", "replace")
    elif data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", "replace")
    elif b"\0" in data:  # UTF-8 never holds NUL; UTF-16 text of any language does here
        odd, even = data[1::2].count(0), data[0::2].count(0)
        start = 0 if odd >= even else 1  # a stray leading byte shifts the pairs
        body = data[start:]
        text = body[:len(body) - len(body) % 2].decode("utf-16-le", "replace")
    else:
        text = data.decode("utf-8", "replace")
    return text.replace("\0", "")


def _unreadable(text: str) -> Text | None:
    """Why ``text`` cannot be a listing (characters no listing holds): what wsl.exe did."""
    for char in text:
        if char in "\r\n\t":
            continue
        if char == "\ufffd":
            return Text.of("wsl.list.not_text")
        if unicodedata.category(char) in ("Cc", "Cs"):
            return Text.of("wsl.list.control", code=f"{ord(char):04X}")
    return None


def _known(text: str) -> str | Text:
    """``text`` as its catalogue message when it is one (core.wsl.bounded_run's English)."""
    found = recognise(text)
    return Text.of(found[0], **found[1]) if found else text


def _row(line: str) -> Distro:
    words = line.split()
    default = bool(words) and words[0] == "*"
    words = words[1:] if default else words
    if len(words) < 3 or words[-1] not in ("1", "2") or not valid_distro_name(words[0]):
        raise WslUnreadable(Text.of("wsl.list", what=Text.of("wsl.list.not_a_distribution",
                                                             line=line.strip()[:80])))
    return Distro(words[0], int(words[-1]), default, " ".join(words[1:-1]))


def parse_listing(text: str) -> tuple[Distro, ...]:
    """The distributions of ``wsl.exe -l -v``'s decoded output (a header line first)."""
    problem = _unreadable(text)
    if problem:
        raise WslUnreadable(Text.of("wsl.list", what=problem))
    lines = [line for line in text.replace("\r", "").split("\n") if line.strip()]
    return tuple(_row(line) for line in lines[1:])


def _failure(text: str, returncode: int) -> Exception:
    """What wsl.exe's non-zero exit means."""
    if any(mark.lower() in text.lower() for mark in _NO_DISTRIBUTION):
        return NoDistribution()
    if any(mark.lower() in text.lower() for mark in _NOT_INSTALLED):
        return WslNotInstalled()
    first = next((line.strip() for line in text.splitlines() if line.strip()), None)
    shown = (Text.of("wsl.list.no_message") if first is None
             else Text.of("wsl.list.message_not_text") if _unreadable(first) is not None
             else first[:120])
    return WslUnreadable(Text.of("wsl.list.failed", code=returncode, said=shown))


def list_distros(wsl_exe: str, *, timeout: float = LIST_TIMEOUT,
                 limit: int = LIST_LIMIT) -> Distros:
    """``wsl_exe -l -v`` read (at most ``limit`` bytes, ``timeout`` seconds). Raises a
    :class:`~core.wsl.refusals.WslRefusal`: none installed, not installed, unreadable."""
    try:
        ran = run_bounded([wsl_exe, "-l", "-v"], timeout=timeout, limit=limit)
    except Overrun as exc:
        raise WslUnreadable(Text.of("wsl.list", what=_known(str(exc)))) from None
    except OSError as exc:
        raise WslUnreadable(Text.of("wsl.cannot_run", wsl_exe=wsl_exe,
                                    error=exc.strerror or exc)) from None
    if ran.returncode != 0:
        raise _failure(decode_output(ran.stdout + ran.stderr), ran.returncode)
    found = parse_listing(decode_output(ran.stdout))
    if not found:
        raise NoDistribution()
    return Distros(wsl_exe, found)


def installed_distros(env: Mapping[str, str] | None = None, *,
                      timeout: float = LIST_TIMEOUT) -> Distros:
    """The distributions of this machine's wsl.exe; :class:`WslNotInstalled` without one."""
    wsl_exe = find_wsl_exe(env)
    if wsl_exe is None:
        raise WslNotInstalled()
    return list_distros(wsl_exe, timeout=timeout)
