"""What the doctor (and the launcher's pre-run checks) report: findings with evidence and fixes.

A fix is kept as structured steps, not only prose, so the window can offer "copy" and "run"
for each command and the CLI can print them verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from core import messages

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Text:
    """A catalogue message (:mod:`core.messages`) with its parameters: what a finding's title or
    a step's text says, in any language. The English is what ``title`` / ``text`` hold."""

    message_id: str
    params: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, message_id: str, /, **params: object) -> Text:
        return cls(message_id, tuple(params.items()))

    def said(self, language_code: str | None = None) -> str:
        """In ``language_code`` (default: :func:`core.messages.language`); a parameter that is a
        Text itself is said in the same language."""
        return messages.tr(self.message_id, language_code, **{
            name: value.said(language_code) if isinstance(value, Text) else value
            for name, value in self.params})

    @property
    def en(self) -> str:
        return self.said("en")


@dataclass(frozen=True)
class FixStep:
    """One step of a fix: what to do, and the exact command when there is one."""

    text: str
    #: For a terminal: every value in it is quoted for ``shell``.
    command: str | None = None
    #: Where the command runs: "cmd", "powershell", "bash", "conda" (an Anaconda Prompt), "any".
    shell: str = "any"
    #: The same command as programs (argument lists) to run in order without a shell; empty
    #: when it needs a shell, an activated env or an edit (a template): terminal only.
    argv: tuple[tuple[str, ...], ...] = ()
    #: Needs administrator (root) rights / restarts the machine or takes effect after one:
    #: never run with one click.
    admin: bool = False
    reboot: bool = False
    #: ``text`` as a catalogue message, to say it in the reader's language; None: English only.
    message: Text | None = None

    def text_in(self, language_code: str | None = None) -> str:
        return self.message.said(language_code) if self.message else self.text

    def to_json(self) -> dict:
        return {"text": self.text, "command": self.command, "shell": self.shell,
                "argv": [list(a) for a in self.argv], "admin": self.admin,
                "reboot": self.reboot,
                **({"message_id": self.message.message_id} if self.message else {})}


@dataclass(frozen=True)
class Finding:
    """A diagnosis: stable ``id``, ``severity``, one-line ``title``, the ``evidence`` that shows
    it (a file, a version, a log line) and the ``steps`` that fix it."""

    id: str
    severity: Severity
    title: str
    evidence: str
    steps: tuple[FixStep, ...] = field(default_factory=tuple)
    #: The interpreter (its path) this finding is about; None for the machine or a pasted
    #: output. The window shows the finding's severity on that interpreter's card.
    subject: str | None = None
    #: ``title`` as a catalogue message, to say it in the reader's language; None: English only.
    message: Text | None = None

    def title_in(self, language_code: str | None = None) -> str:
        return self.message.said(language_code) if self.message else self.title

    @property
    def fix(self) -> str:
        """The fix as text: each step, with its command indented under it."""
        lines = []
        for step in self.steps:
            lines.append(step.text)
            if step.command:
                lines.extend("    " + c for c in step.command.splitlines())
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "evidence": self.evidence,
            "fix": self.fix,
            "steps": [s.to_json() for s in self.steps],
            **({"subject": self.subject} if self.subject else {}),
            **({"message_id": self.message.message_id} if self.message else {}),
        }


def sort_findings(findings: list[Finding]) -> list[Finding]:
    """Most important first: errors, then warnings, then info; stable within a severity."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])
