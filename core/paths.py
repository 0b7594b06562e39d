"""Where TensorDeck's shipped files and per-user state live."""

from __future__ import annotations

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
