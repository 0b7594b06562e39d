"""The terminal face of a run: task output prefixed by task (coloured on a terminal),
``\\r`` progress shown in place on a terminal and dropped in files and pipes (the finished line
still arrives), and TensorDeck's own lifecycle messages.

Task text passes as text and colours only (:func:`core.output.visible`): a task cannot move the
cursor, erase or overwrite lines, set the clipboard or the title, or forge a prefix.

On a colour terminal TensorFlow's known-harmless start-up messages (:mod:`core.tfnoise`) are
dimmed; files and pipes get every line as printed (the run folder's logs always do)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from typing import TextIO

from core.describe import describe_event, task_name
from core.events import Event, TaskOutput
from core.output import visible, visible_lines

_COLORS = ("36", "33", "35", "32", "34", "91", "96", "93")
_CLEAR_LINE = "\r\x1b[K"
ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004


def enable_vt_processing(stream: TextIO) -> bool:
    """Whether escape sequences written to ``stream`` will render. Off Windows: always (nothing
    to do). A Windows console shows them only with virtual terminal processing on, which this
    turns on; False where it cannot (not a console, a console older than Windows 10)."""
    if sys.platform != "win32":
        return True
    import ctypes
    import msvcrt
    from ctypes import wintypes

    try:
        # The stream's own handle, not GetStdHandle's: the sink may write to stderr or a CONOUT$.
        handle = msvcrt.get_osfhandle(stream.fileno())
    except (AttributeError, OSError, ValueError):  # no file descriptor (io.UnsupportedOperation)
        return False
    # A private WinDLL, so these prototypes do not leak into ctypes.windll's shared functions.
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    get_mode = kernel32.GetConsoleMode
    get_mode.argtypes = (wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD))
    get_mode.restype = wintypes.BOOL
    set_mode = kernel32.SetConsoleMode
    set_mode.argtypes = (wintypes.HANDLE, wintypes.DWORD)
    set_mode.restype = wintypes.BOOL
    mode = wintypes.DWORD()
    if not get_mode(handle, ctypes.byref(mode)):
        return False  # not a console: NUL (a tty to isatty()), a redirected handle
    if mode.value & ENABLE_VIRTUAL_TERMINAL_PROCESSING:
        return True
    return bool(set_mode(handle, mode.value | ENABLE_VIRTUAL_TERMINAL_PROCESSING))


class ConsoleSink:
    """An event sink writing to a text stream; thread-safe."""

    def __init__(
        self,
        stream: TextIO,
        task_keys: list[str] | tuple[str, ...],
        color: bool | None = None,
        *,
        gpus_expected: bool = False,
        task_envs: Sequence[Mapping[str, str]] = (),
    ) -> None:
        """``gpus_expected``: the run should train on GPUs, so TensorFlow's no-GPU messages
        are not dimmed (they are the problem there). ``task_envs``: the tasks' environments,
        whose TF_CPP_MIN_LOG_LEVEL hides TensorFlow's lines under it (core.tfnoise)."""
        self._out = stream
        self._gpus_expected = gpus_expected
        self._task_envs = task_envs
        self._tf_log_level: int | None = None  # known at the first output: off the launch path
        tty = stream.isatty() if hasattr(stream, "isatty") else False
        # Colours and the in-place progress line are escapes: without VT (an old Windows
        # console) both fall back to what a pipe gets.
        self._tty = tty and enable_vt_processing(stream)
        self._color = self._tty if color is None else color
        width = max((len(task_name(k)) for k in task_keys), default=6) + 2
        self._prefix = {}
        for i, key in enumerate(task_keys):
            label = f"[{task_name(key)}]".ljust(width) + " "
            if self._color:
                label = f"\x1b[{_COLORS[i % len(_COLORS)]}m{label}\x1b[0m"
            self._prefix[key] = label
        self._lock = threading.Lock()
        self._gone = False
        self._progress_on_screen = False

    def _say(self, text: str) -> str:
        text = visible(text)  # it may quote a task's words or a path
        return f"\x1b[2mtensordeck: {text}\x1b[0m\n" if self._color else f"tensordeck: {text}\n"

    def __call__(self, event: Event) -> None:
        if isinstance(event, TaskOutput):
            text = self._output(event)
        else:
            text = self._say(describe_event(event, "en"))
        if not text:
            return
        with self._lock:
            if self._gone:
                return
            if self._progress_on_screen and not isinstance(event, TaskOutput):
                text = _CLEAR_LINE + text
                self._progress_on_screen = False
            try:
                self._out.write(text)
                self._out.flush()
            except (OSError, ValueError):
                # The reader went away (`| head`, a closed terminal): the training goes on,
                # everything still reaches the run folder; only the terminal copy stops.
                self._gone = True

    def _level(self) -> int:
        if self._tf_log_level is None:
            from core.tfnoise import shared_log_level

            self._tf_log_level = shared_log_level(self._task_envs)
        return self._tf_log_level

    def _output(self, event: TaskOutput) -> str:
        prefix = self._prefix.get(event.task) or f"[{task_name(event.task)}] "
        text = ""
        lines: Sequence[str] = event.lines
        if event.lines and (level := self._level()):
            from core.tfnoise import below_level

            lines = [line for line in lines if not below_level(line, level)]
        if lines:
            lines = visible_lines(lines)
            if self._color:
                lines = self._dim_noise(lines)
            text = prefix + ("\n" + prefix).join(lines) + "\n"
            if self._progress_on_screen:
                text = _CLEAR_LINE + text
                self._progress_on_screen = False
        if event.progress and self._tty:
            text += _CLEAR_LINE + prefix + visible(event.progress)
            self._progress_on_screen = True
        return text

    def _dim_noise(self, lines: Sequence[str]) -> list[str]:
        # Imported at the first output, after the tasks started: not on the launch path.
        from core.tfnoise import classify

        expected = self._gpus_expected
        return [f"\x1b[2m{line}\x1b[0m" if classify(line, gpus_expected=expected) else line
                for line in lines]
