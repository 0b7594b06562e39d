"""Reading what TensorDeck did not write itself, or what may have changed since it did: run
folders (History, the window), metrics files, pasted outputs. Every read is bounded.

- Files: opened without following a last-component symbolic link (POSIX) and without blocking
  (a FIFO), then checked with ``fstat`` on the open file, not on its name: only a regular file
  is read, at most ``limit`` bytes, from its start or its end. A device (``/dev/zero``), a FIFO
  or a folder is refused with :class:`NotRegularFile`. Windows has no O_NOFOLLOW and no
  non-blocking open; there the ``fstat`` check alone refuses devices (``NUL``, ``CON``).
- Streams (stdin, a pipe): read to their end keeping only the last ``limit`` bytes.
- JSON: numbers json would turn into ``inf`` or into an int too long for ``int()`` (and
  ``NaN``/``Infinity``) become :class:`BadNumber` values, duplicate keys are remembered, and
  nesting deeper than the interpreter's recursion limit raises :class:`TooDeep` (a ValueError)
  instead of RecursionError. The config loader and every run-folder reader share it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: The most digits a JSON integer may have (Python refuses int() of more than 4,300).
MAX_INT_DIGITS = 100
_CHUNK = 1 << 16


class NotRegularFile(OSError):
    """A path that names a device, a FIFO, a socket or a link, where a file was expected."""

    def __init__(self, what: str, path: object) -> None:
        super().__init__(errno.EINVAL, what, str(path))


@dataclass(frozen=True)
class Capped:
    """What was read (``data``) of ``size`` bytes in all."""

    data: bytes
    size: int

    @property
    def cut(self) -> int:
        """Bytes that were not read."""
        return self.size - len(self.data)


def _open_flags(follow: bool) -> int:
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    return flags if follow else flags | getattr(os, "O_NOFOLLOW", 0)


def read_file(path: str | os.PathLike, limit: int, *, offset: int = 0, tail: bool = False,
              follow: bool = False) -> Capped:
    """At most ``limit`` bytes of the regular file ``path``: from ``offset``, or its last ones
    with ``tail``. ``follow``: a symbolic link as the last component is followed (the file it
    names is still checked). Raises :class:`NotRegularFile` or another OSError."""
    try:
        fd = os.open(path, _open_flags(follow))
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and not follow:  # O_NOFOLLOW's refusal
            raise NotRegularFile("is a symbolic link (not followed)", path) from None
        raise
    with open(fd, "rb", buffering=0) as file:
        return read_open(file, limit, offset=offset, tail=tail)


def read_open(file: BinaryIO, limit: int, *, offset: int = 0, tail: bool = False) -> Capped:
    """:func:`read_file` of a file already open (checked with ``fstat`` here)."""
    info = os.fstat(file.fileno())
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile("is not a regular file", getattr(file, "name", "the file"))
    if tail:
        offset = max(0, info.st_size - limit)
    if offset:
        file.seek(offset)
    data = _read_up_to(file, limit)
    return Capped(data, max(info.st_size, len(data)))


def _read_up_to(file, limit: int) -> bytes:
    """Up to ``limit`` bytes: a file that grows while it is read stops at the limit."""
    parts = []
    left = limit
    while left > 0:
        part = file.read(min(left, _CHUNK))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_stream_tail(stream: BinaryIO, limit: int, head: bytes = b"") -> Capped:
    """A stream (a pipe, stdin) read to its end, after ``head`` (bytes already read from it):
    its last ``limit`` bytes, and how many it held. Memory stays within ``limit`` plus one
    read, whatever the stream's length."""
    kept: deque[bytes] = deque()
    held = total = 0
    part = head
    while part or (part := stream.read(_CHUNK)):
        kept.append(part)
        held += len(part)
        total += len(part)
        while len(kept) > 1 and held - len(kept[0]) >= limit:
            held -= len(kept.popleft())
        part = b""
    data = b"".join(kept)
    return Capped(data[-limit:] if limit else b"", total)


def is_regular_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file itself (not a link to one, not a device)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def regular_files(folder: Path, pattern: str) -> list[Path]:
    """The regular files in ``folder`` matching ``pattern``, sorted; none when it is no folder."""
    try:
        return sorted(p for p in folder.glob(pattern) if is_regular_file(p))
    except OSError:
        return []


# --- JSON ----------------------------------------------------------------------------------


class TooDeep(ValueError):
    """JSON nested deeper than the interpreter can parse."""


class JSONObject(dict):
    """A JSON object as parsed, remembering the keys the text gives twice (json keeps the
    last)."""

    duplicates: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, object]]) -> JSONObject:
    obj = JSONObject(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = []
        for key, _ in pairs:
            if key in seen:
                twice.append(key)
            seen.add(key)
        obj.duplicates = tuple(dict.fromkeys(twice))
    return obj


class BadNumber:
    """A number json would turn into inf/nan or an int too long for int(): kept to be named."""

    def __init__(self, message: str) -> None:
        self.message = message


def _parse_constant(text: str) -> BadNumber:
    return BadNumber(f"{text} is not a JSON number; write a finite number")


def _parse_float(text: str) -> float | BadNumber:
    value = float(text)
    return value if math.isfinite(value) else BadNumber(
        f"{text[:20]}{'...' if len(text) > 20 else ''} is too large for a number; write a "
        "finite number")


def _parse_int(text: str) -> int | BadNumber:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        return BadNumber(f"a {digits}-digit number; write at most {MAX_INT_DIGITS} digits")
    return int(text)


def _refused(parse: Callable[[str], object]) -> Callable[[str], object]:
    """``parse``, raising ValueError where it would give a BadNumber."""
    def strict(text: str) -> object:
        value = parse(text)
        if isinstance(value, BadNumber):
            raise ValueError(value.message)
        return value
    return strict


_KEPT = {"parse_constant": _parse_constant, "parse_float": _parse_float,
         "parse_int": _parse_int}
_STRICT = {name: _refused(parse) for name, parse in _KEPT.items()}


def loads(text: str | bytes, *, strict: bool = False) -> object:
    """``text`` parsed as JSON, bounded (see the module's docstring). A bad number is a
    :class:`BadNumber` in the data, or with ``strict`` a ValueError naming it. Raises
    json.JSONDecodeError, :class:`TooDeep` or UnicodeDecodeError (all ValueErrors)."""
    try:
        return json.loads(text, object_pairs_hook=_object, **(_STRICT if strict else _KEPT))
    except RecursionError:
        raise TooDeep("nested too deep") from None


def number(value: object) -> float | None:
    """``value`` as a finite float when it is a JSON number (not a bool, not a BadNumber)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    result = float(value)  # ints are at most MAX_INT_DIGITS digits: no OverflowError
    return result if math.isfinite(result) else None
