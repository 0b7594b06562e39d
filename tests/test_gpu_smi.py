"""The nvidia-smi CSV parser on recorded outputs (tests/data/nvidia_smi)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.gpu import GpuState
from core.gpu.smi import (
    QUERY_FIELDS,
    SmiFieldRefused,
    SmiParseError,
    SmiStreamParser,
    parse_line,
    parse_output,
    smi_command,
)

DATA = Path(__file__).parent / "data" / "nvidia_smi"


def _read(name: str) -> str:
    # bytes -> str without newline translation, so the CRLF file keeps its "\r\n"
    return (DATA / name).read_bytes().decode("utf-8")


def test_command_line():
    assert smi_command() == [
        "nvidia-smi",
        "--query-gpu=" + ",".join(QUERY_FIELDS),
        "--format=csv,noheader,nounits",
    ]
    assert smi_command(loop_ms=1000)[-2:] == ["-lms", "1000"]
    with pytest.raises(ValueError, match="loop_ms"):
        smi_command(loop_ms=0)


def test_windows_output_with_crlf_and_na():
    text = _read("rtx3090_windows.csv")
    assert text.endswith("\r\n")
    report = parse_output(text)
    assert (report.state, report.driver_version, report.source) == (
        GpuState.OK, "591.86", "nvidia-smi"
    )
    (gpu,) = report.gpus
    assert gpu.name == "NVIDIA GeForce RTX 3090"
    assert (gpu.memory_used_mib, gpu.memory_total_mib, gpu.utilization_gpu) == (3545, 24576, 15)
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.temperature_c) == (30.21, 350.0, 36)
    assert gpu.driver_model == "WDDM"
    assert gpu.mig_enabled is None  # "[N/A]"
    assert gpu.processes is None


def test_looping_output_streamed_in_odd_chunks():
    text = _read("h200x8_linux_lms.csv")
    parser = SmiStreamParser()
    rows = []
    for i in range(0, len(text), 7):  # chunks that split lines anywhere
        rows += parser.feed(text[i : i + 7])
    assert [gpu.index for gpu, _ in rows] == list(range(8)) * 2
    gpu, driver = rows[4]
    assert (gpu.memory_used_mib, gpu.utilization_gpu, gpu.mig_enabled) == (135846, 0, False)
    assert gpu.driver_model is None and driver == "580.95.05"


def test_a_partial_line_waits_for_its_newline():
    line = _read("rtx3090_windows.csv")
    parser = SmiStreamParser()
    assert parser.feed(line[:20]) == []
    assert [g.index for g, _ in parser.feed(line[20:])] == [0]
    assert parser.feed("\n\r\n") == []  # blank lines are skipped, not errors


@pytest.mark.parametrize("missing", ["[N/A]", "[Not Supported]", "N/A", "[Unknown Error]"])
def test_every_spelling_of_missing_is_none(missing):
    # Drivers before R450 print "[Not Supported]" for GeForce power and utilization.
    line = (
        f"1, GeForce GTX 1080 Ti, GPU-x, 11178, 10, {missing}, 40, {missing}, 250.00, "
        f"391.35, WDDM, {missing}"
    )
    gpu, _ = parse_line(line)
    assert (gpu.utilization_gpu, gpu.power_draw_w, gpu.mig_enabled) == (None, None, None)
    assert gpu.power_limit_w == 250.0


@pytest.mark.parametrize(
    ("name", "state"),
    [
        ("no_devices.txt", GpuState.NO_GPU),
        ("driver_not_loaded.txt", GpuState.DRIVER_NOT_LOADED),
        ("driver_mismatch.txt", GpuState.DRIVER_MISMATCH),
    ],
)
def test_failure_messages_become_states(name, state):
    report = parse_output(_read(name))
    assert report.state is state and report.message and report.gpus == ()


def test_unknown_text_is_a_clear_error():
    assert parse_line("   \r") is None
    with pytest.raises(SmiParseError, match="not 12 comma-separated values"):
        parse_output("0, NVIDIA H200, 143771\n")
    with pytest.raises(SmiParseError, match="invalid literal"):
        parse_line("x, a, b, 1, 2, 3, 4, 5, 6, 7, 8, 9")


def test_compute_capability_when_asked():
    assert smi_command(capability=True)[1] == "--query-gpu=" + ",".join(QUERY_FIELDS) + \
        ",compute_cap"
    # The recorded RTX 3090 row with the compute_cap column its card answers (8.6, NVIDIA's
    # published value: the capture did not ask for it).
    (gpu,) = parse_output(_read("rtx3090_windows.csv").replace("\r\n", ", 8.6\r\n")).gpus
    assert gpu.compute_capability == (8, 6) and gpu.memory_total_mib == 24576
    (gpu,) = parse_output(_read("rtx3090_windows.csv")).gpus
    assert gpu.compute_capability is None  # not asked


def test_an_older_driver_refusing_compute_cap_says_so():
    """What nvidia-smi 470.182.03 prints for the field (huggingface/candle#733), exit status 2."""
    with pytest.raises(SmiFieldRefused, match='"compute_cap" is not a valid field'):
        parse_output(_read("compute_cap_refused.txt"))
