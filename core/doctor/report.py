"""Findings as text a person reads at a glance: severity, title, evidence, fix commands, in the
reader's language (:func:`core.messages.language`: the system's on the command line, the
window's in the window); the evidence and the commands stay as they are.

Evidence quotes pasted logs and interpreters' output: control sequences in it are shown as
escapes (:func:`core.output.visible`), not sent to the terminal."""

from __future__ import annotations

from core.findings import Finding
from core.messages import recognise, tr, translate_text
from core.output import visible

_MARK = {"error": "ERROR", "warning": "WARN ", "info": "INFO "}
_SEVERITY = {"error": "error", "warning": "warning", "ok": "info"}  # an interpreter's state


def render_finding(f: Finding, language_code: str | None = None) -> str:
    lines = [f"{_MARK[f.severity]} {f.title_in(language_code)}  [{f.id}]"]
    lines += [f"      | {ln}" for ln in _evidence(f.evidence, language_code).splitlines()]
    for step in f.steps:
        lines.append(f"      - {step.text_in(language_code)}")
        if step.command:
            lines += [f"          {c}" for c in step.command.splitlines()]
    return "\n".join(visible(line) for line in lines)


def _evidence(evidence: str, language_code: str | None) -> str:
    """The evidence as it is (quoted output), except NVML's line (``doctor.nvml``, core's own
    words): that one is said in ``language_code``."""
    found = recognise(evidence)
    if found is not None and found[0] == "doctor.nvml":
        return translate_text(evidence, language_code)
    return evidence


def render_text(findings: list[Finding], extra: dict, language_code: str | None = None) -> str:
    """``extra``: what ``tensordeck doctor`` adds to the findings (its interpreters' summaries
    already in ``language_code``)."""
    out = []
    if extra.get("mode") == "machine":
        gpus = extra["gpus"]
        out.append(tr("doctor.gpus", language_code,  # NVML's English, said in the language
                      message=translate_text(gpus["message"], language_code)))
        for p in extra["interpreters"]:
            also = (tr("doctor.also", language_code, paths=", ".join(p["aliases"]))
                    if p["aliases"] else "")
            out.append(visible(f"{_MARK[_SEVERITY[p['state']]]} {p['python']}{also}: "
                               f"{p['summary']}"))
        out += [visible(line) for line in wsl_lines(extra.get("wsl"), language_code)]
        out.append("")
    if not findings:
        out.append(tr("doctor.none_in_output" if extra.get("mode") == "explain"
                      else "doctor.none", language_code))
    out += [render_finding(f, language_code) + "\n" for f in findings]
    errors = sum(f.severity == "error" for f in findings)
    out.append(tr("doctor.counts", language_code, errors=errors, others=len(findings) - errors))
    return "\n".join(out)


def wsl_lines(wsl: dict | None, language_code: str | None = None) -> list[str]:
    """The doctor's WSL section (when this machine has wsl.exe): each distribution, its WSL
    version and how many Pythons were found in it (the interpreter lines above say what each
    has), or why it cannot train (WSL's refusal, said in ``language_code``). Its Pythons' own
    lines are the interpreter lines above."""
    if not wsl or not wsl.get("wsl_exe"):
        return []
    if wsl.get("problem"):
        return [f"{_MARK['warning']} WSL: {translate_text(wsl['problem'], language_code)}"]
    out = []
    for d in wsl["distros"]:
        head = f"WSL · {d['name']} (WSL {d['version']}{', default' if d['default'] else ''})"
        if d["problem"]:
            out.append(f"{_MARK['warning']} {head}: "
                       f"{translate_text(d['problem'], language_code)}")
        else:
            out.append(f"{_MARK['info']} {head}: {len(d['pythons'])} Python(s) found")
    return out
