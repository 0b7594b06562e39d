"""The GPU data shapes shared by the NVML reader, the sampler and the ``nvidia-smi`` parser.

``None`` in any field means "not available" (unsupported by the card, the driver model or the
driver version), never zero: a GeForce under WDDM has no per-process memory, a MIG instance has
no utilization, and drawing those as 0 would lie.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum

from core.gpu.capability import Capability, capability_text


class GpuState(str, Enum):
    """What reading the GPUs found, from worst to best.

    ``no_driver``: the NVML library (nvml.dll / libnvidia-ml.so.1) is missing, or nvidia-ml-py is
    not installed. ``driver_not_loaded``: the library is there but the kernel driver is not
    running. ``driver_mismatch``: library and kernel module are from different driver versions
    (usually right after a driver update, before a reboot). ``error``: any other NVML failure.
    ``no_gpu``: the driver works and reports zero GPUs. ``ok``: at least one GPU was read.
    """

    NO_DRIVER = "no_driver"
    DRIVER_NOT_LOADED = "driver_not_loaded"
    DRIVER_MISMATCH = "driver_mismatch"
    ERROR = "error"
    NO_GPU = "no_gpu"
    OK = "ok"


@dataclass(frozen=True)
class GpuProcess:
    """A compute process on a GPU. ``used_memory_mib`` is None under Windows WDDM (by design)."""

    pid: int
    name: str | None = None
    used_memory_mib: int | None = None

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GpuInfo:
    """One GPU at one moment. ``error`` is set when reading it failed (e.g. "GPU is lost")."""

    index: int
    name: str | None = None
    uuid: str | None = None
    memory_total_mib: int | None = None
    memory_used_mib: int | None = None
    utilization_gpu: int | None = None
    temperature_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    #: "WDDM", "TCC" or "MCDM" on Windows; None elsewhere.
    driver_model: str | None = None
    mig_enabled: bool | None = None
    #: CUDA compute capability, (8, 6) for an RTX 3090; None when the driver cannot tell.
    compute_capability: Capability | None = None
    #: None when the process list was not read (or is unsupported); [] when there are none.
    processes: tuple[GpuProcess, ...] | None = None
    error: str | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        if self.compute_capability is not None:
            data["compute_capability"] = capability_text(self.compute_capability)
        if self.processes is not None:
            data["processes"] = [p.to_json() for p in self.processes]
        return data


@dataclass(frozen=True)
class GpuReport:
    """Everything one look at the GPUs found: the state, a message for people, and the GPUs."""

    state: GpuState
    message: str
    driver_version: str | None = None
    #: The newest CUDA the driver supports, e.g. "12.4" (what nvidia-smi shows as "CUDA Version").
    cuda_driver_version: str | None = None
    gpus: tuple[GpuInfo, ...] = field(default_factory=tuple)
    #: "nvml" or "nvidia-smi".
    source: str = "nvml"

    def to_json(self) -> dict:
        return {
            "state": self.state.value,
            "message": self.message,
            "driver_version": self.driver_version,
            "cuda_driver_version": self.cuda_driver_version,
            "source": self.source,
            "gpus": [g.to_json() for g in self.gpus],
        }
