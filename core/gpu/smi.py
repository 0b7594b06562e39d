"""``nvidia-smi --query-gpu`` as a data source: the command line and a line-by-line parser.

NVML is the first choice on the local machine; ``nvidia-smi`` is for where only a shell is
available (a remote machine on the LAN streams ``nvidia-smi ... -lms 1000`` over SSH). So the
parser works one line at a time: :class:`SmiStreamParser` takes arbitrary chunks of output.

With ``--format=csv,noheader,nounits`` each GPU is one line of the :data:`QUERY_FIELDS` in order.
Values nvidia-smi cannot give are printed as ``[N/A]``, ``[Not Supported]`` (older drivers) or
``N/A``; they become None.

``compute_cap`` (the compute capability) is asked only with ``capability=True``: nvidia-smi
before it knew the field (driver 470 still refuses it) prints ``Field "compute_cap" is not a
valid field to query.`` and no GPU at all, which :func:`parse_output` raises as
:class:`SmiFieldRefused` so the caller can ask again without it.
"""

from __future__ import annotations

import csv

from core.gpu.capability import parse_capability
from core.gpu.info import GpuInfo, GpuReport, GpuState
from core.messages import tr

QUERY_FIELDS: tuple[str, ...] = (
    "index",
    "name",
    "uuid",
    "memory.total",
    "memory.used",
    "utilization.gpu",
    "temperature.gpu",
    "power.draw",
    "power.limit",
    "driver_version",
    "driver_model.current",
    "mig.mode.current",
)
#: Asked after :data:`QUERY_FIELDS` when the caller wants the compute capability.
CAPABILITY_FIELD = "compute_cap"
_ALL_FIELDS = (*QUERY_FIELDS, CAPABILITY_FIELD)

#: What nvidia-smi prints instead of CSV when it cannot run, and what that means.
_FAILURES: tuple[tuple[str, GpuState], ...] = (
    ("No devices were found", GpuState.NO_GPU),
    ("couldn't communicate with the NVIDIA driver", GpuState.DRIVER_NOT_LOADED),
    ("Driver/library version mismatch", GpuState.DRIVER_MISMATCH),
)


class SmiParseError(ValueError):
    """A line that is neither a GPU row nor blank; the message quotes it."""


#: How nvidia-smi refuses a field it does not know (``compute_cap`` before driver ~510).
FIELD_REFUSED = "is not a valid field to query"


class SmiFieldRefused(SmiParseError):
    """This nvidia-smi does not know a field asked for (``compute_cap`` on an older driver)."""


def smi_command(loop_ms: int | None = None, executable: str = "nvidia-smi", *,
                capability: bool = False) -> list[str]:
    """The argv that prints one CSV line per GPU (every ``loop_ms`` ms when given), with the
    compute capability last when ``capability``."""
    fields = _ALL_FIELDS if capability else QUERY_FIELDS
    argv = [executable, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"]
    if loop_ms is not None:
        if loop_ms <= 0:
            raise ValueError(f"loop_ms must be a positive number of milliseconds, not {loop_ms}")
        argv += ["-lms", str(loop_ms)]
    return argv


def _value(text: str) -> str | None:
    text = text.strip()
    if not text or text == "N/A" or (text.startswith("[") and text.endswith("]")):
        return None
    return text


def _int(text: str | None) -> int | None:
    return None if text is None else round(float(text))


def _float(text: str | None) -> float | None:
    return None if text is None else float(text)


def _enabled(text: str | None) -> bool | None:
    return None if text is None else text == "Enabled"


def parse_line(line: str) -> tuple[GpuInfo, str | None] | None:
    """One output line -> (GPU, driver version); None for a blank line.

    Raises :class:`SmiParseError` for anything else (a failure message, a truncated line).
    """
    line = line.strip()
    if not line:
        return None
    cells = next(csv.reader([line], skipinitialspace=True))
    if len(cells) not in (len(QUERY_FIELDS), len(_ALL_FIELDS)):
        raise SmiParseError(
            f"nvidia-smi printed {line!r}, not {len(QUERY_FIELDS)} comma-separated values "
            f"(fields: {','.join(QUERY_FIELDS)}[,{CAPABILITY_FIELD}])"
        )
    v = dict(zip(_ALL_FIELDS, (_value(c) for c in cells), strict=False))
    try:
        gpu = GpuInfo(
            index=int(v["index"] or ""),
            name=v["name"],
            uuid=v["uuid"],
            memory_total_mib=_int(v["memory.total"]),
            memory_used_mib=_int(v["memory.used"]),
            utilization_gpu=_int(v["utilization.gpu"]),
            temperature_c=_int(v["temperature.gpu"]),
            power_draw_w=_float(v["power.draw"]),
            power_limit_w=_float(v["power.limit"]),
            driver_model=v["driver_model.current"],
            mig_enabled=_enabled(v["mig.mode.current"]),
            compute_capability=parse_capability(v.get(CAPABILITY_FIELD)),
        )
    except ValueError as exc:
        raise SmiParseError(f"nvidia-smi printed {line!r}: {exc}") from exc
    return gpu, v["driver_version"]


def parse_output(text: str) -> GpuReport:
    """The whole output of one :func:`smi_command` run (no loop) as a report."""
    gpus: list[GpuInfo] = []
    driver: str | None = None
    for line in text.splitlines():
        try:
            parsed = parse_line(line)
        except SmiParseError:
            if FIELD_REFUSED in line:
                raise SmiFieldRefused(f"nvidia-smi refused a field: {line.strip()}") from None
            state = next((s for marker, s in _FAILURES if marker in line), None)
            if state is None:
                raise
            return GpuReport(state=state, message=line.strip(), source="nvidia-smi")
        if parsed is not None:
            gpus.append(parsed[0])
            driver = driver or parsed[1]
    if not gpus:
        return GpuReport(GpuState.NO_GPU, "nvidia-smi listed no GPU.", source="nvidia-smi")
    return GpuReport(
        state=GpuState.OK,
        message=tr("gpu.count", "en", n=len(gpus)),
        driver_version=driver,
        gpus=tuple(gpus),
        source="nvidia-smi",
    )


class SmiStreamParser:
    """Feed chunks of a looping ``nvidia-smi`` (any split, ``\\r\\n`` or ``\\n``); get GPU rows.

    Each complete line is parsed as soon as its newline arrives; a partial line waits for the
    next chunk. Rows come out in order; a new sampling round starts where ``index`` goes back.
    """

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, chunk: str) -> list[tuple[GpuInfo, str | None]]:
        lines = (self._pending + chunk).split("\n")
        self._pending = lines.pop()
        return [row for row in map(parse_line, lines) if row is not None]
