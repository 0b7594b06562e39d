"""Window sizes that fit the screen: a dialog sized for a desktop (1000x640) is wider than a
1024x700 screen at 150% scale (683x467 pixels to lay out), which would put its buttons and
its right half off the screen."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

#: The share of the screen's free area a window may take (room for its frame and title bar).
WIDTH_SHARE = 0.95
HEIGHT_SHARE = 0.9


def within_screen(window: QWidget, width: int, height: int) -> QSize:
    """``width`` x ``height``, or less where ``window``'s screen has no room for it."""
    area = window.screen().availableGeometry()
    return QSize(min(width, int(area.width() * WIDTH_SHARE)),
                 min(height, int(area.height() * HEIGHT_SHARE)))
