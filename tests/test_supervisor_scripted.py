"""The supervisor's decisions with scripted process histories: fake processes (the process
factory is injected) whose output, exits and answers to a stop each test scripts, for the
branches real processes cannot reach on demand. Real-process runs: tests/test_run_lifecycle.py.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from core.config import parse_config
from core.events import (
    Event,
    RunFinished,
    RunStarted,
    RunStatus,
    RunStopping,
    RunWarning,
    TaskOutput,
    TaskRestarting,
    TaskStarted,
    TaskState,
)
from core.ports import port_problem
from core.summary import RunSummary
from core.supervisor import RunResult, Supervisor
from core.topology import plan_run
from tests.scripted import ScriptedProcess

#: How long a test waits for what must happen before it calls it a hang (not a timing claim).
HANG = 30.0


class Factory:
    """Makes a ScriptedProcess per start; ``on_stop`` per task key (default: exits with 143,
    as SIGTERM ends a Python task); ``broken``: keys whose start raises that error."""

    def __init__(self, on_stop: dict[str, int | None] | None = None,
                 broken: dict[str, Exception] | None = None) -> None:
        self.on_stop = on_stop or {}
        self.broken = broken or {}
        self.starts: dict[str, list[ScriptedProcess]] = {}

    def __call__(self, argv, env, cwd=None, watchdog=None) -> ScriptedProcess:
        key = env["TENSORDECK_TASK"]
        if key in self.broken:
            raise self.broken[key]
        proc = ScriptedProcess(key, self.on_stop.get(key, 143))
        self.starts.setdefault(key, []).append(proc)
        return proc

    def last(self, key: str) -> ScriptedProcess:
        return self.starts[key][-1]


class Harness:
    """A supervisor on its own thread, with every event and published summary recorded."""

    def __init__(self, tmp_path: Path, factory: Factory, *, sink_fault: Callable | None = None,
                 publish_fault: Exception | None = None,
                 on_publish: Callable[[], None] | None = None, **config) -> None:
        (tmp_path / "task.py").write_text("raise SystemExit('scripted: never runs')\n")
        data = {"name": "s", "script": "task.py", "stop_grace_seconds": 3600, **config}
        plan = plan_run(parse_config(data), tmp_path / "job.json", run_dir=tmp_path / "run")
        self.events: list[Event] = []
        self.summaries: list[RunSummary] = []
        self._changed = threading.Condition()
        self._sink_fault = sink_fault
        self._publish_fault = publish_fault
        self._on_publish = on_publish
        self.factory = factory
        self.supervisor = Supervisor(plan, self._sink, tmp_path / "run" / "logs",
                                     watchdog_factory=lambda: None, process_factory=factory,
                                     publish=self._publish)
        self.result: RunResult | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.result = self.supervisor.run()

    def _sink(self, event: Event) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()
        if self._sink_fault is not None:
            self._sink_fault(event)

    def _publish(self, summary: RunSummary) -> None:
        if self._on_publish is not None:
            self._on_publish()
        if self._publish_fault is not None:
            raise self._publish_fault
        with self._changed:
            self.summaries.append(summary)
            self._changed.notify_all()

    def wait_for(self, what: Callable[[], object]) -> None:
        """Until ``what()`` holds; rechecked on every event and summary, and every 50 ms for
        what changes without one (a scripted process's counters)."""
        deadline = time.monotonic() + HANG
        with self._changed:
            while not what():
                if time.monotonic() > deadline:
                    raise AssertionError("the supervisor never got there")
                self._changed.wait(0.05)

    def started(self, count: int) -> None:
        self.wait_for(lambda: sum(isinstance(e, TaskStarted) for e in self.events) >= count)

    def finish(self) -> RunResult:
        self.thread.join(HANG)
        assert not self.thread.is_alive(), "the run did not end"
        assert self.result is not None
        return self.result

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


def states(result: RunResult) -> dict[str, tuple[TaskState, int | None]]:
    return {t.plan.key: (t.state, t.exit_code) for t in result.tasks}


def task_of(summary: RunSummary, key: str):
    return next(t for t in summary.tasks if t.task == key)


PS_JOB = dict(strategy="parameter_server",
              tasks=[{"role": "chief"}, {"role": "ps"}, {"role": "worker", "count": 2}])


def test_a_second_stop_request_kills_at_once(tmp_path):
    """Tasks that ignore the stop would get an hour's grace; asked again, they are killed."""
    factory = Factory(on_stop={"worker:0": None, "worker:1": None})
    run = Harness(tmp_path, factory, strategy="multi_worker_mirrored",
                  tasks=[{"role": "worker", "count": 2}])
    run.started(2)
    run.supervisor.request_stop("stopped from the window", 130)
    run.wait_for(lambda: run.of(RunStopping))
    run.wait_for(lambda: all(factory.last(k).stops == 1 for k in ("worker:0", "worker:1")))
    assert run.thread.is_alive()  # an hour of grace: nothing ends without the second request
    run.supervisor.request_stop("stopped from the window", 130)
    result = run.finish()
    assert (result.status, result.exit_code) == (RunStatus.INTERRUPTED, 130)
    assert states(result) == {"worker:0": (TaskState.STOPPED, 137),
                              "worker:1": (TaskState.STOPPED, 137)}
    assert [factory.last(k).kills for k in ("worker:0", "worker:1")] == [1, 1]
    last = run.summaries[-1]
    assert (last.status, last.reason, last.exit_code) == (RunStatus.INTERRUPTED,
                                                          "stopped from the window", 130)


def test_a_stop_request_while_a_failed_run_winds_down_kills_at_once(tmp_path):
    """A worker failed; the other ignores its stop and has an hour of grace. Stop (the window's
    button, Ctrl+C) ends the wait; the run keeps the failure that ended it."""
    factory = Factory(on_stop={"worker:1": None})
    run = Harness(tmp_path, factory, strategy="multi_worker_mirrored",
                  tasks=[{"role": "worker", "count": 2}])
    run.started(2)
    factory.last("worker:0").exits(4)
    run.wait_for(lambda: factory.last("worker:1").stops == 1)
    assert run.thread.is_alive()
    run.supervisor.request_stop("stopped from the window", 130)
    result = run.finish()
    assert (result.status, result.exit_code) == (RunStatus.FAILED, 4)
    assert states(result) == {"worker:0": (TaskState.FAILED, 4),
                              "worker:1": (TaskState.STOPPED, 137)}


def test_a_restart_pending_when_the_run_ends_is_called_off(tmp_path):
    """A parameter_server worker fails and waits an hour to restart; the chief finishes: the
    run succeeds, the restart never happens, the worker keeps its failed attempt's record."""
    factory = Factory()
    slow = {"policy": "on_failure", "max_restarts": 2, "backoff_seconds": 3600}
    run = Harness(tmp_path, factory, strategy="parameter_server",
                  tasks=[{"role": "chief"}, {"role": "ps"},
                         {"role": "worker", "count": 2, "restart": slow}])
    run.started(4)
    factory.last("worker:0").exits(1)
    run.wait_for(lambda: run.of(TaskRestarting))
    # The live summary said so while it waited: the run goes on.
    def restarting(summary: RunSummary) -> bool:
        return task_of(summary, "worker:0").state is TaskState.RESTARTING

    run.wait_for(lambda: any(restarting(s) for s in run.summaries))
    waiting = next(s for s in run.summaries if restarting(s))
    assert waiting.status is RunStatus.RUNNING and task_of(waiting, "worker:0").restarts == 0
    factory.last("chief:0").exits(0)
    result = run.finish()
    assert (result.status, result.exit_code, result.reason) == (RunStatus.SUCCEEDED, 0,
                                                                "completed")
    assert states(result) == {
        "chief:0": (TaskState.SUCCEEDED, 0),
        "ps:0": (TaskState.STOPPED, 143),
        "worker:0": (TaskState.FAILED, 1),
        "worker:1": (TaskState.STOPPED, 143),
    }
    final = task_of(run.summaries[-1], "worker:0")
    assert len(factory.starts["worker:0"]) == 1
    assert (final.state, final.exit_code, final.restarts) == (TaskState.FAILED, 1, 0)


def test_a_worker_restart_keeps_a_parameter_server_run_going(tmp_path):
    """The default for parameter_server workers: restart on failure; the chief goes on."""
    factory = Factory()
    run = Harness(tmp_path, factory, **PS_JOB)
    run.started(4)
    first = factory.last("worker:1")
    first.exits(137)  # kill -9
    run.wait_for(lambda: len(factory.starts["worker:1"]) == 2)
    assert factory.last("chief:0").stops == 0  # nobody was stopped
    factory.last("chief:0").exits(0)
    result = run.finish()
    assert result.status is RunStatus.SUCCEEDED
    worker = next(t for t in result.tasks if t.plan.key == "worker:1")
    assert (worker.state, worker.restarts, worker.pid) == (TaskState.STOPPED, 1,
                                                          factory.last("worker:1").pid)
    assert worker.pid != first.pid
    assert [e.attempt for e in run.of(TaskStarted) if e.task == "worker:1"] == [1, 2]


@pytest.mark.parametrize("role", ["chief", "ps"])
def test_a_chief_or_ps_failure_still_ends_a_parameter_server_run(tmp_path, role):
    factory = Factory()
    run = Harness(tmp_path, factory, **PS_JOB)
    run.started(4)
    factory.last(f"{role}:0").exits(9)
    result = run.finish()
    assert (result.status, result.exit_code) == (RunStatus.FAILED, 9)
    assert f"{role}-0 exited with code 9" in result.reason
    assert not run.of(TaskRestarting)


@pytest.mark.parametrize(
    ("code", "state"),
    [
        pytest.param(0, TaskState.STOPPED, id="its own handler exits 0"),
        pytest.param(143, TaskState.STOPPED, id="SIGTERM"),
        pytest.param(130, TaskState.STOPPED, id="SIGINT"),
        pytest.param(137, TaskState.STOPPED, id="SIGKILL or a Windows forced stop"),
        pytest.param(0xC000013A, TaskState.STOPPED, id="Windows Ctrl+C status"),
        pytest.param(1, TaskState.FAILED, id="a traceback"),
        pytest.param(3, TaskState.FAILED, id="its own error code"),
        pytest.param(0xC0000005, TaskState.FAILED, id="a Windows crash"),
    ],
)
def test_a_task_that_fails_by_itself_during_the_stop_is_failed(tmp_path, code, state):
    """The ps answers the stop after a succeeded run with ``code``: stopped when that is how a
    stop ends a task, else its own failure, recorded with its code; the run stays succeeded."""
    factory = Factory(on_stop={"ps:0": code})
    run = Harness(tmp_path, factory, strategy="between_graph",
                  tasks=[{"role": "ps"}, {"role": "worker"}])
    run.started(2)
    factory.last("worker:0").exits(0)
    result = run.finish()
    assert (result.status, result.exit_code) == (RunStatus.SUCCEEDED, 0)
    assert states(result)["ps:0"] == (state, code)
    warnings = [w.message for w in run.of(RunWarning)]
    if state is TaskState.FAILED:
        assert len(warnings) == 1 and "ps-0 failed while the run was being stopped" in warnings[0]
    else:
        assert warnings == []
    assert task_of(run.summaries[-1], "ps:0").state is state


def test_a_failure_during_the_stop_after_a_failure_is_recorded_without_a_warning(tmp_path):
    factory = Factory(on_stop={"ps:0": 1})
    run = Harness(tmp_path, factory, strategy="between_graph",
                  tasks=[{"role": "ps"}, {"role": "worker"}])
    run.started(2)
    factory.last("worker:0").exits(7)
    result = run.finish()
    assert (result.status, result.exit_code) == (RunStatus.FAILED, 7)  # the first failure's
    assert states(result)["ps:0"] == (TaskState.FAILED, 1)
    assert not run.of(RunWarning)  # the others failing after a failure is no news


def _raise_on(kind: type) -> Callable[[Event], None]:
    def fault(event: Event) -> None:
        if isinstance(event, kind):
            raise RuntimeError("the window went away")
    return fault


@pytest.mark.parametrize("kind", [TaskStarted, TaskOutput],
                         ids=["on the loop thread", "in a reader thread"])
def test_a_sink_that_raises_ends_the_run_failed_with_its_reason(tmp_path, kind):
    factory = Factory()
    run = Harness(tmp_path, factory, sink_fault=_raise_on(kind), strategy="single",
                  tasks=[{"role": "worker"}])
    run.wait_for(lambda: "worker:0" in factory.starts)
    factory.last("worker:0").prints("step 1\n")  # no further output: the sink broke on it
    result = run.finish()
    assert result.status is RunStatus.FAILED and result.exit_code == 1
    assert result.reason == "TensorDeck error: RuntimeError('the window went away')"
    assert factory.last("worker:0").kills >= 1
    assert states(result) == {"worker:0": (TaskState.STOPPED, 137)}
    last = run.summaries[-1]
    assert (last.status, last.reason) == (RunStatus.FAILED, result.reason)
    (finished,) = run.of(RunFinished)
    assert (finished.status, finished.reason) == (RunStatus.FAILED, result.reason)


def test_a_sink_that_raises_on_the_first_event_starts_nothing_and_frees_the_ports(tmp_path):
    factory = Factory()
    run = Harness(tmp_path, factory, sink_fault=_raise_on(RunStarted), strategy="between_graph",
                  tasks=[{"role": "ps"}, {"role": "worker"}])
    result = run.finish()
    assert result.status is RunStatus.FAILED and "the window went away" in result.reason
    assert factory.starts == {}
    assert states(result) == {"ps:0": (TaskState.STOPPED, None),
                              "worker:0": (TaskState.STOPPED, None)}
    assert run.summaries[-1].status is RunStatus.FAILED
    assert [port_problem(t.plan.port) for t in result.tasks] == [None, None]  # released


def test_the_supervisors_own_error_ends_the_run_failed_with_summary_and_reason(tmp_path):
    """A bug while starting tasks (here: the factory raises what no OSError is): the started
    task is killed, the one never started is recorded stopped, nothing says running."""
    factory = Factory(broken={"worker:1": RuntimeError("bug in the launcher")})
    run = Harness(tmp_path, factory, strategy="multi_worker_mirrored",
                  tasks=[{"role": "worker", "count": 2}])
    result = run.finish()
    reason = "TensorDeck error: RuntimeError('bug in the launcher')"
    assert (result.status, result.exit_code, result.reason) == (RunStatus.FAILED, 1, reason)
    assert states(result) == {"worker:0": (TaskState.STOPPED, 137),
                              "worker:1": (TaskState.STOPPED, None)}
    last = run.summaries[-1]
    assert last.status is RunStatus.FAILED and last.reason == reason
    assert all(t.state is TaskState.STOPPED for t in last.tasks)
    (finished,) = run.of(RunFinished)
    assert finished.reason == reason


def test_a_summary_that_cannot_be_written_is_a_warning_not_the_end(tmp_path):
    factory = Factory()
    run = Harness(tmp_path, factory, publish_fault=OSError(28, "No space left on device"),
                  strategy="single", tasks=[{"role": "worker"}])
    run.started(1)
    factory.last("worker:0").exits(0)
    result = run.finish()
    assert result.status is RunStatus.SUCCEEDED
    warnings = [w.message for w in run.of(RunWarning)]
    assert warnings == ["cannot update summary.json: No space left on device; the run goes on"]


def test_the_summary_is_published_on_every_change_with_the_launcher(tmp_path):
    factory = Factory()
    run = Harness(tmp_path, factory, strategy="between_graph",
                  tasks=[{"role": "ps"}, {"role": "worker"}])
    run.started(2)
    run.wait_for(lambda: run.summaries and run.summaries[-1].launcher.started_at)
    live = run.summaries[-1]
    assert live.status is RunStatus.RUNNING and live.exit_code is None
    assert [(t.state, t.pid) for t in live.tasks] == [
        (TaskState.RUNNING, factory.last("ps:0").pid),
        (TaskState.RUNNING, factory.last("worker:0").pid),
    ]
    factory.last("worker:0").exits(0)
    result = run.finish()
    assert result.status is RunStatus.SUCCEEDED
    final = run.summaries[-1]
    assert final.status is RunStatus.SUCCEEDED and final.ended_at == result.ended_at
    assert [t.state for t in final.tasks] == [TaskState.STOPPED, TaskState.SUCCEEDED]
    # Written on changes only: no summary repeats the one before it.
    written = [s.to_json() for s in run.summaries]
    assert all(a != b for a, b in itertools.pairwise(written))


def test_a_burst_of_exits_costs_one_summary_write(tmp_path):
    """50 workers end while the loop is busy (held in its first summary write): the next step
    handles every queued exit, then writes once; then the end's write."""
    gate = threading.Event()
    held: list[bool] = []

    def hold_the_first_write() -> None:
        if not held:
            held.append(True)
            assert gate.wait(HANG)

    factory = Factory()
    run = Harness(tmp_path, factory, on_publish=hold_the_first_write,
                  strategy="multi_worker_mirrored", tasks=[{"role": "worker", "count": 50}])
    run.wait_for(lambda: held)  # every task started
    for procs in factory.starts.values():
        procs[-1].exits(0)
    run.wait_for(lambda: run.supervisor._control.qsize() == 50)
    gate.set()
    result = run.finish()
    assert result.status is RunStatus.SUCCEEDED
    assert [s.status for s in run.summaries] == [RunStatus.RUNNING] * 2 + [RunStatus.SUCCEEDED]
    assert {t.state for t in run.summaries[1].tasks} == {TaskState.SUCCEEDED}

