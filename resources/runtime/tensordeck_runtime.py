"""Training metrics for TensorDeck's window, from inside a training script.

TensorDeck puts this folder on every task's ``PYTHONPATH``, so a script launched by TensorDeck
can do::

    import tensordeck_runtime as td
    td.report(step, loss=0.12, accuracy=0.97)          # any loop
    model.fit(..., callbacks=[td.MetricsCallback()])   # Keras 3 or tf-keras

Each call appends one JSON line ``{"time", "step", "task", "metrics"}`` to
``$TENSORDECK_RUN_DIR/metrics/<role>-<index>.jsonl``; the window tails those files and draws
one curve per task. Outside TensorDeck (no ``TENSORDECK_RUN_DIR``) every call is a no-op, so the
script still runs by hand. Pure Python, no dependencies: Keras is imported only when the callback
is created.

On Windows it also carries TensorDeck's graceful stop into the task (:func:`listen_for_stop`,
started by this folder's ``sitecustomize``): a console signal cannot reach a task that shares
no console with TensorDeck, so TensorDeck sets a named event instead.
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time

__all__ = ["MetricsCallback", "listen_for_stop", "metrics_path", "report"]

_lock = threading.Lock()
_files: dict[str, object] = {}


def metrics_path() -> str | None:
    """Where this task's metrics go, or None when not started by TensorDeck."""
    run_dir = os.environ.get("TENSORDECK_RUN_DIR")
    if not run_dir:
        return None
    task = os.environ.get("TENSORDECK_TASK", "worker:0")
    return os.path.join(run_dir, "metrics", task.replace(":", "-") + ".jsonl")


def _number(value: object) -> float | None:
    """A plain float from a Python/NumPy/TF scalar; None for what cannot be drawn."""
    try:
        if hasattr(value, "numpy"):
            value = value.numpy()
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def report(step: int, **metrics: object) -> None:
    """Record ``metrics`` (name=value) at training ``step``. Non-numeric values are skipped."""
    path = metrics_path()
    if path is None:
        return
    values = {name: v for name, v in ((n, _number(x)) for n, x in metrics.items()) if v is not None}
    if not values:
        return
    line = json.dumps({"time": time.time(), "step": int(step),
                       "task": os.environ.get("TENSORDECK_TASK", "worker:0"), "metrics": values})
    with _lock:
        stream = _files.get(path)
        if stream is None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            # Line-buffered: the window sees each line as soon as it is written.
            stream = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - kept open
            _files[path] = stream
        stream.write(line + "\n")  # type: ignore[attr-defined]


def _keras_callback_base() -> type:
    """``keras.callbacks.Callback`` of the Keras the script uses (tf-keras when
    TF_USE_LEGACY_KERAS=1, else Keras 3)."""
    if os.environ.get("TF_USE_LEGACY_KERAS") == "1":
        try:
            import tf_keras

            return tf_keras.callbacks.Callback
        except ImportError:
            pass
    try:
        import keras

        return keras.callbacks.Callback
    except ImportError:
        from tensorflow import keras as tf_keras_api

        return tf_keras_api.callbacks.Callback


class _MetricsCallbackMixin:
    """Reports the batch logs every ``every`` batches and the epoch logs (with validation
    metrics) at each epoch end, on a global step count."""

    def __init__(self, every: int = 10) -> None:
        super().__init__()
        self.every = max(1, int(every))
        self._step = 0

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._step += 1
        if logs and self._step % self.every == 0:
            report(self._step, **logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs:
            report(self._step, epoch=epoch + 1, **logs)


def MetricsCallback(every: int = 10):
    """A Keras callback reporting training metrics to TensorDeck (Keras 3 or tf-keras)."""
    cls = type("MetricsCallback", (_MetricsCallbackMixin, _keras_callback_base()), {})
    return cls(every)


# --- graceful stop on Windows -----------------------------------------------------------------


#: Set when TensorDeck's stop reached a task with no stop handler of its own as a Ctrl+C.
_stopped_by_tensordeck = False


def _task_code_started() -> bool:
    """Whether the task's own code has begun: a frame run in ``__main__``'s namespace (a
    script, ``-c``, or ``-m`` through runpy) is on the main thread's stack, or ``__main__``
    holds a name the task bound (the script ran and the interpreter is ending)."""
    main = sys.modules.get("__main__")
    if main is None:
        return False
    namespace = vars(main)
    if any(not name.startswith("__") for name in namespace):
        return True
    frame = sys._current_frames().get(threading.main_thread().ident)
    while frame is not None:
        if frame.f_globals is namespace:
            return True
        frame = frame.f_back
    return False


def _deliver_stop() -> None:
    """What a stop request does in the task: as on POSIX (SIGTERM) the task's own SIGTERM
    handler if it set one, else its SIGBREAK handler, else its own SIGINT handler; nothing if
    it ignores SIGTERM or SIGBREAK (SIG_IGN), as POSIX's SIGTERM then does nothing. A task with
    none of its own is stopped as POSIX's default SIGTERM stops it: quietly. It gets a
    KeyboardInterrupt (so ``finally`` blocks and ``atexit`` still run, and Python exits with
    the Ctrl+C status), whose traceback :func:`_quiet_stop_hook` leaves out. The signal is
    raised through the C runtime, as a console Ctrl+C is, which also wakes a ``time.sleep`` of
    the main thread."""
    global _stopped_by_tensordeck
    import signal

    if not _task_code_started():
        # Nothing of the task's to save yet, and an interrupt inside CPython's own start-up is
        # lost: in site it ends in "Fatal Python error: init_import_site"; while sys.path[0]'s
        # importer is looked up it is printed ("Failed checking if argv[0] is an import path
        # entry") and the script runs anyway. Exit as Ctrl+C would. This thread holds the GIL
        # from the check to the exit, so no line of the task runs in between.
        os._exit(0xC000013A - (1 << 32))  # STATUS_CONTROL_C_EXIT, as the C int _exit takes
    chosen = signal.SIGINT
    for name in ("SIGTERM", "SIGBREAK"):
        signum = getattr(signal, name, None)
        handler = None if signum is None else signal.getsignal(signum)
        if handler == signal.SIG_IGN:
            return  # ignored, as POSIX ignores SIGTERM then: ended after the grace period
        if callable(handler):
            chosen = signum
            break
    handler = signal.getsignal(chosen)
    if not callable(handler):
        return  # the task ignores Ctrl+C: TensorDeck ends it after the grace period
    _stopped_by_tensordeck = handler is signal.default_int_handler
    import ctypes

    try:
        getattr(ctypes.CDLL("ucrtbase"), "raise")(int(chosen))
    except (OSError, AttributeError):
        import _thread

        _thread.interrupt_main()
    # A main thread in time.sleep() (or another wait of Python's) wakes only on the SIGINT
    # event, which the C handler sets for SIGINT alone: set it for the others too.
    try:
        sigint_event = ctypes.pythonapi._PyOS_SigintEvent
        sigint_event.restype = ctypes.c_void_p
        handle = sigint_event()
        if handle:
            ctypes.windll.kernel32.SetEvent(ctypes.c_void_p(handle))
    except AttributeError:
        pass


def _quiet_stop_hook(previous):
    """sys.excepthook that leaves out the traceback of the KeyboardInterrupt TensorDeck's stop
    raised (the log of every ps of a successful run would end in one); any other uncaught
    exception goes to the hook there was."""

    def hook(kind, value, traceback):
        if not (_stopped_by_tensordeck and issubclass(kind, KeyboardInterrupt)):
            previous(kind, value, traceback)

    return hook


def listen_for_stop() -> bool:
    """Wait (in a daemon thread) for TensorDeck's stop event named by ``TENSORDECK_STOP_EVENT``
    and deliver the stop when it is set. False when there is nothing to listen to (not Windows,
    not started by TensorDeck, or the event is gone)."""
    name = os.environ.get("TENSORDECK_STOP_EVENT")
    if os.name != "nt" or not name:
        return False
    import ctypes

    k32 = ctypes.WinDLL("kernel32", use_last_error=True)
    k32.OpenEventW.restype = ctypes.c_void_p
    k32.OpenEventW.argtypes = (ctypes.c_uint32, ctypes.c_int, ctypes.c_wchar_p)
    k32.WaitForSingleObject.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
    synchronize = 0x00100000
    handle = k32.OpenEventW(synchronize, 0, name)
    if not handle:
        return False

    def wait() -> None:
        infinite, signaled = 0xFFFFFFFF, 0
        if k32.WaitForSingleObject(handle, infinite) == signaled:
            _deliver_stop()

    sys.excepthook = _quiet_stop_hook(sys.excepthook)

    threading.Thread(target=wait, name="tensordeck-stop", daemon=True).start()
    return True
