"""Update the window's translations: ``pyside6-lupdate`` over every gui/ module, then
``pyside6-lrelease`` to the .qm the app loads. What the core says (the doctor's findings and
verdicts, a run's reasons) is not here: core/messages.py holds its English and Chinese.

Run: python scripts/update_translations.py   (then translate what it reports unfinished)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TS = REPO / "gui" / "translations" / "tensordeck_zh_CN.ts"


def tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def main() -> None:
    sources = sorted(str(p.relative_to(REPO)) for p in (REPO / "gui").rglob("*.py"))
    subprocess.run([tool("pyside6-lupdate"), *sources, "-no-obsolete", "-ts", str(TS)],
                   cwd=REPO, check=True)
    unfinished = TS.read_text(encoding="utf-8").count('type="unfinished"')
    subprocess.run([tool("pyside6-lrelease"), str(TS), "-qm", str(TS.with_suffix(".qm"))],
                   cwd=REPO, check=True)
    print(f"{TS.name}: {unfinished} unfinished")


if __name__ == "__main__":
    main()
