"""Clean verdicts of the pre-run checks, remembered: a job whose inputs the checks found clean
before is not checked again, so the launcher loads none of the doctor's rules (20 ms).

The inputs: the interpreter's cached probe (core.interpreters.probe keeps it true to the
interpreter, its packages and library path; the plan has just asked for it), the script's
text, the strategy, the GPU request, the task's environment without what differs in every run
(TF_CONFIG, TENSORDECK_*), and the checking code. Only "no findings" is remembered: a run the
doctor warns about is checked, and warned about, every time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from core.interpreters.probe import cache_file
from core.paths import cache_entry, code_stamp, write_cache_entry

CLEAN_JOBS = 256  # entries kept


def verdict_entry(python: str, *, strategy: str, script: Path, wants_gpus: bool,
                  env: Mapping[str, str]) -> Path | None:
    """Where the clean verdict on these inputs is kept (see the module's docstring); None when
    the probe or the script cannot be read (then nothing is remembered)."""
    try:
        probe = cache_file(python).read_text(encoding="utf-8")
        text = script.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return None
    stable = {k: v for k, v in env.items() if k != "TF_CONFIG" and not k.startswith("TENSORDECK_")}
    return cache_entry("clean-jobs", code_stamp(), probe, text, strategy, str(wants_gpus),
                       json.dumps(stable, sort_keys=True))


def found_clean(entry: Path | None) -> bool:
    """Whether the checks found the inputs of ``entry`` (:func:`verdict_entry`) clean before."""
    return entry is not None and entry.is_file()


def remember_clean(entry: Path | None) -> None:
    if entry is not None:
        write_cache_entry(entry, "{}", CLEAN_JOBS)
