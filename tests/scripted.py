"""A scripted task process for the supervisor's tests (core.supervisor.ProcessLike): no real
process, a history the test writes."""

from __future__ import annotations

import itertools
import queue
import threading

_pids = itertools.count(4_000_000)


class ScriptedProcess:
    """One start of a task. The test makes it print and exit; ``on_stop`` is the code it
    exits with when asked to stop (None: it ignores the request); a kill ends it with 137."""

    def __init__(self, key: str, on_stop: int | None) -> None:
        self.key = key
        self.pid = next(_pids)
        self.on_stop = on_stop
        self.stops = 0
        self.kills = 0
        self._output: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._code: int | None = None
        self._exited = threading.Event()
        self._lock = threading.Lock()

    # the script
    def prints(self, text: str) -> None:
        self._output.put(text.encode())

    def exits(self, code: int) -> None:
        with self._lock:
            if self._code is not None:
                return
            self._code = code
        self._output.put(None)
        self._exited.set()

    # what the supervisor sees (core.supervisor.ProcessLike)
    def read(self, size: int) -> bytes:
        chunk = self._output.get()
        if chunk is None:
            self._output.put(None)  # every later read is at the end too
            return b""
        return chunk

    def abandon_output(self) -> None:
        self._output.put(None)

    def terminate_tree(self) -> None:
        self.stops += 1
        if self.on_stop is not None:
            self.exits(self.on_stop)

    def kill_tree(self) -> None:
        self.kills += 1
        self.exits(137)

    def poll(self) -> int | None:
        return self._code

    def wait(self) -> int:
        self._exited.wait()
        assert self._code is not None
        return self._code

    def release(self) -> None:
        """Nothing of a scripted process is left to kill."""
