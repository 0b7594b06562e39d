"""Log panes that keep up with a task printing 50,000 lines a second.

A pane holds a bounded tail (``max_lines``); the complete log is the task's file in the run
folder. Lines are queued by :meth:`LogView.add_lines` and drawn by :meth:`LogView.flush` in one
batch (per-line appends are ~150x slower). A batch longer than the pane is drawn by replacing
the text with its tail, which is ~7x faster than appending and trimming. ``\\r`` progress lines
(one per task) are trailing lines updated in place. TensorFlow's known-harmless start-up
messages (:mod:`core.tfnoise`) are drawn dimmed, unless the panel shows the raw output.

Task text is shown, never obeyed: colours (SGR) are dropped and every other control character is
shown as an escape (``\\x1b``, ``\\u2028``: Qt would break a line at a CR or U+2028, letting a
task forge another task's prefix); a line longer than :data:`MAX_SHOWN_CHARS` is cut (Qt lays
out a 512 KiB line in ~0.3 s, on every redraw).
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Iterable

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.output import plain, plain_lines
from core.tfnoise import below_level, classify
from gui.style import (
    NOISE_COLOR,
    TASK_COLORS,
    TENSORDECK_COLOR,
    monospace_font,
    task_color_index,
)

DEFAULT_MAX_LINES = 5000
#: Under a flood, the tail is redrawn at most this often (seconds), and only its last
#: FLOOD_TAIL lines (a screenful is ~50); the full tail comes back when the flood stops.
REDRAW_INTERVAL = 0.15
FLOOD_TAIL = 250
#: Longer lines are cut in the pane (the log file keeps them whole).
MAX_SHOWN_CHARS = 4096
_PREFIX = re.compile(r"^\[([^\]]{1,40})\]")


def _cut(line: str) -> str:
    if len(line) <= MAX_SHOWN_CHARS:
        return line
    return (f"{line[:MAX_SHOWN_CHARS]} … [{len(line) - MAX_SHOWN_CHARS:,} more characters: "
            "the log file has the whole line]")


def shown_lines(lines: list[str] | tuple[str, ...]) -> list[str] | tuple[str, ...]:
    """Task lines as the pane shows them (see the module's docstring)."""
    lines = plain_lines(lines)
    if max(map(len, lines), default=0) > MAX_SHOWN_CHARS:
        lines = [_cut(line) for line in lines]
    return lines


class _LogHighlighter(QSyntaxHighlighter):
    """Colours the ``[worker-1]`` prefix of each line (``prefixes``), one stable colour per
    task, and dims TensorFlow's known-harmless messages (``dim_noise``)."""

    def __init__(self, document: QTextDocument, prefixes: bool) -> None:
        super().__init__(document)
        self.prefixes = prefixes
        self.dim_noise = True
        self.gpus_expected = False
        self._formats: dict[str, QTextCharFormat] = {}
        self._noise = QTextCharFormat()
        self._noise.setForeground(QColor(NOISE_COLOR))

    def format_for(self, name: str) -> QTextCharFormat:
        fmt = self._formats.get(name)
        if fmt is None:
            fmt = QTextCharFormat()
            # TensorDeck's own lines are no task's: a neutral colour, never a task's.
            color = TENSORDECK_COLOR if name == "tensordeck" else TASK_COLORS[
                task_color_index(name)]
            fmt.setForeground(QColor(color))
            fmt.setFontWeight(600)
            self._formats[name] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        start = 0
        if self.prefixes and text.startswith("["):
            match = _PREFIX.match(text)
            if match:
                self.setFormat(0, match.end(), self.format_for(match.group(1)))
                start = match.end()
        if self.dim_noise:
            line = text[start:].lstrip(" ")
            if classify(line, gpus_expected=self.gpus_expected):
                self.setFormat(len(text) - len(line), len(line), self._noise)


class LogView(QPlainTextEdit):
    """A read-only, bounded log pane with an optional text filter and trailing progress lines."""

    def __init__(self, max_lines: int = DEFAULT_MAX_LINES, colored_prefixes: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("log")
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(monospace_font())
        self.setMaximumBlockCount(max_lines)
        self.max_lines = max_lines
        self._lines: deque[str] = deque(maxlen=max_lines)  # the tail, for re-filtering
        self._pending: deque[str] = deque(maxlen=max_lines)
        self._pending_count = 0
        self._progress: dict[str, str] = {}
        self._progress_shown = 0  # trailing blocks that are progress lines
        self._progress_dirty = False
        self._filter = ""
        #: TensorFlow's lines under this TF_CPP_MIN_LOG_LEVEL are not drawn (0: all are).
        self._hidden_level = 0
        self._last_redraw = 0.0
        self._cut_short = False
        self._flush_scheduled = False
        self.highlighter = _LogHighlighter(self.document(), colored_prefixes)
        #: The pane shows the end and keeps showing it: as lines come, and when a resize or a
        #: relayout moves the end (the scroll bar's value stays put then). The user scrolling
        #: up stops it; back at the end, it follows again.
        self._follow = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scrolled)
        bar.rangeChanged.connect(self._on_range_changed)

    # --- feeding ------------------------------------------------------------------------------

    def add_lines(self, lines: list[str] | tuple[str, ...]) -> None:
        """Queue lines for the next :meth:`flush` (cheap: no drawing here)."""
        self.add_shown_lines(shown_lines(lines[-self.max_lines:]), len(lines))

    def add_shown_lines(self, lines: list[str] | tuple[str, ...], count: int) -> None:
        """Queue lines already made fit to show (:func:`shown_lines`): the last of ``count``
        (older ones would leave the bounded tail at once)."""
        self._lines.extend(lines)
        self._pending.extend(lines)
        self._pending_count += count

    def set_progress(self, key: str, text: str | None) -> None:
        """The current ``\\r`` line of ``key`` (None: it finished or was replaced by a line)."""
        if text is None:
            if self._progress.pop(key, None) is not None:
                self._progress_dirty = True
        elif self._progress.get(key) != text:
            self._progress[key] = text
            self._progress_dirty = True

    def set_filter(self, text: str) -> None:
        """Show only lines containing ``text`` (case-insensitive); "" shows every line."""
        self._filter = text.lower()
        self._render_all()

    def set_hidden_level(self, level: int) -> None:
        """Leave out TensorFlow's lines under ``TF_CPP_MIN_LOG_LEVEL=level`` (the ones that
        ignore the variable: core.tfnoise.below_level); 0 draws every line."""
        if level != self._hidden_level:
            self._hidden_level = level
            self._render_all()

    def _shown(self, lines: Iterable[str]) -> list[str]:
        """``lines`` without those the search filter or the hidden level leave out."""
        level, text = self._hidden_level, self._filter
        return [line for line in lines if (not text or text in line.lower())
                and not (level and below_level(line, level))]

    def set_noise(self, dim: bool, gpus_expected: bool) -> None:
        """Dim TensorFlow's known-harmless messages (``dim``) or show the raw output."""
        highlighter = self.highlighter
        if (highlighter.dim_noise, highlighter.gpus_expected) != (dim, gpus_expected):
            highlighter.dim_noise, highlighter.gpus_expected = dim, gpus_expected
            highlighter.rehighlight()

    def clear_log(self) -> None:
        self._lines.clear()
        self._pending.clear()
        self._progress.clear()
        self._progress_shown = 0
        self.clear()

    def _scheduled_flush(self) -> None:
        self._flush_scheduled = False
        self.flush()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.flush()

    @property
    def line_count(self) -> int:
        """Lines held by the pane (not counting progress lines)."""
        return len(self._lines)

    # --- drawing ------------------------------------------------------------------------------

    def flush(self) -> None:
        """Draw what was queued since the last flush, in one batch. A hidden pane keeps its
        (bounded) queue and draws when shown."""
        if (not self._pending and not self._progress_dirty) or not self.isVisible():
            return
        # Trimming many old lines costs more than redrawing the whole tail (3x at 2,500 lines).
        overflowed = self._pending_count >= self.max_lines or (
            self._pending_count > self.max_lines // 8
            and self.document().blockCount() + self._pending_count > self.max_lines)
        wait = self._last_redraw + REDRAW_INTERVAL - time.monotonic()
        if overflowed and wait > 0:
            # A flood: redraw the tail a few times a second, not at every tick; and surely
            # once more after the last batch.
            if not self._flush_scheduled:
                self._flush_scheduled = True
                QTimer.singleShot(int(wait * 1000) + 1, self._scheduled_flush)
            return
        new = list(self._pending)
        self._pending.clear()
        self._pending_count = 0
        if self._filter or self._hidden_level:
            new = self._shown(new)
        if overflowed:
            self._render_all(FLOOD_TAIL)
        elif self._cut_short:
            self._render_all()  # the flood is over: bring back the whole tail once
        else:
            self._remove_progress()
            if new:
                self.appendPlainText("\n".join(new))
            self._append_progress()
        self._progress_dirty = False
        if self._follow:
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())

    def _on_scrolled(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - 2

    def _on_range_changed(self, _low: int, high: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(high)

    def _render_all(self, limit: int | None = None) -> None:
        """Replace the text with the (filtered) tail: ``limit`` lines, or all the pane holds."""
        self._last_redraw = time.monotonic()
        # The tail holds the queued lines too: drawn now, they must not be appended again.
        self._pending.clear()
        self._pending_count = 0
        lines = self._shown(self._lines) if self._filter or self._hidden_level else self._lines
        limit = min(limit or self.max_lines, self.max_lines)
        self._cut_short = limit < len(lines)
        tail = list(lines)[-limit:]
        self.setPlainText("\n".join(tail))
        self._progress_shown = 0
        self._append_progress()
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())

    def _remove_progress(self) -> None:
        if not self._progress_shown:
            return
        doc = self.document()
        first = doc.findBlockByNumber(doc.blockCount() - self._progress_shown)
        cursor = QTextCursor(first)
        if first.blockNumber() > 0:
            cursor.movePosition(QTextCursor.MoveOperation.PreviousCharacter)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self._progress_shown = 0

    def _append_progress(self) -> None:
        shown = [_cut(plain(text)) for text in self._progress.values()]
        if self._filter:
            shown = [text for text in shown if self._filter in text.lower()]
        if shown:
            if self.document().isEmpty():
                self.setPlainText("\n".join(shown))
            else:
                self.appendPlainText("\n".join(shown))
        self._progress_shown = len(shown)


class LogPanel(QWidget):
    """A combined pane (every task, coloured ``[task]`` prefixes) and one pane per task, with
    search (Enter: next match) and "only matching lines" filtering."""

    def __init__(self, max_lines: int = DEFAULT_MAX_LINES, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.max_lines = max_lines
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search the logs (Enter: next match)"))
        self.search.setClearButtonEnabled(True)
        self.only_matching = QCheckBox(self.tr("Only matching lines"))
        self.raw_output = QCheckBox(self.tr("Raw output"))
        self.raw_output.setToolTip(self.tr(
            "Show TensorFlow's known-harmless start-up messages (such as \"failed call to "
            "cuInit\" on a CPU run) like every other line instead of dimmed, and the lines "
            "the job's TF_CPP_MIN_LOG_LEVEL hides"))
        self._gpus_expected = False
        self._tf_log_level = 0
        self.previous_button = QPushButton(self.tr("Previous"))
        self.next_button = QPushButton(self.tr("Next"))
        bar = QHBoxLayout()
        bar.addWidget(self.search, 1)
        bar.addWidget(self.previous_button)
        bar.addWidget(self.next_button)
        bar.addWidget(self.only_matching)
        bar.addWidget(self.raw_output)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.combined = LogView(max_lines, colored_prefixes=True)
        self.tabs.addTab(self.combined, self.tr("All tasks"))
        self.views: dict[str, LogView] = {}
        self._prefix: dict[str, str] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.tabs, 1)
        self.search.returnPressed.connect(self.find_next)
        self.next_button.clicked.connect(self.find_next)
        self.previous_button.clicked.connect(lambda: self.find_next(backward=True))
        self.only_matching.toggled.connect(self._apply_filter)
        self.raw_output.toggled.connect(self._apply_noise)
        self.search.textChanged.connect(self._on_search_changed)

    def set_tasks(self, names: list[str], gpus_expected: bool | None = None,
                  tf_log_level: int | None = None) -> None:
        """Start over with one pane per task (``worker-0`` names). ``gpus_expected``: the run
        should train on GPUs (TensorFlow's no-GPU messages are not harmless then).
        ``tf_log_level``: the tasks' TF_CPP_MIN_LOG_LEVEL, whose lines are left out unless
        the raw output is asked for."""
        if gpus_expected is not None:
            self._gpus_expected = gpus_expected
        if tf_log_level is not None:
            self._tf_log_level = tf_log_level
        while self.tabs.count() > 1:
            widget = self.tabs.widget(1)
            self.tabs.removeTab(1)
            widget.deleteLater()
        self.combined.clear_log()
        self.views.clear()
        width = max((len(n) for n in names), default=6) + 2
        self._prefix = {n: f"[{n}]".ljust(width) + " " for n in names}
        for name in names:
            view = LogView(self.max_lines)
            self.views[name] = view
            self.tabs.addTab(view, name)
        self._apply_noise()
        self._apply_filter()

    def add_output(self, name: str, lines: list[str] | tuple[str, ...],
                   progress: str | None) -> None:
        """Queue a task's lines (and its current progress line) for the next :meth:`flush`."""
        view = self.views.get(name)
        if view is None:
            self.set_tasks([*self.views, name])
            view = self.views[name]
        if lines:
            # Made fit to show once, for the task's pane and the combined one.
            shown = shown_lines(lines[-self.max_lines:])
            view.add_shown_lines(shown, len(lines))
            prefix = self._prefix.get(name, f"[{name}] ")
            self.combined.add_shown_lines([prefix + line for line in shown], len(lines))
        view.set_progress(name, progress)
        prefixed = self._prefix.get(name, "") + progress if progress else None
        self.combined.set_progress(name, prefixed)

    def add_message(self, text: str) -> None:
        """A TensorDeck line (task started, exited ...) in the combined pane."""
        self.combined.add_lines([f"[tensordeck] {text}"])

    def flush(self) -> None:
        self.combined.flush()
        for view in self.views.values():
            view.flush()

    def find_next(self, backward: bool = False) -> bool:
        view = self.tabs.currentWidget()
        text = self.search.text()
        if not text or not isinstance(view, LogView):
            return False
        flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
        if view.find(text, flags):
            return True
        cursor = view.textCursor()  # wrap around
        cursor.movePosition(QTextCursor.MoveOperation.End if backward
                            else QTextCursor.MoveOperation.Start)
        view.setTextCursor(cursor)
        return view.find(text, flags)

    def _on_search_changed(self, _text: str) -> None:
        if self.only_matching.isChecked():
            self._apply_filter()

    def _apply_noise(self) -> None:
        raw = self.raw_output.isChecked()
        for view in (self.combined, *self.views.values()):
            view.set_noise(not raw, self._gpus_expected)
            view.set_hidden_level(0 if raw else self._tf_log_level)

    def _apply_filter(self) -> None:
        text = self.search.text() if self.only_matching.isChecked() else ""
        for view in (self.combined, *self.views.values()):
            view.set_filter(text)
