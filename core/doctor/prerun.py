"""Checks the launcher runs before it starts a job: cheap, from the cached probe.

The TensorFlow import (seconds) happens only when GPUs are requested and no cached probe
answers; otherwise the interpreter's metadata (~0.1 s, or the cache) is enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from core.doctor import kb
from core.doctor.context import probe_platform
from core.doctor.fixes import FixContext, finding_title, make_finding
from core.doctor.scriptscan import scan_script
from core.findings import Finding, sort_findings
from core.interpreters.probe import ProbeResult, cached_probe


def prerun_findings(python: str, *, strategy: str, script: Path, wants_gpus: bool,
                    env: Mapping[str, str]) -> list[Finding]:
    """Problems that would make this run fail or silently train on CPU."""
    probe = cached_probe(python, import_tf=wants_gpus)
    platform = probe_platform(probe)
    tf = kb.parse_version(probe.tf_version)
    ctx = FixContext(platform=platform, tf_version=tf,
                     python=kb.parse_version(probe.python_version), python_exe=python)
    if probe.python_version is None:
        return [make_finding("probe-failed", f"{python}: {probe.error}", ctx)]
    if not probe.tf_version:
        return [make_finding("tf-not-installed", f"{python}: no tensorflow distribution", ctx,
                             severity="error")]
    findings = scan_script(script, tf_version=probe.tf_version, env=env,
                           packages=probe.packages, strategy=strategy, platform=platform,
                           python_exe=python)
    if wants_gpus and probe.import_attempted:
        findings += _gpu_findings(probe, ctx)
    return sort_findings(findings)


def _gpu_findings(probe: ProbeResult, ctx: FixContext) -> list[Finding]:
    from core.doctor.explain import explain  # its rules cost ~20 ms to load: only when needed

    head = f"{probe.python}: TensorFlow {probe.tf_version}"
    if probe.import_attempted and not probe.import_ok:
        found = explain(probe.import_stderr or probe.error or "", platform=ctx.platform,
                        tf_version=probe.tf_version)
        return found or [make_finding("native-runtime-load-failed", f"{head}: {probe.error}",
                                      ctx)]
    if probe.gpus:
        return []
    return _no_gpu_findings(probe, ctx, head)


def _no_gpu_findings(probe: ProbeResult, ctx: FixContext, head: str) -> list[Finding]:
    """Why TensorFlow, which imports, sees no GPU although the job asks for some."""
    from core.doctor.explain import probe_errors

    title = finding_title("prerun.no-gpu", tf=probe.tf_version)
    if ctx.platform == "wsl":
        inside = [f for f in _wsl_findings(probe, ctx, head) if f.severity == "error"]
        if inside:  # why TensorFlow there sees no GPU: a Linux driver, WSL without GPU support
            return inside
    if ctx.platform == "windows" and ctx.tf_version and not kb.windows_gpu_supported(
            ctx.tf_version):
        return [make_finding("tf-windows-gpu-unsupported", head, ctx, title=title)]
    if probe.built_with_cuda is False:
        return [make_finding("cpu-only-build", f"{head}: is_built_with_cuda() = False", ctx,
                             severity="error", title=title)]
    found = probe_errors(probe.import_stderr, platform=ctx.platform,
                         tf_version=probe.tf_version)
    first = found[0] if found else make_finding("missing-cuda-runtime", head, ctx)
    return [replace(first, severity="error", title=title.en, message=title,
                    evidence=f"{head}\n{first.evidence}"),
            *found[1:]]


def _wsl_findings(probe: ProbeResult, ctx: FixContext, head: str) -> list[Finding]:
    """The doctor's checks inside the distribution (one bounded wsl.exe run), with this
    machine's GPUs as NVML sees them on the Windows side."""
    from core.doctor.wsl_checks import wsl_findings
    from core.gpu import read_gpus

    return wsl_findings(read_gpus(processes=False), probe, ctx, head)
