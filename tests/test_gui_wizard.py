"""The wizard, answered like a user would, writes the shipped quickstart config."""

from __future__ import annotations

import json
import shutil

from tests.conftest import EXAMPLES
from tests.gui_fixtures import retype

pytest_plugins = ["tests.gui_fixtures"]


def test_wizard_answers_give_the_quickstart_config(qtbot, window, tmp_path):
    from gui.wizard import ConfigWizard

    shutil.copy(EXAMPLES / "train_ps.py", tmp_path / "train_ps.py")
    wizard = ConfigWizard(window, look=False)  # no interpreter probes
    qtbot.addWidget(wizard)
    wizard.show()
    assert wizard.currentPage() is wizard.interpreter_page
    assert wizard.interpreter_page.chosen() is None  # TensorDeck's own Python
    wizard.next()
    wizard.strategy_page.buttons["parameter_server"].setChecked(True)
    wizard.next()
    editor = wizard.tasks_page.editor
    assert [editor.cell(r, 0).currentText() for r in range(3)] == ["chief", "worker", "ps"]
    retype(qtbot, editor.cell(2, 3), "23100")  # the ps listens on a fixed port
    wizard.next()
    wizard.script_page.script.setText(str(tmp_path / "train_ps.py"))
    wizard.script_page.args.setText("--steps 300")
    wizard.next()
    review = wizard.review_page
    assert wizard.currentPage() is review
    review.name.setText("quickstart")
    assert review.path.text() == str(tmp_path / "job.json")
    review.path.setText(str(tmp_path / "quickstart.json"))
    preview = json.loads(review.preview.toPlainText())
    assert preview["name"] == "quickstart" and preview["script"] == "train_ps.py"
    saved = window.apply_wizard(wizard)
    assert saved == tmp_path / "quickstart.json"
    shipped = json.loads((EXAMPLES / "quickstart.json").read_text())
    assert json.loads(saved.read_text()) == shipped
    assert window.cluster.problems == [] and window.current_page() == "cluster"


def test_single_gpu_choice_gives_one_worker_without_cluster(qtbot, window):
    from gui.wizard import ConfigWizard

    wizard = ConfigWizard(window, look=False)
    qtbot.addWidget(wizard)
    wizard.tasks_page.set_machine_gpus([(0, "NVIDIA H200"), (1, "NVIDIA H200")])
    wizard.show()
    wizard.next()
    wizard.next()  # "One GPU" is the default choice
    picker = wizard.tasks_page.editor.cell(0, 4)
    [a for a in picker.menu().actions() if a.isCheckable()][1].setChecked(True)
    assert not wizard.tasks_page.editor.add_button.isEnabled()
    wizard.script_page.script.setText("train.py")
    config = wizard.config()
    assert config["strategy"] == "single" and config["cluster_spec"] is None
    assert config["tasks"] == [{"role": "worker", "gpus": [1]}]
    assert config["env"] == {"TF_CPP_MIN_LOG_LEVEL": "1"}


def test_an_unclosed_quote_in_the_arguments_holds_the_script_page(qtbot, window):
    from gui.wizard import ConfigWizard

    wizard = ConfigWizard(window, look=False)
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    wizard.next()
    page = wizard.script_page
    assert wizard.currentPage() is page
    page.script.setText("train.py")
    qtbot.keyClicks(page.args, "--data 'my data")
    assert not page.isComplete() and "not closed" in page.args_problem.text()
    assert page.args_problem.isVisible()
    qtbot.keyClicks(page.args, "'")
    assert page.isComplete() and page.args_problem.isHidden()
    assert wizard.config()["args"] == ["--data", "my data"]


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
        wizard.next()
        button = wizard.strategy_page.buttons[strategy]
        assert button.text() and button.text() != strategy  # in plain words
        button.click()
        wizard.next()
        wizard.next()
        wizard.script_page.script.setText(str(tmp_path / "train.py"))
        wizard.next()
        wizard.review_page.path.setText(str(tmp_path / f"{strategy}.json"))
        saved = window.apply_wizard(wizard)
        assert window.cluster.problems == [], strategy
        cfg = load_config(saved)
        assert cfg.strategy == strategy
        data, dumped = json.loads(saved.read_text()), config_to_json(cfg)
        assert [key for key in data if key in dumped] == list(dumped)
