"""The doctor inside WSL: what a distribution shows of the GPU the Windows driver lends it, and
the traps of WSL that make TensorFlow there see no GPU.

WSL 2 reaches the GPU through the Windows NVIDIA driver: it puts its libcuda (and nvidia-smi)
under ``/usr/lib/wsl/lib`` and the GPU paravirtualization device ``/dev/dxg`` appears. A Linux
NVIDIA driver installed inside the distribution brings a libcuda of its own, which the loader
may pick instead and which cannot reach the GPU. TensorFlow 2.15+ on Linux takes CUDA from pip
(``tensorflow[and-cuda]``); ``tensorflow`` alone has none.

One script (standard library, any CPython 3.6+) runs inside the distribution with the probed
interpreter, once per WSL interpreter the doctor diagnoses, through ``wsl.exe -e`` with its
output and time bounded; it answers one marked JSON line, every field of which is checked
here. An answer that is missing, too long, late or malformed is refused with
:class:`WslCheckFailed`, which the doctor shows as a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from core import bounded
from core.doctor import kb
from core.doctor.context import distro_family
from core.doctor.fixes import DEB_PACKAGE, FixContext, finding_title, make_finding
from core.findings import Finding
from core.gpu.info import GpuReport, GpuState
from core.interpreters.probe import WSL_BACKSTOP, ProbeResult
from core.output import show
from core.wsl.bounded_run import Overrun, run_bounded
from core.wsl.refusals import WslRefusal

MARK = "@@tensordeck-wsl-gpu@@ "
#: ldconfig, nvidia-smi and dpkg-query get 10 s each inside; a stopped distribution starts
#: first.
CHECK_TIMEOUT = 60.0
OUTPUT_LIMIT = 256 * 1024
MAX_ITEMS = 32
MAX_TEXT = 1024
MAX_OS_RELEASE = 4 * MAX_TEXT
#: pip's CUDA libraries that TensorFlow 2.15+ needs to see a GPU (of ``[and-cuda]``).
AND_CUDA_PACKAGES = ("nvidia-cublas", "nvidia-cuda-runtime", "nvidia-cudnn")
AND_CUDA_SINCE = (2, 15)

_VERSION = re.compile(r"\d{1,4}(?:\.\d{1,4}){1,3}")

# Runs inside the distribution: any CPython 3.6+ (no newer syntax), the standard library only.
# Its arguments: MARK, MAX_ITEMS, MAX_TEXT.
_SCRIPT = r"""
import glob, json, os, re, subprocess, sys, threading
MARK, ITEMS, TEXT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
WSL_LIB = "/usr/lib/wsl/lib"

def run(argv, limit=1 << 22):
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError:
        return None
    timer = threading.Timer(10, proc.kill)
    timer.start()
    out = proc.stdout.read(limit)
    if len(out) >= limit:
        proc.kill()
    code = proc.wait()
    timer.cancel()
    return code, out.decode("utf-8", "replace")

def which(name):
    for folder in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/sbin"]:
        path = os.path.join(folder or ".", name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None

def nvidia_smi():
    smi = os.path.join(WSL_LIB, "nvidia-smi")
    if not os.path.isfile(smi):
        return None, "no " + smi
    ran = run([smi, "--query-gpu=driver_version", "--format=csv,noheader"])
    if ran is None:
        return None, smi + " does not start"
    lines = [ln.strip() for ln in ran[1].splitlines() if ln.strip()]
    if ran[0] == 0 and lines and re.match(r"^\d+(\.\d+)+$", lines[0]):
        return lines[0], None
    return None, (lines[-1] if lines else "exit status %d" % ran[0])[:TEXT]

def linux_libcuda():
    found = set()
    ldconfig = which("ldconfig")
    ran = run([ldconfig, "-p"]) if ldconfig else None
    for line in (ran[1] if ran else "").splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.startswith("libcuda.so"):
            found.add(path.strip())
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64"):
        found.update(glob.glob(folder + "/libcuda.so*"))
    return sorted(p for p in found if p.startswith("/") and os.path.exists(p)
                  and not os.path.realpath(p).startswith("/usr/lib/wsl/"))[:ITEMS]

def driver_packages():
    query = which("dpkg-query")
    ran = query and run([query, "-W", "-f=${Package}\t${Status}\n", "nvidia-driver-*",
                         "libnvidia-compute-*"])
    if not ran:
        return None
    fields = [line.split("\t") for line in ran[1].splitlines()]
    return sorted(f[0] for f in fields if len(f) == 2 and f[1].endswith(" installed"))[:ITEMS]

def os_release():
    try:
        with open("/etc/os-release", encoding="utf-8", errors="replace") as f:
            return f.read(TEXT * 4)
    except OSError:
        return ""

driver, smi_error = nvidia_smi()
print(MARK + json.dumps({
    "wsl_libcuda": os.path.exists(os.path.join(WSL_LIB, "libcuda.so.1")),
    "dxg": os.path.exists("/dev/dxg"), "nvidia_smi": driver, "nvidia_smi_error": smi_error,
    "linux_libcuda": linux_libcuda(), "driver_packages": driver_packages(),
    "os_release": os_release()}))
"""


class WslCheckFailed(Exception):
    """The check inside WSL gave no answer TensorDeck can use; ``str()`` says why."""


@dataclass(frozen=True)
class WslGpuState:
    """What one distribution holds of the GPU (:func:`check_wsl_gpu`)."""

    distro: str
    #: The Windows driver's ``/usr/lib/wsl/lib/libcuda.so.1``.
    wsl_libcuda: bool
    #: The GPU paravirtualization device ``/dev/dxg``.
    dxg: bool
    #: The driver version the Windows driver's nvidia-smi says; None with ``smi_error``.
    smi_driver: str | None
    smi_error: str | None
    #: Each libcuda on the loader's path that is not the Windows driver's (nor a link to it).
    linux_libcuda: tuple[str, ...]
    #: The Linux driver's packages dpkg has installed (None: no dpkg there).
    driver_packages: tuple[str, ...] | None
    #: The Linux family of the distribution (:func:`core.doctor.context.distro_family`).
    family: str | None

    @property
    def linux_driver(self) -> bool:
        return bool(self.linux_libcuda or self.driver_packages)

    def missing(self) -> list[str]:
        """What WSL's GPU support needs and the distribution lacks."""
        return [path for path, there in (("/usr/lib/wsl/lib/libcuda.so.1", self.wsl_libcuda),
                                         ("/dev/dxg", self.dxg)) if not there]


def check_wsl_gpu(python: str, *, timeout: float = CHECK_TIMEOUT,
                  limit: int = OUTPUT_LIMIT) -> WslGpuState:
    """Run the check in the distribution of the interpreter ``python`` (``wsl://DISTRO/path``),
    with that interpreter. Raises :class:`WslCheckFailed`."""
    from core.interpreters.activation import clean_base_env
    from core.wsl.command import interpreter_target, wsl_environment

    try:
        target, path = interpreter_target(python)
        # coreutils' timeout ends it inside: killing wsl.exe does not end what it started.
        argv = target.argv("timeout", ["-s", "KILL", f"{timeout + WSL_BACKSTOP:g}", path, "-I",
                                       "-c", _SCRIPT, MARK, str(MAX_ITEMS), str(MAX_TEXT)],
                           cwd="/")
        ran = run_bounded(argv, timeout=timeout, limit=limit,
                          env=wsl_environment({}, base=clean_base_env()))
    except Overrun as exc:
        raise WslCheckFailed(f"the GPU check in WSL {exc}") from None
    except (WslRefusal, OSError) as exc:
        raise WslCheckFailed(f"the GPU check in WSL could not start: {exc}") from None
    return read_answer(ran.stdout, target.distro.name)


def read_answer(stdout: bytes, distro: str) -> WslGpuState:
    """The check's marked line, every field checked. Raises :class:`WslCheckFailed`."""
    text = stdout.decode("utf-8", "replace")
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith(MARK)), None)
    if line is None:
        raise WslCheckFailed("the GPU check in WSL printed no answer")
    try:
        data = bounded.loads(line[len(MARK):], strict=True)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise WslCheckFailed("the GPU check in WSL printed an answer that is not JSON")
    smi = _text(data, "nvidia_smi", MAX_TEXT)
    if smi is not None and not _VERSION.fullmatch(smi):
        raise _unexpected("nvidia_smi")
    packages = data.get("driver_packages")
    return WslGpuState(
        distro, _flag(data, "wsl_libcuda"), _flag(data, "dxg"), smi,
        _text(data, "nvidia_smi_error", MAX_TEXT), _paths(data.get("linux_libcuda")),
        None if packages is None else _names(packages),
        distro_family(_text(data, "os_release", MAX_OS_RELEASE) or ""))


def _unexpected(key: str) -> WslCheckFailed:
    return WslCheckFailed(f"the GPU check in WSL printed an unexpected {key}")


def _flag(data: dict, key: str) -> bool:
    value = data.get(key)
    if not isinstance(value, bool):
        raise _unexpected(key)
    return value


def _text(data: dict, key: str, limit: int) -> str | None:
    value = data.get(key)
    if value is not None and not (isinstance(value, str) and len(value) <= limit):
        raise _unexpected(key)
    return value


def _items(value: object, key: str) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise _unexpected(key)
    items = [v for v in value if isinstance(v, str) and len(v) <= MAX_TEXT]
    if len(items) != len(value):
        raise _unexpected(key)
    return items


def _paths(value: object) -> tuple[str, ...]:
    """Absolute paths; one a terminal could not show as it is (a control character) is said
    with escapes."""
    paths = _items(value, "linux_libcuda")
    if not all(p.startswith("/") for p in paths):
        raise _unexpected("linux_libcuda")
    return tuple(show(p, None) for p in paths)


def _names(value: object) -> tuple[str, ...]:
    names = _items(value, "driver_packages")
    if not all(DEB_PACKAGE.fullmatch(n) for n in names):
        raise _unexpected("driver_packages")
    return tuple(names)


# --- findings -----------------------------------------------------------------------------------


def wsl_findings(report: GpuReport, probe: ProbeResult, ctx: FixContext,
                 head: str) -> list[Finding]:
    """What keeps TensorFlow in the interpreter ``probe``, when it is inside WSL, from the GPU:
    a Linux driver inside the distribution, WSL's GPU support missing (with GPUs on Windows),
    TensorFlow 2.15+ without pip's CUDA libraries; nothing when all is well, or for an
    interpreter outside WSL. ``ctx`` is the probe's."""
    if ctx.platform != "wsl" or not ctx.wsl_path:
        return []
    has_gpu = report.state == GpuState.OK and bool(report.gpus)
    out = _without_and_cuda(probe, ctx, head) if has_gpu else []
    try:
        state = check_wsl_gpu(probe.python)
    except WslCheckFailed as exc:
        return [make_finding("probe-failed", f"{head}: {exc}", ctx,
                             title=finding_title("probe-failed.wsl-check")), *out]
    inside = replace(ctx, distro=state.family)
    where = f"{head}; in WSL {state.distro}"
    if state.linux_driver:
        out.insert(0, _linux_driver(state, probe, inside, where))
    if has_gpu and state.missing():
        out.insert(0, _no_gpu_support(state, report, inside, where))
    return out


def _no_gpu_support(state: WslGpuState, report: GpuReport, ctx: FixContext,
                    where: str) -> Finding:
    evidence = [f"{where}: no {' and no '.join(state.missing())}"]
    if state.wsl_libcuda and state.smi_error:
        evidence.append(f"/usr/lib/wsl/lib/nvidia-smi: {state.smi_error}")
    evidence.append(f"Windows: NVIDIA driver {report.driver_version or '?'}, "
                    f"{len(report.gpus)} GPU(s)")
    return make_finding("wsl-gpu-unavailable", evidence, ctx)


def _linux_driver(state: WslGpuState, probe: ProbeResult, ctx: FixContext,
                  where: str) -> Finding:
    evidence = [f"{where}:"]
    if state.linux_libcuda:
        evidence.append(f"libcuda not from /usr/lib/wsl/lib: {', '.join(state.linux_libcuda)}")
    if state.driver_packages:
        evidence.append(f"dpkg: {', '.join(state.driver_packages)} installed")
    if state.smi_driver:
        evidence.append(f"/usr/lib/wsl/lib/nvidia-smi: Windows driver {state.smi_driver}")
    detail = replace(ctx, detail={"driver_packages": list(state.driver_packages or ())})
    # It breaks the GPU when the loader picks it; while TensorFlow sees the GPU, it waits.
    return make_finding("wsl-linux-driver", evidence, detail,
                        severity="warning" if probe.gpus else "error")


def _without_and_cuda(probe: ProbeResult, ctx: FixContext, head: str) -> list[Finding]:
    """TensorFlow 2.15+'s GPU build without pip's CUDA libraries, and seeing no GPU (or not
    asked: the import was not run)."""
    tf = ctx.tf_version
    gpu_build = (probe.tf_build_info or {}).get("is_cuda_build") is True or probe.built_with_cuda
    if (not tf or kb.minor_of(tf) < AND_CUDA_SINCE or not gpu_build or probe.gpus
            or (probe.import_attempted and not probe.import_ok)):
        return []
    missing = [name for name in AND_CUDA_PACKAGES
               if not any(re.fullmatch(rf"{name}-cu\d+", p) for p in probe.packages)]
    if not missing:
        return []
    return [make_finding("missing-cuda-runtime",
                         f"{head}: no {', '.join(f'{n}-cu*' for n in missing)} (pip's CUDA "
                         "libraries, which tensorflow[and-cuda] installs)", ctx,
                         title=finding_title("missing-cuda-runtime.no-and-cuda",
                                             tf=probe.tf_version))]
