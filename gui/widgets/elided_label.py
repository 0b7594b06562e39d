"""A status line that never resizes its window: each line of its text is cut with "…" to the
label's width, and the whole text is its tooltip.

A word-wrapped QLabel makes its layout height-for-width, so a scroll area then gives the whole
page its preferred height (a finished run's reason pushed the log below the fold); a plain one
is as wide as its longest line (a hover text made the Compare dialog wider than the screen)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget


class ElidedLabel(QLabel):
    """:meth:`text` is the whole text; what is drawn is each of its lines cut to the width
    (at the end, or in the middle for a path: ``mode``). It asks for its whole text's width
    where there is room, and takes what is left where there is not."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight) -> None:
        super().__init__(parent)
        self._text = ""
        self._mode = mode
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:
        self._text = text
        self.updateGeometry()  # the size it asks for is its whole text's
        self._elide()

    def clear(self) -> None:
        self.setText("")

    def sizeHint(self) -> QSize:
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = max(map(metrics.horizontalAdvance, self._text.split("\n")))
        return QSize(width + margins.left() + margins.right(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        width = max(self.contentsRect().width(), 0)
        shown = "\n".join(metrics.elidedText(line, self._mode, width)
                          for line in self._text.split("\n"))
        if shown != super().text():
            super().setText(shown)
        self.setToolTip(self._text if shown != self._text else "")
