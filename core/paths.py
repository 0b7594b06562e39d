"""Where TensorDeck's shipped files and per-user state live."""

from __future__ import annotations

import functools
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


@functools.cache
def code_stamp() -> str:
    """What every answer TensorDeck's caches keep depends on besides its own inputs: TensorDeck's
    version, pydantic's and pydantic-core's (they check configs), and the content of all of
    TensorDeck's checking code: every module of the core package and the doctor's knowledge
    base. A frozen app holds them in its executable: its size and time stand for them. Once per
    process (~4 ms: ~0.9 MB read and hashed)."""
    from core import __version__

    parts = [__version__, *map(installed_version, ("pydantic", "pydantic_core"))]
    if getattr(sys, "frozen", False):
        parts.append(_file_stamp(sys.executable))
    else:
        parts += [tree_digest(Path(__file__).parent, ".py"), tree_digest(resource("kb"), "")]
    return "\0".join(parts)


def installed_version(package: str) -> str:
    """The version of the distribution installed as the top-level ``package``
    (``pydantic_core``), from the name of its dist-info folder beside it (importlib.metadata
    would add ~35 ms to the launcher's start); "" when it is not found."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.submodule_search_locations:
        return ""
    folder = os.path.dirname(next(iter(spec.submodule_search_locations)))
    try:
        names = os.listdir(folder)
    except OSError:
        return ""
    prefix, suffix = f"{package}-", ".dist-info"
    return ",".join(sorted(n[len(prefix):-len(suffix)] for n in names
                           if n.startswith(prefix) and n.endswith(suffix)))


def tree_digest(root: Path, suffix: str) -> str:
    """A hash of the names and contents of the files under ``root`` whose names end with
    ``suffix`` (in a fixed order); a file that cannot be read counts as its name alone."""
    import hashlib  # not on the paths of --help and --version

    digest = hashlib.sha256()
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(n for n in names if n.endswith(suffix)):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, root).encode("utf-8", "surrogateescape") + b"\0")
            try:
                with open(path, "rb") as file:
                    digest.update(hashlib.sha256(file.read()).digest())  # fixed length
            except OSError:
                continue
    return digest.hexdigest()


def _file_stamp(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return ""
    return f"{info.st_mtime_ns}:{info.st_size}"


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
