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
from collections.abc import Sequence
from typing import TextIO

from core.events import (
    Event,
    RunFinished,
    RunStarted,
    RunStopping,
    RunWarning,
    SlurmQueued,
    TaskExited,
    TaskOutput,
    TaskRestarting,
    TaskStarted,
)
from core.exitcodes import describe
from core.messages import tr
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


def task_name(key: str) -> str:
    """``worker:1`` -> ``worker-1``."""
    return key.replace(":", "-")


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 5 min``."""
    minutes = int(seconds // 60)
    if minutes < 1:
        return f"{seconds:.0f} s"
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def queued_text(event: SlurmQueued, language: str | None = "en") -> str:
    """What a :class:`SlurmQueued` says (``language``: the console's English, or the window's
    None: its own)."""
    if event.waited < 1:
        return tr("slurm.queued", language, job=event.job, reason=event.reason)
    return tr("slurm.still_queued", language, job=event.job, reason=event.reason,
              waited=_duration(event.waited))


class ConsoleSink:
    """An event sink writing to a text stream; thread-safe."""

    def __init__(
        self,
        stream: TextIO,
        task_keys: list[str] | tuple[str, ...],
        color: bool | None = None,
        *,
        gpus_expected: bool = False,
    ) -> None:
        """``gpus_expected``: the run should train on GPUs, so TensorFlow's no-GPU messages
        are not dimmed (they are the problem there)."""
        self._out = stream
        self._gpus_expected = gpus_expected
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
        elif isinstance(event, TaskStarted):
            text = self._say(f"{task_name(event.task)} started (pid {event.pid})")
        elif isinstance(event, TaskExited):
            text = self._say(
                f"{task_name(event.task)} exited with code {describe(event.exit_code)} "
                f"({event.state.value})"
            )
        elif isinstance(event, TaskRestarting):
            text = self._say(
                f"{task_name(event.task)} restarts in {event.delay:g} s (attempt {event.attempt})"
            )
        elif isinstance(event, RunStopping):
            text = self._say(f"stopping: {event.reason}")
        elif isinstance(event, RunWarning):
            text = self._say(f"warning: {event.message}")
        elif isinstance(event, RunStarted):
            text = self._say(f"run folder {event.run_dir}")
        elif isinstance(event, SlurmQueued):
            text = self._say(queued_text(event))
        elif isinstance(event, RunFinished):
            text = self._say(f"run {event.status.value} (exit code {describe(event.exit_code)})")
        else:
            return
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

    def _output(self, event: TaskOutput) -> str:
        prefix = self._prefix.get(event.task) or f"[{task_name(event.task)}] "
        text = ""
        if event.lines:
            lines = visible_lines(event.lines)
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
