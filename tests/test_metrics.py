"""Training metrics: the runtime's JSON lines, their tail, and progress lines parsed from real
Keras output (tests/data/keras: Keras 3 and tf-keras ``fit(verbose=1)`` through a pipe)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.metrics import MetricsTail, ProgressParser, strip_ansi
from core.output import LineSplitter

DATA = Path(__file__).parent / "data" / "keras"
RUNTIME = Path(__file__).resolve().parent.parent / "resources" / "runtime"


def output_lines(name: str) -> tuple[list[str], list[str]]:
    """(every text the window gets in order, the progress states among them) of a recorded
    output, fed as a process writes it: one write per ``\\r`` redraw or finished line."""
    splitter, texts, progress = LineSplitter(), [], []
    raw = (DATA / name).read_bytes()
    for chunk in re.split(rb"(?<=[\r\n])", raw):
        done, current = splitter.feed(chunk)
        texts += done
        if current:
            texts.append(current)
            progress.append(current)
    return texts + splitter.close(), progress


@pytest.mark.parametrize("name", ["keras3_fit.txt", "tf_keras_fit.txt"])
def test_keras_fit_lines_give_one_point_per_epoch(name):
    texts, progress = output_lines(name)
    lines = [t for t in texts if t not in progress]
    parser = ProgressParser("worker:0")
    points = [p for p in map(parser.feed, lines) if p]
    assert [p.step for p in points] == [6, 12, 18]  # 6 batches per epoch, 3 epochs
    assert set(points[0].metrics) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    last = lines[[i for i, line in enumerate(lines) if "val_loss" in line][-1]]
    printed = strip_ansi(last).split("val_loss: ")[1].split()[0]
    assert points[-1].metrics["val_loss"] == float(printed)


def test_keras3_progress_states_are_parsed_and_not_repeated():
    texts, progress = output_lines("keras3_fit.txt")
    assert len(progress) == 3  # one redraw an epoch before its finished line
    parser = ProgressParser("worker:0")
    points = [p for p in map(parser.feed, [t for t in texts for _ in (1, 2)]) if p]
    assert [p.step for p in points] == [1, 6, 7, 12, 13, 18]


def test_hand_written_loop_lines():
    parser = ProgressParser("chief:0")
    point = parser.feed("step 100/300 loss=0.1234")
    assert point and point.step == 100 and point.metrics == {"loss": 0.1234}
    point = parser.feed("Step 7: loss: 2.5e-1, acc=0.9 lr=1e-3")
    assert point and point.step == 7 and point.metrics == {"loss": 0.25, "acc": 0.9, "lr": 0.001}
    for noise in ("I0000 00:00:1795987931.638276 17402 port.cc:153] oneDNN custom operations",
                  "checkpoint saved: /tmp/x", "Epoch 2/5", "step 5 done", ""):
        assert parser.feed(noise) is None


def test_epoch_line_moves_the_keras_step():
    parser = ProgressParser("worker:0")
    parser.feed("Epoch 3/5")
    point = parser.feed("10/10 [==============================] - 0s 5ms/step - loss: 0.5")
    assert point and point.step == 30


def test_tail_reads_appended_lines_once_and_waits_for_partial_lines(tmp_path):
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    tail = MetricsTail(metrics)
    assert tail.poll() == []
    path = metrics / "worker-1.jsonl"
    first = json.dumps({"time": 1.0, "step": 1, "task": "worker:1", "metrics": {"loss": 0.5}})
    second = json.dumps({"step": 2, "metrics": {"loss": 0.4, "note": "x", "ok": True}})
    path.write_text(first + "\nnot json\n" + second[:10])
    points = tail.poll()
    assert [(p.task, p.step, p.metrics) for p in points] == [("worker:1", 1, {"loss": 0.5})]
    with open(path, "a") as stream:
        stream.write(second[10:] + "\n")
    points = tail.poll()
    assert [(p.task, p.step, p.metrics) for p in points] == [("worker:1", 2, {"loss": 0.4})]
    assert tail.poll() == []


def _child(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    import os

    full_env = {**os.environ, "PYTHONPATH": str(RUNTIME), "TENSORDECK_RUN_DIR": str(tmp_path),
                "TENSORDECK_TASK": "worker:1", **env}
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True,
                          text=True, timeout=120)


def test_runtime_report_writes_what_the_tail_reads(tmp_path):
    result = _child("import tensordeck_runtime as td\n"
                    "td.report(1, loss=0.5, name='skipped')\n"
                    "td.report(2, loss=float('nan'))\n"
                    "td.report(3, loss=0.25, accuracy=1)\n", tmp_path)
    assert result.returncode == 0, result.stderr
    points = MetricsTail(tmp_path / "metrics").poll()
    assert [(p.task, p.step, p.metrics) for p in points] == [
        ("worker:1", 1, {"loss": 0.5}), ("worker:1", 3, {"loss": 0.25, "accuracy": 1.0})]


def test_runtime_is_a_no_op_outside_tensordeck(tmp_path):
    result = _child("import tensordeck_runtime as td; td.report(1, loss=0.5)\n"
                    "print(td.metrics_path())", tmp_path, TENSORDECK_RUN_DIR="")
    assert result.returncode == 0 and result.stdout.strip() == "None"
    assert not (tmp_path / "metrics").exists()


FIT = """
import numpy as np, tensordeck_runtime as td
{imports}
x = np.random.rand(64, 4).astype("float32"); y = (x.sum(1) > 2).astype("float32")
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
m.compile("adam", "binary_crossentropy", metrics=["accuracy"])
m.fit(x, y, epochs=2, batch_size=16, verbose=0, callbacks=[td.MetricsCallback(every=2)])
"""


@pytest.mark.tf
@pytest.mark.parametrize("legacy", [False, True], ids=["keras3", "tf_keras"])
def test_metrics_callback_reports_batches_and_epochs(tmp_path, legacy):
    imports = "import tf_keras as keras" if legacy else "import keras"
    result = _child(FIT.format(imports=imports), tmp_path, TF_CPP_MIN_LOG_LEVEL="3",
                    TF_USE_LEGACY_KERAS="1" if legacy else "0")
    assert result.returncode == 0, result.stderr[-3000:]
    points = MetricsTail(tmp_path / "metrics").poll()
    batches = [p for p in points if "epoch" not in p.metrics]
    epochs = [p for p in points if "epoch" in p.metrics]
    assert [p.step for p in batches] == [2, 4, 6, 8]  # 4 batches an epoch, every 2nd
    assert [p.metrics["epoch"] for p in epochs] == [1, 2] and epochs[-1].step == 8
    assert all("loss" in p.metrics and p.task == "worker:1" for p in points)


def test_keras_verbose_2_epoch_lines():
    """``fit(verbose=2)`` prints one line per epoch, without a bar (both Keras examples)."""
    parser = ProgressParser("worker:0")
    assert parser.feed("Epoch 1/2") is None
    keras2 = parser.feed("20/20 - 1s - loss: 0.7384 - accuracy: 0.5070 - 1s/epoch - 61ms/step")
    assert keras2 is not None and keras2.step == 20
    assert keras2.metrics == {"loss": 0.7384, "accuracy": 0.5070}
    assert parser.feed("Epoch 2/2") is None
    keras3 = parser.feed("20/20 - 1s - 11ms/step - accuracy: 0.8047 - loss: 0.4890")
    assert keras3 is not None and keras3.step == 40
    assert keras3.metrics == {"accuracy": 0.8047, "loss": 0.4890}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_step_lines_give_progress_steps_per_second_and_eta():
    clock = FakeClock()
    parser = ProgressParser("chief:0", clock=clock)
    assert parser.feed("step 1300 loss=0.5") and parser.progress() is None  # no total
    parser.feed("step 1300/100000")  # no metric: no point, but progress
    first = parser.progress()
    assert (first.done, first.total, first.rate, first.eta) == (1300, 100000, None, None)
    clock.now += 4
    parser.feed("step 1700/100000 loss=0.4")
    progress = parser.progress()
    assert progress.rate == 100 and progress.fraction == 0.017 and progress.eta == 983
    clock.now += 1
    parser.feed("step 100/100000")  # the task restarted: the rate starts over
    assert parser.progress().done == 100 and parser.progress().rate is None


def test_keras_epochs_and_batches_give_the_whole_fit_as_progress():
    texts, _ = output_lines("keras3_fit.txt")
    parser = ProgressParser("worker:0")
    fractions = []
    for text in texts:
        parser.feed(text)
        if parser.progress():
            fractions.append(parser.progress().fraction)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert parser.progress().total == 18  # 3 epochs of 6 batches


def test_the_runs_progress_is_the_mean_with_the_slowest_tasks_eta():
    from core.metrics import Progress, overall

    assert overall([]) is None
    run = overall([Progress(50, 100, 10.0), Progress(10, 100, 1.0)])
    assert run.fraction == 0.3 and run.eta == 90
    assert overall([Progress(50, 100, 10.0), Progress(10, 100)]).eta is None


# --- hostile metrics files: each bad line skipped and counted, every read capped ----------

HOSTILE_LINES = [
    b"not json",
    b'{"step": 1, "metrics": {"loss": 1' + b"0" * 400 + b"}}",  # float() would overflow
    b'{"step": 1' + b"0" * 5000 + b', "metrics": {"loss": 1}}',  # int() refuses 5,000 digits
    b'{"step": 2, "metrics": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",  # RecursionError
    b'{"step": NaN, "metrics": {"loss": Infinity}}',
    b'{"step": 3, "metrics": [1, 2]}',
    b'{"step": "x", "metrics": {"loss": 1}}',
    b"\xff\xfe garbage \x00",
]


@given(order=st.permutations(range(len(HOSTILE_LINES))),
       junk=st.lists(st.binary(max_size=200).filter(lambda b: b"\n" not in b), max_size=5))
@settings(max_examples=40, deadline=None)
def test_every_bad_line_is_skipped_and_counted_and_the_good_ones_read(order, junk):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        metrics = Path(folder)
        good = [json.dumps({"step": i, "metrics": {"loss": i / 10}}).encode() for i in range(3)]
        bad = [HOSTILE_LINES[i] for i in order] + junk
        lines = [line for pair in zip(bad, [*good, *[b""] * len(bad)], strict=False)
                 for line in pair]
        (metrics / "worker-0.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        tail = MetricsTail(metrics)
        points = tail.poll()
    assert [(p.step, p.metrics) for p in points] == [(i, {"loss": i / 10}) for i in range(3)]
    assert tail.skipped == sum(1 for line in bad if line.strip())


def test_a_line_longer_than_any_report_is_skipped_without_being_kept(tmp_path):
    from core.metrics import MAX_REPORT_BYTES

    path = tmp_path / "worker-0.jsonl"
    report = json.dumps({"step": 5, "metrics": {"loss": 0.5}}).encode()
    tail = MetricsTail(tmp_path, max_bytes=MAX_REPORT_BYTES // 4)
    with open(path, "wb") as stream:
        stream.write(b"[" * (MAX_REPORT_BYTES * 3))  # a line without end, in many polls
        stream.flush()
        for _ in range(16):
            assert tail.poll() == []
            # What is kept of the unfinished line stays within one report's size.
            assert all(len(kept or b"") <= MAX_REPORT_BYTES for kept in tail._partial.values())
        stream.write(b"]\n" + report + b"\n")
    points = []
    for _ in range(4):
        points += tail.poll()
    assert [(p.step, p.metrics) for p in points] == [(5, {"loss": 0.5})]
    assert tail.skipped == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs or /dev/zero (Windows)")
def test_a_metrics_file_that_is_a_device_a_fifo_or_a_link_is_not_read(tmp_path):
    (tmp_path / "worker-0.jsonl").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "worker-1.jsonl")
    (tmp_path / "elsewhere.json").write_text(json.dumps({"step": 1, "metrics": {"x": 1}}))
    (tmp_path / "worker-2.jsonl").symlink_to(tmp_path / "elsewhere.json")
    (tmp_path / "worker-3.jsonl").write_text(json.dumps({"step": 9, "metrics": {"y": 2}}) + "\n")
    points = MetricsTail(tmp_path).poll()  # returns: no endless read, no blocking open
    assert [(p.task, p.step) for p in points] == [("worker:3", 9)]


def test_the_window_parses_a_batchs_tail_within_its_budget():
    """The window parses on its GUI thread: at most 200 lines of a batch, and about 16 lines'
    worth when they are long (a flood of 4 KiB lines would cost 0.5 ms each)."""
    from core.metrics import MAX_PARSE_CHARS, lines_to_parse

    short = [f"step {i} loss=0.5" for i in range(1000)]
    assert lines_to_parse(short) == short[-200:]
    long = [f"step {i} " + "x" * (2 * MAX_PARSE_CHARS) for i in range(1000)]
    assert lines_to_parse(long) == long[-16:]
    assert lines_to_parse([]) == []
