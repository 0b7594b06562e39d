"""Attacks on the window (issue 11): task output in the log panes and History shown, never
obeyed; secrets masked in History; a fix for an interpreter in a hostile folder runs nothing
else; admin steps never one click; texts from logs never rendered as HTML."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton

from core.doctor.fixes import FixContext, make_finding, shell_word
from core.findings import Finding, FixStep
from core.output import LineSplitter
from gui.background import resolve_program
from gui.views.machine import FindingCard, MachineView
from gui.widgets.log_view import MAX_SHOWN_CHARS, LogPanel, LogView
from tests.conftest import REPO, tensordeck
from tests.test_attacks import SECRETS, TERMINAL_ATTACKS

pytest_plugins = ["tests.gui_fixtures"]

ON_WINDOWS = sys.platform == "win32"
# What Qt would act on or break a line at; \n is the panes' own line end.
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown_panel(qtbot) -> LogPanel:
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_tasks(["worker-0", "worker-1"])
    return panel


def blocks(view: LogView) -> list[str]:
    doc = view.document()
    return [doc.findBlockByNumber(i).text() for i in range(doc.blockCount())]


@pytest.mark.parametrize("through_splitter", [True, False], ids=["live", "raw-lines"])
def test_log_panes_show_every_control_sequence_and_forge_no_line(qtbot, through_splitter):
    panel = shown_panel(qtbot)
    fed = 0
    for _case, data in TERMINAL_ATTACKS:
        if through_splitter:  # as a live run delivers them
            lines, progress = LineSplitter().feed(data + b"\n")
        else:  # as History reads a log file: anything in a line
            lines, progress = [data.decode("utf-8", "replace")], None
        panel.add_output("worker-0", lines, progress)
        fed += len(lines)
    panel.add_output("worker-0", [], "\x1b[2K\u2028[worker-1] fake progress")
    panel.flush()
    for view, prefix in ((panel.combined, "[worker-0]"), (panel.views["worker-0"], "")):
        panel.tabs.setCurrentWidget(view)  # a hidden pane draws when shown
        view.flush()
        text = view.toPlainText()
        assert _CONTROL.search(text) is None, _CONTROL.search(text)
        shown = blocks(view)
        assert len(shown) == fed + 1  # one block per line: none broken into a forged one
        assert all(line.startswith(prefix) for line in shown)
    assert "\\x1b]52;c;" in panel.combined.toPlainText()
    assert "\\u2028[worker-1] fake progress" in blocks(panel.combined)[-1]


def test_nul_and_a_huge_line_are_shown_bounded(qtbot):
    view = LogView()
    qtbot.addWidget(view)
    view.show()
    start = time.perf_counter()
    view.add_lines(["a\x00b", "x" * (512 * 1024), "after"])
    view.flush()
    elapsed = time.perf_counter() - start
    shown = blocks(view)
    assert shown[0] == "a\\x00b" and shown[2] == "after"
    assert len(shown[1]) < MAX_SHOWN_CHARS + 100 and "the log file has the whole line" in shown[1]
    assert elapsed < 2.0


def test_history_masks_secrets_and_shows_logs_as_text(qtbot, window, tmp_path, job):
    attacks = b"".join(data + b"\n" for _, data in TERMINAL_ATTACKS)
    path = job(f"import sys; sys.stdout.buffer.write({attacks!r})", strategy="single",
               tasks=[{"role": "worker"}], env={**SECRETS, "PLAIN_VAR": "visible"})
    assert tensordeck("--run", str(path), "--no-doctor", timeout=60).returncode == 0
    assert window.open_file(str(path))
    window.show_page("history")
    history = window.history
    # The logs and the run's other facts (environment, metrics) come from two background reads.
    qtbot.waitUntil(lambda: history.logs.count() == 1 and bool(history.environment.text()),
                    timeout=10_000)
    environment = history.environment.text()
    assert "PLAIN_VAR=visible" in environment
    for name, value in SECRETS.items():
        assert f"{name}=****" in environment and value not in environment
    assert not any(value in history.details.text() for value in SECRETS.values())
    log = history.logs.widget(0)  # the raw log file, read back
    assert _CONTROL.search(log.toPlainText()) is None
    assert len(blocks(log)) == len(TERMINAL_ATTACKS)  # one line each, none broken


def _run_buttons(card: FindingCard) -> list[QPushButton]:
    return [b for b in card.findChildren(QPushButton) if b.text() == "Run…"]


@pytest.mark.skipif(ON_WINDOWS, reason="a symlinked interpreter in a POSIX-named folder")
@pytest.mark.parametrize("folder", ["x$(touch PWN)", "x;touch PWN;", "x`touch PWN`"])
def test_running_a_fix_for_a_hostile_interpreter_folder_runs_nothing_else(
        qtbot, monkeypatch, tmp_path, folder):
    exe_dir = tmp_path / folder
    exe_dir.mkdir()
    python = exe_dir / "python"
    python.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)  # where `touch PWN` would land
    finding = make_finding("missing-cuda-runtime", "evidence",
                           FixContext(platform="linux", tf_version=(2, 10), python_exe=str(python)))
    view = MachineView()
    qtbot.addWidget(view)
    view.show()
    view.show_findings([finding])
    card = view.findChildren(FindingCard)[0]
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Yes)
    verify = _run_buttons(card)
    assert verify, "the verify step is one click"
    verify[-1].click()
    qtbot.waitUntil(lambda: "[exit code" in view.fix_output.toPlainText(), timeout=30_000)
    output = view.fix_output.toPlainText()
    assert f"$ {shell_word(str(python), 'posix')} -c " in output  # quoted; one argument
    # The interpreter at that path ran the check (no TensorFlow here, or one without GPUs).
    assert "No module named 'tensorflow'" in output or "[]" in output
    assert not list(tmp_path.rglob("PWN")) and not (REPO / "PWN").exists()


def test_admin_and_reboot_steps_offer_no_run_button(qtbot):
    finding = make_finding("no-nvidia-driver", "no driver", FixContext(platform="linux"))
    card = FindingCard(finding)
    qtbot.addWidget(card)
    assert any(s.admin for s in finding.steps)
    assert _run_buttons(card) == []
    texts = [label.text() for label in card.findChildren(QLabel)]
    assert any("administrator terminal" in t for t in texts)


def test_fix_output_and_pasted_texts_are_shown_not_obeyed(qtbot, monkeypatch):
    code = "print('\\x1b]0;title\\x07\\x1b[2Jdone')"
    step = FixStep("Print escapes", "python -c ...", "any", argv=((sys.executable, "-c", code),))
    finding = Finding("demo", "warning", "<b>bold?</b>", "<img src='x'> <a href='y'>link</a>",
                      (step,))
    view = MachineView()
    qtbot.addWidget(view)
    view.show()
    view.show_findings([finding])
    labels = {label.text() for label in view.findChildren(QLabel)}
    assert "<img src='x'> <a href='y'>link</a>" in labels  # as text, in a plain-text label
    view.run_fix(step, confirm=False)
    qtbot.waitUntil(lambda: "[exit code 0]" in view.fix_output.toPlainText(), timeout=30_000)
    text = view.fix_output.toPlainText()
    assert "\\x1b]0;title\\x07\\x1b[2Jdone" in text and "\x1b" not in text


def test_batch_files_are_never_started_as_programs(tmp_path):
    bat = tmp_path / "conda.bat"
    bat.write_text("@echo off\n")
    bat.chmod(0o755)
    with pytest.raises(ValueError, match="batch file"):
        resolve_program(str(bat), platform="win32")
    assert resolve_program(str(bat), platform="linux") == str(bat)
    assert Path(resolve_program(sys.executable)).samefile(sys.executable)


def test_a_hostile_interpreter_path_is_run_as_one_argument_and_shown_as_text(qtbot, window,
                                                                            tmp_path,
                                                                            monkeypatch):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWizard

    from gui.wizard import ConfigWizard
    from tests.gui_fixtures import retype

    monkeypatch.chdir(tmp_path)
    # Shell syntax, variables (a path is never expanded), and an entity that rich text would
    # turn into "&" (a name Windows allows).
    folder = tmp_path / "x$(touch PWN); `touch PWN2` &amp; %PATH% $HOME ^&"
    folder.mkdir()
    fake = folder / "python"
    fake.write_text("#!/bin/sh\ntouch PWN3\n")  # runs if started: it must only fail the check
    fake.chmod(0o644)  # not executable: the check says so, nothing is started
    wizard = ConfigWizard(window, look=False)
    qtbot.addWidget(wizard)
    wizard.show()
    page = wizard.interpreter_page
    retype(qtbot, page.python.lineEdit(), str(fake))
    qtbot.keyClick(page.python.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: str(fake) in page.status.text(), timeout=60_000)
    assert page.status.textFormat() == Qt.TextFormat.PlainText
    assert not wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    # The same path in a config, in the Cluster view.
    config = tmp_path / "job.json"
    (tmp_path / "t.py").write_text("print('x')\n")
    config.write_text(json.dumps({"name": "t", "strategy": "single", "script": "t.py",
                                  "python": str(fake)}))
    cluster = window.cluster
    with qtbot.waitSignal(cluster.checked, timeout=60_000):
        assert window.open_file(str(config))
    label = cluster.problem_labels["python"]
    assert str(fake) in label.text() and label.textFormat() == Qt.TextFormat.PlainText
    assert not any(p.name.startswith("PWN") for p in [*tmp_path.iterdir(), *folder.iterdir()])


def test_the_trust_dialog_shows_a_hostile_host_and_its_error_as_text(qtbot):
    from PySide6.QtCore import Qt

    from core.remote.connect import HostKey
    from gui.trust_dialog import TrustDialog

    host = "&lt;b&gt;x&amp;y.invalid"  # an entity rich text would render: a name DNS refuses
    dialog = TrustDialog(HostKey(host, 22, "ssh-ed25519", "SHA256:x"))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.trust_button.click()  # the name does not resolve: the error quotes it
    qtbot.waitUntil(dialog.message.isVisible, timeout=60_000)
    intro = dialog.findChildren(QLabel)[0]
    assert host in intro.text() and intro.textFormat() == Qt.TextFormat.PlainText
    assert dialog.message.textFormat() == Qt.TextFormat.PlainText
    assert not dialog.trust_button.isEnabled()
