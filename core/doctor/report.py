"""Findings as text a person reads at a glance: severity, title, evidence, fix commands.

Evidence quotes pasted logs and interpreters' output: control sequences in it are shown as
escapes (:func:`core.output.visible`), not sent to the terminal."""

from __future__ import annotations

from core.findings import Finding
from core.output import visible

_MARK = {"error": "ERROR", "warning": "WARN ", "info": "INFO "}
_SEVERITY = {"error": "error", "warning": "warning", "ok": "info"}  # an interpreter's state


def render_finding(f: Finding) -> str:
    lines = [f"{_MARK[f.severity]} {f.title}  [{f.id}]"]
    lines += [f"      | {ln}" for ln in f.evidence.splitlines()]
    for step in f.steps:
        lines.append(f"      - {step.text}")
        if step.command:
            lines += [f"          {c}" for c in step.command.splitlines()]
    return "\n".join(visible(line) for line in lines)


def render_text(findings: list[Finding], extra: dict) -> str:
    out = []
    if extra.get("mode") == "machine":
        gpus = extra["gpus"]
        out.append(f"GPUs: {gpus['message']}")
        for p in extra["interpreters"]:
            also = f" (also {', '.join(p['aliases'])})" if p["aliases"] else ""
            out.append(visible(f"{_MARK[_SEVERITY[p['state']]]} {p['python']}{also}: "
                               f"{p['summary']}"))
        out.append("")
    if not findings:
        out.append("No problem found in this output." if extra.get("mode") == "explain"
                   else "No problem found.")
    out += [render_finding(f) + "\n" for f in findings]
    errors = sum(f.severity == "error" for f in findings)
    out.append(f"{errors} error(s), {len(findings) - errors} other finding(s).")
    return "\n".join(out)
