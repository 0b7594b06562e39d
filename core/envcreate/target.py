"""The folder an environment is built into, and the rule that keeps the user's files safe:
TensorDeck removes only what it made, and the proof of that lives inside what it made.

A build claims its folder by creating it (or, when it exists and is empty, by taking it) and
writing ``.tensordeck-building`` inside at once, before any step runs. A failed, cancelled or
killed build leaves that proof; only a folder holding it is ever emptied, and the folder itself
is removed only when the build made it. A marker beside the folder would not do: a user's own
folder can sit next to a stale marker.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from core.messages import tr
from core.said import SaidError

#: Inside the folder a build claimed; says whether the build made the folder or took it empty.
PROOF = ".tensordeck-building"
#: The builders' temporary folder, inside the environment (see :func:`scratch`).
SCRATCH = ".tensordeck-tmp"
#: Where pip, venv and conda put temporary files, on POSIX and on Windows.
TEMP_VARIABLES = ("TMPDIR", "TEMP", "TMP")
_MADE, _TAKEN = "made", "taken"


class BuildRefused(SaidError, ValueError):
    """The target cannot be built into (it holds files TensorDeck did not make)."""


def marker(target: Path) -> Path:
    return target / PROOF


def scratch(target: Path) -> Path:
    """The builders' temporary folder (TMPDIR, TEMP, TMP): pip unpacks each wheel into the
    system's temp, and a cancelled pip leaves that there (hundreds of MB for TensorFlow), so
    the build's temp lives inside the environment and goes with it."""
    return target / SCRATCH


def interrupted(target: Path) -> bool:
    """Whether ``target`` holds what a build left that did not finish (its proof)."""
    return not target.is_symlink() and target.is_dir() and marker(target).is_file()


def check_target(target: Path) -> None:
    """Raise BuildRefused unless ``target`` is new, empty, or left by an interrupted build."""
    if target.is_symlink():
        raise BuildRefused("env.refused.link", folder=target)
    existing = next(p for p in (target, *target.parents) if p.exists())
    if not existing.is_dir():
        raise BuildRefused("env.refused.file", folder=existing)
    if existing == target and not interrupted(target) and any(target.iterdir()):
        raise BuildRefused("env.refused.not_empty", folder=target)


def claim(target: Path) -> None:
    """Make ``target`` this build's (check_target said it may be) and write the proof."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(target)
        how = _MADE
    except FileExistsError:
        how = _TAKEN
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(marker(target), flags, 0o600), "w", encoding="utf-8") as proof:
        proof.write(f"{how}\nTensorDeck is building an environment here; a build that did not "
                    "finish left this, and the next build into this folder removes it.\n")


def remove_env(target: Path) -> bool:
    """Remove what a build made in ``target``: everything in it, the proof last, then the
    folder if the build made it. Nothing without the proof is touched. A second Ctrl+C waits
    until this is done (a half-removed env is neither usable nor removable). True when nothing
    of the build is left."""
    if not interrupted(target):
        return True
    with interrupts_held():
        made = marker(target).read_text(encoding="utf-8").startswith(_MADE)
        for attempt in range(5):  # a file a killed process held a moment ago (Windows)
            try:
                _empty(target)
                if made:
                    os.rmdir(target)
                return True
            except OSError:
                if attempt == 4:
                    return False
                time.sleep(0.5)
    return False


def removed_note(target: Path, language: str = "en") -> str:
    """The truth about ``target`` after remove_env, as the end of a sentence in ``language``."""
    if interrupted(target):
        return tr("env.removed.not_all", language, target=target)
    if target.exists():  # a folder the build took empty stays, empty again
        return tr("env.removed.inside", language, target=target)
    return tr("env.removed", language, target=target)


def _empty(target: Path) -> None:
    for entry in os.scandir(target):
        if entry.name == PROOF:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    marker(target).unlink()


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """SIGINT ignored meanwhile, where it can be (the main thread: the CLI); the window's
    builds run on a worker thread, which signals never reach."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
