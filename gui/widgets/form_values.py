"""A config file's values in form fields and back: what a file says shows as it is, even a
value core refuses, so that the forms never hide what is in the file."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from core.jobfile import bounds

#: Qt's largest spin box value, for a number core does not bound.
SPIN_MAX = 2**31 - 1
#: Marks a combo item added to show a value of the file that core does not accept.
_FILE_VALUE = Qt.ItemDataRole.UserRole + 1


def as_number(value: float) -> int | float:
    """A spin box's value as the file writes it: 3, not 3.0."""
    return int(value) if float(value).is_integer() else value


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def as_text(value: object) -> str:
    """A file's value for a text field: a string as it is, anything else as its JSON."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value, ensure_ascii=False)


def select(combo: QComboBox, value: object) -> None:
    """Show ``value`` in ``combo``. A value the combo does not offer (one core refuses) gets an
    item of its own, so the form shows what the file says; it goes at the next select."""
    for index in reversed(range(combo.count())):
        if combo.itemData(index, _FILE_VALUE):
            combo.removeItem(index)
    index = combo.findData(value)
    if index < 0:
        combo.addItem(as_text(value), value)
        index = combo.count() - 1
        combo.setItemData(index, True, _FILE_VALUE)
    combo.setCurrentIndex(index)


def set_bounds(spin: QSpinBox | QDoubleSpinBox, model: type, field: str) -> None:
    """The range core's model allows for ``field``."""
    low, high = bounds(model, field)
    spin.setRange(low or 0, SPIN_MAX if high is None else high)
