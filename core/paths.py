"""Where TensorDeck's shipped files and per-user state live."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def resource(*parts: str) -> Path:
    """Path of a shipped data file under ``resources/`` (source tree, wheel or frozen app)."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    base = (
        Path(frozen_root) / "resources"
        if frozen_root
        else Path(__file__).resolve().parent.parent / "resources"
    )
    return base.joinpath(*parts)


def user_config_dir() -> Path:
    """Per-user settings folder (remembered interpreters, recent files)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("TensorDeck", appauthor=False))


def user_data_dir() -> Path:
    """Per-user data folder: run folders of configs that live in read-only places."""
    import platformdirs

    return Path(platformdirs.user_data_dir("TensorDeck", appauthor=False))


def user_cache_dir() -> Path:
    """Per-user cache folder: what can be worked out again (interpreter probes, checked
    configs); deleting it only costs time."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("TensorDeck", appauthor=False))


def code_stamp(*files: str) -> str:
    """TensorDeck's version and the size and time of ``files`` (modules' ``__file__``): what
    a cached verdict of that code depends on, so that an edited checkout checks afresh (a
    frozen app has no source files: its version)."""
    from core import __version__

    parts = [__version__]
    for name in files:
        try:
            info = os.stat(name)
        except (OSError, TypeError, ValueError):
            continue
        parts.append(f"{info.st_mtime_ns}:{info.st_size}")
    return "\0".join(parts)


def cache_entry(folder: str, *key: str) -> Path:
    """The file of the entry of ``folder`` in the user's cache named by ``key``'s hash."""
    import hashlib  # not on the paths of --help and --version

    digest = hashlib.sha256("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()
    return user_cache_dir() / folder / f"{digest[:32]}.json"


def write_cache_entry(entry: Path, text: str, keep: int) -> None:
    """Write ``entry`` whole and private (a checked config holds the job's environment),
    keeping the ``keep`` newest entries of its folder; a read-only or full cache only costs the
    next check."""
    from core.fsio import write_private

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        write_private(entry, text)
        entries = sorted(entry.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-keep]:
            old.unlink()
    except OSError:
        pass
