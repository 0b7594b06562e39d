"""``pip install -e ".[train]"`` brings one TensorFlow distribution: the extra's requirements and
what they require in turn (read from the installed distributions' metadata) name one."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

from core.interpreters.probe import TF_DISTRIBUTIONS

ROOT = Path(__file__).resolve().parent.parent


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-")


def test_train_extra_installs_one_tensorflow_distribution() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (the Windows lane runs 3.10)
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["train"]
    names = {_name(r) for r in extra}
    for name in list(names):
        # Direct requirements of each package (environment markers aside): tf-keras -> tensorflow.
        names |= {_name(r) for r in metadata.requires(name) or [] if "extra ==" not in r}
    assert len(names & set(TF_DISTRIBUTIONS)) == 1, sorted(names & set(TF_DISTRIBUTIONS))
