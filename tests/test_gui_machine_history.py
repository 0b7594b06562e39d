"""The Machine view (GPU cards from recorded NVML answers, findings with Copy / Run fix) and
the History view (runs made by the real CLI)."""

from __future__ import annotations

import json
import os
import sys

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from core.findings import Finding, FixStep
from core.gpu import read_gpus
from gui.views.machine import FindingCard, InterpreterCard, MachineView, fix_programs
from tests.conftest import tensordeck
from tests.gui_fixtures import click_when_shown, wait_for_run
from tests.nvml_replay import ReplayNvml

pytest_plugins = ["tests.gui_fixtures"]


def test_gpu_cards_show_each_gpu_and_the_no_driver_state(qtbot, h200_nvml):
    view = MachineView(nvml=h200_nvml)
    qtbot.addWidget(view)
    view.show_gpus(read_gpus(h200_nvml, processes=False))
    assert sorted(view.gpu_cards) == [0, 1]
    text = view.gpu_cards[0].details.text()
    assert "MiB" in text and "°C" in text and "CUDA up to" in text
    view.show_gpus(read_gpus(ReplayNvml.load("driver_not_loaded"), processes=False))
    assert view.gpu_cards == {}
    texts = [label.text() for label in view.findChildren(QLabel)]
    assert "The NVIDIA driver is not running" in texts


def test_finding_card_copies_and_runs_a_fix_after_confirmation(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    view = MachineView()
    qtbot.addWidget(view)
    view.show()
    code = "print('hello from the fix')"
    step = FixStep("Say hello", f'python -c "{code}"', "any",
                   argv=((sys.executable, "-c", code),))
    view.show_findings([Finding("demo", "warning", "A demo problem", "evidence line", (step,))])
    card = view.findChildren(FindingCard)[0]
    copy, run = [b for b in card.findChildren(type(view.refresh_button))]
    copy.click()
    assert QGuiApplication.clipboard().text() == step.command
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.No)
    run.click()
    assert view.fix_output.isHidden()  # declined: nothing ran
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Yes)
    run.click()
    qtbot.waitUntil(lambda: "[exit code 0]" in view.fix_output.toPlainText(), timeout=10_000)
    assert "hello from the fix" in view.fix_output.toPlainText()


def test_check_again_lists_each_interpreter_once_in_its_findings_colour(qtbot, h200_nvml):
    """A real check of this machine (discovery, probes, diagnosis) on two recorded H200s, driven
    by clicks: it shows that it ran and when, one card per interpreter, a card never greener
    than the findings about it, and "Use for this job" hands over the interpreter's path."""
    from core.doctor.machine import same_interpreter  # the identity the child reports
    from core.interpreters.probe import cached_probe

    view = MachineView(nvml=h200_nvml)
    qtbot.addWidget(view)
    view.show()
    assert view.checked_label.text() == "Not checked yet"
    for _ in range(2):  # the second check answers from the probe cache: it must still show
        qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
        assert view.checked_label.text().startswith("Checking… (started ")
        assert not view.refresh_button.isEnabled()
        qtbot.waitUntil(lambda: not view.checking, timeout=240_000)
        assert view.checked_label.text().startswith("Checked at "), view.checked_label.text()
        assert view.refresh_button.isEnabled()
    cards = view.findChildren(InterpreterCard)
    identities = [same_interpreter(cached_probe(c.path)) for c in cards]
    shown = [(c.path, c.state, c.summary.text()) for c in cards]  # what a failure must show
    assert len(set(identities)) == len(cards), (shown, identities)
    assert sys.executable in [c.path for c in cards], shown
    rank = {"ok": 2, "warning": 1, "error": 0}
    for finding in view.findings:
        if finding.subject:
            [card] = [c for c in cards if c.path == finding.subject]
            assert rank[card.state] <= rank[{"info": "ok"}.get(finding.severity,
                                                               finding.severity)], (
                card.path, card.state, finding.id, finding.severity)
    # TF here sees neither of the two GPUs: never a green card, in the doctor's own words.
    [mine] = [c for c in cards if c.path == sys.executable]
    assert mine.state in ("error", "warning")
    assert mine.summary.text().endswith(("sees no GPU: trains on the CPU",
                                         "CPU-only build: trains on the CPU"))
    with qtbot.waitSignal(view.use_interpreter) as blocker:
        click_when_shown(qtbot, mine.use_button)
    assert blocker.args == [sys.executable]


def test_make_environment_button_plans_builds_streams_and_cancels(qtbot):
    """Real clicks: the plan for this machine (no NVIDIA driver: the CPU build), Build streams
    the commands' output, Cancel stops pip and removes the half-made env, nothing registered."""
    pytest.importorskip("venv", reason="this Python has no venv module (the embeddable build)")
    from core.envcreate.target import marker
    from core.interpreters.discover import user_interpreters

    view = MachineView()
    qtbot.addWidget(view)
    view.show()
    qtbot.mouseClick(view.env_button, Qt.MouseButton.LeftButton)
    dialog = view.env_dialog
    qtbot.waitUntil(dialog.build_button.isEnabled, timeout=120_000)
    plan_text = dialog.plan_view.toPlainText()
    assert "Download: about" in plan_text and "tensorflow-cpu==" in plan_text, plan_text
    target = dialog.plan.target
    qtbot.mouseClick(dialog.build_button, Qt.MouseButton.LeftButton)
    assert dialog.building and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: "pip install" in dialog.log.toPlainText(), timeout=120_000)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.building, timeout=120_000)
    assert dialog.result.cancelled, dialog.result.message
    assert dialog.status.text() == f"Cancelled; {target} was removed."
    assert not target.exists() and not marker(target).exists() and user_interpreters() == []
    assert dialog.build_button.isEnabled()  # it can be tried again
    dialog.close()
    assert not dialog.isVisible()


def test_interpreter_card_speaks_the_windows_language(qtbot, qapp):
    """The doctor's words (core's verdicts, core/messages.py) on the card, in Chinese."""
    from core.doctor.machine import VERDICTS, InterpreterStatus
    from core.interpreters.probe import ProbeResult
    from core.messages import tr
    from gui.i18n import install_translators

    probe = ProbeResult("C:\\envs\\tf\\python.exe", python_version="3.10.11",
                        tf_version="2.10.1", import_attempted=True, import_ok=True,
                        built_with_cuda=True)
    status = InterpreterStatus(probe.python, "gpu-build-no-gpu", "warning")
    try:
        assert install_translators(qapp, "zh_CN") == "zh_CN"
        for verdict in VERDICTS:  # every verdict has its translation
            assert tr(f"verdict.{verdict}", "zh_CN") != tr(f"verdict.{verdict}", "en")
        card = InterpreterCard(probe.python, "conda", probe, status)
        qtbot.addWidget(card)
        assert card.summary.text() == ("Python 3.10.11 · TensorFlow 2.10.1 · GPU 版本，看不到 "
                                       "GPU：在 CPU 上训练")
        assert card.use_button.text() == "用于此作业"
    finally:
        install_translators(qapp, "en")
    english = InterpreterCard(probe.python, "conda", probe, status)
    qtbot.addWidget(english)
    assert english.summary.text() == status.summary(probe)


def test_fix_commands_for_another_system_cannot_be_run():
    programs = (("winget", "install", "x"),)
    assert fix_programs(FixStep("x", "winget install x", "powershell", programs), "linux") is None
    assert fix_programs(FixStep("x", "ls", "bash", (("ls",),)), "win32") is None
    assert fix_programs(FixStep("x", "dir", "cmd", (("where", "x"),)), "win32") == (("where", "x"),)
    assert fix_programs(FixStep("x", "conda activate x", "conda"), "linux") is None  # a terminal


def test_history_lists_cli_runs_and_reruns_one(qtbot, window, tmp_path, job):
    path = job("print('from history')", strategy="single", tasks=[{"role": "worker"}])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    assert window.open_file(str(path))
    window.show_page("history")
    history = window.history
    qtbot.waitUntil(lambda: history.table.rowCount() == 1, timeout=10_000)
    assert history.table.item(0, 1).text() == "succeeded"
    qtbot.waitUntil(lambda: history.logs.count() == 1, timeout=10_000)
    assert "from history" in history.logs.widget(0).toPlainText()
    assert "changed since" not in history.details.text()
    with qtbot.waitSignal(history.rerun):
        qtbot.mouseClick(history.rerun_button, Qt.MouseButton.LeftButton)
    assert window.current_page() == "run"
    assert wait_for_run(qtbot, window.run_view).status.value == "succeeded"


def test_run_again_runs_that_runs_config_not_the_changed_file(qtbot, window, tmp_path, job):
    """The file changed since (other arguments): Run again runs what that run ran, each time
    in a new run folder beside the first, and says so; the open file is left as it is."""
    path = job("import sys\nprint('args', sys.argv[1:])", strategy="single",
               tasks=[{"role": "worker"}], args=["--lr", "0.1"])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    (first,) = (tmp_path / "runs").iterdir()
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "args": ["--lr", "0.5"]}))
    assert window.open_file(str(path))
    history = window.history
    nav = window.nav
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                     pos=nav.visualItemRect(nav.item(3)).center())  # History
    qtbot.waitUntil(lambda: history.table.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: "changed since this run" in history.details.text(), timeout=10_000)
    folders = {first}
    for _ in range(2):
        qtbot.mouseClick(history.rerun_button, Qt.MouseButton.LeftButton)
        assert window.current_page() == "run"
        result = wait_for_run(qtbot, window.run_view)
        assert result.status.value == "succeeded"
        run_dir = window.run_view.run_dir
        assert run_dir.parent == tmp_path / "runs" and run_dir not in folders
        folders.add(run_dir)
        log = (run_dir / "logs" / "worker-0.log").read_text()
        assert "args ['--lr', '0.1']" in log
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                         pos=nav.visualItemRect(nav.item(3)).center())
        runs = len(folders)
        qtbot.waitUntil(lambda: history.table.rowCount() == runs, timeout=10_000)  # noqa: B023
        history.table.selectRow(history.table.rowCount() - 1)  # the first run, the oldest
    assert json.loads(path.read_text())["args"] == ["--lr", "0.5"]
    assert window.cluster.path == path and not window.cluster.dirty


def test_history_shows_a_garbage_summary_as_unreadable_and_a_live_run_as_running(
        qtbot, window, tmp_path, job):
    path = job("print('x')", strategy="single", tasks=[{"role": "worker"}])
    assert tensordeck("--run", str(path), timeout=60).returncode == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    me = {"pid": os.getpid(), "started_at": psutil.Process().create_time(), "host": None}
    summary.update(status="running", exit_code=None, ended_at=None, launcher=me)
    (run_dir / "summary.json").write_text(json.dumps(summary))  # as if this process ran it
    garbage = tmp_path / "runs" / "garbage"
    garbage.mkdir()
    (garbage / "summary.json").write_text('{"status": "running", "tasks": 7}')
    history = window.history
    history.set_folders([str(tmp_path)])
    history.refresh()
    qtbot.waitUntil(lambda: history.table.rowCount() == 2, timeout=10_000)
    shown = {history.table.item(row, 0).text(): history.table.item(row, 1).text()
             for row in range(2)}
    assert shown == {"t": "running", "garbage": "unreadable"}
    row = next(r for r in range(2) if history.table.item(r, 0).text() == "garbage")
    history.table.selectRow(row)
    assert "tasks: Input should be a valid list" in history.details.text()
    assert not history.rerun_button.isEnabled()



# The chief finishes only once the others have logged: its end stops them, maybe before they print.
LOSSES = """import json, os, sys, time
role = json.loads(os.environ["TF_CONFIG"])["task"]["type"]
scale = float(sys.argv[1])
for step in (1, 2):
    print(f"step {step}/2 loss={scale / step} accuracy={0.4 * step}", flush=True)
logged = os.path.join(os.environ["TENSORDECK_RUN_DIR"], "{}.logged")
open(logged.format(role), "w").close()
while role == "chief" and not all(os.path.exists(logged.format(r)) for r in ("worker", "ps")):
    time.sleep(0.05)
if role == "ps":
    time.sleep(60)
"""
PS_TASKS = [{"role": "chief"}, {"role": "worker"}, {"role": "ps"}]


def cli_run(job, scale: str):
    path = job(LOSSES, strategy="parameter_server", tasks=PS_TASKS, args=[scale])
    done = tensordeck("--run", str(path), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def click_row(qtbot, table, row: int, modifier=None) -> None:
    from PySide6.QtCore import Qt

    rect = table.visualRect(table.model().index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     modifier or Qt.KeyboardModifier.NoModifier, rect.center())


def show_history(qtbot, window, runs: int):
    nav = window.nav
    qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton,
                     pos=nav.visualItemRect(nav.item(3)).center())
    history = window.history
    qtbot.waitUntil(lambda: history.table.rowCount() == runs, timeout=10_000)
    return history


def test_history_logs_start_with_the_chief_and_have_all_tasks_and_final_metrics(
        qtbot, window, job):
    path = cli_run(job, "1.0")
    assert window.open_file(str(path))
    history = show_history(qtbot, window, 1)
    qtbot.waitUntil(lambda: history.logs.count() == 4, timeout=10_000)
    tabs = [history.logs.tabText(i) for i in range(4)]
    assert tabs == ["chief-0", "worker-0", "ps-0", "All tasks"]
    bar = history.logs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(3).center())
    combined = history.logs.widget(3).toPlainText()
    assert "[chief-0]  step 2/2" in combined and "[ps-0]     step 1/2" in combined
    qtbot.waitUntil(lambda: bool(history.final.text()), timeout=10_000)  # read apart from logs
    assert history.final.text() == "Final metrics: loss 0.5, accuracy 0.8"


def test_compare_draws_the_selected_runs_in_one_chart(qtbot, window, job, tmp_path):
    from PySide6.QtCore import Qt

    cli_run(job, "1.0")
    path = cli_run(job, "3.0")
    assert window.open_file(str(path))
    history = show_history(qtbot, window, 2)
    click_row(qtbot, history.table, 0)
    assert not history.compare_button.isEnabled()  # one run: nothing to compare with
    click_row(qtbot, history.table, 1, Qt.KeyboardModifier.ControlModifier)
    assert len(history.selected_records()) == 2 and history.compare_button.isEnabled()
    qtbot.mouseClick(history.compare_button, Qt.MouseButton.LeftButton)
    (dialog,) = history.comparisons
    qtbot.waitUntil(lambda: "2 runs" in dialog.status.text(), timeout=10_000)
    series = dialog.charts.series
    chiefs = sorted(label for metric, label in series if metric == "loss"
                    and label.endswith(" / chief:0"))
    assert len(chiefs) == 2
    finals = sorted(series[("loss", label)].data()[1][-1] for label in chiefs)
    assert finals == [0.5, 1.5]
    dialog.close()
    assert history.comparisons == []


def test_delete_removes_run_folders_after_confirmation_and_nothing_else(
        qtbot, window, job, tmp_path, monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    from core.history import DeleteRefused, delete_run

    path = cli_run(job, "1.0")
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert window.open_file(str(path))
    history = show_history(qtbot, window, 1)
    click_row(qtbot, history.table, 0)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2]) or
                        QMessageBox.StandardButton.No)
    qtbot.mouseClick(history.delete_button, Qt.MouseButton.LeftButton)
    assert run_dir.is_dir() and str(run_dir) in asked[0]  # declined: kept
    monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(history.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: history.table.rowCount() == 0, timeout=10_000)
    assert not run_dir.exists() and path.is_file()
    # A folder that only looks like a run (no claim marker) is never deleted.
    lookalike = tmp_path / "runs" / "mine"
    lookalike.mkdir()
    (lookalike / "summary.json").write_text("{}")
    with pytest.raises(DeleteRefused, match=r"\.tensordeck-run"):
        delete_run(lookalike)
    assert lookalike.is_dir()


def test_a_running_run_cannot_be_deleted(qtbot, window, job, tmp_path):
    path = cli_run(job, "1.0")
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    me = {"pid": os.getpid(), "started_at": psutil.Process().create_time(), "host": None}
    summary.update(status="running", exit_code=None, ended_at=None, launcher=me)
    (run_dir / "summary.json").write_text(json.dumps(summary))  # as if this process ran it
    assert window.open_file(str(path))
    history = show_history(qtbot, window, 1)
    click_row(qtbot, history.table, 0)
    assert history.table.item(0, 1).text() == "running"
    assert not history.delete_button.isEnabled()
    from core.history import DeleteRefused, delete_run

    with pytest.raises(DeleteRefused, match="going on"):
        delete_run(run_dir)
    assert run_dir.is_dir()


def test_a_run_whose_file_is_open_for_a_moment_is_still_deleted(job, tmp_path):
    """On Windows an open file cannot be deleted (WinError 32): the History's own refresh
    reading a run's config.json while the user deletes it failed the delete (the lane caught
    it under load). delete_run tries again for a moment. A reader holds the file open for
    0.3 s while it deletes (on Linux the open file never stops the delete)."""
    import threading

    from core.history import delete_run

    cli_run(job, "1.0")
    (run_dir,) = (tmp_path / "runs").iterdir()
    opened, closed = threading.Event(), threading.Event()

    def read_slowly() -> None:
        with open(run_dir / "config.json", "rb"):
            opened.set()
            closed.wait(0.3)

    reader = threading.Thread(target=read_slowly)
    reader.start()
    opened.wait(5)
    delete_run(run_dir)
    closed.set()
    reader.join(5)
    assert not run_dir.exists()


def test_selecting_every_run_shows_one_set_of_log_tabs(qtbot, window, job):
    from PySide6.QtCore import Qt

    cli_run(job, "1.0")
    path = cli_run(job, "2.0")
    assert window.open_file(str(path))
    history = show_history(qtbot, window, 2)
    history.table.setFocus()
    qtbot.keyClick(history.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(history.selected_records()) == 2
    qtbot.waitUntil(lambda: history.logs.count() == 4, timeout=10_000)
    qtbot.wait(300)  # a second read of the same run would add its tabs again by now
    assert history.logs.count() == 4
