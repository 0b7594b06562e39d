"""What a user sees of the window on a small or scaled screen, measured on real widgets in a
child process (the scale is fixed when Qt starts): ``python tests/gui_layout_probe.py OUT``
with ``QT_QPA_PLATFORM=offscreen:configfile=...`` and ``QT_SCALE_FACTOR`` set by the caller
(:func:`tests.test_gui_layout.measured`).

It opens the main window as the first start sizes it on that screen, runs a short real job
twice (two workers printing Keras-style lines; one exits 3, so the run ends with a reason),
then looks at the Run view (the log under the status line, the task table's columns, the
buttons), follows the log through resizes, looks at every page's tables, buttons and sideways
scrolling, and hovers the History's Compare dialog. Every figure is in the window's own
(logical) pixels."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import Qt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

JOB = """
import sys, time
index = int(sys.argv[-1])
for epoch in range(1, 4):
    print(f"Epoch {epoch}/3", flush=True)
    print(f"20/20 [==============================] - 0s 5ms/step - loss: {1 / epoch:.4f}"
          f" - accuracy: {1 - 1 / (epoch + 1):.4f}", flush=True)
    time.sleep(0.05)
sys.exit(3 if index == 1 else 0)
"""


def settle(app, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def wait(app, done, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not done():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there")
        settle(app, 0.05)


def write_job(folder: Path) -> Path:
    (folder / "job.py").write_text(JOB, encoding="utf-8")
    config = folder / "job.json"
    config.write_text(json.dumps({
        "name": "layout", "strategy": "multi_worker_mirrored", "script": "job.py",
        "args": ["{task_index}"], "tasks": [{"role": "worker", "count": 2}],
        "stop_grace_seconds": 3}), encoding="utf-8")
    return config


#: The style sheet's header padding (gui.style: ``QHeaderView::section { padding: 4px 6px }``).
HEADER_PADDING = 2 * 6


def columns(table) -> list[dict]:
    """Each shown column: its header, its width, and what its header's text needs in the
    header's bold font (gui.style) with its padding."""
    from PySide6.QtGui import QFont, QFontMetrics

    header = table.horizontalHeader()
    bold = QFont(header.font())
    bold.setWeight(QFont.Weight.DemiBold)
    metrics = QFontMetrics(bold)
    out = []
    for col in range(table.columnCount()):
        if header.isSectionHidden(col):
            continue
        text = table.model().headerData(col, Qt.Orientation.Horizontal)
        out.append({"header": text, "width": header.sectionSize(col),
                    "header_needs": metrics.horizontalAdvance(text) + HEADER_PADDING})
    return out


def tables(page) -> dict[str, list[dict]]:
    """The columns of every table shown on ``page``, by the table's class and place."""
    from PySide6.QtWidgets import QTableView

    return {f"{type(t.parent()).__name__}.{type(t).__name__}.{i}": columns(t)
            for i, t in enumerate(page.findChildren(QTableView)) if t.isVisibleTo(page)}


def buttons(page) -> list[dict]:
    """Every button shown on ``page``: its size, what its text needs, and how much of its
    width is on the screen (a button the window cuts at its right edge)."""
    from PySide6.QtWidgets import QAbstractButton

    out = []
    for button in page.findChildren(QAbstractButton):
        if not button.isVisibleTo(page) or not button.text():
            continue
        hint = button.sizeHint()
        shown = button.visibleRegion().boundingRect()
        out.append({"text": button.text(), "width": button.width(), "height": button.height(),
                    "hint_width": hint.width(), "hint_height": hint.height(),
                    "shown_width": shown.width() if shown.height() else button.width()})
    return out


def sideways(area) -> dict:
    """How far a page (its scroll area) scrolls sideways, whether its bar shows, and what is
    widest in it (each shown widget's smallest width: what to look at when it scrolls)."""
    from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

    page = area.widget()
    wide = sorted((w.minimumSizeHint().width(), type(w).__name__,
                   w.text()[:40] if isinstance(w, (QLabel, QAbstractButton)) else "")
                  for w in page.findChildren(QWidget) if w.isVisibleTo(page))
    bar = area.horizontalScrollBar()
    return {"scroll_x": bar.maximum(), "bar_x": bar.isVisible(), "widest": wide[-8:]}


def log_follows(app, window, view, log) -> list[bool]:
    """Whether the log pane shows its end after each step: lines added at the end, the window
    made smaller, lines added, made bigger, lines added, made smaller again."""
    size = window.size()
    steps = [None, (size.width() - 60, size.height() - 120), None,
             (size.width(), size.height()), None, (size.width() - 30, size.height() - 60), None]
    at_end = []
    count = 0
    for step in steps:
        if step is None:
            lines = [f"line {count + i}" for i in range(40)]
            count += len(lines)
            view.logs.add_output("worker-0", lines, None)
            view.logs.flush()
        else:
            window.resize(*step)
        settle(app, 0.2)
        bar = log.verticalScrollBar()
        at_end.append(bar.value() == bar.maximum() and bar.maximum() > 0)
    window.resize(size)
    settle(app, 0.2)
    return at_end


def compare_width(app, window) -> dict:
    """The Compare dialog of the two runs: its width before and after the mouse went over
    every chart, and the screen's."""
    from PySide6.QtCore import QEvent, QPoint, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtTest import QTest

    history = window.history
    window.show_page("history")
    wait(app, lambda: history.table.rowCount() >= 2)
    settle(app, 0.5)  # the page's own refresh is done
    history.table.selectAll()
    settle(app)
    history.compare()
    dialog = history.comparisons[-1]
    wait(app, lambda: dialog.charts.plots and not dialog.charts.empty.isVisible())
    settle(app, 0.5)
    before = dialog.frameGeometry().width()
    for plot in dialog.charts.plots.values():
        viewport = plot.viewport()
        for x in range(5, viewport.width(), max(viewport.width() // 12, 1)):
            point = QPoint(x, viewport.height() // 2)
            QTest.mouseMove(viewport, point)
            # Delivered to the chart itself as well: the offscreen platform routes QTest's
            # move to whichever window it finds first there (the main window, under the
            # dialog, at 100%).
            app.sendEvent(viewport, QMouseEvent(
                QEvent.Type.MouseMove, QPointF(point), QPointF(viewport.mapToGlobal(point)),
                Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier))
            app.processEvents()
    settle(app, 0.3)
    seen = {"before": before, "after": dialog.frameGeometry().width(),
            "screen": dialog.screen().availableGeometry().width(),
            "hover": dialog.charts.hover.text()}
    dialog.close()
    return seen


def measure(folder: Path, language: str) -> dict:
    from PySide6.QtCore import QSettings

    from gui.app import make_app
    from gui.settings import Settings
    from tests.nvml_replay import ReplayNvml

    app = make_app()
    from PySide6.QtWidgets import QMessageBox

    from gui.i18n import install_translators

    install_translators(app, language)

    from gui.main_window import MainWindow

    def unexpected(*args, **kwargs):  # nobody would answer it: say what it said
        raise SystemExit(f"unexpected dialog: {args[1:3]}")

    for name in ("question", "warning", "information", "critical"):
        setattr(QMessageBox, name, unexpected)

    settings = Settings(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings, nvml=ReplayNvml.load("h200x2_linux"), gpu_feed=False)
    window.show()
    config = write_job(folder)
    window.open_file(str(config))
    view = window.run_view
    # Each run to its end: the view says it has ended (not running yet can be not started yet,
    # and a run whose worker failed is still stopping the other one).
    ended: list[tuple] = []
    view.run_finished.connect(lambda *args: ended.append(args))
    for runs in (1, 2):
        window.start_run()
        wait(app, lambda runs=runs: len(ended) >= runs)
        settle(app, 0.5)
    page = window.stack.currentWidget()  # the Run page's scroll area
    log = view.logs.combined
    shown = log.visibleRegion().boundingRect()
    seen = {
        "screen": [window.screen().availableGeometry().width(),
                   window.screen().availableGeometry().height()],
        "window": [window.width(), window.height()],
        "reason": view.reason.text(),
        "page_scroll": page.verticalScrollBar().maximum(),
        # What the page's smallest size makes it scroll by, at least.
        "page_must_scroll": max(0, view.minimumSizeHint().height() - page.viewport().height()),
        "log_shown_height": shown.height() if not shown.isEmpty() else 0,
        "log_line_height": log.fontMetrics().lineSpacing(),
        "log_follows": log_follows(app, window, view, log),
        "pages": {},
    }
    for name, widget in (("machine", window.machine), ("cluster", window.cluster),
                         ("run", view), ("history", window.history)):
        window.show_page(name)
        # The Machine page checks the machine when first shown: measured once its cards are all
        # in (under load the check ran past the settle, and a card was caught mid-layout).
        wait(app, lambda: not window.machine.checking)
        settle(app, 0.5)
        seen["pages"][name] = {"tables": tables(widget), "buttons": buttons(widget),
                               **sideways(window.stack.currentWidget())}
    seen["compare"] = compare_width(app, window)
    window.cluster.dirty = False
    window.close()
    return seen


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        seen = measure(Path(tmp), sys.argv[2] if len(sys.argv) > 2 else "en")
    Path(sys.argv[1]).write_text(json.dumps(seen, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
