"""Update the window's translations: ``pyside6-lupdate`` over every gui/ module, then
``pyside6-lrelease`` to the .qm the app loads. Contexts whose sources are core's words,
translated at run time (``QCoreApplication.translate("Verdict", VERDICTS[...])``), have no
literal for lupdate to find: it marks them vanished, and lrelease would drop them; they are
kept active here.

Run: python scripts/update_translations.py   (then translate what it reports unfinished)
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TS = REPO / "gui" / "translations" / "tensordeck_zh_CN.ts"
#: Contexts translated at run time from core's words (gui/views/machine.py: Verdict).
RUNTIME_CONTEXTS = ("Verdict",)


def tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def keep_runtime_contexts(text: str) -> str:
    for context in RUNTIME_CONTEXTS:
        block = re.search(rf"<name>{context}</name>.*?</context>", text, re.DOTALL)
        if block:
            fixed = block.group(0).replace(' type="vanished"', "")
            text = text[:block.start()] + fixed + text[block.end():]
    return text


def main() -> None:
    sources = sorted(str(p.relative_to(REPO)) for p in (REPO / "gui").rglob("*.py"))
    subprocess.run([tool("pyside6-lupdate"), *sources, "-ts", str(TS)], cwd=REPO, check=True)
    TS.write_text(keep_runtime_contexts(TS.read_text(encoding="utf-8")), encoding="utf-8")
    unfinished = TS.read_text(encoding="utf-8").count('type="unfinished"')
    subprocess.run([tool("pyside6-lrelease"), str(TS), "-qm", str(TS.with_suffix(".qm"))],
                   cwd=REPO, check=True)
    print(f"{TS.name}: {unfinished} unfinished")


if __name__ == "__main__":
    main()
