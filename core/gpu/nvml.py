"""Read NVIDIA GPUs through NVML (the ``pynvml`` module of ``nvidia-ml-py``).

The NVML module is a parameter everywhere (``nvml=None`` means the real one), so tests replay
recorded values through a fake with the same function names, and the code path on a real
machine is the same one the tests run.

Every per-field call goes through :func:`_field`: an unsupported field (``NotSupported``,
``NoPermission``, a function the installed driver lacks, ...) becomes None. Only "GPU is lost"
marks the whole GPU as failed.
"""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

from core.gpu.info import GpuInfo, GpuProcess, GpuReport, GpuState
from core.messages import tr

MIB = 1024 * 1024
_DRIVER_MODELS = {0: "WDDM", 1: "TCC", 2: "MCDM"}


class NvmlUnavailable(Exception):
    """NVML could not start; ``state`` and the message (a catalogue message of core.messages,
    in English) say why and what to do."""

    def __init__(self, state: GpuState, message: str) -> None:
        super().__init__(message)
        self.state = state


def load_nvml() -> ModuleType | None:
    """The real ``pynvml`` module, or None when nvidia-ml-py is not installed."""
    try:
        import pynvml
    except ImportError:
        return None
    return pynvml


def cuda_version_text(value: int | None) -> str | None:
    """NVML's CUDA driver version integer as nvidia-smi prints it: 12040 -> "12.4"."""
    if value is None:
        return None
    return f"{value // 1000}.{value % 1000 // 10}"


def _init_failure(nvml: Any, error: Exception) -> NvmlUnavailable:
    code = getattr(error, "value", None)
    if code == nvml.NVML_ERROR_LIBRARY_NOT_FOUND:
        return NvmlUnavailable(GpuState.NO_DRIVER, tr("gpu.no_driver", "en"))
    if code == nvml.NVML_ERROR_DRIVER_NOT_LOADED:
        return NvmlUnavailable(GpuState.DRIVER_NOT_LOADED, tr("gpu.driver_not_loaded", "en"))
    if code == nvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        return NvmlUnavailable(GpuState.DRIVER_MISMATCH, tr("gpu.driver_mismatch", "en"))
    return NvmlUnavailable(GpuState.ERROR, tr("gpu.nvml_failed", "en", error=error))


class NvmlSession:
    """NVML initialised once with the device handles cached, as the sampler needs.

    Use :meth:`open` (raises :class:`NvmlUnavailable`), then :meth:`read`, then :meth:`close`.
    Not thread-safe: one thread owns a session.
    """

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml
        # nvidia-ml-py raises this non-NVMLError when an unversioned getter is missing.
        mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
        self._errors: tuple[type[BaseException], ...] = (
            (nvml.NVMLError, mismatch) if mismatch else (nvml.NVMLError,)
        )
        self.driver_version: str | None = self._field(nvml.nvmlSystemGetDriverVersion)
        self.cuda_driver_version = cuda_version_text(
            self._field(nvml.nvmlSystemGetCudaDriverVersion)
        )
        count = nvml.nvmlDeviceGetCount()
        self.handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]

    @classmethod
    def open(cls, nvml: Any = None) -> NvmlSession:
        nvml = nvml if nvml is not None else load_nvml()
        if nvml is None:
            raise NvmlUnavailable(GpuState.NO_DRIVER, tr("gpu.no_module", "en"))
        try:
            nvml.nvmlInit()
        except nvml.NVMLError as exc:
            raise _init_failure(nvml, exc) from exc
        try:
            return cls(nvml)
        except nvml.NVMLError as exc:
            nvml.nvmlShutdown()
            raise NvmlUnavailable(GpuState.ERROR, tr("gpu.cannot_list", "en", error=exc)) from exc

    def close(self) -> None:
        # Shutting down a session that already broke: nothing is left to release.
        with contextlib.suppress(self.nvml.NVMLError):
            self.nvml.nvmlShutdown()

    def _field(self, fn: Any, *args: Any) -> Any:
        """Call one NVML getter; None when this card/driver cannot tell. "GPU is lost" raises."""
        try:
            return fn(*args)
        except self._errors as exc:
            if getattr(exc, "value", None) == self.nvml.NVML_ERROR_GPU_IS_LOST:
                raise
            return None

    def _first(self, names: tuple[str, ...], *args: Any) -> Any:
        """The first of several versions of a getter that the module and the driver both have."""
        for name in names:
            fn = getattr(self.nvml, name, None)
            if fn is None:
                continue
            try:
                return fn(*args)
            except self._errors as exc:
                code = getattr(exc, "value", None)
                if code == self.nvml.NVML_ERROR_GPU_IS_LOST:
                    raise
                if code != self.nvml.NVML_ERROR_FUNCTION_NOT_FOUND:
                    return None
        return None

    def read(self, index: int, *, processes: bool = True) -> GpuInfo:
        """Read GPU ``index``; the (slow, ~5 ms) process list only when ``processes``."""
        nvml, handle = self.nvml, self.handles[index]
        try:
            memory = self._field(nvml.nvmlDeviceGetMemoryInfo, handle)
            util = self._field(nvml.nvmlDeviceGetUtilizationRates, handle)
            power = self._field(nvml.nvmlDeviceGetPowerUsage, handle)
            limit = self._field(nvml.nvmlDeviceGetEnforcedPowerLimit, handle)
            model = self._first(
                ("nvmlDeviceGetDriverModel_v2", "nvmlDeviceGetDriverModel_v1"), handle
            )
            mig = self._field(nvml.nvmlDeviceGetMigMode, handle)
            capability = self._field(nvml.nvmlDeviceGetCudaComputeCapability, handle)
            return GpuInfo(
                index=index,
                name=self._field(nvml.nvmlDeviceGetName, handle),
                uuid=self._field(nvml.nvmlDeviceGetUUID, handle),
                memory_total_mib=None if memory is None else memory.total // MIB,
                memory_used_mib=None if memory is None else memory.used // MIB,
                utilization_gpu=None if util is None else util.gpu,
                temperature_c=self._first(
                    ("nvmlDeviceGetTemperatureV", "nvmlDeviceGetTemperature"),
                    handle,
                    nvml.NVML_TEMPERATURE_GPU,
                ),
                power_draw_w=None if power is None else power / 1000,
                power_limit_w=None if limit is None else limit / 1000,
                driver_model=None if model is None else _DRIVER_MODELS.get(model[0]),
                mig_enabled=None if mig is None else mig[0] == nvml.NVML_DEVICE_MIG_ENABLE,
                compute_capability=None if capability is None else tuple(capability),
                processes=self._processes(handle) if processes else None,
            )
        except nvml.NVMLError as exc:
            return GpuInfo(index=index, error=str(exc))

    def _processes(self, handle: Any) -> tuple[GpuProcess, ...] | None:
        # Some drivers lack v3 (nvitop#88/#93: "Function Not Found"); v2 then still answers.
        procs = self._first(
            (
                "nvmlDeviceGetComputeRunningProcesses_v3",
                "nvmlDeviceGetComputeRunningProcesses_v2",
            ),
            handle,
        )
        if procs is None:
            return None
        return tuple(
            GpuProcess(
                pid=p.pid,
                name=self._field(self.nvml.nvmlSystemGetProcessName, p.pid),
                # nvidia-ml-py turns NVML_VALUE_NOT_AVAILABLE (WDDM) into None already.
                used_memory_mib=None if p.usedGpuMemory is None else p.usedGpuMemory // MIB,
            )
            for p in procs
        )


def read_gpus(nvml: Any = None, *, processes: bool = True) -> GpuReport:
    """One look at every GPU. Never raises for a missing driver or GPU: see ``GpuReport.state``."""
    try:
        session = NvmlSession.open(nvml)
    except NvmlUnavailable as exc:
        return GpuReport(state=exc.state, message=str(exc))
    try:
        gpus = tuple(session.read(i, processes=processes) for i in range(len(session.handles)))
    finally:
        session.close()
    if not gpus:
        state, message = GpuState.NO_GPU, tr("gpu.none", "en")
    else:
        state, message = GpuState.OK, tr("gpu.count", "en", n=len(gpus))
    return GpuReport(
        state=state,
        message=message,
        driver_version=session.driver_version,
        cuda_driver_version=session.cuda_driver_version,
        gpus=gpus,
    )
