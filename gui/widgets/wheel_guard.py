"""The mouse wheel scrolls the page, not the value under the pointer.

Qt gives the wheel to whatever combo box or spin box the pointer crosses while the user
scrolls a form, and that widget changes its value (a strategy, a restart policy, a task's
role) without a click; Save then writes it. One filter on the application, for every such
widget of every view and dialog: an unfocused one lets the wheel pass to the page around it;
one the user clicked into (focused) still takes it, as the user expects.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QWidget

_GUARDED = (QComboBox, QAbstractSpinBox)


def _guarded(obj: QObject) -> QWidget | None:
    """The combo or spin box ``obj`` is, or is part of (a spin box's line edit)."""
    while isinstance(obj, QWidget):
        if isinstance(obj, _GUARDED):
            return obj
        if obj.isWindow():
            return None
        obj = obj.parentWidget()
    return None


class WheelGuard(QObject):
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(obj, _GUARDED):
            # The default (WheelFocus) would hand focus to the widget at the wheel's first
            # tick, before this filter can tell a click from a scroll.
            obj.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel and (widget := _guarded(obj)) and not widget.hasFocus():
            event.ignore()  # not taken: Qt passes it on to the parent, the scroll area
            return True
        return False


def install_wheel_guard(app: QApplication) -> None:
    """Install the guard on ``app`` once (the window, the wizard and their tests share it)."""
    if app.findChild(WheelGuard) is None:
        app.installEventFilter(WheelGuard(app))
