"""The look: one palette of status colours and one style sheet, used by every view."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication

from core.describe import task_name

#: State -> colour, shared by task tables, history, cards and badges.
STATUS_COLORS = {
    "ok": "#1a7f37", "succeeded": "#1a7f37", "running": "#0969da", "restarting": "#9a6700",
    "pending": "#6e7781", "stopping": "#9a6700", "stopped": "#6e7781", "interrupted": "#9a6700",
    "warning": "#9a6700",
    "failed": "#cf222e", "error": "#cf222e", "abandoned": "#9a6700", "info": "#0969da",
    "unknown": "#6e7781", "unreadable": "#6e7781",
}
#: Task prefix colours in the combined log (readable on its dark background).
TASK_COLORS = ("#79c0ff", "#d2a8ff", "#7ee787", "#ffa657", "#ff7b72", "#56d4dd", "#f2cc60",
               "#a5d6ff")
#: Chart pens, one per GPU / task.
SERIES_COLORS = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#bf3989", "#0550ae",
                 "#57606a")

ACCENT = "#0969da"
#: TensorFlow's known-harmless messages in a log pane (core.tfnoise): readable, but quiet.
NOISE_COLOR = "#6e7681"
#: The ``[tensordeck]`` prefix of TensorDeck's own lines in the combined log.
TENSORDECK_COLOR = "#c9d1d9"
#: Where each role's colours start, so that ``worker-1`` has the same colour in every run.
_ROLE_COLOR_START = {"chief": 0, "worker": 1, "ps": 5, "evaluator": 7}


def task_color_index(name: str) -> int:
    """A task's colour (``worker-1``, ``worker:1``), the same in every run and every view."""
    role, _, index = task_name(name).rpartition("-")
    if not role or not index.isdigit():
        role, index = name, "0"
    start = _ROLE_COLOR_START.get(role, sum(map(ord, role)))
    return (start + int(index)) % len(TASK_COLORS)

STYLE_SHEET = """
QMainWindow, QDialog, QWizard { background: #f6f8fa; }
QListWidget#nav { background: #24292f; color: #d0d7de; border: none; font-size: 14px;
                  padding-top: 8px; outline: 0; }
QListWidget#nav::item { padding: 10px 16px; border-left: 3px solid transparent; }
QListWidget#nav::item:selected { background: #32383f; color: white; border-left-color: #4493f8; }
QListWidget#nav::item:hover:!selected { background: #2c3137; }
QFrame#card { background: white; border: 1px solid #d0d7de; border-radius: 8px; }
QLabel#pageTitle { font-size: 20px; font-weight: 600; color: #1f2328; }
QLabel#cardTitle { font-size: 14px; font-weight: 600; color: #1f2328; }
QLabel#muted { color: #656d76; }
QLabel#problem { color: #cf222e; }
QLabel#badge { border-radius: 9px; padding: 1px 8px; color: white; font-weight: 600; }
QGroupBox { background: white; border: 1px solid #d0d7de; border-radius: 8px; margin-top: 14px;
            padding: 12px 10px 10px 10px; font-weight: 600; }
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; }
QPushButton { padding: 5px 14px; border: 1px solid #d0d7de; border-radius: 6px;
              background: #f6f8fa; }
QPushButton:hover { background: #eef1f4; }
QPushButton:disabled { color: #8c959f; }
QPushButton#primary { background: #1f883d; color: white; border-color: #1a7f37; font-weight: 600; }
QPushButton#primary:hover { background: #1a7f37; }
QPushButton#primary:disabled { background: #94d3a2; border-color: #94d3a2; }
QPushButton#danger { background: #cf222e; color: white; border-color: #a40e26; font-weight: 600; }
QPushButton#danger:disabled { background: #f0b4b8; border-color: #f0b4b8; }
QPlainTextEdit#log { background: #0d1117; color: #e6edf3; border-radius: 6px;
                     selection-background-color: #264f78; }
QTableWidget { background: white; gridline-color: #eaeef2; border: 1px solid #d0d7de;
               border-radius: 6px; }
QHeaderView::section { background: #f6f8fa; border: none; border-bottom: 1px solid #d0d7de;
                       padding: 4px 6px; font-weight: 600; }
QLineEdit[invalid="true"], QSpinBox[invalid="true"], QComboBox[invalid="true"] {
    border: 1px solid #cf222e; border-radius: 4px; }
"""


def apply_style(app: QApplication) -> None:
    app.setStyle("Fusion")
    app.setStyleSheet(STYLE_SHEET)
    font = app.font()
    font.setPointSize(max(font.pointSize(), 10))
    app.setFont(font)


def monospace_font() -> QFont:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFamilies(["Cascadia Mono", "Consolas", "DejaVu Sans Mono", "Noto Sans Mono CJK SC",
                      "monospace"])
    return font


def status_color(state: str) -> QColor:
    return QColor(STATUS_COLORS.get(state, STATUS_COLORS["unknown"]))
