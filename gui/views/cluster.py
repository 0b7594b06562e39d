"""The Cluster view: the config file as forms (gui/views/job_form.py), validated as you type,
with the exact JSON it saves. What it saves is the config file the CLI runs (``tensordeck
--run FILE``); a file is opened with core's reader, and what the user has not edited is saved
as the file said it (gui/views/config_document.py)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.config import ConfigError, ConfigProblem, check_config, read_config_data
from core.fsio import write_private
from core.jobfile import new_job, run_problems
from gui.background import run_in_background
from gui.style import monospace_font
from gui.views.config_document import ConfigDocument
from gui.views.job_form import JobForm


class ClusterView(JobForm):
    """Signals: ``changed()`` on any edit (the document is then unsaved),
    ``validity(bool)`` after each validation (True: checked as ``tensordeck validate`` does,
    and valid), ``checked()`` when that deeper check is shown, ``preflight_requested()`` (the
    window saves the config, then checks its machines)."""

    changed = Signal()
    validity = Signal(bool)
    checked = Signal()
    preflight_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dirty = False
        self.document = ConfigDocument()
        self.problems: list[ConfigProblem] = []
        #: What validate() found at once, before the deeper check adds its own.
        self._fast_problems: list[ConfigProblem] = []

        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setFont(monospace_font())
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # the doctor's titles quote paths
        self.status.setWordWrap(True)
        preview_box = QGroupBox(self.tr("The config file (read-only)"))
        preview_layout = QVBoxLayout(preview_box)
        preview_layout.addWidget(self.status)
        # Keys core does not know are kept as the file says them, and refused by validate:
        # the one way to drop them without an editor.
        self.remove_unknown = QPushButton()
        self.remove_unknown.hide()
        self.remove_unknown.clicked.connect(self._remove_unknown_keys)
        preview_layout.addWidget(self.remove_unknown, 0, Qt.AlignmentFlag.AlignLeft)
        preview_layout.addWidget(self.preview, 1)

        # Neither pane goes narrower than its own smallest size (the forms' rows wrap, the
        # file's text scrolls, its title stays whole), so the page never scrolls sideways.
        splitter = QSplitter()
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.forms_area)
        splitter.addWidget(preview_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        title = QLabel(self.tr("Cluster"))
        title.setObjectName("pageTitle")
        self.path_label = QLabel()
        self.path_label.setObjectName("muted")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 16, 20, 16)
        layout.addWidget(title)
        layout.addWidget(self.path_label)
        layout.addWidget(splitter, 1)

        self._validate_timer = QTimer(self)
        self._validate_timer.setSingleShot(True)
        self._validate_timer.setInterval(150)
        self._validate_timer.timeout.connect(self.validate)
        self._generation = 0
        self._check_timer = QTimer(self)  # the deep check waits for a pause in the typing
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(400)
        self._check_timer.timeout.connect(self._deep_check)
        self.edited.connect(self._on_edit)
        self.preflight_button.clicked.connect(self.preflight_requested)
        self.set_machine_gpus([])
        self.load(new_job("my-job", "single", "train.py"), None)

    # --- the document -------------------------------------------------------------------------

    def load(self, data: dict, path: Path | None) -> None:
        """Show ``data`` (a parsed config file, valid or not) in the forms. Until the user edits
        a field, its key is saved as ``data`` says it, values the forms cannot show included."""
        self.path = path
        self.document.load(data)
        self.show_values(data)
        self._mark_clean()
        self.validate()

    def load_file(self, path: str | Path) -> None:
        """Open a config file with core's reader; raises ConfigError, with the CLI's messages,
        when it cannot be shown as fields (not JSON, a duplicate key ...: the forms keep
        theirs). Problems of its fields show next to them."""
        self.load(read_config_data(path), Path(path).resolve())

    def _mark_clean(self) -> None:
        self.document.mark_clean(self.form_values(self.document.raw))
        self.dirty = False
        self._update_path_label()
        self._show_unknown_keys()

    def _show_unknown_keys(self) -> None:
        unknown = self.document.unknown_keys()
        self.remove_unknown.setText(self.tr("Remove the unknown keys: {keys}").format(
            keys=", ".join(unknown)))
        self.remove_unknown.setVisible(bool(unknown))

    def _remove_unknown_keys(self) -> None:
        self.document.remove_unknown_keys()
        self._show_unknown_keys()
        self._update_dirty()
        self.changed.emit()
        self.validate()

    def to_dict(self) -> dict:
        """The config file: each key the user edited as the forms say it, the others as the
        loaded document said them; keys in core's order, unknown keys kept after them."""
        return self.document.merged(self.form_values(self.document.raw))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def save(self, path: str | Path | None = None) -> Path:
        """Write the config file (to ``path``, or where it came from). Relative script paths
        stay relative to the file's folder. Written whole (a failed write leaves the old file
        as it was); a new file is 0600, as it can hold the job's environment (tokens), and a
        file that was there keeps its permissions: the user chose them."""
        target = Path(path).resolve() if path else self.path
        if target is None:
            raise ValueError("no file name: use save(path)")
        script = self.script.text().strip()
        if script and os.path.isabs(script):
            with contextlib.suppress(ValueError):  # another drive on Windows: keep it absolute
                self.script.setText(os.path.relpath(script, target.parent))
        if target == self.path and not self.dirty and target.exists():
            return target  # nothing edited: the file stays byte for byte as the user wrote it
        try:
            write_private(target, self.to_json(), keep_mode=True)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        self.path = target
        self._mark_clean()
        self.validate()  # a new folder: the script, the run folder and the checks may differ
        return target

    def _on_edit(self, key: str) -> None:
        self.document.edited.add(key)
        self._update_dirty()
        self.changed.emit()
        self._validate_timer.start()

    def _update_dirty(self) -> None:
        self.dirty = self.document.is_dirty(self.form_values(self.document.raw))
        self._update_path_label()

    def _update_path_label(self) -> None:
        name = str(self.path) if self.path else self.tr("Not saved yet")
        self.path_label.setText(name + (" *" if self.dirty else ""))

    # --- validation ---------------------------------------------------------------------------

    def validate(self) -> list[ConfigProblem]:
        """Check the forms at once (core's model, the script's existence, the arguments, the
        machines' names) and show each problem next to its field; then, when they pass and
        the document has a folder, check it as ``tensordeck validate`` does (the interpreter
        run, the ports, the doctor), off the UI thread and a moment after the last edit, and
        show those problems too (``checked`` then). Every problem at once: that check also
        runs while fields are wrong, on the keys that are right, as ``validate`` does."""
        data = self.to_dict()
        try:
            check_config(data)
            problems: list[ConfigProblem] = []
        except ConfigError as exc:
            problems = list(exc.problems)
        problems += self._script_problem(data.get("script", ""))
        if (args_problem := self.args.problem()) is not None:
            problems.append(ConfigProblem(where="args", message=args_problem))
        problems += [ConfigProblem(where="nodes", message=self.tr(
            "two machines are named {name!r}: give each its own name").format(name=name)
            if name else self.tr("a machine has no name: give it one"))
            for name in self.nodes.duplicate_names()]
        self._generation += 1  # a deep check of an older document is no longer shown
        self._fast_problems = problems
        self._show_problems(problems, self.tr("Checking the interpreter, the ports and the "
                                              "doctor's pre-run checks…"))
        self._check_timer.start()
        return problems

    def _script_problem(self, script: object) -> list[ConfigProblem]:
        if not script or not isinstance(script, str):
            return []  # a script that is not text is core's problem, listed already
        path = self.absolute_script(script)
        if path is None or path.is_file():
            return []
        return [ConfigProblem(where="script", message=self.tr("{path} does not exist").format(
            path=path))]

    def _deep_check(self) -> None:
        if self.path is None:  # its script and run folder are found from the file's folder
            if not self._fast_problems:
                self._show_problems([], self.tr("No problem in the fields. Saved, the file is "
                                                "also checked as `tensordeck validate` does."))
            self.checked.emit()
            return
        generation, data, path = self._generation, self.to_dict(), self.path
        fast = self._fast_problems

        def show(result: tuple[list[ConfigProblem], list]) -> None:
            if not shiboken6.isValid(self) or generation != self._generation:
                return  # the view closed, or the document changed, meanwhile
            found, warnings = result
            self._show_problems([*fast, *(p for p in found if p not in fast)], None, warnings)
            self.checked.emit()

        run_in_background(lambda: run_problems(data, path), show)

    def _show_problems(self, problems: list[ConfigProblem], pending: str | None,
                       warnings: list | None = None) -> None:
        """Show ``problems`` next to their fields and in the status line; ``pending``: what
        the status says while the deeper check runs (when there is no problem yet)."""
        self.problems = problems
        self.show_field_problems(problems)
        self.preview.setPlainText(self.to_json())
        if problems:
            self.status.setText(self.tr("{n} problem(s) to fix before this config can run.")
                                .format(n=len(problems)))
            self.status.setObjectName("problem")
        elif pending is not None:
            self.status.setText(pending)
            self.status.setObjectName("muted")
        else:
            text = self.tr("Valid: this is exactly the file `tensordeck --run` reads.")
            if warnings:
                text += "\n" + self.tr("The doctor warns: {titles}").format(
                    titles="; ".join(f.title_in() for f in warnings))
            self.status.setText(text)
            self.status.setObjectName("muted")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        self.validity.emit(not problems and pending is None)
