"""The window's building blocks: log panes, charts' ring buffers, settings, translations, and
the PySide6 release guard."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QSettings
from PySide6.QtWidgets import QLabel

from gui.i18n import install_translators, resolve_language
from gui.settings import Settings
from gui.widgets.charts import GpuCharts, MetricCharts, RingSeries
from gui.widgets.log_view import LogPanel, LogView


def test_20000_settext_calls_do_not_crash_the_interpreter(qtbot):
    """PySide6 6.12.0 on Python 3.11 aborts after a few thousand such calls (none_dealloc):
    this is why the dependency is pinned below 6.12."""
    label = QLabel()
    qtbot.addWidget(label)
    for i in range(20_000):
        label.setText(str(i))
    assert label.text() == "19999"


def shown_view(qtbot, **kwargs) -> LogView:
    view = LogView(**kwargs)
    qtbot.addWidget(view)
    view.show()
    return view


def test_progress_line_updates_in_place_and_gives_way_to_lines(qtbot):
    view = shown_view(qtbot)
    view.add_lines(["Epoch 1/2"])
    view.set_progress("w", "1/10 [==>...] loss: 0.9")
    view.flush()
    view.set_progress("w", "5/10 [=====>] loss: 0.5")
    view.flush()
    assert view.toPlainText() == "Epoch 1/2\n5/10 [=====>] loss: 0.5"
    view.set_progress("w", None)
    view.add_lines(["10/10 [======] loss: 0.3", "Epoch 2/2"])
    view.flush()
    assert view.toPlainText() == "Epoch 1/2\n10/10 [======] loss: 0.3\nEpoch 2/2"


def test_ansi_codes_are_stripped_and_the_pane_is_bounded(qtbot):
    view = shown_view(qtbot, max_lines=100)
    view.add_lines(["\x1b[1m1/6\x1b[0m \x1b[32m━━\x1b[0m loss: 0.7"])
    view.flush()
    assert view.toPlainText() == "1/6 ━━ loss: 0.7"
    for start in range(0, 1000, 30):
        view.add_lines([f"line {i}" for i in range(start, start + 30)])
        view.flush()
    assert view.line_count == 100
    # Under a flood the tail is redrawn a few times a second: wait for the last redraw.
    qtbot.waitUntil(lambda: view.toPlainText().endswith("line 1019"), timeout=2000)
    assert view.document().blockCount() <= 100


def test_filter_shows_only_matching_lines_and_search_finds_them(qtbot):
    panel = LogPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.set_tasks(["worker-0", "worker-1"])
    panel.add_output("worker-0", ["alpha", "loss=1"], None)
    panel.add_output("worker-1", ["beta", "loss=2"], None)
    panel.flush()
    combined = panel.combined.toPlainText().splitlines()
    assert combined == ["[worker-0] alpha", "[worker-0] loss=1", "[worker-1] beta",
                        "[worker-1] loss=2"]
    panel.search.setText("LOSS")
    assert panel.find_next()
    assert panel.combined.textCursor().selectedText() == "loss"
    panel.only_matching.setChecked(True)
    assert panel.combined.toPlainText().splitlines() == ["[worker-0] loss=1", "[worker-1] loss=2"]
    panel.add_output("worker-0", ["gamma", "loss=3"], None)
    panel.flush()
    assert panel.combined.toPlainText().splitlines()[-1] == "[worker-0] loss=3"
    panel.only_matching.setChecked(False)
    assert len(panel.combined.toPlainText().splitlines()) == 6


def test_ring_series_window_is_the_last_samples_in_order():
    ring = RingSeries(5)
    for i in range(3):
        ring.append(i, i * 10)
    x, y = ring.window(10)
    assert x.tolist() == [0, 1, 2] and y.tolist() == [0, 10, 20]
    for i in range(3, 12):
        ring.append(i, None if i == 10 else i * 10)
    x, y = ring.window(4)
    assert x.tolist() == [8, 9, 10, 11]
    assert y[0] == 80 and np.isnan(y[2]) and y[3] == 110
    assert ring.window()[0].tolist() == [7, 8, 9, 10, 11]


def test_gpu_charts_keep_a_day_at_minute_peaks(qtbot):
    from core.gpu.info import GpuInfo

    charts = GpuCharts()
    qtbot.addWidget(charts)
    for t in range(0, 3 * 3600):
        charts.add_sample(1_000_020.0 + t, (GpuInfo(index=0, utilization_gpu=t % 97),))
    charts.window_box.setCurrentIndex(3)  # 24 h
    x, y = charts.curves[0][0].getData()
    assert len(x) == 3 * 60 - 1  # one point a minute (the current minute is still open)
    assert y.max() == 96
    charts.window_box.setCurrentIndex(0)  # 1 min: the 1 Hz samples
    x, _ = charts.curves[0][0].getData()
    assert len(x) == 60


def test_metric_charts_one_plot_per_metric_loss_first(qtbot):
    charts = MetricCharts()
    qtbot.addWidget(charts)
    charts.add_point("worker:0", 1, {"accuracy": 0.5, "loss": 0.9})
    charts.add_point("worker:1", 1, {"loss": 0.8})
    charts.add_point("worker:0", 2, {"loss": float("nan")})
    charts.refresh()
    assert charts.grid.itemAtPosition(0, 0).widget() is charts.plots["loss"]
    assert charts.series[("loss", "worker:0")].data()[1].tolist() == [0.9]
    assert set(charts.series) == {("accuracy", "worker:0"), ("loss", "worker:0"),
                                  ("loss", "worker:1")}


def test_settings_remember_recent_files_newest_first(tmp_path):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for name in ("a.json", "b.json", "a.json"):
        settings.add_recent_file(name)
    assert settings.recent_files() == ["a.json", "b.json"]
    settings.wizard_done = True
    again = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    assert again.wizard_done is True and again.recent_files() == ["a.json", "b.json"]


@pytest.mark.parametrize("language", ["zh_CN"])
def test_chinese_translation_is_complete_and_loads(qapp, language):
    from xml.etree import ElementTree

    from gui.i18n import TRANSLATIONS

    ts = ElementTree.parse(TRANSLATIONS / f"tensordeck_{language}.ts")
    unfinished = [m.findtext("source") for m in ts.iter("message")
                  if m.find("translation").get("type") in ("unfinished", "obsolete")
                  and m.find("translation").get("type") != "vanished"]
    assert unfinished == []
    try:
        assert install_translators(qapp, language) == language
        assert QCoreApplication.translate("State", "succeeded") == "成功"
        assert QCoreApplication.translate("MainWindow", "History") == "历史"
    finally:
        install_translators(qapp, "en")
    assert QCoreApplication.translate("State", "succeeded") == "succeeded"
    assert resolve_language("system") in ("en", "zh_CN")


def test_main_opens_the_window_on_a_config_and_returns_when_closed(qapp, tmp_path):
    from PySide6.QtCore import QTimer

    from gui.app import main
    from gui.main_window import MainWindow

    config = tmp_path / "job.json"
    config.write_text('{"name": "t", "strategy": "single", "script": "train.py"}')
    seen = []

    def look_and_close() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow)]
        seen.extend((w.current_page(), w.cluster.path) for w in windows)
        for w in windows:
            w.close()

    QTimer.singleShot(300, look_and_close)
    assert main([str(config)]) == 0
    assert seen == [("cluster", config)]


def test_task_table_names_an_exit_code_and_explains_it(qtbot):
    from types import SimpleNamespace

    from core.events import TaskState
    from gui.widgets.task_table import COLUMNS, TaskTable

    table = TaskTable()
    qtbot.addWidget(table)
    tasks = [SimpleNamespace(key=f"worker:{i}", role="worker", index=i, address=None,
                             host="localhost") for i in range(2)]
    table.set_tasks(tasks)
    column = COLUMNS.index("exit code")
    table.task_started("worker:0", 100)
    table.task_exited("worker:0", 3221225477, TaskState.FAILED)
    item = table.item(0, column)
    assert item.text() == "0xC0000005 (access violation: the process crashed)"
    assert "Windows status 0xC0000005 (3221225477)" in item.toolTip()
    table.task_exited("worker:1", 143, TaskState.STOPPED)
    assert table.item(1, column).text() == "143 (stopped by TensorDeck: SIGTERM)"
    assert "TensorDeck" in table.item(1, column).toolTip()
    table.task_started("worker:0", 101)  # a restart clears the old code and its tooltip
    assert table.item(0, column).text() == "" and table.item(0, column).toolTip() == ""


def test_metric_charts_log_scale_smoothing_hover_and_zoom(qtbot):
    from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent, QWheelEvent
    from PySide6.QtWidgets import QApplication

    charts = MetricCharts()
    qtbot.addWidget(charts)
    charts.resize(900, 500)
    charts.show()
    losses = [1.0, 0.2, 0.9, 0.1, 0.8, 0.05]
    for step, loss in enumerate(losses, start=1):
        charts.add_point("worker:0", step * 10, {"loss": loss})
        charts.add_point("worker:1", step * 10, {"loss": loss / 2})
    charts.refresh()
    curve = charts.curves[("loss", "worker:0")]
    assert curve.getData()[1].tolist() == losses  # no smoothing: the values themselves
    for _ in range(2):  # on and off again
        qtbot.mouseClick(charts.log_scale, Qt.MouseButton.LeftButton)
        assert charts.plots["loss"].getPlotItem().ctrl.logYCheck.isChecked() is \
            charts.log_scale.isChecked()
    charts.smoothing.setFocus()
    for _ in range(6):
        qtbot.keyClick(charts.smoothing, Qt.Key.Key_PageUp)  # 10 a page: 0.6
    assert charts.smoothing_label.text() == "0.60"
    drawn = curve.getData()[1]
    assert drawn[0] == 1.0 and max(drawn[1:]) < 1.0 and min(drawn) > 0.05  # evened out
    assert charts.raw_curves[("loss", "worker:0")].getData()[1].tolist() == losses
    plot = charts.plots["loss"]
    qtbot.waitExposed(plot)
    qtbot.waitUntil(lambda: plot.getPlotItem().vb.viewRange()[0][1] > 60)  # ranged to the data
    target = plot.getPlotItem().vb.mapViewToScene(QPointF(31, 0.5))
    # The event a mouse moving there makes (QTest's mouseMove moves no cursor offscreen).
    where = QPointF(plot.mapFromScene(target))
    QApplication.sendEvent(plot.viewport(), QMouseEvent(
        QEvent.Type.MouseMove, where, QPointF(plot.viewport().mapToGlobal(where)),
        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))
    qtbot.waitUntil(lambda: "step 30:" in charts.hover.text())
    assert "worker:0" in charts.hover.text() and "worker:1" in charts.hover.text()
    before = plot.getPlotItem().vb.viewRange()[0]
    center = plot.viewport().rect().center()
    wheel = QWheelEvent(QPointF(center), QPointF(plot.viewport().mapToGlobal(center)),
                        QPoint(0, 0), QPoint(0, 240), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(plot.viewport(), wheel)
    zoomed = plot.getPlotItem().vb.viewRange()[0]
    assert zoomed[1] - zoomed[0] < before[1] - before[0]
    qtbot.mouseClick(charts.reset_zoom, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: plot.getPlotItem().vb.viewRange()[0][1]
                    - plot.getPlotItem().vb.viewRange()[0][0] >= before[1] - before[0] - 1e-9)


def test_a_task_keeps_its_colour_across_runs_and_views(qtbot):
    """worker-1 in a run of two and in a pane of its own (History, another run): one colour,
    in the logs and in the charts; other tasks get other colours."""
    from gui.widgets.log_view import LogPanel

    def prefix_color(panel: LogPanel, name: str) -> str:
        panel.add_output(name, ["step 1/2 loss=0.5"], None)
        panel.flush()
        doc = panel.combined.document()
        block = next(doc.findBlockByNumber(n) for n in range(doc.blockCount())
                     if doc.findBlockByNumber(n).text().startswith(f"[{name}]"))
        ranges = block.layout().formats()  # kept: each range's format lives in the list
        return ranges[0].format.foreground().color().name()

    colors = []
    for names in (["worker-0", "worker-1", "ps-0"], ["worker-1"], ["chief-0", "worker-1"]):
        panel = LogPanel()
        qtbot.addWidget(panel)
        panel.show()
        panel.set_tasks(names)
        colors.append({name: prefix_color(panel, name) for name in names})
    assert colors[0]["worker-1"] == colors[1]["worker-1"] == colors[2]["worker-1"]
    assert len({*colors[0].values(), colors[2]["chief-0"]}) == 4
    charts = []
    for tasks in (["worker:0", "worker:1"], ["worker:1"]):
        chart = MetricCharts()
        qtbot.addWidget(chart)
        for task in tasks:
            chart.add_point(task, 1, {"loss": 0.5})
        charts.append(chart.curves[("loss", "worker:1")].opts["pen"].color().name())
    assert charts[0] == charts[1]
