"""``tensordeck gpus [--json] [--watch]``: the GPUs as NVML sees them.

Exit codes:

- 0: the GPUs were read, or there is nothing to read: no NVIDIA driver, a driver that is not
  running or does not match, or no GPU. Those are answers, not failures: the first line (or
  ``state`` in the JSON) says which, so ``tensordeck gpus --json`` always gives one document.
- 1: NVML failed in an unexpected way (``state`` is ``"error"``).

``--watch`` refreshes every second until Ctrl+C, then exits 0. With ``--json`` it prints one
JSON document per sample (JSON lines), for scripts.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
from typing import Any, TextIO

from core.gpu.capability import capability_text
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.gpu.nvml import read_gpus
from core.gpu.sampler import GpuSample, GpuSampler
from core.terminal import raw

_CLEAR = "\x1b[H\x1b[2J"


def gpus_command(args: argparse.Namespace, *, nvml: Any = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.watch:
        return _watch(nvml, out, as_json=args.json)
    report = read_gpus(nvml)
    if args.json:
        print(json.dumps(report.to_json(), indent=2), file=out)
    else:
        print(format_report(report), file=out)
    return 1 if report.state is GpuState.ERROR else 0


def format_report(report: GpuReport) -> str:
    """The report as a compact table, one line per GPU plus one per compute process."""
    if report.state is not GpuState.OK:
        return report.message
    return "\n".join([_header(report), *format_gpus(report.gpus)])


def _header(report: GpuReport) -> str:
    cuda = report.cuda_driver_version
    cuda = f", supports CUDA up to {cuda}" if cuda else ""
    return f"NVIDIA driver {report.driver_version or '?'}{cuda}"


def _num(value: float | None, fmt: str = "{:.0f}") -> str:
    return "-" if value is None else fmt.format(value)


def format_gpus(gpus: tuple[GpuInfo, ...]) -> list[str]:
    lines = [
        f"{'GPU':>3}  {'Name':<26} {'CC':>4} {'Memory MiB':>15}  {'Util':>4}  {'Temp':>4}  "
        f"{'Power W':>9}  Mode"
    ]
    for g in gpus:
        if g.error:
            lines.append(f"{g.index:>3}  {g.name or '?':<26} error: {g.error}")
            continue
        mode = "MIG" if g.mig_enabled else (g.driver_model or "")
        cc = capability_text(g.compute_capability) if g.compute_capability else "-"
        lines.append(
            f"{g.index:>3}  {(g.name or '?')[:26]:<26} {cc:>4} "
            f"{_num(g.memory_used_mib):>7} / {_num(g.memory_total_mib):<5}  "
            f"{_num(g.utilization_gpu, '{:.0f}%'):>4}  {_num(g.temperature_c, '{:.0f}C'):>4}  "
            f"{_num(g.power_draw_w):>4}/{_num(g.power_limit_w):<4}  {mode}".rstrip()
        )
        for p in g.processes or ():
            memory = "n/a" if p.used_memory_mib is None else f"{p.used_memory_mib} MiB"
            lines.append(f"       pid {p.pid:<8} {memory:>10}  {p.name or '?'}")
    return lines


def _watch(nvml: Any, out: TextIO, *, as_json: bool) -> int:
    frames: queue.Queue[GpuSample | str] = queue.Queue()
    sampler = GpuSampler(frames.put, on_error=frames.put, nvml=nvml)
    clear = _CLEAR if not as_json and out.isatty() and _enable_ansi() else ""
    sampler.start()
    try:
        while not sampler.ready.wait(0.5):  # short waits: Ctrl+C must get through on Windows
            pass
        report = sampler.report
        assert report is not None  # set before ready
        if report.state is not GpuState.OK:
            print(json.dumps(report.to_json()) if as_json else report.message, file=out)
            return 1 if report.state is GpuState.ERROR else 0
        while True:
            try:
                item = frames.get(timeout=0.5)
            except queue.Empty:
                continue
            if isinstance(item, str):
                print(json.dumps({"error": item}) if as_json else item, file=sys.stderr)
            elif as_json:
                print(json.dumps(item.to_json()), file=out, flush=True)
            else:
                lines = [_header(report), *format_gpus(item.gpus), "(Ctrl+C to stop)"]
                raw(out).write(clear)  # TensorDeck's own escapes: past the sanitizer
                print("\n".join(lines), file=out, flush=True)
    except KeyboardInterrupt:
        return 0
    finally:
        sampler.stop()


def _enable_ansi() -> bool:
    """Turn on escape-sequence handling in a classic Windows console; elsewhere it is on."""
    if sys.platform != "win32":
        return True
    import ctypes

    kernel32 = ctypes.windll.kernel32
    handle = kernel32.GetStdHandle(-11)  # STD_OUTPUT_HANDLE
    mode = ctypes.c_uint32()
    if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
        return False
    return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))  # VIRTUAL_TERMINAL_PROCESSING
