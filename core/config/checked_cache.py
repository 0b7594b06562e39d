"""The cache of checked configs. A config's checks depend on its text alone (nothing here reads
files or the network), so a text checked once is not checked again: the launcher rebuilds it
from the user's cache without importing pydantic. An entry is named by the hash of the text and
of the checking code (core.paths.code_stamp), holds the checked config as data, and is only
ever a miss when anything about it is off. Apart because it trusts nothing it reads back: what
it returns is what the checks would have returned."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

from core.config.file_text import MAX_CONFIG_BYTES
from core.config.records import JobConfig
from core.model import from_data, to_data


def checked_once(text: str, check: Callable[[], JobConfig], folder: str, keep: int) -> JobConfig:
    """The config of ``text``: from the cache's ``folder`` when it was checked before, else
    ``check()``'s, which is then remembered there (a config with problems raises, and is
    checked every time)."""
    from core.paths import cache_entry, code_stamp, write_cache_entry

    entry = cache_entry(folder, code_stamp(), text)
    remembered = _remembered(entry)
    if remembered is not None:
        return remembered
    cfg = check()
    write_cache_entry(entry, json.dumps(to_data(cfg)), keep)
    return cfg


def _remembered(entry: Path) -> JobConfig | None:
    try:
        info = os.stat(entry)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
            return None  # not an entry this TensorDeck wrote (a FIFO would block the read)
        return from_data(JobConfig, json.loads(entry.read_text(encoding="utf-8")))
    except Exception:  # none yet, or damaged: check the text again
        return None
