"""The ``slurm`` block of a config as a form: one field per key of core's SlurmOptions, typed
as the model types it. A key the user has not edited is saved as the file said it."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from core.config import SlurmOptions
from core.jobfile import SLURM_KEYS, default, kind
from gui.widgets.form_layout import form as fields_form
from gui.widgets.form_values import as_text, is_number, set_bounds

SlurmField = QLineEdit | QSpinBox | QPlainTextEdit


class SlurmForm(QGroupBox):
    """``edited()`` when the user changes a field (not when a file is shown); ``problem``
    shows the block's problems under the fields."""

    edited = Signal()

    def __init__(self, problem: QLabel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Slurm"))
        self._loading = False
        self._edited: set[str] = set()
        self.fields: dict[str, SlurmField] = {key: self._field(key) for key in SLURM_KEYS}
        form = fields_form(self)
        hint = QLabel(self.tr("Used when the Run view's \"Run on\" is a Slurm cluster "
                              "(tensordeck --run FILE --slurm). Empty: the cluster's default."))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        form.addRow(hint)
        labels = {"partition": self.tr("Partition"), "account": self.tr("Account"),
                  "time_limit": self.tr("Time limit"), "gpus_per_task": self.tr("GPUs per task"),
                  "extra_sbatch": self.tr("More #SBATCH lines")}
        for key, widget in self.fields.items():
            form.addRow(labels.get(key, key), widget)
        form.addRow(problem)

    def _field(self, key: str) -> SlurmField:
        """The editor of ``slurm.KEY``, as core's model types it."""
        hints = {"partition": self.tr("The cluster's default partition"),
                 "account": self.tr("Your default account"),
                 "time_limit": self.tr("The partition's; e.g. 90, 2:00:00 or 1-12:00:00"),
                 "gpus_per_task": self.tr("None"),
                 "extra_sbatch": self.tr("One option a line, e.g. --qos=normal")}
        field_kind = kind(SlurmOptions, key)
        widget: SlurmField
        if field_kind == "lines":
            widget = QPlainTextEdit()
            widget.setPlaceholderText(hints.get(key, ""))
            widget.setTabChangesFocus(True)
            widget.setFixedHeight(widget.fontMetrics().lineSpacing() * 4)
            widget.textChanged.connect(lambda: self._on_edit(key))
        elif field_kind == "integer":
            widget = QSpinBox()
            set_bounds(widget, SlurmOptions, key)
            if default(SlurmOptions, key) is None:  # its lowest value: left out, as by default
                widget.setSpecialValueText(hints.get(key, self.tr("Not set")))
            widget.valueChanged.connect(lambda: self._on_edit(key))
        else:
            widget = QLineEdit()
            widget.setPlaceholderText(hints.get(key, ""))
            widget.textChanged.connect(lambda: self._on_edit(key))
        return widget

    def _on_edit(self, key: str) -> None:
        if not self._loading:
            self._edited.add(key)
            self.edited.emit()

    def load(self, block: object) -> None:
        """Show a file's ``slurm`` block (whatever it holds); no key is edited then."""
        self._loading = True
        self._edited = set()
        values = block if isinstance(block, dict) else {}
        for key, widget in self.fields.items():
            value = values.get(key, default(SlurmOptions, key))
            if isinstance(widget, QPlainTextEdit):
                widget.setPlainText("\n".join(as_text(v) for v in value)
                                    if isinstance(value, list) else as_text(value))
            elif isinstance(widget, QSpinBox):
                widget.setValue(value if is_number(value) else widget.minimum())
            else:
                widget.setText(as_text(value))
        self._loading = False

    def value(self, loaded: object) -> dict | None:
        """The block to save: ``loaded`` (the file's) with the fields the user edited as the
        forms say them (at core's default: left out); None when it is left empty."""
        data = dict(loaded) if isinstance(loaded, dict) else {}
        for key in self._edited:
            value = self._form_value(key)
            if value == default(SlurmOptions, key):
                data.pop(key, None)
            else:
                data[key] = value
        known = {key: data[key] for key in SLURM_KEYS if key in data}
        return {**known, **{k: v for k, v in data.items() if k not in known}} or None

    def _form_value(self, key: str) -> object:
        """What the field of ``slurm.KEY`` says: lines, a number (its special value: the
        default) or a text (empty: None)."""
        widget = self.fields[key]
        if isinstance(widget, QPlainTextEdit):
            return [line.strip() for line in widget.toPlainText().splitlines() if line.strip()]
        if isinstance(widget, QSpinBox):
            if widget.specialValueText() and widget.value() == widget.minimum():
                return default(SlurmOptions, key)
            return widget.value()
        return widget.text().strip() or None
