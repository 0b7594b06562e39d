"""NVIDIA GPUs: a one-shot report (NVML), a background sampler, and the ``nvidia-smi`` CSV parser.

Both sources produce the same :class:`GpuInfo`, so the window, the CLI and the LAN view show
one shape whatever the data came from. Nothing here needs a GPU to import.
"""

from __future__ import annotations

from core.gpu.info import GpuInfo, GpuProcess, GpuReport, GpuState
from core.gpu.nvml import read_gpus

__all__ = ["GpuInfo", "GpuProcess", "GpuReport", "GpuState", "read_gpus"]
