"""Run a short program whose answer TensorDeck does not trust (``wsl.exe`` itself, a script
inside a distribution): its output is kept up to ``limit`` bytes and its time up to
``timeout`` seconds; past either it is killed and :class:`Overrun` says which."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

#: The windowed app has no console: without this each console program it runs opens a window.
NO_WINDOW = getattr(subprocess, "CREATE_NO_WINDOW", 0)
_CHUNK = 1 << 16
#: How long the output may go on after the program ended (a child of it holding the pipe).
_DRAIN_SECONDS = 5.0


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes


class Overrun(Exception):
    """The program printed more than allowed or did not finish in time; it was killed."""


class _Reader(threading.Thread):
    """One pipe read to its end, keeping at most ``limit`` bytes; past it the program is
    killed."""

    def __init__(self, pipe: IO[bytes], limit: int, proc: subprocess.Popen) -> None:
        super().__init__(daemon=True)
        self.pipe, self.limit, self.proc = pipe, limit, proc
        self.data = bytearray()
        self.overflowed = False

    def run(self) -> None:
        with self.pipe:
            while chunk := os.read(self.pipe.fileno(), _CHUNK):
                if len(self.data) + len(chunk) > self.limit:
                    self.overflowed = True
                    self.proc.kill()
                    return
                self.data += chunk


def run_bounded(argv: Sequence[str], *, timeout: float, limit: int,
                env: Mapping[str, str] | None = None) -> Ran:
    """Run ``argv`` with no stdin; raises :class:`Overrun`, or OSError when it cannot start."""
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=None if env is None else dict(env),
                            creationflags=NO_WINDOW)
    assert proc.stdout is not None and proc.stderr is not None  # both are PIPE above
    readers = [_Reader(proc.stdout, limit, proc), _Reader(proc.stderr, limit, proc)]
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise Overrun(f"did not answer in {timeout:g} s (killed)") from None
    for reader in readers:
        reader.join(_DRAIN_SECONDS)
    if any(reader.overflowed for reader in readers):
        raise Overrun(f"printed more than {limit} bytes (killed)")
    if any(reader.is_alive() for reader in readers):
        raise Overrun("ended, but something it started kept its output open")
    return Ran(proc.returncode, bytes(readers[0].data), bytes(readers[1].data))
