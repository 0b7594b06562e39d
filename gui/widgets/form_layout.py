"""Small pieces of the config forms' layout: a field with its problem under it, a field with
its buttons beside it, and the scrolling area the forms live in."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget


def problem_label() -> QLabel:
    """Where a field's problems show (hidden while it has none)."""
    label = QLabel()
    label.setObjectName("problem")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the file: no markup from there
    label.hide()
    return label


def row(*widgets: QWidget) -> QWidget:
    """The first widget stretched, the others (its buttons) beside it."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(widgets[0], 1)
    for widget in widgets[1:]:
        layout.addWidget(widget)
    return box


def stack(*widgets: QWidget) -> QWidget:
    """The widgets one under the other, close together (a field, then what it says)."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    for widget in widgets:
        column.addWidget(widget)
    return box


class FormsArea(QScrollArea):
    """The forms scroll up and down only, and are never narrower than their widest row: a
    splitter beside them gives its other pane less room instead, then the page scrolls (a
    sideways-scrolled form hid its Browse buttons behind its right edge at 1024x700)."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        forms = self.widget()
        if forms is None:
            return hint
        width = forms.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
        return QSize(max(hint.width(), width), hint.height())
