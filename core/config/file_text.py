"""A config file's text, read bounded: what is not a regular file (a FIFO, a device, a folder)
or is too big is refused before it is read, and the bytes must be UTF-8. Apart because it is
the one part of loading that touches the file system, and the one that must hold on Windows
as on POSIX (O_BINARY, no O_NONBLOCK there)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from core.config.problems import ConfigError, ConfigProblem
from core.output import show

#: A config is a few KiB: what passes this is not one, and is never read whole.
MAX_CONFIG_BYTES = 16 * 1024 * 1024


def read_text(path: Path) -> str:
    """The file's text. What is not a regular file (a FIFO blocks the open, /dev/zero never
    ends) or is too big is refused from its ``stat``, before it is opened; the read is capped
    as well, for a file that grows or is swapped in between."""
    source = show(str(path), None)

    def refuse(message: str) -> ConfigError:
        return ConfigError(source, [ConfigProblem(where="", message=message)])

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise refuse("no such file") from None
    except (OSError, ValueError) as exc:
        raise refuse(f"cannot read: {_reason(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise refuse("is a folder; give the config file (job.json)")
    if not stat.S_ISREG(info.st_mode):
        raise refuse("is not a regular file (a pipe or a device?); give the config file")
    too_big = f"is larger than {MAX_CONFIG_BYTES // 2**20} MiB; a config is a few KiB"
    if info.st_size > MAX_CONFIG_BYTES:
        raise refuse(too_big)
    # O_NONBLOCK: should a FIFO replace the file after the stat, the open does not block.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise refuse("is not a regular file (a pipe or a device?); give the config file")
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise refuse(f"cannot read: {_reason(exc)}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise refuse(too_big)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise refuse(
            f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from None


def _reason(exc: BaseException) -> str:
    return show(getattr(exc, "strerror", None) or str(exc), 200)
