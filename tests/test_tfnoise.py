"""TensorFlow's known-harmless messages (core.tfnoise), on outputs recorded from real runs:
tf-keras and Keras 3 on TF 2.21 (Linux, no GPU) and TF 2.10.1 on Windows (no GPU)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.tfnoise import KNOWN, classify

DATA = Path(__file__).parent / "data"
RECORDED = [DATA / "keras" / "tf_keras_fit.txt", DATA / "keras" / "keras3_fit.txt",
            DATA / "windows" / "tf210_healthy_no_gpu.txt"]


def tf_log_lines(path: Path) -> list[str]:
    """TensorFlow's own start-up lines of a recorded output (glog format, Abseil's prelude)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith(("I0000", "W0000", "E0000", "2026-",
                                                       "WARNING: All log messages"))]


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_a_healthy_cpu_runs_start_up_lines_are_all_known_harmless(path):
    lines = tf_log_lines(path)
    assert lines
    assert [line for line in lines if classify(line) is None] == []


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_training_lines_are_never_noise(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    training = [line for line in lines if line not in tf_log_lines(path)]
    assert training and [line for line in training if classify(line)] == []


def test_no_gpu_messages_matter_where_the_task_should_use_a_gpu():
    lines = tf_log_lines(DATA / "windows" / "tf210_healthy_no_gpu.txt")
    kept = [line for line in lines if classify(line, gpus_expected=True) is None]
    assert any("failed call to cuInit" in line for line in kept)
    assert any("cudart64_110.dll" in line for line in kept)
    onednn = tf_log_lines(DATA / "keras" / "keras3_fit.txt")[1]
    assert classify(onednn, gpus_expected=True).name == "onednn"


def test_the_real_problems_of_the_corpus_are_not_noise():
    """Posted errors (DLL load failed, missing cuDNN on a GPU machine ...) stay visible."""
    for name in ("public.jsonl", "extra.jsonl"):
        for line in (DATA / "corpus" / name).read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            for text in case["text"].splitlines():
                if "Error" in text or "DLL load failed" in text or "Traceback" in text:
                    assert classify(text) is None, text


def test_every_pattern_names_its_source_and_reason():
    assert len({n.name for n in KNOWN}) == len(KNOWN)
    for noise in KNOWN:
        assert noise.source and noise.why
        assert ".cc" in noise.source or ".h" in noise.source
