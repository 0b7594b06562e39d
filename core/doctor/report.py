"""Findings as text a person reads at a glance: severity, title, evidence, fix commands, in the
reader's language (:func:`core.messages.language`: the system's on the command line, the
window's in the window); the evidence and the commands stay as they are.

Evidence quotes pasted logs and interpreters' output: control sequences in it are shown as
escapes (:func:`core.output.visible`), not sent to the terminal."""

from __future__ import annotations

from core.findings import Finding
from core.messages import tr
from core.output import visible

_MARK = {"error": "ERROR", "warning": "WARN ", "info": "INFO "}
_SEVERITY = {"error": "error", "warning": "warning", "ok": "info"}  # an interpreter's state


def render_finding(f: Finding, language_code: str | None = None) -> str:
    lines = [f"{_MARK[f.severity]} {f.title_in(language_code)}  [{f.id}]"]
    lines += [f"      | {ln}" for ln in f.evidence.splitlines()]
    for step in f.steps:
        lines.append(f"      - {step.text_in(language_code)}")
        if step.command:
            lines += [f"          {c}" for c in step.command.splitlines()]
    return "\n".join(visible(line) for line in lines)


def render_text(findings: list[Finding], extra: dict, language_code: str | None = None) -> str:
    """``extra``: what ``tensordeck doctor`` adds to the findings (its interpreters' summaries
    already in ``language_code``)."""
    out = []
    if extra.get("mode") == "machine":
        gpus = extra["gpus"]
        out.append(tr("doctor.gpus", language_code, message=gpus["message"]))
        for p in extra["interpreters"]:
            also = (tr("doctor.also", language_code, paths=", ".join(p["aliases"]))
                    if p["aliases"] else "")
            out.append(visible(f"{_MARK[_SEVERITY[p['state']]]} {p['python']}{also}: "
                               f"{p['summary']}"))
        out += [visible(line) for line in wsl_lines(extra.get("wsl"))]
        out.append("")
    if not findings:
        out.append(tr("doctor.none_in_output" if extra.get("mode") == "explain"
                      else "doctor.none", language_code))
    out += [render_finding(f, language_code) + "\n" for f in findings]
    errors = sum(f.severity == "error" for f in findings)
    out.append(tr("doctor.counts", language_code, errors=errors, others=len(findings) - errors))
    return "\n".join(out)


def wsl_lines(wsl: dict | None) -> list[str]:
    """The doctor's WSL section (when this machine has wsl.exe): each distribution, its WSL
    version and how many Pythons were found in it (the interpreter lines above say what each
    has), or why it cannot train. Its Pythons' own lines are the interpreter lines above."""
    if not wsl or not wsl.get("wsl_exe"):
        return []
    if wsl.get("problem"):
        return [f"{_MARK['warning']} WSL: {wsl['problem']}"]
    out = []
    for d in wsl["distros"]:
        head = f"WSL · {d['name']} (WSL {d['version']}{', default' if d['default'] else ''})"
        if d["problem"]:
            out.append(f"{_MARK['warning']} {head}: {d['problem']}")
        else:
            out.append(f"{_MARK['info']} {head}: {len(d['pythons'])} Python(s) found")
    return out
