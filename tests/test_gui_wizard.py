"""The wizard, answered with clicks and keys like a user would: it writes the shipped
quickstart config, checks the interpreter and the script it is given, replaces no file without
asking, and offers only what the machine can do."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QMessageBox,
    QRadioButton,
    QWizard,
)

from core.paths import resource
from tests.conftest import EXAMPLES
from tests.gui_fixtures import NOT_PYTHON, answer, retype, wait_for_run

pytest_plugins = ["tests.gui_fixtures"]

#: The real message box, before the autouse fixture replaces it (these tests answer it).
REAL_QUESTION = QMessageBox.question


def click(qtbot, widget) -> None:
    """A click where a person aims: on the mark of a radio button or a check box (their
    centre may lie past the end of their text), else in the middle."""
    if isinstance(widget, (QRadioButton, QCheckBox)):
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(8, widget.height() // 2))
    else:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def press(qtbot, wizard, which: QWizard.WizardButton) -> None:
    """Click Next or Finish once it is enabled (checks run in the background)."""
    button = wizard.button(which)
    qtbot.waitUntil(button.isEnabled, timeout=60_000)
    click(qtbot, button)


def next_page(qtbot, wizard) -> None:
    page = wizard.currentPage()
    press(qtbot, wizard, QWizard.WizardButton.NextButton)
    assert wizard.currentPage() is not page


@pytest.fixture
def wizard(qtbot, window):
    from gui.wizard import ConfigWizard

    wizard = ConfigWizard(window, look=False)  # no search of the machine
    qtbot.addWidget(wizard)
    wizard.show()
    return wizard


def test_wizard_answers_give_the_quickstart_config(qtbot, window, wizard, tmp_path):
    shutil.copy(EXAMPLES / "train_ps.py", tmp_path / "train_ps.py")
    assert wizard.currentPage() is wizard.interpreter_page
    assert wizard.interpreter_page.chosen() is None  # TensorDeck's own Python
    next_page(qtbot, wizard)
    click(qtbot, wizard.strategy_page.buttons["parameter_server"])
    next_page(qtbot, wizard)
    assert wizard.currentPage() is wizard.machines_page  # none: all on this machine
    next_page(qtbot, wizard)
    editor = wizard.tasks_page.editor
    assert [editor.cell(r, 0).currentText() for r in range(3)] == ["chief", "worker", "ps"]
    port = editor.cell(2, 3)
    qtbot.keyClick(port, Qt.Key.Key_Up)  # no spin box: "auto" does not become port 1
    assert "port" not in editor.value()[2]
    retype(qtbot, port, "23100")  # the ps listens on a fixed port
    next_page(qtbot, wizard)
    qtbot.keyClicks(wizard.script_page.script, str(tmp_path / "train_ps.py"))
    qtbot.keyClicks(wizard.script_page.args, "--steps 300")
    next_page(qtbot, wizard)
    review = wizard.review_page
    assert wizard.currentPage() is review
    retype(qtbot, review.name, "quickstart")
    assert review.path.text() == str(tmp_path / "job.json")
    retype(qtbot, review.path, str(tmp_path / "quickstart.json"))
    preview = json.loads(review.preview.toPlainText())
    assert preview["name"] == "quickstart" and preview["script"] == "train_ps.py"
    press(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert wizard.result() == QWizard.DialogCode.Accepted
    saved = window.apply_wizard(wizard)
    assert saved == tmp_path / "quickstart.json"
    shipped = json.loads((EXAMPLES / "quickstart.json").read_text())
    assert json.loads(saved.read_text()) == shipped
    assert window.cluster.problems == [] and window.current_page() == "cluster"


def test_only_a_python_passes_the_interpreter_page(qtbot, wizard, tmp_path):
    from core.interpreters.probe import interpreter_problem

    text = tmp_path / "python.txt"
    text.write_text("not a program\n")
    text.chmod(0o755)
    page, edit = wizard.interpreter_page, wizard.interpreter_page.python.lineEdit()
    next_button = wizard.button(QWizard.WizardButton.NextButton)
    qtbot.waitUntil(next_button.isEnabled, timeout=60_000)  # TensorDeck's own Python
    good = page.status.text()
    # Twice and out of order: what is typed is checked, Return checks it and stays here.
    for python in (NOT_PYTHON, sys.executable, str(text), str(tmp_path / "missing"),
                   NOT_PYTHON):
        retype(qtbot, edit, python)
        qtbot.keyClick(edit, Qt.Key.Key_Return)
        assert wizard.currentPage() is page
        problem = interpreter_problem(python)
        if problem:
            qtbot.waitUntil(lambda p=problem: page.status.text() == p, timeout=60_000)
            assert not next_button.isEnabled() and "\n" not in page.status.text()
        else:
            qtbot.waitUntil(next_button.isEnabled, timeout=60_000)
            assert page.status.text() == good
    combo = page.python  # back to TensorDeck's own, picked from the list
    combo.showPopup()
    view = combo.view()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualRect(combo.model().index(0, 0)).center())
    qtbot.waitUntil(next_button.isEnabled, timeout=60_000)
    next_page(qtbot, wizard)
    assert wizard.config()["python"] is None


def test_the_script_page_checks_the_script(qtbot, wizard, tmp_path):
    for _ in range(3):
        next_page(qtbot, wizard)
    page, next_button = wizard.script_page, wizard.button(QWizard.WizardButton.NextButton)
    assert wizard.currentPage() is page and not next_button.isEnabled()
    for typed, problem in ((str(tmp_path / "nope.py"), "does not exist"),
                           (str(tmp_path), "is a folder"), (str(tmp_path / "t.py"), None)):
        (tmp_path / "t.py").write_text("print('x')\n")
        retype(qtbot, page.script, typed)
        if problem:
            assert problem in page.script_problem.text() and page.script_problem.isVisible()
            assert not next_button.isEnabled()
        else:
            assert page.script_problem.isHidden() and next_button.isEnabled()
    qtbot.keyClicks(page.args, '--data "my data')  # double quotes: Windows' rules too
    assert not next_button.isEnabled() and "not closed" in page.args_problem.text()
    qtbot.keyClicks(page.args, '"')
    assert next_button.isEnabled() and page.args_problem.isHidden()
    assert wizard.config()["args"] == ["--data", "my data"]


def test_an_existing_file_is_replaced_only_when_the_user_says_so(qtbot, window, wizard,
                                                                 tmp_path, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", REAL_QUESTION)
    (tmp_path / "train.py").write_text("print('x')\n")
    existing = tmp_path / "job.json"
    existing.write_text("{\"mine\": true}\n")
    for _ in range(3):
        next_page(qtbot, wizard)
    qtbot.keyClicks(wizard.script_page.script, str(tmp_path / "train.py"))
    next_page(qtbot, wizard)
    review = wizard.review_page
    assert review.path.text() == str(tmp_path / "job-2.json")  # the default is a new file
    retype(qtbot, review.path, str(existing))
    assert "exists" in review.path_note.text()
    seen: list[str] = []
    answer(QMessageBox.StandardButton.No, seen)
    press(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert seen and str(existing) in seen[0]
    assert wizard.isVisible() and wizard.currentPage() is review
    assert existing.read_text() == "{\"mine\": true}\n"
    answer(QMessageBox.StandardButton.Yes, seen)
    press(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert wizard.result() == QWizard.DialogCode.Accepted
    assert window.apply_wizard(wizard) == existing
    assert json.loads(existing.read_text())["script"] == "train.py"


def test_a_missing_folder_is_made_and_the_run_starts(qtbot, window, wizard, tmp_path):
    (tmp_path / "train.py").write_text("print('trained')\n")
    for _ in range(3):
        next_page(qtbot, wizard)
    qtbot.keyClicks(wizard.script_page.script, str(tmp_path / "train.py"))
    next_page(qtbot, wizard)
    review = wizard.review_page
    target = tmp_path / "new" / "deeper" / "job.json"
    retype(qtbot, review.path, str(target))
    assert "creates the folder" in review.path_note.text()
    retype(qtbot, review.path, str(tmp_path / "train.py" / "job.json"))  # under a file
    assert "is a file" in review.path_problem.text()
    assert not wizard.button(QWizard.WizardButton.FinishButton).isEnabled()
    retype(qtbot, review.path, str(target))
    click(qtbot, review.run_now)
    press(qtbot, wizard, QWizard.WizardButton.FinishButton)
    assert window.apply_wizard(wizard) == target and target.is_file()
    assert window.current_page() == "run"
    assert wait_for_run(qtbot, window.run_view).status == "succeeded"


def test_the_bundled_example_fills_the_script_and_its_arguments(qtbot, wizard, tmp_path,
                                                                monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the user's documents
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path / "Documents"))
    monkeypatch.setenv("WIN_PD_OVERRIDE_PERSONAL", str(tmp_path / "Documents"))  # Windows' own
    next_page(qtbot, wizard)
    for strategy, script in (("parameter_server", "train_ps.py"),
                             ("single", "train_mirrored.py"),
                             ("between_graph", "train_between_graph.py")):
        while wizard.currentPage() is not wizard.strategy_page:
            click(qtbot, wizard.button(QWizard.WizardButton.BackButton))
        click(qtbot, wizard.strategy_page.buttons[strategy])
        while wizard.currentPage() is not wizard.script_page:
            next_page(qtbot, wizard)
        click(qtbot, wizard.script_page.example)
        assert wizard.script_page.path() == resource("examples", script)
        assert wizard.script_page.args.args()  # the example's own arguments
    next_page(qtbot, wizard)
    target = wizard.review_page.target()
    assert target == tmp_path / "Documents" / "TensorDeck" / "job.json"  # not in the app


def test_a_job_on_a_bundled_example_gets_its_own_copy_of_it(qtbot, window, wizard, tmp_path):
    """The example's script is copied beside the job, which names the copy, never a path into
    the app's folder; a different file of that name there is kept (the copy takes -2)."""
    (tmp_path / "train_ps.py").write_text("print('my own script')\n")
    next_page(qtbot, wizard)
    click(qtbot, wizard.strategy_page.buttons["parameter_server"])
    while wizard.currentPage() is not wizard.script_page:
        next_page(qtbot, wizard)
    click(qtbot, wizard.script_page.example)
    next_page(qtbot, wizard)
    retype(qtbot, wizard.review_page.path, str(tmp_path / "job.json"))
    assert json.loads(wizard.review_page.preview.toPlainText())["script"] == "train_ps-2.py"
    press(qtbot, wizard, QWizard.WizardButton.FinishButton)
    saved = window.apply_wizard(wizard)
    assert json.loads(saved.read_text())["script"] == "train_ps-2.py"
    assert (tmp_path / "train_ps-2.py").read_bytes() == (EXAMPLES / "train_ps.py").read_bytes()
    assert (tmp_path / "train_ps.py").read_text() == "print('my own script')\n"
    assert window.cluster.problems == []


def test_a_script_with_a_syntax_error_is_refused_on_its_page(qtbot, wizard, tmp_path):
    """As Start refuses it: every task would fail at once (the wizard's interpreter is this
    Python, whose verdict holds)."""
    for _ in range(3):
        next_page(qtbot, wizard)
    page, next_button = wizard.script_page, wizard.button(QWizard.WizardButton.NextButton)
    broken = tmp_path / "broken.py"
    broken.write_text("def train(:\n    pass\n")
    retype(qtbot, page.script, str(broken))
    assert "invalid syntax" in page.script_problem.text() and not next_button.isEnabled()
    broken.write_text("def train():\n    pass\n")  # fixed: typed again, accepted
    retype(qtbot, page.script, str(broken))
    assert page.script_problem.isHidden() and next_button.isEnabled()


def test_gpu_strategies_are_offered_only_with_gpus(qtbot, window, wizard):
    from core.gpu import read_gpus

    mirrored = wizard.strategy_page.buttons["mirrored"]
    for gpus in ([], [(0, "NVIDIA H200")], []):
        wizard.set_machine_gpus(gpus)
        assert mirrored.isEnabled() == bool(gpus)
    assert "none was found" in wizard.strategy_page.help["mirrored"].text()
    # The wizard that looks at the machine learns its real GPUs itself.
    from gui.wizard import ConfigWizard

    looking = ConfigWizard(window)
    qtbot.addWidget(looking)
    with qtbot.waitSignal(looking.interpreter_page.gpus_found, timeout=120_000):
        looking.show()
    has_gpus = bool(read_gpus(processes=False).gpus)
    assert looking.strategy_page.buttons["mirrored"].isEnabled() == has_gpus


def test_other_machines_of_the_lan_are_a_step_and_reach_the_tasks(qtbot, wizard):
    next_page(qtbot, wizard)
    click(qtbot, wizard.strategy_page.buttons["parameter_server"])
    next_page(qtbot, wizard)
    machines = wizard.machines_page
    click(qtbot, machines.editor.add_button)
    retype(qtbot, machines.editor.cell(0, 0), "gpu-box")
    retype(qtbot, machines.editor.cell(0, 1), "192.168.1.20")
    next_page(qtbot, wizard)
    node = wizard.tasks_page.editor.cell(1, 5)
    assert [node.itemText(i) for i in range(node.count())][1:] == ["gpu-box"]
    node.setCurrentIndex(1)
    config = wizard.config()
    assert config["nodes"]["gpu-box"]["host"] == "192.168.1.20"
    assert config["tasks"][1]["node"] == "gpu-box"
    click(qtbot, wizard.button(QWizard.WizardButton.BackButton))
    click(qtbot, wizard.button(QWizard.WizardButton.BackButton))
    click(qtbot, wizard.strategy_page.buttons["single"])
    next_page(qtbot, wizard)
    assert wizard.currentPage() is wizard.tasks_page  # one process: no machines step
    assert "nodes" not in wizard.config()


def test_every_strategy_core_accepts_is_offered_and_gives_a_config_core_runs(qtbot, window,
                                                                             tmp_path):
    from core.config import config_to_json, load_config, schema
    from gui.wizard import ConfigWizard

    strategies = schema()["properties"]["strategy"]["enum"]
    (tmp_path / "train.py").write_text("print('x')\n")
    wizard = ConfigWizard(window, look=False)
    qtbot.addWidget(wizard)
    assert list(wizard.strategy_page.buttons) == strategies
    for strategy in strategies:
        wizard.restart()
        wizard.show()
        next_page(qtbot, wizard)
        button = wizard.strategy_page.buttons[strategy]
        assert button.text() and button.text() != strategy  # in plain words
        click(qtbot, button)
        while wizard.currentPage() is not wizard.script_page:
            next_page(qtbot, wizard)
        retype(qtbot, wizard.script_page.script, str(tmp_path / "train.py"))
        next_page(qtbot, wizard)
        retype(qtbot, wizard.review_page.path, str(tmp_path / f"{strategy}.json"))
        press(qtbot, wizard, QWizard.WizardButton.FinishButton)
        saved = window.apply_wizard(wizard)
        assert window.cluster.problems == [], strategy
        cfg = load_config(saved)
        assert cfg.strategy == strategy
        data, dumped = json.loads(saved.read_text()), config_to_json(cfg)
        assert [key for key in data if key in dumped] == list(dumped)


def test_what_the_core_says_shows_in_the_ui_language(qtbot, wizard):
    from gui.i18n import install_translators, kind_label

    app = QApplication.instance()
    install_translators(app, "zh_CN")
    try:
        assert kind_label("current") == "当前" and kind_label("unknown-kind") == "unknown-kind"
        edit = wizard.interpreter_page.python.lineEdit()
        retype(qtbot, edit, NOT_PYTHON)
        qtbot.keyClick(edit, Qt.Key.Key_Return)
        status = wizard.interpreter_page.status
        qtbot.waitUntil(lambda: "不能作为 Python 解释器运行" in status.text(), timeout=60_000)
        assert status.text().startswith(NOT_PYTHON + " ")
    finally:
        install_translators(app, "en")
    assert kind_label("current") == "current"


def test_the_wizard_lists_each_interpreter_once(qtbot, window, tmp_path, monkeypatch):
    """Two names of this Python (python, python3) and a copy-free link to it on PATH: the
    interpreter list names it once, as the first choice ("The Python running TensorDeck")."""
    import os

    from core.doctor.machine import same_interpreter
    from core.interpreters.probe import cached_probe
    from gui.wizard import ConfigWizard

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "python3"):
        try:
            (bin_dir / name).symlink_to(sys.executable)
        except OSError:
            pytest.skip("no symbolic links for this user (Windows without developer mode)")
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    wizard = ConfigWizard(window, look=True)
    qtbot.addWidget(wizard)
    wizard.show()
    page = wizard.currentPage()
    qtbot.waitUntil(lambda: "Looking" not in page.status.text(), timeout=60_000)
    listed = [page.python.itemText(i) for i in range(1, page.python.count())]
    keys = [same_interpreter(cached_probe(path, import_tf=False))
            for path in [sys.executable, *listed]]
    assert len(set(keys)) == len(keys), listed
