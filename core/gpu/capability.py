"""Which GPUs a CUDA build runs on, from the architectures it was compiled for.

A TensorFlow build lists them in ``build_info["cuda_compute_capabilities"]``, e.g. TF 2.21's
Linux wheel ``['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']``. ``sm_XY`` is machine code
for architecture X.Y: it runs on capability X.Y and the later minors of major X (not on major
X+1). ``compute_XY`` is PTX, which the driver JIT-compiles for any GPU of capability >= X.Y.
``sm_XYa`` (arch-specific features, CUDA 12) runs on X.Y only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Capability = tuple[int, int]

_ARCH = re.compile(r"(sm|compute)_(\d+)(\d)(a?)\Z")


def capability_text(capability: Capability) -> str:
    """``(8, 6)`` -> ``"8.6"``, as NVIDIA's tables and nvidia-smi write it."""
    return f"{capability[0]}.{capability[1]}"


def parse_capability(text: str | None) -> Capability | None:
    """``"8.6"`` (nvidia-smi's ``compute_cap``) -> ``(8, 6)``; None for anything else."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _archs(archs: Iterable[str]) -> list[tuple[str, Capability, bool]]:
    """(kind, capability, arch-specific) of each entry; unknown spellings are skipped."""
    out = []
    for arch in archs:
        m = _ARCH.match(str(arch).strip())
        if m:
            out.append((m.group(1), (int(m.group(2)), int(m.group(3))), bool(m.group(4))))
    return out


def _covers(kind: str, cc: Capability, specific: bool, gpu: Capability) -> bool:
    if specific:
        return cc == gpu
    if kind == "sm":
        return cc[0] == gpu[0] and cc[1] <= gpu[1]
    return cc <= gpu  # PTX


def build_runs_on(archs: Iterable[str], capability: Capability) -> bool:
    """Does a build compiled for ``archs`` run on a GPU of ``capability``?"""
    return any(_covers(*arch, capability) for arch in _archs(archs))


def build_minimum(archs: Iterable[str]) -> Capability | None:
    """The lowest capability the build runs on (its oldest architecture); None if none parse."""
    return min((cc for _, cc, _ in _archs(archs)), default=None)
