"""The Machine view's "Explain an error…" dialog, driven by clicks, keys and pastes: it shows
what ``tensordeck doctor --explain`` finds (core.doctor.explain.explain on the same text, the
same platform and version), reads a log as the CLI does (read_captured: the same refusals),
never offers "Run…" for a pasted output's steps, and stays answering on hostile input.

The outputs are real: users' posts from tests/data/doctor_corpus and TensorFlow 2.10's own
output from tests/data/windows."""

from __future__ import annotations

import json
import os
import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QPlainTextEdit, QPushButton

from core.doctor.capture import CaptureError, read_captured
from core.doctor.explain import explain
from gui.explain_dialog import ExplainDialog
from gui.views.machine import FindingCard, MachineView, fix_programs
from tests.conftest import REPO
from tests.gui_fixtures import CHINESE, retype

pytest_plugins = ["tests.gui_fixtures"]

WINDOWS_OUTPUTS = REPO / "tests" / "data" / "windows"


def posted(case: str) -> str:
    """The output of a case of the doctor's corpus of users' posts."""
    with open(REPO / "tests" / "data" / "doctor_corpus" / "reports.jsonl",
              encoding="utf-8") as file:
        return next(row["text"] for line in file for row in [json.loads(line)]
                    if row["id"] == case)


CUDART = posted("p04")  # Could not load dynamic library 'cudart64_110.dll'
OOM = posted("p16")  # CUDA_ERROR_OUT_OF_MEMORY
NO_GPU_LISTED = posted("p03")  # [PhysicalDevice(... CPU:0 ...)]: TensorFlow sees no GPU


@pytest.fixture
def view(qtbot) -> MachineView:
    machine = MachineView()
    qtbot.addWidget(machine)
    machine.show()
    return machine


@pytest.fixture
def dialog(qtbot, view) -> ExplainDialog:
    """The dialog as the user opens it: the Machine view's button."""
    qtbot.mouseClick(view.explain_button, Qt.MouseButton.LeftButton)
    opened = view.explain_dialog
    assert isinstance(opened, ExplainDialog) and opened.isVisible()
    yield opened
    opened.close()


def cards(dialog: ExplainDialog) -> list[FindingCard]:
    return dialog.findChildren(FindingCard)


def titles(dialog: ExplainDialog) -> list[str]:
    return [card.findChild(QLabel, "cardTitle").text() for card in cards(dialog)]


def expected_titles(text: str, **options) -> list[str]:
    """What the doctor's explain() says of ``text``, in the window's language."""
    return [finding.title_in() for finding in explain(text, **options)]


def answered(qtbot, dialog: ExplainDialog, act, timeout: int = 60_000) -> list[str]:
    """Do ``act`` (a click, a key), then wait for a new answer: the button usable again and
    cards none of which was there before. Returns their titles."""
    before = cards(dialog)
    act()
    qtbot.waitUntil(lambda: dialog.explain_button.isEnabled() and bool(cards(dialog)) and
                    not any(card in before for card in cards(dialog)), timeout=timeout)
    return titles(dialog)


def click(qtbot, button: QPushButton):
    return lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def paste_and_explain(qtbot, dialog: ExplainDialog, text: str, **kwargs) -> list[str]:
    dialog.paste.setPlainText(text)  # what a paste into the box does
    return answered(qtbot, dialog, click(qtbot, dialog.explain_button), **kwargs)


def test_a_pasted_output_gets_the_doctors_findings_and_a_new_one_replaces_them(qtbot, dialog):
    shown = paste_and_explain(qtbot, dialog, CUDART)
    assert shown == expected_titles(CUDART)
    assert shown[0] == "The CUDA runtime libraries TensorFlow needs are not found"
    assert dialog.status.text() == f"{len(shown)} finding(s), the most likely cause first"
    shown = paste_and_explain(qtbot, dialog, OOM)  # replaced, not appended
    assert shown == expected_titles(OOM)
    assert shown[0] == "The GPU ran out of memory"
    assert len(cards(dialog)) == len(shown)


def test_explain_clicked_twice_quickly_gives_one_answer(qtbot, dialog):
    def twice() -> None:
        qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
        assert dialog.status.text() == "Reading…" and not dialog.explain_button.isEnabled()
        qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
        qtbot.keyClick(dialog.paste, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

    dialog.paste.setPlainText(OOM)
    shown = answered(qtbot, dialog, twice)
    qtbot.wait(300)  # a second answer, had one been asked, would have come by now
    assert titles(dialog) == shown == expected_titles(OOM)


def test_ctrl_return_explains_without_adding_a_line(qtbot, dialog):
    dialog.paste.setPlainText(CUDART)
    dialog.paste.setFocus()
    shown = answered(qtbot, dialog, lambda: qtbot.keyClick(
        dialog.paste, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier))
    assert shown == expected_titles(CUDART)
    assert dialog.paste.toPlainText() == CUDART


def test_the_machine_views_button_opens_one_dialog(qtbot, view, dialog):
    dialog.paste.setPlainText(OOM)
    qtbot.mouseClick(view.explain_button, Qt.MouseButton.LeftButton)
    assert view.explain_dialog is dialog and view.findChildren(ExplainDialog) == [dialog]
    dialog.close()
    qtbot.mouseClick(view.explain_button, Qt.MouseButton.LeftButton)
    assert view.findChildren(ExplainDialog) == [dialog] and dialog.isVisible()
    assert dialog.paste.toPlainText() == OOM  # closing it lost nothing
    assert view.explain_button.toolTip().startswith("Paste an error output or open a log")


def test_empty_input_asks_for_an_output_and_runs_nothing(qtbot, dialog):
    for text in ("", "  \n\t\n"):
        dialog.paste.setPlainText(text)
        qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
        assert dialog.problem.text() == "Paste an error output or open a log first"
        assert dialog.explain_button.isEnabled() and dialog.status.text() == ""
        assert cards(dialog) == []
    assert "import tensorflow" in dialog.paste.placeholderText()


def test_the_platform_and_the_version_change_the_answer_as_the_doctors(qtbot, dialog):
    """The answer for Windows differs where explain()'s does: TensorFlow sees no GPU on
    Windows is TF 2.11+ having no GPU there; and TF 2.10's own output on Windows, said to be
    2.15, is that version's problem."""
    text = "Num GPUs Available:  0"
    detected, on_windows = expected_titles(text), expected_titles(text, platform="windows")
    assert detected[0] != on_windows[0]
    assert paste_and_explain(qtbot, dialog, text) == detected
    qtbot.keyClick(dialog.platform, Qt.Key.Key_Down)
    assert dialog.platform.currentText() == "Windows"
    assert answered(qtbot, dialog, click(qtbot, dialog.explain_button)) == on_windows

    tf210 = (WINDOWS_OUTPUTS / "tf210_healthy_no_gpu.txt").read_text(encoding="utf-8")
    said, as_215 = (expected_titles(tf210, platform="windows"),
                    expected_titles(tf210, platform="windows", tf_version="2.15"))
    assert said[0] != as_215[0]
    assert paste_and_explain(qtbot, dialog, tf210) == said
    retype(qtbot, dialog.tf_version, "2.15")
    assert answered(qtbot, dialog, click(qtbot, dialog.explain_button)) == as_215


def test_the_cuda_installed_turns_a_missing_runtime_into_the_wrong_toolkit(qtbot, dialog):
    """CUDA 12.2 typed as installed: TF's missing CUDA 11 runtime is the wrong toolkit, as
    ``doctor --explain --cuda-version 12.2`` says."""
    alone, told = expected_titles(CUDART), expected_titles(CUDART, cuda_version="12.2")
    assert alone[0] != told[0]
    assert paste_and_explain(qtbot, dialog, CUDART) == alone
    retype(qtbot, dialog.cuda_version, "12.2")
    assert answered(qtbot, dialog, click(qtbot, dialog.explain_button)) == told
    retype(qtbot, dialog.cuda_version, "twelve")
    qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
    assert dialog.version_problem.text() == "Not a version: give major.minor, e.g. 2.10"
    assert titles(dialog) == told  # the last answer stays; nothing ran


def test_the_tf_version_typed_tells_tf1_code_from_a_tf_too_old(qtbot, dialog):
    """A name TensorFlow lacks: TF 1 code on TF 2 when no version is given, the installed TF
    1.9 too old for the code once it is typed (``--tf-version 1.9``), with the fix's steps."""
    text = "AttributeError: module 'tensorflow' has no attribute 'py_function'"
    alone, told = expected_titles(text), expected_titles(text, tf_version="1.9")
    assert paste_and_explain(qtbot, dialog, text) == alone
    retype(qtbot, dialog.tf_version, "1.9")
    assert answered(qtbot, dialog, click(qtbot, dialog.explain_button)) == told
    assert told[0] == ("TensorFlow 1.9 has no tf.py_function: the code was written for a newer "
                       "release")
    shown = cards(dialog)[0].findChildren(QLabel)
    assert any("tensorflow==1.15.*" in label.text() for label in shown)


def test_works_in_the_terminal_not_in_jupyter_shows_how_to_start_it_from_the_env(qtbot,
                                                                                  dialog):
    """A question in words: the notebook runs another Python or env than the terminal. The
    card names both Pythons' check and the kernel to register, as the CLI does."""
    text = "TF sees the GPUs on terminal, but not on jupyter lab."
    assert paste_and_explain(qtbot, dialog, text)[0] == expected_titles(text)[0]
    assert expected_titles(text)[0].startswith("It works from one place and not from another")
    shown = " ".join(label.text() for label in cards(dialog)[0].findChildren(QLabel))
    assert "sys.executable" in shown and "ipykernel install" in shown


@pytest.mark.parametrize("value", ["abc", "2.x\x00", "2", "2.10.0.1", "٢.x"])
def test_a_bad_version_is_said_next_to_the_field_and_nothing_runs(qtbot, dialog, value):
    dialog.paste.setPlainText(CUDART)
    if value.isascii() and value.isprintable():
        retype(qtbot, dialog.tf_version, value)
    else:
        dialog.tf_version.setText(value)  # pasted: QTest types ASCII keys only
    qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
    assert dialog.version_problem.isVisible()
    assert dialog.version_problem.text() == "Not a version: give major.minor, e.g. 2.10"
    assert dialog.explain_button.isEnabled() and cards(dialog) == []
    retype(qtbot, dialog.tf_version, "2.10")  # corrected: the message goes, Explain works
    assert not dialog.version_problem.isVisible()
    assert answered(qtbot, dialog, click(qtbot, dialog.explain_button)) == expected_titles(
        CUDART, tf_version="2.10")


def hostile_texts() -> dict[str, str]:
    lines = ("2021-09-24 16:22:13.020179: I tensorflow/core/common_runtime/bfc_allocator.cc:"
             "1033] InUse at 7f2b5e000000 of size 256 next 1\n")
    rng = random.Random(7)
    return {
        "4 MB of log lines": lines * (4 * 2**20 // len(lines) + 1) + OOM,
        "NUL and control characters": "\x00\x01\x1b[31m" + CUDART.replace(" ", "\x00 \x07")
                                      + "\r\x08\x7f\u202e\x00" * 500,
        "binary garbage": bytes(rng.randrange(256) for _ in range(300_000)).decode(
            "utf-8", "replace"),
    }


@pytest.mark.timeout(240)
@pytest.mark.parametrize("name", list(hostile_texts()))
def test_hostile_input_gets_an_answer(qtbot, dialog, name):
    text = hostile_texts()[name]
    dialog.paste.setPlainText(text)
    shown = answered(qtbot, dialog, click(qtbot, dialog.explain_button), timeout=180_000)
    # Explained is what the box holds (an editor keeps some characters its own way).
    assert shown == expected_titles(dialog.paste.toPlainText())
    assert dialog.problem.text() == ""


def choose_file(monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        lambda *args, **kwargs: (str(path), ""))


def test_open_a_log_fills_the_box_and_explains_it(qtbot, dialog, monkeypatch):
    """A log opened is read as ``doctor --explain FILE`` reads it, and explained at once."""
    log = WINDOWS_OUTPUTS / "tf210_missing_vcruntime140_1.txt"
    choose_file(monkeypatch, log)
    shown = answered(qtbot, dialog, click(qtbot, dialog.open_button))
    text = read_captured(str(log)).text
    assert dialog.paste.toPlainText() == text
    assert shown == expected_titles(text)
    assert not dialog.note.isVisible()  # nothing was left out


@pytest.mark.timeout(240)
def test_a_big_log_is_read_from_its_end_and_says_so(qtbot, dialog, monkeypatch, tmp_path):
    log = tmp_path / "train.log"
    log.write_text("Epoch 1/100 - loss: 0.3\n" * 250_000 + OOM, encoding="utf-8")
    choose_file(monkeypatch, log)
    shown = answered(qtbot, dialog, click(qtbot, dialog.open_button), timeout=180_000)
    captured = read_captured(str(log))
    assert captured.note and dialog.note.text() == captured.note and dialog.note.isVisible()
    assert dialog.paste.toPlainText() == captured.text
    assert shown[0] == expected_titles(captured.text)[0] == "The GPU ran out of memory"


def refused(tmp_path, case: str) -> str:
    if case == "an empty file":
        (tmp_path / "empty.txt").write_bytes(b"")
        return str(tmp_path / "empty.txt")
    return str(tmp_path if case == "a folder" else tmp_path / "not-there.txt")


@pytest.mark.parametrize("case", ["an empty file", "a folder", "a missing file"])
def test_a_log_that_cannot_be_explained_says_why_and_nothing_else(qtbot, dialog, monkeypatch,
                                                                  tmp_path, case):
    path = refused(tmp_path, case)
    dialog.paste.setPlainText("what the user had pasted")
    choose_file(monkeypatch, path)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.problem.isVisible(), timeout=30_000)
    said = dialog.problem.text()
    if case == "an empty file":
        assert read_captured(path).text == ""
        assert said.startswith(f"{path} is empty: ")
    else:  # the CLI's refusal, with the window's remedy (no command-line option)
        with pytest.raises(CaptureError) as refusal:
            read_captured(path)
        assert refusal.value.source == path and path in said, said
        if refusal.value.detail:  # the system's reason (a folder is unreadable on Windows)
            assert refusal.value.detail in said, said
        assert said.endswith("or paste the output") and "--explain" not in said, said
    assert cards(dialog) == [] and dialog.paste.toPlainText() == "what the user had pasted"
    assert dialog.open_button.isEnabled() and dialog.explain_button.isEnabled()


def test_a_binary_file_is_taken_as_the_cli_takes_it(qtbot, dialog, monkeypatch, tmp_path):
    """read_captured decodes any regular file (undecodable bytes replaced), as the CLI does:
    the dialog shows what it read and the doctor's answer; a refusal, were there one, is said."""
    path = tmp_path / "model.h5"
    path.write_bytes(os.urandom(200_000))
    choose_file(monkeypatch, path)
    try:
        text = read_captured(str(path)).text
    except CaptureError as exc:
        qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dialog.problem.isVisible(), timeout=30_000)
        assert exc.source in dialog.problem.text()
        return
    shown = answered(qtbot, dialog, click(qtbot, dialog.open_button))
    assert shown == expected_titles(text)  # what was read, as the CLI explains it
    box = QPlainTextEdit()  # which shows U+2028 as a line end, U+00A0 as a space
    box.setPlainText(text)
    assert dialog.paste.toPlainText() == box.toPlainText()


def runnable_here() -> str:
    """An output one of whose fix steps a Machine view's card would run on this system (a
    bash step here, a cmd one on Windows)."""
    candidates = [NO_GPU_LISTED, *(path.read_text(encoding="utf-8")
                                   for path in sorted(WINDOWS_OUTPUTS.glob("*.txt")))]
    return next(text for text in candidates
                if any(fix_programs(step) for f in explain(text) for step in f.steps))


def test_no_card_offers_to_run_a_fix(qtbot, dialog):
    """The output's fix steps have one a Machine view's card would run here; the dialog's
    cards offer Copy only (the output may come from another machine)."""
    text = runnable_here()
    findings = explain(text)
    machine_card = FindingCard(next(f for f in findings if any(map(fix_programs, f.steps))))
    assert "Run…" in [b.text() for b in machine_card.findChildren(QPushButton)]
    machine_card.deleteLater()
    paste_and_explain(qtbot, dialog, text)
    buttons = [b.text() for card in cards(dialog) for b in card.findChildren(QPushButton)]
    assert buttons and set(buttons) == {"Copy"}


def test_the_dialog_speaks_chinese_in_a_chinese_window(qtbot, chinese, view, monkeypatch,
                                                       tmp_path):
    qtbot.mouseClick(view.explain_button, Qt.MouseButton.LeftButton)
    dialog = view.explain_dialog
    assert CHINESE.search(view.explain_button.text()), view.explain_button.text()
    assert CHINESE.search(view.explain_button.toolTip())
    own = [dialog.windowTitle(), dialog.paste.placeholderText(), dialog.open_button.text(),
           dialog.explain_button.text(), dialog.platform.itemText(0),
           dialog.tf_version.toolTip(), dialog.cuda_version.toolTip(),
           *[label.text() for label in dialog.findChildren(QLabel) if label.text()]]
    assert all(CHINESE.search(text) for text in own), own
    shown = paste_and_explain(qtbot, dialog, CUDART)
    assert shown == expected_titles(CUDART) and CHINESE.search(shown[0]), shown
    assert CHINESE.search(dialog.status.text())
    dialog.paste.setPlainText("")
    qtbot.mouseClick(dialog.explain_button, Qt.MouseButton.LeftButton)
    assert CHINESE.search(dialog.problem.text())
    choose_file(monkeypatch, tmp_path)  # a folder: refused, in the window's language
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: str(tmp_path) in dialog.problem.text(), timeout=30_000)
    assert CHINESE.search(dialog.problem.text().replace(str(tmp_path), "")), dialog.problem.text()
    dialog.close()
