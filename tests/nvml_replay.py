"""A stand-in for the ``pynvml`` module that replays NVML answers recorded in tests/data/nvml.

NVML is a hardware boundary: this machine has no NVIDIA driver. The fake keeps the real
module's error classes and constants (it forwards every non-function name to ``pynvml``), so
the code under test catches exactly what it would catch on a GPU machine.

Recording format: ``system`` and each entry of ``devices`` map an NVML function name to its
answer; ``{"error": "NOT_SUPPORTED"}`` raises that NVMLError; a function missing from a
device raises FUNCTION_NOT_FOUND, as an older driver without that entry point does.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pynvml

DATA = Path(__file__).parent / "data" / "nvml"


def _error(name: str) -> pynvml.NVMLError:
    return pynvml.NVMLError(getattr(pynvml, "NVML_ERROR_" + name))


def _answer(value: Any) -> Any:
    if isinstance(value, dict) and "error" in value:
        raise _error(value["error"])
    if isinstance(value, dict):
        return SimpleNamespace(**value)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [SimpleNamespace(**v) for v in value]
    return value


class ReplayNvml:
    """``ReplayNvml.load("rtx3090_windows_wddm")``; ``calls`` counts every function called."""

    def __init__(self, recording: dict) -> None:
        self.recording = recording
        self.calls: Counter[str] = Counter()
        #: Device index -> error raised by every call on it (a GPU that fell off the bus).
        self.broken: dict[int, str] = {}

    @classmethod
    def load(cls, name: str) -> ReplayNvml:
        return cls(json.loads((DATA / f"{name}.json").read_text(encoding="utf-8")))

    def nvmlInit(self) -> None:
        self.calls["nvmlInit"] += 1
        if "init_error" in self.recording:
            raise _error(self.recording["init_error"])

    def nvmlShutdown(self) -> None:
        self.calls["nvmlShutdown"] += 1

    def nvmlDeviceGetCount(self) -> int:
        self.calls["nvmlDeviceGetCount"] += 1
        return len(self.recording["devices"])

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self.calls["nvmlDeviceGetHandleByIndex"] += 1
        return index  # the handle is the index: opaque to the code under test

    def nvmlSystemGetProcessName(self, pid: int) -> str:
        self.calls["nvmlSystemGetProcessName"] += 1
        names = self.recording.get("process_names", {})
        if str(pid) not in names:
            raise _error("NOT_FOUND")
        return names[str(pid)]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("nvmlSystem"):
            return self._system(name)
        if name.startswith("nvmlDevice"):
            return self._device(name)
        return getattr(pynvml, name)

    def _system(self, name: str) -> Any:
        def call() -> Any:
            self.calls[name] += 1
            if name not in self.recording["system"]:
                raise _error("FUNCTION_NOT_FOUND")
            return _answer(self.recording["system"][name])

        return call

    def _device(self, name: str) -> Any:
        def call(handle: int, *args: Any) -> Any:
            self.calls[name] += 1
            if handle in self.broken:
                raise _error(self.broken[handle])
            device = self.recording["devices"][handle]
            if name not in device:
                raise _error("FUNCTION_NOT_FOUND")
            return _answer(device[name])

        return call
