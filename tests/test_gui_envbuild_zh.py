"""Under the Chinese UI, "Make a TensorFlow environment" builds and says what it does in
Chinese: the lines it adds to the build's log (what an interrupted build left, the check of
the new environment, what TensorFlow sees) and its result (failed, does not import, built),
here and inside WSL 2 (the wsl.exe stand-in, tests/wsl: its plan, its folder, its python3's
problems). The commands and their output stay as they are; the command line keeps English
(tests/test_envcreate.py, tests/test_envcreate_wsl.py)."""

from __future__ import annotations

import re
import sys
import uuid
from dataclasses import replace
from pathlib import Path, PurePath, PurePosixPath

import pytest
from PySide6.QtCore import Qt

from core.envcreate.plan import Plan, Step, env_python
from core.envcreate.target import PROOF
from tests.gui_fixtures import CHINESE
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]

#: What the English of the build says, and none of its own lines may say in Chinese.
ENGLISH = re.compile(r"\b(Removing|interrupted|failed|removed|registered|Checking|imports|"
                     r"does not import|Built|sees|In WSL 2|Registered as|Inside WSL|and later|"
                     r"has no python3|try again)\b")
DISTRO = "Ubuntu-22.04"


def _dialog(qtbot):
    """The Machine view's dialog, once it planned (in the window's language)."""
    from gui.views.machine import MachineView

    view = MachineView(nvml=ReplayNvml({"init_error": "LIBRARY_NOT_FOUND", "system": {},
                                        "devices": []}))
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.env_button, Qt.MouseButton.LeftButton)
    dialog = view.env_dialog
    qtbot.waitUntil(lambda: dialog.plan is not None, timeout=120_000)
    assert dialog.plan.language == "zh_CN"
    return dialog


def _build(qtbot, dialog, plan: Plan) -> list[str]:
    """Build ``plan`` (the dialog's, its steps quick ones) with the dialog's button: the log's
    lines that TensorDeck said (not the steps' output), then the status."""
    dialog.plan = plan
    dialog.build_button.setEnabled(True)
    qtbot.mouseClick(dialog.build_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.building, timeout=180_000)
    log = dialog.log.toPlainText().splitlines()
    return [line for line in log if not line.startswith("$ ") and "boom" not in line]


def _left_by_a_killed_build(folder: Path) -> None:
    (folder / "half").mkdir(parents=True)
    (folder / PROOF).write_text("made\n")


def _failed_in_chinese(dialog, shown: object) -> None:
    """The status says the step failed (with the doctor's reading of its output), what was
    removed, and that nothing was registered, in Chinese."""
    status = dialog.status.text()
    assert status.startswith(f"{dialog.plan.steps[0].text} 失败（退出状态 3）"), status
    assert status.endswith(f"{shown} 已删除；没有注册任何解释器。") and not ENGLISH.search(status)


def _quick(plan: Plan, target: PurePath, python: PurePath, *argv: str) -> Plan:
    return replace(plan, target=target, python=python, steps=(Step(plan.steps[0].text, argv),))


def test_a_failed_step_after_an_interrupted_build_reads_in_chinese(qtbot, chinese, tmp_path):
    dialog = _dialog(qtbot)
    target = tmp_path / "env"
    _left_by_a_killed_build(target)
    said = _build(qtbot, dialog, _quick(dialog.plan, target, target, sys.executable, "-c",
                                        "import sys; print('boom'); sys.exit(3)"))
    assert said[0] == f"正在删除中断的构建在 {target} 中留下的内容", said
    assert said[1] == f"== {dialog.plan.steps[0].text}" and CHINESE.search(said[1])
    _failed_in_chinese(dialog, target)
    assert not target.exists()
    dialog.close()


def test_an_environment_that_does_not_import_tensorflow_reads_in_chinese(qtbot, chinese,
                                                                         tmp_path):
    pytest.importorskip("venv", reason="this Python has no venv module (the embeddable build)")
    dialog = _dialog(qtbot)
    target = tmp_path / "env"
    python = env_python(target, "venv", sys.platform == "win32")
    said = _build(qtbot, dialog, _quick(dialog.plan, target, python, sys.executable, "-m",
                                        "venv", "--without-pip", str(target)))
    assert f"== 正在检查新环境：在 {python} 中 import tensorflow" in said, said
    status = dialog.status.text()
    assert status.startswith("TensorFlow 已安装，但无法导入（") and status.endswith(
        f"）；{target} 已删除。"), status
    assert all(not ENGLISH.search(line) for line in said), said


def test_a_built_environment_reads_in_chinese(qtbot, chinese, tmp_path):
    """The steps done, TensorFlow imports (this interpreter's, for speed): what it sees and
    the result, in Chinese; the interpreter is registered."""
    from core.interpreters.discover import user_interpreters

    dialog = _dialog(qtbot)
    target = tmp_path / "env"
    said = _build(qtbot, dialog, _quick(dialog.plan, target, PurePath(sys.executable),
                                        sys.executable, "-c", "pass"))
    assert any(line.startswith("TensorFlow ") and line.endswith(" 可以导入；它看到的 GPU：无")
               for line in said), said
    status = dialog.status.text()
    assert status.startswith(f"已构建 {sys.executable}，并已加入训练解释器列表"), status
    assert all(not ENGLISH.search(line) for line in [*said, status]), said
    assert user_interpreters() == [sys.executable]


# --- inside WSL 2, through the stand-in ------------------------------------------------------


@pytest.fixture
def windows_facts(wsl_standin, monkeypatch):
    """The dialog plans for a Windows machine with an RTX 3090 and only Python 3.12 (no native
    GPU route), the default distribution read through the stand-in: ``facts(distro)``."""
    import core.envcreate.plan as planning
    from core.doctor import kb
    from core.envcreate.wsl_facts import read_wsl
    from core.gpu import read_gpus

    wsl_standin.use(monkeypatch)
    report = read_gpus(ReplayNvml.load("rtx3090_windows_wddm"), processes=False)

    def facts(distro: str | None = None) -> None:
        machine = planning.MachineFacts(
            "windows", tuple(report.gpus), kb.parse_version(report.cuda_driver_version),
            (("C:\\Python312\\python.exe", (3, 12)),), None, read_wsl(distro))
        monkeypatch.setattr(planning, "gather_facts", lambda **_: machine)

    return facts


@pytest.fixture
def ubuntu_folder(wsl_standin):
    """A new folder in Ubuntu-22.04's home (a Linux path), removed afterwards."""
    folder = f"{wsl_standin.homes[DISTRO]}/envbuild-{uuid.uuid4().hex[:8]}"
    yield folder
    import shutil

    shutil.rmtree(wsl_standin.local(folder), ignore_errors=True)


def test_the_wsl_route_plans_and_builds_in_chinese(qtbot, chinese, windows_facts, wsl_standin,
                                                   ubuntu_folder):
    windows_facts()
    dialog = _dialog(qtbot)
    plan = dialog.plan
    assert plan.wsl is not None and plan.buildable
    text = dialog.plan_view.toPlainText()
    assert text.startswith(f"在 WSL 2（{DISTRO}）中：") and "注册为 wsl://" in text, text
    said = [line for line in text.splitlines() if not line.startswith("  ")]
    assert all(CHINESE.search(line) and not ENGLISH.search(line) for line in said), text
    target = PurePosixPath(ubuntu_folder)
    _left_by_a_killed_build(wsl_standin.local(ubuntu_folder))
    said = _build(qtbot, dialog, _quick(plan, target, target / "bin" / "python", "python3", "-c",
                                        "import sys; print('boom'); sys.exit(3)"))
    shown = f"wsl://{DISTRO}{ubuntu_folder}"
    assert said[0] == f"正在删除中断的构建在 {shown} 中留下的内容", said
    _failed_in_chinese(dialog, shown)
    assert not wsl_standin.local(ubuntu_folder).exists()
    dialog.close()


def test_a_distribution_without_python3_is_said_in_chinese(qtbot, chinese, windows_facts):
    """Minimal has no python3: the steps left to the user say so, and how to fix it."""
    windows_facts("Minimal")
    dialog = _dialog(qtbot)
    assert not dialog.plan.buildable
    first = dialog.plan.manual[0]
    assert first.startswith("Minimal 中没有能运行的 python3（") and "然后重试" in first, first
    assert "sudo apt install python3 python3-venv" in first  # the command stays a command


@pytest.mark.parametrize(("distro", "english"), [
    ("Legacy", "WSL distribution Legacy runs as WSL 1, which has no GPU: convert it with "
               "'wsl --set-version Legacy 2'"),
    ("Nope", "no WSL distribution is named Nope; installed: "),
], ids=["wsl1", "unknown"])
def test_wsls_refusal_in_the_plan_is_said_in_chinese(qtbot, chinese, windows_facts, distro,
                                                      english):
    """A WSL 1 distribution (no GPU) or one WSL does not know: the steps left to the user say
    WSL's refusal in Chinese, its command as it is; the command line keeps the English."""
    from core.envcreate.wsl_facts import read_wsl

    assert read_wsl(distro).problem.startswith(english)  # core keeps English
    windows_facts(distro)
    dialog = _dialog(qtbot)
    assert not dialog.plan.buildable
    first = dialog.plan.manual[0]
    if distro == "Legacy":
        assert first == ("WSL 发行版 Legacy 以 WSL 1 运行，而 WSL 1 无法使用 GPU：用 "
                         "'wsl --set-version Legacy 2' 把它转换为 WSL 2"), first
    else:
        assert first.startswith("没有名为 Nope 的 WSL 发行版；已安装："), first
    text = dialog.plan_view.toPlainText()
    assert first in text and english.split(";")[0] not in text, text
    dialog.close()
