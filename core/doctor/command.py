"""``tensordeck doctor``: diagnose this machine's interpreters, or explain a pasted output.

Exit status: 0 no error found, 1 errors found, 2 bad usage (one message on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from core import messages
from core.doctor.report import render_text
from core.exitcodes import EXIT_USAGE
from core.findings import Finding


def doctor_command(args: argparse.Namespace, *, nvml: Any = None) -> int:
    """``nvml``: the NVML module to read the GPUs with (None: the real one; tests replay)."""
    if args.explain is not None:
        if args.python or args.no_import:
            return _usage("--explain reads a captured output; it cannot be combined with "
                          "--python or --no-import")
        return _explain(args)
    if args.platform or args.tf_version or args.cuda_version:
        return _usage("--platform, --tf-version and --cuda-version describe an --explain FILE; "
                      "add --explain FILE (or '-' for stdin)")
    return _machine(args, nvml)


def _usage(message: str) -> int:
    print(f"tensordeck doctor: {message}", file=sys.stderr)
    return EXIT_USAGE


def _explain(args: argparse.Namespace) -> int:
    from core.doctor.capture import CaptureError, read_captured
    from core.doctor.explain import explain

    try:
        captured = read_captured(args.explain)
    except CaptureError as exc:
        return _usage(str(exc))
    text = captured.text
    if captured.note:
        print(f"tensordeck doctor: {captured.note}", file=sys.stderr)
    if not text.strip():
        return _usage(f"{'stdin' if args.explain == '-' else args.explain} is empty: paste the "
                      "error output of 'import tensorflow' or of the training run")
    findings = explain(text, platform=args.platform, tf_version=args.tf_version,
                       cuda_version=args.cuda_version)
    return _emit(args, findings, {"mode": "explain"})


def _machine(args: argparse.Namespace, nvml: Any) -> int:
    from core.doctor.machine import diagnose_machine, interpreter_statuses
    from core.gpu import read_gpus
    from core.interpreters.probe import probe_interpreter

    pythons, problem = _given_pythons(args.python)
    if problem:
        return _usage(problem)
    wsl = None
    if not pythons:
        from core.interpreters.discover import discover_interpreters
        from core.wsl.discover import survey_wsl

        # Asking conda for its envs can take seconds; the fast mode reads conda's folders only.
        pythons = [i.path for i in discover_interpreters(use_conda=not args.no_import)]
        wsl = survey_wsl()
        pythons += [p for p in wsl.pythons() if p not in pythons]  # a registered one: listed
    started = time.perf_counter()
    gpu_report = read_gpus(nvml, processes=False)
    probes = [probe_interpreter(p, import_tf=not args.no_import) for p in pythons]
    findings = diagnose_machine(gpu_report, probes)
    by_path = {p.python: p for p in probes}
    statuses = interpreter_statuses(gpu_report, probes, findings)
    language = _language(args)
    extra = {
        "mode": "machine",
        "seconds": round(time.perf_counter() - started, 3),
        "gpus": {"state": gpu_report.state.value, "message": gpu_report.message,
                 "driver_version": gpu_report.driver_version,
                 "cuda_driver_version": gpu_report.cuda_driver_version,
                 "count": len(gpu_report.gpus)},
        "interpreters": [{
            "python": p.python, "python_version": p.python_version, "tf_version": p.tf_version,
            "import_attempted": p.import_attempted, "import_ok": p.import_ok,
            "import_seconds": p.import_seconds, "built_with_cuda": p.built_with_cuda,
            "gpus": p.gpus, "error": p.error, "state": st.state, "verdict": st.verdict,
            "summary": st.summary(p, language), "aliases": list(st.aliases),
        } for st in statuses for p in [by_path[st.python]]],
        "wsl": wsl.to_json() if wsl else None,
    }
    return _emit(args, findings, extra)


def _given_pythons(given: list[str]) -> tuple[list[str], str | None]:
    """``--python`` values as the probe takes them (absolute paths, checked ``wsl://``
    names), or the usage problem of the first that is neither."""
    from core.interpreters.probe import canonical
    from core.wsl.paths import is_wsl_spec, parse_wsl_spec
    from core.wsl.refusals import WslPathError

    pythons = [canonical(p) for p in given]
    for python in pythons:
        if is_wsl_spec(python):
            try:
                parse_wsl_spec(python)
            except WslPathError as exc:
                return [], f"--python {exc}"
        elif not os.path.isfile(python):
            return [], (f"--python {python}: no such file. Give the path of a python executable "
                        "(e.g. C:\\Users\\me\\anaconda3\\envs\\tf\\python.exe) or a WSL "
                        "interpreter (wsl://Ubuntu-22.04/home/me/tf/bin/python)")
    return pythons, None


def _language(args: argparse.Namespace) -> str:
    """``--json`` is for programs: English, with the message ids; text follows the system."""
    return "en" if args.json else messages.language()


def _emit(args: argparse.Namespace, findings: list[Finding], extra: dict) -> int:
    if args.json:
        print(json.dumps({"findings": [f.to_json() for f in findings], **extra}, indent=2))
    else:
        print(render_text(findings, extra, _language(args)))
    return 1 if any(f.severity == "error" for f in findings) else 0
