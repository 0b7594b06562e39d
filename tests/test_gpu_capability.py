"""Which GPUs a TensorFlow build runs on, from the ``cuda_compute_capabilities`` of two real
wheels' build_info.py (TF 2.10.1 win_amd64, TF 2.21.0 manylinux)."""

from __future__ import annotations

import pytest

from core.gpu.capability import build_minimum, build_runs_on, capability_text, parse_capability

TF210_WINDOWS = ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]
TF221_LINUX = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]


@pytest.mark.parametrize(("capability", "tf210", "tf221"), [
    ((3, 0), False, False),  # GTX 680: older than every architecture in both
    ((3, 5), True, False),   # GTX 780: sm_35 exactly
    ((3, 7), True, False),   # K80: a later minor of sm_35's major
    ((5, 2), True, False),   # GTX 970: sm_50; 2.21 starts at 6.0
    ((6, 1), True, True),    # GTX 1080: sm_60's major
    ((7, 5), True, True),    # RTX 2080: sm_75 / sm_70's major
    ((8, 6), True, True),    # RTX 3090: 2.10 by compute_80 PTX, 2.21 by sm_80
    ((8, 9), True, True),    # RTX 4090
    ((9, 0), True, True),    # H200: PTX in both (compute_80, compute_90)
    ((12, 0), True, True),   # RTX 5090: only through PTX
])
def test_the_two_real_builds(capability, tf210, tf221):
    assert build_runs_on(TF210_WINDOWS, capability) is tf210
    assert build_runs_on(TF221_LINUX, capability) is tf221


def test_machine_code_does_not_cross_a_major_and_ptx_does_not_go_down():
    assert not build_runs_on(["sm_80"], (9, 0))  # no PTX: a newer major cannot run sm_80
    assert not build_runs_on(["sm_86"], (8, 0))  # an older minor of the same major
    assert not build_runs_on(["compute_90"], (8, 9))
    assert build_runs_on(["compute_90"], (9, 0))
    assert build_runs_on(["sm_100"], (10, 3)) and not build_runs_on(["sm_100"], (12, 0))
    # Arch-specific code (sm_90a) runs on 9.0 alone.
    assert build_runs_on(["sm_90a"], (9, 0)) and not build_runs_on(["sm_90a"], (9, 1))
    assert not build_runs_on([], (8, 6)) and not build_runs_on(["gfx90a"], (8, 6))


def test_minimum_and_text():
    assert build_minimum(TF210_WINDOWS) == (3, 5)
    assert build_minimum(TF221_LINUX) == (6, 0)
    assert build_minimum(["x"]) is None
    assert capability_text((8, 6)) == "8.6" and capability_text((12, 0)) == "12.0"
    assert parse_capability(" 8.6") == (8, 6) and parse_capability("12.0") == (12, 0)
    assert parse_capability("[N/A]") is None and parse_capability(None) is None
