"""Small pieces of the config forms' layout: a field with its problem under it, a field with
its buttons beside it, a form and a choice that give way on a narrow pane, and the scrolling
area the forms live in."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

#: How many characters a choice keeps in sight when its pane is narrow (its list shows all).
CHOICE_CHARS = 10


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


def form(box: QWidget | None = None) -> QFormLayout:
    """A form whose fields go under their labels when the pane is too narrow for both side by
    side (the forms' widest row set the page's width: it scrolled sideways at 1024x700 150%)."""
    layout = QFormLayout(box)
    layout.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    return layout


def shrinkable(combo: QComboBox) -> QComboBox:
    """``combo`` asking for the width of a few characters only, not of its longest choice: it
    takes more when its pane has room, and its list still shows each choice whole."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(CHOICE_CHARS)
    return combo


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
