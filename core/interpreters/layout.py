"""Where an interpreter's environment is, and what kind: a conda env, a venv, or neither.

Read from the folder layout only (no process started): ``conda-meta/`` marks a conda env,
``pyvenv.cfg`` a venv. The executable is not resolved through symlinks, because a venv's
``bin/python`` is a symlink to the base interpreter but belongs to the venv.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

EnvKind = Literal["conda", "venv", "plain"]


@dataclass(frozen=True)
class EnvLayout:
    kind: EnvKind
    prefix: Path
    #: The conda env's name ("base" for the root install), else None.
    name: str | None


def python_in(prefix: Path, platform: str = sys.platform) -> Path:
    """The interpreter of an environment folder (conda env or venv root)."""
    if platform == "win32":
        scripts = prefix / "Scripts" / "python.exe"
        return scripts if (prefix / "pyvenv.cfg").is_file() else prefix / "python.exe"
    return prefix / "bin" / "python"


def env_layout(python: str | os.PathLike[str], platform: str = sys.platform) -> EnvLayout:
    exe = Path(os.path.abspath(python))
    folder = exe.parent
    if platform == "win32":
        # <venv>\Scripts\python.exe; conda and python.org installs keep python.exe at the root.
        is_scripts = folder.name.lower() == "scripts" and (folder.parent / "pyvenv.cfg").is_file()
        prefix = folder.parent if is_scripts else folder
    else:
        prefix = folder.parent  # <prefix>/bin/python
    if (prefix / "conda-meta").is_dir():
        return EnvLayout("conda", prefix, _conda_name(prefix))
    if (prefix / "pyvenv.cfg").is_file():
        return EnvLayout("venv", prefix, None)
    return EnvLayout("plain", prefix, None)


def _conda_name(prefix: Path) -> str | None:
    if prefix.parent.name == "envs":
        return prefix.name
    if (prefix / "condabin").is_dir() or (prefix / "envs").is_dir():
        return "base"
    return None  # an env made with `conda create -p PATH`: known by its path only
