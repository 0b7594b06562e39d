"""``tensordeck cache``: where TensorDeck's cache is, what it holds and its size;
``tensordeck cache clear`` empties it.

The cache (core.paths.user_cache_dir) keeps what can be worked out again: checked configs, the
window's checked editor fields, the pre-run checks' clean verdicts, interpreter probes. Every
entry is named by all that decides it (its inputs and core.paths.code_stamp), so clearing is
never needed for a right answer: it frees the space, or makes the next start check afresh.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from core.exitcodes import EXIT_USAGE
from core.paths import user_cache_dir

#: What each folder of the cache holds (a folder not named here is shown without a word).
KINDS = {
    "configs": "checked configs (tensordeck --run, validate)",
    "fields": "the window's checked editor fields",
    "clean-jobs": "clean verdicts of the pre-run checks",
    "probes": "interpreter probes",
}


def cache_command(args: argparse.Namespace) -> int:
    folder = user_cache_dir()
    if folder.exists() and not folder.is_dir():
        print(f"tensordeck: the cache {folder} is not a folder: remove it (TensorDeck makes "
              "the folder again)", file=sys.stderr)
        return EXIT_USAGE
    return _clear(folder) if args.action == "clear" else _show(folder)


def _show(folder: Path) -> int:
    parts = _parts(folder)
    print(f"cache: {folder}")
    for name, (count, size) in parts.items():
        print(_row(name, count, size, KINDS.get(name, "")))
    count, size = _totals(parts)
    print(_row("total", count, size, ""))
    if count:
        print("clear it: tensordeck cache clear (each entry is worked out again when needed)")
    return 0


def _clear(folder: Path) -> int:
    parts = _parts(folder)
    failed: list[str] = []
    for name in parts:
        path = folder / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)  # follows no link, nor a junction (Python 3.8+)
            else:
                path.unlink()
        except OSError as exc:
            failed.append(f"{path}: {exc.strerror or exc}")
    (count, size), (count_left, size_left) = _totals(parts), _totals(_parts(folder))
    print(f"cache: {folder}: removed {_entries(count - count_left)} ({_size(size - size_left)})")
    if failed:
        print(f"tensordeck: {len(failed)} could not be removed (a program still uses them?), "
              f"first: {failed[0]}; run this again, or delete them yourself", file=sys.stderr)
        return 1
    return 0


def _parts(folder: Path) -> dict[str, tuple[int, int]]:
    """Per folder of the cache (a file at its top counts as its own part): how many entries,
    how many bytes. Links are counted, never followed."""
    try:
        children = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:  # no cache yet
        return {}
    parts = {}
    for child in children:
        if child.is_dir(follow_symlinks=False):
            parts[child.name] = _count(child.path)
        else:
            parts[child.name] = (1, _size_of(child.path))
    return parts


def _totals(parts: dict[str, tuple[int, int]]) -> tuple[int, int]:
    return sum(c for c, _ in parts.values()), sum(s for _, s in parts.values())


def _count(folder: str) -> tuple[int, int]:
    count = size = 0
    for root, _folders, names in os.walk(folder):  # os.walk follows no link
        count += len(names)
        size += sum(_size_of(os.path.join(root, name)) for name in names)
    return count, size


def _size_of(path: str) -> int:
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _row(name: str, count: int, size: int, kind: str) -> str:
    return f"  {name:<12}{_entries(count):>14}{_size(size):>12}  {kind}".rstrip()


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    return f"{size / 1024:.1f} KiB" if size < 2**20 else f"{size / 2**20:.1f} MiB"
