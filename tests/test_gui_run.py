"""Runs started from the window: real supervisor, real task processes, real log files."""

from __future__ import annotations

import importlib.util
import json
import shutil
import socket
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from core.events import TaskState
from gui.widgets.task_table import COLUMNS
from tests.conftest import EXAMPLES, tensordeck, wait_no_leftovers
from tests.gui_fixtures import wait_for_run

LINES = "import sys\nfor i in range(5):\n    print(f'step {i + 1}/5 loss={1 / (i + 1):.3f}')\n"
FOREVER = "import time\nprint('serving', flush=True)\nwhile True:\n    time.sleep(1)\n"

pytest_plugins = ["tests.gui_fixtures"]


def write_job(tmp_path, script: str, **config) -> str:
    (tmp_path / "task.py").write_text(script)
    data = {"name": "gui", "strategy": "multi_worker_mirrored", "script": "task.py",
            "tasks": [{"role": "worker", "count": 2}], "stop_grace_seconds": 2, **config}
    path = tmp_path / "job.json"
    path.write_text(json.dumps(data))
    return str(path)


def start(qtbot, window, config: str):
    """Open ``config`` in the window, go to the Run page and press Start; the Run view."""
    assert window.open_file(config)
    window.show_page("run")
    view = window.run_view
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    return view


def test_a_run_from_the_window_shows_tasks_logs_and_metrics(qtbot, window, tmp_path):
    assert window.open_file(write_job(tmp_path, LINES))
    qtbot.mouseClick(window.run_view.start_button, Qt.MouseButton.LeftButton)
    assert window.current_page() == "run"
    result = wait_for_run(qtbot, window.run_view)
    view = window.run_view
    assert result.status.value == "succeeded"
    assert view.tasks.states == {"worker:0": TaskState.SUCCEEDED, "worker:1": TaskState.SUCCEEDED}
    combined = view.logs.combined.toPlainText()
    assert "[worker-0] step 5/5 loss=0.200" in combined
    assert "[worker-1] step 1/5 loss=1.000" in combined
    assert view.status.text() == "succeeded"
    assert "run succeeded (exit code 0)" in combined
    view.logs.tabs.setCurrentWidget(view.logs.views["worker-1"])
    assert view.logs.views["worker-1"].toPlainText().splitlines()[-1] == "step 5/5 loss=0.200"
    # Loss parsed from the log lines, one curve per worker.
    assert set(view.metric_charts.series) == {("loss", "worker:0"), ("loss", "worker:1")}
    assert view.metric_charts.series[("loss", "worker:0")].data()[1].tolist() == [
        1.0, 0.5, 0.333, 0.25, 0.2]
    assert view.folder_button.isEnabled() and view.start_button.isEnabled()


def test_a_config_that_cannot_run_starts_nothing(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: shown.append(args[2]))
    path = write_job(tmp_path, LINES)
    (tmp_path / "task.py").unlink()
    window.run_view.start(path)
    result = wait_for_run(qtbot, window.run_view)
    assert result is None
    assert shown and "task.py does not exist" in shown[0]
    assert not (tmp_path / "runs").exists()


def test_stop_from_the_window_leaves_no_process(qtbot, window, tmp_path):
    path = write_job(tmp_path, FOREVER)
    view = window.run_view
    window.show_page("run")  # a hidden log pane draws nothing until shown
    view.start(path)
    qtbot.waitUntil(lambda: "serving" in view.logs.combined.toPlainText()
                    and view.logs.combined.toPlainText().count("serving") == 2, timeout=30_000)
    run_dir = view.run_dir
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    result = wait_for_run(qtbot, view)
    assert result.status.value == "interrupted"
    assert set(view.tasks.states.values()) == {TaskState.STOPPED}
    assert not wait_no_leftovers(run_dir)
    # Stopped on request, not by Ctrl+C: the code a service manager's stop gives, said so.
    assert result.exit_code == 143 and "SIGINT" not in view.logs.combined.toPlainText()
    assert view.reason.text() == "Run interrupted: stopped from the window"


FLOOD = """
import sys
line = "x" * 60
for start in range(0, {total}, 1000):
    sys.stdout.write("".join(f"{{i}} {{line}}\\n" for i in range(start, start + 1000)))
print("done")
"""


def test_a_log_flood_keeps_panes_bounded_and_files_complete(qtbot, window, tmp_path):
    """Smaller than bench/gui_log_flood.py (which measures the stalls): 2 tasks x 100,000
    lines, as fast as they print."""
    total = 100_000
    path = write_job(tmp_path, FLOOD.format(total=total))
    view = window.run_view
    window.show_page("run")
    view.start(path)
    result = wait_for_run(qtbot, view)
    assert result.status.value == "succeeded"
    combined = view.logs.combined
    assert combined.line_count == combined.max_lines  # bounded: the tail only
    assert combined.document().blockCount() <= combined.max_lines
    for name, pane in view.logs.views.items():
        assert pane.line_count == pane.max_lines
        log = (view.run_dir / "logs" / f"{name}.log").read_text()
        assert log.count("\n") == total + 1 and log.endswith("done\n")  # the file has all
    pane = view.logs.views["worker-0"]
    view.logs.tabs.setCurrentWidget(pane)  # drawn when shown (within REDRAW_INTERVAL)
    qtbot.waitUntil(lambda: pane.toPlainText().endswith("\ndone"), timeout=5000)
    assert pane.document().blockCount() <= pane.max_lines


@pytest.mark.tf
def test_quickstart_from_the_window(qtbot, window, tmp_path):
    for name in ("quickstart.json", "train_ps.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    assert window.open_file(str(tmp_path / "quickstart.json"))
    window.start_run()
    result = wait_for_run(qtbot, window.run_view, timeout_ms=300_000)
    view = window.run_view
    assert result.status.value == "succeeded", view.logs.combined.toPlainText()[-3000:]
    assert view.tasks.states == {"ps:0": TaskState.STOPPED, "worker:0": TaskState.STOPPED,
                                 "worker:1": TaskState.STOPPED, "chief:0": TaskState.SUCCEEDED}
    view.logs.tabs.setCurrentWidget(view.logs.views["chief-0"])
    assert "step 300/300" in view.logs.views["chief-0"].toPlainText()
    assert "[chief-0]" in view.logs.combined.toPlainText()
    assert ("loss", "chief:0") in view.metric_charts.series
    assert not wait_no_leftovers(view.run_dir)


def click_tab(qtbot, tabs, text: str) -> None:
    bar = tabs.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == text)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())


def test_only_matching_lines_shows_each_match_once_in_a_task_tab(qtbot, window, tmp_path):
    view = start(qtbot, window, write_job(tmp_path, LINES))
    wait_for_run(qtbot, view)
    logs = view.logs
    qtbot.keyClicks(logs.search, "step 3/5")
    qtbot.mouseClick(logs.only_matching, Qt.MouseButton.LeftButton)
    for name in ("worker-1", "All tasks", "worker-0", "worker-1"):  # and back again
        click_tab(qtbot, logs.tabs, name)
        pane = logs.tabs.currentWidget()
        matches = [line for line in pane.toPlainText().splitlines() if "step 3/5" in line]
        if name == "All tasks":
            assert sorted(matches) == ["[worker-0] step 3/5 loss=0.333",
                                       "[worker-1] step 3/5 loss=0.333"]
        else:
            assert matches == ["step 3/5 loss=0.333"]
    qtbot.mouseClick(logs.only_matching, Qt.MouseButton.LeftButton)  # every line again
    assert logs.tabs.currentWidget().toPlainText().splitlines()[-1] == "step 5/5 loss=0.200"
    assert logs.tabs.currentWidget().toPlainText().count("step 3/5") == 1


def test_a_failed_start_shows_failed_behind_its_dialog_and_keeps_the_reason(
        qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    view = window.run_view
    assert window.open_file(write_job(tmp_path, LINES))
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, view)
    assert view.tasks.rowCount() == 2 and "completed" in view.reason.text()
    seen = []  # what the view showed while the dialog was up
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: seen.append(
        (view.status.text(), view.stop_button.isEnabled(), view.start_button.isEnabled(),
         view.tasks.rowCount(), args[2])))
    with socket.socket() as taken:  # the start finds the task's port in use
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert window.open_file(write_job(tmp_path, LINES, tasks=[
            {"role": "worker", "count": 2, "port": port}]))
        for _ in range(2):  # and once more: the same answer, nothing left over
            qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
            assert wait_for_run(qtbot, view) is None
            assert seen[-1][:4] == ("failed", False, True, 0)
            assert str(port) in seen[-1][4]
            assert view.status.text() == "failed" and view.tasks.rowCount() == 0
            assert view.reason.isVisible() and str(port) in view.reason.text()
    assert len(seen) == 2


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="the doctor's TF1 check needs TensorFlow 2 in the test interpreter")
def test_the_doctors_refusal_shows_its_findings_as_the_cli_prints_them(
        qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: shown.append(args[2]))
    path = write_job(tmp_path, "import tensorflow as tf\nsess = tf.Session()\n",
                     strategy="single", tasks=[{"role": "worker"}])
    cli = tensordeck("--run", path)
    assert cli.returncode == 2 and "[tf1-api-on-tf2]" in cli.stderr
    findings = cli.stderr.splitlines()[:-1]  # the last line: nothing was started
    view = start(qtbot, window, path)
    assert wait_for_run(qtbot, view) is None
    assert shown == ["Nothing was started:\n\n" + "\n".join(findings)]
    logged = view.logs.combined.toPlainText().splitlines()[-len(findings):]
    assert logged == [f"[tensordeck] {line}" for line in findings]
    assert view.reason.text() == "The run did not start: " + findings[0]
    assert view.trust_dialogs == [] and not (tmp_path / "runs").exists()


RESTARTS = """import json, os, sys, time
index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
marker = f"worker{index}.failed"
print("step 1/1", flush=True)
if index == 0 and not os.path.exists(marker):  # fails once, then works
    open(marker, "w").close()
    sys.exit(3)
if index == 2:  # fails for good later, while worker 1's restart waits
    time.sleep(3)
    sys.exit(5)
if index == 1:
    sys.exit(4)
time.sleep(30)
"""


def test_the_task_table_counts_restarts_as_the_summary_does(qtbot, window, tmp_path):
    """worker 0 restarts; worker 1's restart is scheduled but the run ends first (called
    off: not a restart)."""
    quick = {"policy": "on_failure", "max_restarts": 2, "backoff_seconds": 0}
    slow = {**quick, "backoff_seconds": 20}
    assert window.open_file(write_job(tmp_path, RESTARTS, tasks=[
        {"role": "worker", "restart": quick}, {"role": "worker", "restart": slow},
        {"role": "worker"}]))
    view = window.run_view
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    result = wait_for_run(qtbot, view)
    assert result.status.value == "failed"
    summary = json.loads((view.run_dir / "summary.json").read_text())
    column = [view.tasks.item(r, 5).text() for r in range(view.tasks.rowCount())]
    assert column == [str(t["restarts"]) for t in summary["tasks"]] == ["1", "0", "0"]
    assert "worker-2" in view.reason.text() and "5" in view.reason.text()


IGNORES_STOP = """import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if hasattr(signal, "SIGBREAK"):  # what a stop sends on Windows
    signal.signal(signal.SIGBREAK, signal.SIG_IGN)
print("serving", flush=True)
while True:
    time.sleep(1)
"""


def test_stop_counts_down_and_force_stop_kills_at_once(qtbot, window, tmp_path):
    assert window.open_file(write_job(tmp_path, IGNORES_STOP, stop_grace_seconds=300))
    view = window.run_view
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.logs.combined.toPlainText().count("serving") == 2,
                    timeout=30_000)
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    assert view.stop_button.text() == "Force stop" and view.stop_button.isEnabled()
    assert view.status.text() == "stopping"
    state = COLUMNS.index("state")  # the table says what the badge says
    assert [view.tasks.item(row, state).text() for row in range(2)] == ["stopping"] * 2
    qtbot.waitUntil(lambda: "s to exit, then they are killed" in view.reason.text())
    assert any(f"have {s} s" in view.reason.text() for s in (300, 299, 298))
    run_dir = view.run_dir
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)  # Force stop
    result = wait_for_run(qtbot, view)  # well before the 300 s of grace
    assert result.status.value == "interrupted"
    assert not wait_no_leftovers(run_dir)
    assert view.stop_button.text() == "Stop" and not view.stop_button.isEnabled()
    assert "300" not in view.reason.text()


def test_closing_during_a_stubborn_run_keeps_the_window_alive(qtbot, window, tmp_path,
                                                              monkeypatch):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question",
                        lambda *args: QMessageBox.StandardButton.Yes)
    assert window.open_file(write_job(tmp_path, IGNORES_STOP, stop_grace_seconds=60))
    view = window.run_view
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.logs.combined.toPlainText().count("serving") == 2,
                    timeout=30_000)
    seen = []

    def during_close() -> None:  # the window still answers: the countdown, Force stop
        seen.append((view.running, view.stop_button.text(), view.reason.text()))
        qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(1500, during_close)
    run_dir = view.run_dir
    window.close()
    assert seen and seen[0][0] and seen[0][1] == "Force stop"
    assert "then they are killed" in seen[0][2]
    assert not view.running and not wait_no_leftovers(run_dir)


SLOW_STEPS = """import time
for i in range(1, 61):
    print(f"step {i}/60", flush=True)
    time.sleep(0.05)
"""


def test_progress_with_rate_and_eta_in_the_table_and_the_window_title(qtbot, window, tmp_path):
    assert window.open_file(write_job(tmp_path, SLOW_STEPS))
    view = window.run_view
    column = 8  # progress
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.tasks.rowCount() == 2 and all(
                                "steps/s" in view.tasks.item(r, column).text()
                                and "ETA" in view.tasks.item(r, column).text()
                                for r in range(2)), timeout=30_000)
    qtbot.waitUntil(lambda: window.windowTitle().startswith("[")
                    and "ETA" in window.windowTitle(), timeout=10_000)
    assert "of 60 steps" in view.tasks.item(0, column).toolTip()
    assert wait_for_run(qtbot, view).status.value == "succeeded"
    assert [view.tasks.item(r, column).text().split(" · ")[0] for r in range(2)] == [
        "100%", "100%"]
    assert window.windowTitle() == "job.json — TensorDeck"  # no run: no progress


def noise_colored(pane, fragment: str) -> bool:
    """Whether the pane draws the line holding ``fragment`` in the noise colour."""
    from gui.style import NOISE_COLOR

    doc = pane.document()
    block = next(doc.findBlockByNumber(n) for n in range(doc.blockCount())
                 if fragment in doc.findBlockByNumber(n).text())
    return any(r.format.foreground().color().name() == NOISE_COLOR
               for r in block.layout().formats())


def test_tensorflows_known_noise_is_dimmed_with_the_raw_output_one_click_away(
        qtbot, window, tmp_path):
    """A task prints a recorded real start-up of TF 2.21 (tf-keras, no GPU) and trains."""
    recorded = Path(__file__).parent / "data" / "keras" / "tf_keras_fit.txt"
    script = f"import sys\nsys.stdout.write(open({str(recorded)!r}).read())\n"
    view = start(qtbot, window, write_job(tmp_path, script))
    wait_for_run(qtbot, view)
    logs = view.logs
    click_tab(qtbot, logs.tabs, "worker-0")
    pane = logs.tabs.currentWidget()
    for raw in (False, True, False):
        for where in (pane, logs.combined):
            assert noise_colored(where, "failed call to cuInit") is not raw
            assert noise_colored(where, "oneDNN custom operations") is not raw
            assert not noise_colored(where, "Epoch 1/3")
            assert not noise_colored(where, "loss: 0.8365")
        qtbot.mouseClick(logs.raw_output, Qt.MouseButton.LeftButton)


HOLDS_MEMORY = """import time
block = bytearray(80 * 1024 * 1024)
print("holding", flush=True)
time.sleep(60)
"""


def click_run_tab(qtbot, view, text: str) -> None:
    click_tab(qtbot, view.tabs, text)
    assert view.tabs.tabText(view.tabs.currentIndex()) == text


def test_resources_show_cpu_memory_and_each_tasks_use_without_nvidia(qtbot, window, tmp_path):
    """This machine has no NVIDIA GPU (and the window no GPU feed): no empty GPU charts."""
    view = start(qtbot, window, write_job(tmp_path, HOLDS_MEMORY))
    click_run_tab(qtbot, view, "Resources")
    panel = view.resources
    table = panel.table

    def memory(row: int) -> float:
        text = table.item(row, 3).text().replace(",", "").removesuffix(" MiB")
        return float(text) if text else 0.0

    qtbot.waitUntil(lambda: table.rowCount() == 2 and min(memory(0), memory(1)) >= 80,
                    timeout=30_000)
    assert [table.item(r, 0).text() for r in range(2)] == ["worker-0", "worker-1"]
    assert table.item(0, 1).text() == view.tasks.item(0, 3).text()  # the task's pid
    assert "MiB" in panel.summary.text() and panel.cpu_plot.isVisible()
    assert not panel.gpu_charts.isVisible()
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, view)


def test_resources_match_nvml_gpu_processes_to_their_tasks(qtbot, settings, tmp_path):
    """NVML's process list, as recorded on an H200 (91,421,147,136 bytes used by one process);
    the recorded pid is replaced by the pid of worker 0 here: which process it is, is ours."""
    from gui.main_window import MainWindow
    from tests.nvml_replay import ReplayNvml

    nvml = ReplayNvml.load("h200x2_linux")
    window = MainWindow(settings, nvml=nvml)
    qtbot.addWidget(window)
    window.show()
    try:
        view = start(qtbot, window, write_job(tmp_path, HOLDS_MEMORY))
        click_run_tab(qtbot, view, "Resources")
        qtbot.waitUntil(lambda: view.tasks.rowCount() == 2
                        and view.tasks.item(0, 3).text() != "", timeout=30_000)
        recorded = nvml.recording["devices"][0]["nvmlDeviceGetComputeRunningProcesses_v3"][0]
        recorded["pid"] = int(view.tasks.item(0, 3).text())
        table = view.resources.table
        qtbot.waitUntil(lambda: table.item(0, 4).text() == "87,186 MiB", timeout=30_000)
        assert table.item(1, 4).text() == ""
        # Every GPU process, as nvitop lists them: ours named by task, the other one not.
        processes = view.resources.gpu_processes
        rows = [[processes.item(r, c).text() for c in range(5)]
                for r in range(processes.rowCount())]
        assert rows == [
            ["0", str(recorded["pid"]), "", "87,186 MiB", "worker-0"],
            ["1", "970554", "ray::MegatronTrainRayActor.train", "97,264 MiB", ""]]
        assert view.resources.gpu_charts.isVisible()
        qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
        wait_for_run(qtbot, view)
    finally:
        window.run_view.shutdown(timeout=10)
        window.cluster.dirty = False
        window.close()


def run_once(qtbot, window, tmp_path, **config) -> None:
    assert window.open_file(write_job(tmp_path, LINES, **config))
    window.show_page("run")
    qtbot.mouseClick(window.run_view.start_button, Qt.MouseButton.LeftButton)
    assert wait_for_run(qtbot, window.run_view).status.value == "succeeded"


def test_a_training_interpreter_without_tensorboard_is_offered_the_install(
        qtbot, window, tmp_path, monkeypatch):
    """A fresh venv that sees this one's packages (TensorFlow, pip) but not TensorBoard, whether
    or not this one has it: the offer, then the real pip install in that venv, its output
    streamed and its result said. With no package index (PIP_NO_INDEX) the install fails the
    same way everywhere."""
    import subprocess
    import sys
    import sysconfig

    from PySide6.QtWidgets import QMessageBox

    pytest.importorskip("venv", reason="this Python has no venv module (the embeddable build)")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True)
    seen = tmp_path / "seen-packages"  # this venv's packages, TensorBoard's left out
    seen.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        if not entry.name.lower().startswith(("tensorboard", "tensordeck-test")):
            try:
                (seen / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
            except OSError:
                pytest.skip("no symbolic links for this user (Windows without developer mode)")
    Path(site.stdout.strip(), "tensordeck-test.pth").write_text(str(seen))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    run_once(qtbot, window, tmp_path, python=str(python))
    view = window.run_view
    offers = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args: offers.append(args[2])
                        or QMessageBox.StandardButton.No)
    qtbot.mouseClick(view.tensorboard_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(offers) == 1, timeout=30_000)
    assert str(python) in offers[0] and "pip install tensorboard" in offers[0]
    assert view.install_dialog is None  # declined: nothing installed
    monkeypatch.setattr(QMessageBox, "question", lambda *args: offers.append(args[2])
                        or QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(view.tensorboard_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.install_dialog is not None, timeout=30_000)
    dialog = view.install_dialog
    qtbot.waitUntil(lambda: dialog.ok is not None, timeout=120_000)
    assert dialog.ok is False
    assert "No matching distribution found for tensorboard" in dialog.output.toPlainText()
    assert dialog.result.text().startswith("The install failed (exit code 1)")
    dialog.close()


#: Prints TensorBoard's own banner (``TensorBoard 2.20.0 at URL (Press CTRL+C to quit)``) and
#: serves that URL: a stand-in for the real package, which this machine's venv lacks.
TENSORBOARD_STAND_IN = """import http.server, sys
server = http.server.HTTPServer(("localhost", 0), http.server.SimpleHTTPRequestHandler)
print(f"TensorBoard 2.20.0 at http://localhost:{server.server_port}/ (Press CTRL+C to quit)",
      file=sys.stderr, flush=True)
server.serve_forever()
"""


def test_open_tensorboard_shows_its_url_and_opens_the_browser(qtbot, window, tmp_path,
                                                              monkeypatch):
    import urllib.request

    from PySide6.QtGui import QDesktopServices

    package = tmp_path / "site" / "tensorboard"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "main.py").write_text(TENSORBOARD_STAND_IN)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "site"))
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    run_once(qtbot, window, tmp_path)
    view = window.run_view
    qtbot.mouseClick(view.tensorboard_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
    url = opened[0]
    assert url.startswith("http://localhost:") and url in view.tensorboard_url.text()
    with urllib.request.urlopen(url, timeout=10) as page:
        assert page.status == 200
    qtbot.mouseClick(view.tensorboard_button, Qt.MouseButton.LeftButton)  # open it again
    assert opened == [url, url]
    # The next run: its own TensorBoard on its own folder, not the last run's link.
    first_dir = view.run_dir
    qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    assert wait_for_run(qtbot, view).status.value == "succeeded" and view.run_dir != first_dir
    assert not view.tensorboard_url.isVisible()
    monkeypatch.setattr(QDesktopServices, "openUrl",
                        lambda url: opened.append(url.toString()) and False)  # no browser here
    qtbot.mouseClick(view.tensorboard_button, Qt.MouseButton.LeftButton)
    assert view.tensorboard_url.text() == "Starting TensorBoard…"  # at once, not after 20 s
    qtbot.waitUntil(lambda: len(opened) == 3, timeout=30_000)
    assert opened[2] != url and view.tensorboard._logdir == str(view.run_dir)
    assert opened[2] in view.tensorboard_url.text()
    assert "open the link yourself" in view.tensorboard_url.text()


def test_another_file_leaves_the_last_runs_state_behind(qtbot, window, tmp_path):
    """A finished (failed) run of one file, then another file opened: the Run view shows
    nothing of the first file's run (status, reason, tasks, logs, run folder); opening the
    first again (out of order) does not bring it back, and a run of it starts clean."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_job(tmp_path / "a", "import sys\nprint('a ran')\nsys.exit(3)\n")
    second = write_job(tmp_path / "b", LINES)
    idle = window.run_view.status.text()  # before any run
    view = start(qtbot, window, first)
    assert wait_for_run(qtbot, view).status.value == "failed"
    assert view.status.text() == "failed" and view.reason.isVisible()
    for config in (second, first):
        assert window.open_file(config)
        assert view.status.text() == idle and not view.reason.isVisible()
        assert view.tasks.rowCount() == 0 and "a ran" not in view.logs.combined.toPlainText()
        assert not view.folder_button.isEnabled() and not view.tensorboard_button.isEnabled()
        assert view.run_dir is None and not view.slurm_job.isVisible()
    view = start(qtbot, window, second)
    assert wait_for_run(qtbot, view).status.value == "succeeded"
    assert "a ran" not in view.logs.combined.toPlainText()


def test_open_run_folder_without_a_file_manager_says_where_it_is(qtbot, window, tmp_path,
                                                                 monkeypatch):
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QMessageBox

    run_once(qtbot, window, tmp_path)
    view = window.run_view
    said = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # none installed
    monkeypatch.setattr(QMessageBox, "information", lambda *args: said.append(args[2]))
    qtbot.mouseClick(view.folder_button, Qt.MouseButton.LeftButton)
    assert len(said) == 1 and str(view.run_dir) in said[0]


@pytest.mark.skipif(sys.platform == "win32", reason="nothing leaves a Job Object on Windows: "
                    "no detached process to stop at the end")
def test_a_run_warning_reaches_the_window(qtbot, window, tmp_path):
    """RunWarning (here: a daemon a task left running, stopped at the end) is shown in the log
    and under the status, as the console shows it."""
    daemon = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              "        null = os.open(os.devnull, os.O_WRONLY)\n        os.dup2(null, 1)\n"
              "        os.dup2(null, 2)\n        time.sleep(600)\n    os._exit(0)\n")
    view = start(qtbot, window, write_job(tmp_path, daemon, strategy="single",
                                          tasks=[{"role": "worker"}]))
    assert wait_for_run(qtbot, view).status.value == "succeeded"
    warning = "stopped 1 detached process(es) that tasks had left running"
    qtbot.waitUntil(lambda: warning in view.reason.text(), timeout=10_000)
    assert f"warning: {warning}" in view.logs.combined.toPlainText()
    assert not wait_no_leftovers(view.run_dir)


#: 100 steps of 0.2 s: stopped midway.
STOPPED_MIDWAY = ("import time\nfor i in range(1, 101):\n    print(f'step {i}/100 loss=0.5', "
              "flush=True)\n    time.sleep(0.2)\n")


def test_a_stopped_run_keeps_how_far_it_got_without_rate_or_eta(qtbot, window, tmp_path):
    view = start(qtbot, window, write_job(tmp_path, STOPPED_MIDWAY))
    progress = COLUMNS.index("progress")
    qtbot.waitUntil(lambda: (item := view.tasks.item(0, progress)) is not None
                    and "ETA" in item.text(), timeout=30_000)
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    assert wait_for_run(qtbot, view).status.value == "interrupted"
    for row in range(2):
        text = view.tasks.item(row, progress).text()
        assert text.endswith("%") and "ETA" not in text and "steps/s" not in text, text
    assert window.windowTitle().startswith("job.json")  # no progress left in the title


def test_run_again_while_a_run_goes_on_says_so(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    run_once(qtbot, window, tmp_path)
    finished = window.run_view.run_dir
    view = start(qtbot, window, write_job(tmp_path, FOREVER))
    qtbot.waitUntil(lambda: view.logs.combined.toPlainText().count("serving") == 2,
                    timeout=30_000)
    said = []
    monkeypatch.setattr(QMessageBox, "information", lambda *args: said.append(args[2]))
    window.show_page("history")
    history = window.history
    qtbot.waitUntil(lambda: any(r.run_dir == finished for r in history.records),
                    timeout=30_000)
    history.table.selectRow([r.run_dir for r in history.records].index(finished))
    qtbot.mouseClick(history.rerun_button, Qt.MouseButton.LeftButton)
    assert len(said) == 1 and "stop it, or wait until it ends" in said[0]
    assert window.run_view.running and view.run_dir != finished  # the running run goes on
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, view)


def test_history_shows_a_running_runs_metrics_as_so_far(qtbot, window, tmp_path):
    reports = ("import time\nimport tensordeck_runtime as td\ntd.report(1, loss=0.5)\n"
               "print('serving', flush=True)\ntime.sleep(600)\n")
    view = start(qtbot, window, write_job(tmp_path, reports, strategy="single",
                                          tasks=[{"role": "worker"}]))
    qtbot.waitUntil(lambda: "serving" in view.logs.combined.toPlainText(), timeout=30_000)
    window.show_page("history")
    history = window.history
    qtbot.waitUntil(lambda: any(r.run_dir == view.run_dir for r in history.records),
                    timeout=30_000)
    history.table.selectRow([r.run_dir for r in history.records].index(view.run_dir))
    qtbot.waitUntil(lambda: "loss 0.5" in history.final.text(), timeout=30_000)
    assert history.final.text() == "Metrics so far: loss 0.5"
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    wait_for_run(qtbot, view)


def test_no_task_table_column_is_cut_in_a_small_window(qtbot, window, tmp_path):
    """1024x700 at 150% leaves 683x467 to the window, with text 1.5 times as large: as 455x311
    with this text. Every column of a finished run's task table is as wide as its header and
    its cells (the table scrolls sideways instead)."""
    from PySide6.QtWidgets import QApplication

    window.resize(455, 311)
    run_once(qtbot, window, tmp_path)
    table = window.run_view.tasks
    QApplication.processEvents()
    metrics = table.fontMetrics()
    for column in range(table.columnCount()):
        needed = max([table.horizontalHeader().sectionSizeFromContents(column).width()] + [
            metrics.horizontalAdvance(table.item(row, column).text())
            for row in range(table.rowCount())])
        assert table.columnWidth(column) >= needed, (COLUMNS[column], needed)
