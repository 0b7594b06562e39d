"""Diagnose this machine: the NVIDIA driver (NVML report) and each probed training
interpreter (versions, packages, the ``import tensorflow`` outcome, the devices TF sees)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from core import messages
from core.doctor import kb
from core.doctor.context import OS_RELEASE, linux_distro, probe_platform
from core.doctor.depwalk import application_dirs, python_searches_path, walk, walk_finding
from core.doctor.explain import explain, probe_errors
from core.doctor.fixes import FixContext, finding_title, make_finding
from core.doctor.wsl_checks import wsl_findings
from core.findings import Finding, sort_findings
from core.gpu.capability import build_minimum, build_runs_on, capability_text
from core.gpu.info import GpuReport, GpuState
from core.interpreters.probe import TF_DISTRIBUTIONS, ProbeResult
from core.wsl.paths import is_wsl_spec, parse_wsl_spec

_SIGILL_CODES = (-4, 0xC000001D, -1073741795)


def diagnose_machine(gpu_report: GpuReport, probes: Sequence[ProbeResult], *,
                     os_release: Path = OS_RELEASE) -> list[Finding]:
    """What to fix on this machine. Facts the interpreter list already shows (TF sees the GPU,
    TF is not installed, a CPU build on a machine without GPU) are not findings; each finding
    about one interpreter names it as its ``subject``. ``os_release`` tells the Linux family
    for the driver commands. An interpreter inside WSL gets a check run in its distribution
    (:mod:`core.doctor.wsl_checks`)."""
    distro = linux_distro(os_release) if this_platform() == "linux" else None
    findings = _gpu_findings(gpu_report, distro)
    for probe in unique_probes(probes):
        findings += [replace(f, subject=probe.python)
                     for f in _probe_findings(gpu_report, probe, distro)]
    return sort_findings(_dedupe(findings))


#: What an interpreter can be; an interpreter card and the CLI's interpreter line say it with
#: the message "verdict.<verdict>" (the finding titles use the same words: "CPU-only build").
VERDICTS = ("probe-failed", "no-tf", "not-imported", "import-failed", "gpu", "gpu-build-no-gpu",
            "cpu-build")
_STATE = {"error": "error", "warning": "warning", "info": "ok"}


@dataclass(frozen=True)
class InterpreterStatus:
    """One interpreter as the Machine view's card and the CLI show it. ``state`` (ok, warning,
    error) is the worst severity of its findings, so the card and the findings agree."""

    python: str
    verdict: str
    state: str
    #: Other paths that start the same interpreter (a pyenv shim, python3 next to python).
    aliases: tuple[str, ...] = ()

    def summary(self, probe: ProbeResult, language_code: str | None = None) -> str:
        """"Python 3.10.11 · TensorFlow 2.10.1 · <verdict>", the verdict in ``language_code``
        (default: :func:`core.messages.language`)."""
        words = messages.tr(f"verdict.{self.verdict}", language_code, n=len(probe.gpus))
        if self.verdict == "probe-failed":
            return f"{words}: {probe.error}"
        tf = f" · TensorFlow {probe.tf_version}" if probe.tf_version else ""
        return f"Python {probe.python_version or '?'}{tf} · {words}"


def interpreter_statuses(report: GpuReport, probes: Sequence[ProbeResult],
                         findings: Sequence[Finding]) -> list[InterpreterStatus]:
    """The interpreters to list, one per interpreter (aliases folded), with the state their
    findings give them. The machine's own GPU findings count for GPU builds only."""
    machine_wide = [f.severity for f in findings if f.subject is None]
    out = []
    for probe, aliases in unique_probes_with_aliases(probes):
        verdict = _verdict(probe)
        severities = [f.severity for f in findings if f.subject == probe.python]
        if verdict == "gpu-build-no-gpu":
            severities += machine_wide
        if verdict in ("probe-failed", "import-failed"):
            severities.append("error")
        elif verdict == "no-tf":
            severities.append("warning")
        state = min((_STATE[s] for s in severities), key=("error", "warning", "ok").index,
                    default="ok")
        out.append(InterpreterStatus(probe.python, verdict, state, tuple(aliases)))
    return out


def _verdict(probe: ProbeResult) -> str:
    if probe.python_version is None:
        return "probe-failed"
    if not probe.tf_version:
        return "no-tf"
    if not probe.import_attempted:
        return "not-imported"
    if not probe.import_ok:
        return "import-failed"
    if probe.gpus:
        return "gpu"
    return "cpu-build" if probe.built_with_cuda is False else "gpu-build-no-gpu"


def same_interpreter(probe: ProbeResult) -> tuple[str, str]:
    """What the child itself said it is: its real executable and its environment (a venv's
    python links to the base binary but is another environment). Inside WSL its paths are
    the distribution's, which this machine cannot resolve: the distribution and the paths as
    the child said them."""
    exe = probe.executable or probe.python
    if is_wsl_spec(probe.python):
        return (f"{parse_wsl_spec(probe.python).distro}:{exe}", probe.prefix or "")
    return (os.path.normcase(os.path.realpath(exe)), os.path.normcase(probe.prefix or ""))


def unique_probes_with_aliases(
        probes: Sequence[ProbeResult]) -> list[tuple[ProbeResult, list[str]]]:
    """One probe per interpreter, in order, with the other paths that start it. Probes that
    failed are never merged (nothing says what they are)."""
    groups: dict[tuple[str, str], tuple[ProbeResult, list[str]]] = {}
    out = []
    for probe in probes:
        key = same_interpreter(probe) if probe.python_version else ("", probe.python)
        if key in groups:
            groups[key][1].append(probe.python)
            continue
        groups[key] = (probe, [])
        out.append(groups[key])
    return out


def unique_probes(probes: Sequence[ProbeResult]) -> list[ProbeResult]:
    return [probe for probe, _ in unique_probes_with_aliases(probes)]


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        key = (f.id, f.title, f.evidence)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _gpu_findings(report: GpuReport, distro: str | None) -> list[Finding]:
    ctx = FixContext(platform=this_platform(), distro=distro)
    nvml = messages.tr("doctor.nvml", "en", message=report.message)  # the window says it
    # Without a driver, CPU training still works: a warning, not an error.
    if report.state == GpuState.NO_DRIVER:
        return [make_finding("no-nvidia-driver", nvml, ctx,
                             severity="warning",
                             title=finding_title("no-nvidia-driver.cpu-training"))]
    if report.state in (GpuState.DRIVER_NOT_LOADED, GpuState.DRIVER_MISMATCH):
        return [make_finding("driver-not-loaded", nvml, ctx)]
    if report.state == GpuState.ERROR:
        return [make_finding("driver-not-loaded", nvml, ctx,
                             severity="warning",
                             title=finding_title("driver-not-loaded.error"))]
    return []


def this_platform() -> str:
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    try:
        return "wsl" if "microsoft" in Path("/proc/version").read_text().lower() else "linux"
    except OSError:
        return "linux"


def _probe_findings(report: GpuReport, probe: ProbeResult, distro: str | None) -> list[Finding]:
    platform = probe_platform(probe)
    tf = kb.parse_version(probe.tf_version)
    py = kb.parse_version(probe.python_version)
    ctx = FixContext(platform=platform, tf_version=tf, python=py, python_exe=probe.python,
                     distro=distro)
    head = f"{probe.python}: Python {probe.python_version or '?'}"
    if probe.python_version is None:
        return [make_finding("probe-failed", f"{probe.python}: {probe.error}", ctx)]
    if not probe.tf_version:
        return []  # the interpreter list says so; nothing is broken
    head += f", TensorFlow {probe.tf_version}"
    out = _package_findings(probe, ctx, head)
    if probe.bits == 32:
        out.append(make_finding("python-unsupported", head + " (32-bit)",
                                FixContext(platform, tf, py, probe.python, detail={"bits": 32})))
    row = kb.python_range_for(tf, platform)
    if row and py and not row.supports_python(py):
        out.append(make_finding("python-unsupported", head + f"; TensorFlow {row.label} supports "
                                f"Python {row.python_text}", ctx))
    has_gpu = report.state == GpuState.OK and bool(report.gpus)
    if platform == "windows" and tf and not kb.windows_gpu_supported(tf) and has_gpu:
        out.append(make_finding("tf-windows-gpu-unsupported",
                                head + f"; {len(report.gpus)} NVIDIA GPU(s) present", ctx))
    out += _driver_findings(report, probe, ctx, head)
    arch = _arch_findings(report, probe, ctx, head)
    wsl = wsl_findings(report, probe, ctx, head)
    return out + arch + wsl + _import_findings(report, probe, ctx, head, arch=arch, wsl=wsl)


def _import_findings(report: GpuReport, probe: ProbeResult, ctx: FixContext, head: str, *,
                     arch: list[Finding], wsl: list[Finding]) -> list[Finding]:
    """What the probe's ``import tensorflow`` shows: why it failed, or why TensorFlow sees no
    GPU of the machine, unless ``arch`` says why it cannot use one, or an error ``wsl`` found
    (inside WSL) why it sees none."""
    if not probe.import_attempted:
        return []
    if not probe.import_ok:
        return _import_failed(probe, ctx, head)
    if any(f.severity == "error" for f in wsl):
        return []
    has_gpu = report.state == GpuState.OK and bool(report.gpus)
    return _devices(report, probe, ctx, head, has_gpu, explained=bool(arch))


def _package_findings(probe: ProbeResult, ctx: FixContext, head: str) -> list[Finding]:
    pkgs = probe.packages
    tf_dists = {d: pkgs[d] for d in TF_DISTRIBUTIONS if d in pkgs}
    out = []
    listed = ", ".join(f"{d} {v}" for d, v in tf_dists.items())
    if len({v for v in tf_dists.values()}) > 1:
        out.append(make_finding("mixed-tf-packages", f"{head}; installed: {listed}", ctx))
    elif len(set(tf_dists) - {"tensorflow-intel"}) > 1:
        # One version twice (tensorflow-cpu, then tf-keras pulling in tensorflow): both write
        # the same tensorflow/ folder, and uninstalling either breaks the other. Windows'
        # tensorflow 2.11-2.15 is a shell around tensorflow-intel by design.
        out.append(make_finding("mixed-tf-packages", f"{head}; installed: {listed}", ctx,
                                severity="warning",
                                title=finding_title("mixed-tf-packages.one-version-twice")))
    tf = ctx.tf_version
    keras = kb.parse_version(pkgs.get("keras"))
    # TF 2.6-2.15 load the separate keras package of the same minor release.
    if tf and keras and (2, 6) <= kb.minor_of(tf) < (2, 16) and kb.minor_of(keras) != kb.minor_of(
            tf):
        out.append(make_finding("mixed-tf-packages", f"{head}; keras {pkgs['keras']}", ctx,
                                severity="warning",
                                title=finding_title("mixed-tf-packages.keras-minor")))
    tfk = kb.parse_version(pkgs.get("tf-keras"))
    if tf and tfk and kb.minor_of(tfk) != kb.minor_of(tf):
        out.append(make_finding("mixed-tf-packages", f"{head}; tf-keras {pkgs['tf-keras']}", ctx,
                                severity="warning",
                                title=finding_title("mixed-tf-packages.tf-keras-minor")))
    return out


def _build_cuda(probe: ProbeResult, platform: str) -> str | None:
    """The CUDA the installed build uses: its build_info (``12.5.1``, Windows ``64_112``), else
    the KB row for its version."""
    info = probe.tf_build_info or {}
    raw = str(info.get("cuda_version") or "")
    m = re.fullmatch(r"64_(\d+)(\d)", raw)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    if kb.parse_version(raw):
        return raw
    if info.get("is_cuda_build") is False:
        return None
    row = kb.find_build(probe.tf_version, platform, "gpu")
    return row.cuda if row else None


def _driver_findings(report: GpuReport, probe: ProbeResult, ctx: FixContext,
                     head: str) -> list[Finding]:
    if report.state != GpuState.OK or not report.cuda_driver_version:
        return []
    need = _build_cuda(probe, ctx.platform or "linux")
    have = kb.parse_version(report.cuda_driver_version)
    want = kb.parse_version(need)
    if not (have and want) or kb.minor_of(have) >= kb.minor_of(want):
        return []
    # CUDA 11+ minor-version compatibility lets an 11.x runtime run on any 11.x driver.
    if want[0] >= 11 and have[0] == want[0]:
        return []
    detail = FixContext(ctx.platform, ctx.tf_version, ctx.python, ctx.python_exe,
                        detail={"cuda": need})
    return [make_finding("driver-too-old", f"{head} needs CUDA {need}; driver "
                         f"{report.driver_version} supports CUDA {report.cuda_driver_version}",
                         detail)]


def _arch_findings(report: GpuReport, probe: ProbeResult, ctx: FixContext,
                   head: str) -> list[Finding]:
    """A GPU of this machine the build has no code for (its build_info's architectures)."""
    info = probe.tf_build_info or {}
    archs = info.get("cuda_compute_capabilities")
    if report.state != GpuState.OK or info.get("is_cuda_build") is False or not isinstance(
            archs, list):
        return []
    minimum = build_minimum(archs)
    since = f" (compute capability {capability_text(minimum)} and up)" if minimum else ""
    uncovered: dict[tuple[str, tuple[int, int]], list[int]] = {}
    for gpu in report.gpus:
        cc = gpu.compute_capability
        if cc and not gpu.error and not build_runs_on(archs, cc):
            uncovered.setdefault((gpu.name or "?", cc), []).append(gpu.index)
    out = []
    for (name, cc), indexes in uncovered.items():
        gpus = "GPU " + ", ".join(map(str, indexes))
        out.append(make_finding(
            "gpu-arch-unsupported",
            f"{head}; {gpus}: {name}, compute capability {capability_text(cc)}; this build has "
            f"code for {', '.join(archs)}{since}",
            FixContext(ctx.platform, ctx.tf_version, ctx.python, ctx.python_exe,
                       distro=ctx.distro, detail={"capability": cc}),
            title=finding_title("gpu-arch-unsupported.gpu", tf=probe.tf_version, gpu=name,
                                capability=capability_text(cc))))
    return out


def _import_failed(probe: ProbeResult, ctx: FixContext, head: str) -> list[Finding]:
    text = probe.import_stderr or probe.error or ""
    code = probe.import_returncode
    if code in _SIGILL_CODES or (code is not None and code & 0xFFFFFFFF == 0xC000001D):
        text += "\nIllegal instruction (exit code 0xC000001D / SIGILL)"
    found = explain(text, platform=ctx.platform, tf_version=probe.tf_version,
                    distro=ctx.distro)
    walked = _walk_native(probe, ctx)
    out = ([walked] if walked else []) + found
    if probe.timed_out:
        out.append(make_finding("probe-failed", f"{head}: {probe.error}", ctx,
                                title=finding_title("probe-failed.hung")))
    if not out:
        out.append(make_finding("native-runtime-load-failed", f"{head}: {probe.error}", ctx))
    return [_with_head(f, head) for f in out]


def _walk_native(probe: ProbeResult, ctx: FixContext) -> Finding | None:
    # Inside WSL the native module is a file of the distribution, not of this machine.
    if (not probe.tf_native_module or is_wsl_spec(probe.python)
            or not Path(probe.tf_native_module).is_file()):
        return None
    from core.interpreters.layout import env_layout
    from core.interpreters.probe import probe_env

    # The library path the probe (and every task) ran with: activation puts a conda env's
    # library folders first. Windows variable names ignore case (Path / PATH).
    windows = ctx.platform == "windows"
    var = "PATH" if windows else "LD_LIBRARY_PATH"
    value = next((v for k, v in probe_env(probe.python).items()
                  if (k.upper() if windows else k) == var), "")
    listed = [Path(p) for p in value.split(os.pathsep) if p]
    native = Path(probe.tf_native_module)
    if windows:
        conda = env_layout(probe.python).kind == "conda"
        searched = python_searches_path(ctx.python, conda)
        result = walk(native, app_dirs=application_dirs(probe.python),
                      path_dirs=listed if searched else [])
    else:
        result = walk(native, search_dirs=listed)
    return walk_finding(result, FixContext(ctx.platform, ctx.tf_version, ctx.python,
                                           ctx.python_exe))


def _with_head(f: Finding, head: str) -> Finding:
    """Name the interpreter in the evidence (several may be diagnosed at once)."""
    if f.evidence.startswith(head):
        return f
    return replace(f, evidence=f"{head}\n{f.evidence}")


def _devices(report: GpuReport, probe: ProbeResult, ctx: FixContext, head: str,
             has_gpu: bool, *, explained: bool) -> list[Finding]:
    # Seeing the GPUs, or no GPU on a machine without one: the interpreter list says it all.
    # A GPU the build has no code for (``explained``) is why TF ignores it.
    if probe.gpus or not has_gpu:
        return []
    seconds = f" (import {probe.import_seconds:.1f} s)" if probe.import_seconds else ""
    if probe.built_with_cuda is False:
        return [make_finding("cpu-only-build", f"{head}: is_built_with_cuda() = False{seconds}",
                             ctx, severity="warning",
                             title=finding_title("cpu-only-build.gpus-present",
                                                 tf=probe.tf_version, n=len(report.gpus)))]
    found = probe_errors(probe.import_stderr, platform=ctx.platform,
                         tf_version=probe.tf_version, distro=ctx.distro)
    if not found and explained:
        return []
    if not found:
        found = [make_finding("missing-cuda-runtime", f"{head}: GPU build, GPUs present, TF lists "
                              "none", FixContext(ctx.platform, ctx.tf_version, ctx.python,
                                                 ctx.python_exe, detail={"unnamed": True}))]
    return [_with_head(f, head) for f in found]
