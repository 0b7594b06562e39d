"""explain() on real outputs users posted (tests/data/corpus, each case with its source)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from core.doctor import kb
from core.doctor.explain import explain
from core.doctor.fixes import finding_ids
from tests.conftest import REPO

CORPUS = Path(__file__).parent / "data" / "corpus"
CASES = [json.loads(line) for f in sorted(CORPUS.glob("*.jsonl"))
         for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]

# Cases the text alone cannot settle; with the platform / TF version the thread states, each
# one is answered first (test_labelled_cause_first_with_context). Without it, the label must
# still be listed.
TEXT_ALONE_AMBIGUOUS = {
    # A bare "[PhysicalDevice(... CPU:0)]": nothing says Windows, nor which TF.
    "p03": "only the CPU device list; Windows + TF 2.18 come from the thread",
    # cudart64_101.dll missing: a plain missing CUDA 10.1, unless one knows the wheel is TF
    # 1.15, whose official build uses CUDA 10.0 (so this is a community build for 10.1).
    "p06": "only TF 1.15 (from the thread) shows the wheel wants another CUDA than usual",
}

# Labelled in shared/corpus without a thread that settles the cause; the issue-21 corpus has
# threads that settle the same output (tests/data/doctor_corpus, c003: "DLL initialization
# routine failed" is a CPU without the instructions the build uses, maintainer-confirmed).
# Their first finding is that cause; the old label must still be listed.
SETTLED_ELSEWHERE = {"e11": "cpu-no-avx", "p13": "cpu-no-avx"}


def _first_expected(case: dict) -> str:
    return SETTLED_ELSEWHERE.get(case["id"], case["label"])


def _context(case: dict) -> dict:
    platform = None if case["platform"] == "unknown" else case["platform"]
    return {"platform": platform, "tf_version": case["tf_version"]}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_labelled_cause_first_with_context(case: dict) -> None:
    ids = [f.id for f in explain(case["text"], **_context(case))]
    assert ids and ids[0] == _first_expected(case) and case["label"] in ids, ids
    for secondary in case["secondary"]:
        assert secondary in ids, (secondary, ids)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_text_alone(case: dict) -> None:
    ids = [f.id for f in explain(case["text"])]
    if case["id"] in TEXT_ALONE_AMBIGUOUS:
        assert case["label"] in ids
    else:
        assert ids[0] == _first_expected(case) and case["label"] in ids, ids


def test_the_readme_lists_every_finding_id() -> None:
    """The README's list of ids is what a user of ``--json`` reads: a new id goes in it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert [fid for fid in finding_ids() if f"`{fid}`" not in readme] == []


def test_every_case_has_a_source_and_known_label() -> None:
    assert len([c for c in CASES if c["id"].startswith("e")]) >= 10
    for case in CASES:
        assert case["source"].startswith("https://")
        assert explain(case["text"]) is not None


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_findings_carry_evidence_and_fix(case: dict) -> None:
    first = explain(case["text"], **_context(case))[0]
    assert first.evidence and first.steps
    # Evidence quotes the output (or states the context it relied on).
    assert any(line.strip() in case["text"] for line in first.evidence.splitlines()) or (
        "platform" in first.evidence)


def test_tf210_windows_fix_is_the_documented_conda_recipe() -> None:
    text = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
            "dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found")
    finding = explain(text, platform="windows", tf_version="2.10.0")[0]
    assert finding.id == "missing-cuda-runtime"
    commands = "\n".join(s.command or "" for s in finding.steps)
    assert "conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0" in commands


def test_windows_new_tf_points_to_wsl_and_tf210() -> None:
    f = explain("[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]",
                platform="windows", tf_version="2.15")[0]
    assert f.id == "tf-windows-gpu-unsupported"
    commands = "\n".join(s.command or "" for s in f.steps)
    assert 'pip install "tensorflow[and-cuda]"' in commands
    assert 'python -m pip install "tensorflow<2.11"' in commands


def test_python_too_new_for_tf_from_paths() -> None:
    text = ('  File "C:\\Users\\a\\AppData\\Local\\Programs\\Python\\Python312\\lib\\site-packages'
            '\\tensorflow\\python\\pywrap_tensorflow.py", line 58, in <module>\n'
            "ImportError: DLL load failed: The specified module could not be found.")
    ids = [f.id for f in explain(text, tf_version="2.10.0")]
    assert ids[0] == "python-unsupported"  # TF 2.10 supports 3.7-3.10 (KB)


def test_no_gpu_on_linux_lists_runtime_before_driver() -> None:
    text = "Num GPUs Available:  0"
    ids = [f.id for f in explain(text, platform="linux", tf_version="2.15")]
    assert ids[:2] == ["missing-cuda-runtime", "no-nvidia-driver"]


def test_nvidia_smi_driver_too_old_for_tf_cuda() -> None:
    text = ("| NVIDIA-SMI 418.87.01    Driver Version: 418.87.01    CUDA Version: 10.1     |\n"
            "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: "
            "cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /x")
    ids = [f.id for f in explain(text, platform="linux", tf_version="2.5")]
    assert ids[0] == "driver-too-old"


def test_harmless_tensorrt_warning_is_info_only() -> None:
    text = ("W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could "
            "not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open "
            "shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/cuda/lib64")
    findings = explain(text)
    assert [f.id for f in findings] == ["optional-library-missing"]
    assert findings[0].severity == "info"




def test_kb_tables() -> None:
    assert kb.last_windows_gpu_release() == (2, 10)
    row = kb.find_build("2.10.0", "windows", "gpu")
    assert (row.cuda, row.cudnn, row.python_text) == ("11.2", "8.1", "3.7-3.10")
    assert kb.find_build("2.16.2", "linux", "gpu").cuda == "12.3"  # matched on major.minor
    assert kb.find_build("2.12", "windows", "gpu") is None
    assert kb.min_driver("11.2").windows == (460, 82)
    assert kb.library_info("C:\\x\\cudnn64_8.dll").kind == "cudnn"
    assert kb.library_info("cusolver64_10.dll").cuda_versions == ("10.1", "11.0")
    assert kb.library_info("msvcp140_1.dll").kind == "msvc"
    assert kb.library_info("libcudnn_ops_infer.so.8").cudnn_major == 8
    assert kb.python_range_for("2.21", "linux").supports_python((3, 13))
    assert not kb.python_range_for("2.21", "linux").supports_python((3, 9))


# Recorded on this project's Linux VM: TF 2.21 (tensorflow + tensorflow-cpu wheels), no NVIDIA
# driver, TF_CPP_MIN_LOG_LEVEL=0 TF_CPP_MAX_VLOG_LEVEL=1 (timestamps shortened).
TF221_NO_DRIVER = """\
I0000 00:00:1795988026.191159   27085 cudart_stub.cc:31] Could not find cuda drivers on your \
machine, GPU will not be used.
I0000 00:00:1795988026.355987   27085 dso_loader.cc:144] Could not load dynamic library \
'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory
E0000 00:00:1795988026.356015   27085 cuda_platform.cc:52] failed call to cuInit: INTERNAL: CUDA \
error: Failed call to cuInit: UNKNOWN ERROR (303)
I0000 00:00:1795988026.356046   27085 cuda_diagnostics.cc:145] kernel driver does not appear to \
be running on this host (vm): /proc/driver/nvidia/version does not exist
[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]
"""


def test_recorded_tf221_without_driver() -> None:
    findings = explain(TF221_NO_DRIVER, tf_version="2.21.0")
    ids = [f.id for f in findings]
    assert ids[0] == "no-nvidia-driver" and "driver-not-loaded" not in ids
    assert "libcuda.so.1" in findings[0].evidence
    assert "tf-windows-gpu-unsupported" not in ids  # the text says Linux (.so)


# Real outputs of `import tensorflow` (TF 2.10.1, win_amd64) captured on the Windows lane:
# tests/data/windows/README.md. (file, the first finding's id, what its title must name: the
# loader's "DLL load failed" names no DLL, so there only the machine's dependency walk can.)
WINDOWS_DATA = Path(__file__).parent / "data" / "windows"
REAL_WINDOWS = [
    ("tf210_healthy_no_gpu.txt", "no-nvidia-driver", "nvcuda.dll"),
    ("tf210_missing_vcruntime140_1.txt", "missing-msvc-runtime", "visual c++ runtime"),
    ("tf210_missing_msvcp140_1.txt", "missing-msvc-runtime", "msvcp140_1.dll"),
]


def _wordings(text: str) -> list[str]:
    """The output as Wine printed it, and with Windows' own words for ERROR_MOD_NOT_FOUND."""
    return [text, text.replace("Module not found.", "The specified module could not be found.")]


@pytest.mark.parametrize(("name", "fid", "named"), REAL_WINDOWS)
def test_real_windows_tf210_outputs(name: str, fid: str, named: str) -> None:
    text = (WINDOWS_DATA / name).read_text(encoding="utf-8")
    for wording in _wordings(text):
        for context in ({}, {"platform": "windows", "tf_version": "2.10.1"}):
            findings = explain(wording, **context)
            first = findings[0]
            assert first.id == fid, [f.id for f in findings]
            assert named in first.title.lower(), first.title
            # TF 2.10 is the last native-Windows GPU release: never "2.11+ has no GPU support".
            assert "tf-windows-gpu-unsupported" not in [f.id for f in findings]
    if fid == "missing-msvc-runtime":
        fix = "\n".join(f"{s.text} {s.command or ''}" for s in first.steps)
        assert "Visual C++ Redistributable" in fix and "Microsoft.VCRedist" in fix


def test_bare_dll_load_failure_lists_the_usual_causes() -> None:
    """The loader names no DLL: the VC++ runtime first, then a CPU without AVX, a broken
    install, in either wording."""
    text = (WINDOWS_DATA / "tf210_missing_vcruntime140_1.txt").read_text(encoding="utf-8")
    for wording in _wordings(text):
        ids = [f.id for f in explain(wording)]
        assert ids[0] == "missing-msvc-runtime"
        assert {"cpu-no-avx", "native-runtime-load-failed"} <= set(ids)


# --- hostile outputs: bounded, linear, never blocking (docs/reliability.md) ---------------

def _explain_cli(*args: str, **kwargs):
    from tests.conftest import tensordeck

    return tensordeck("doctor", "--explain", *args, timeout=60, **kwargs)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero (Windows)")
def test_a_device_is_refused_without_reading_it() -> None:
    run = _explain_cli("/dev/zero")
    assert run.returncode == 2, run.stderr
    assert "/dev/zero is not a file or a pipe" in run.stderr and run.stdout == ""


def test_a_folder_is_refused_as_a_folder_on_every_system(tmp_path: Path) -> None:
    """Linux opens a folder and Windows refuses to: both say what it is, not "permission
    denied"."""
    run = _explain_cli(str(tmp_path))
    assert run.returncode == 2, run.stderr
    assert f"{tmp_path} is not a file or a pipe (a folder" in run.stderr and run.stdout == ""


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs (Windows)")
def test_a_fifo_nobody_writes_to_is_refused_after_the_wait(tmp_path: Path) -> None:
    import os

    from core.doctor.capture import FIFO_WAIT_SECONDS

    fifo = tmp_path / "output"
    os.mkfifo(fifo)
    run = _explain_cli(str(fifo))
    assert run.returncode == 2, run.stderr
    assert f"no program wrote to in {FIFO_WAIT_SECONDS:g} s" in run.stderr


@pytest.mark.skipif(sys.platform == "win32" or not Path("/dev/fd").is_dir(),
                    reason="no /dev/fd (Windows; under Wine, Z:\\dev\\fd is Linux's)")
def test_a_pipe_named_like_process_substitution_is_read() -> None:
    """``--explain <(cmd)``: the shell passes /dev/fd/N, a pipe whose writer is ``cmd``; it
    is read to its end, however slowly ``cmd`` writes."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; time.sleep(1); "
         "sys.stdout.write(\"ImportError: libcudart.so.11.0: cannot open shared object file\")"],
        stdout=write_end)
    os.close(write_end)
    try:
        run = _explain_cli(f"/dev/fd/{read_end}", pass_fds=(read_end,))
    finally:
        os.close(read_end)
        writer.wait()
    assert run.returncode == 1, run.stderr
    assert "[missing-cuda-runtime]" in run.stdout


def test_a_large_output_is_read_from_its_end_and_the_cut_said(tmp_path: Path) -> None:
    from core.doctor.capture import MAX_LINE_CHARS, MAX_TEXT_BYTES

    log = tmp_path / "train.log"
    with open(log, "w", encoding="utf-8") as f:
        f.write("x" * (MAX_TEXT_BYTES + 4096) + "\n")  # one line longer than what is read
        f.write("step 1 loss=0.5\n" * 100_000)
        f.write("y" * (MAX_LINE_CHARS * 3) + "\n")  # matched up to MAX_LINE_CHARS
        f.write("ImportError: libcudart.so.11.0: cannot open shared object file\n")
    run = _explain_cli(str(log))
    assert run.returncode == 1, run.stderr
    assert "[missing-cuda-runtime]" in run.stdout
    size = log.stat().st_size / 2**20
    assert f"holds {size:.1f} MiB: read its last {MAX_TEXT_BYTES / 2**20:.1f} MiB" in run.stderr
    assert f"longer than {MAX_LINE_CHARS:,} characters read up to there" in run.stderr


def test_stdin_is_read_to_its_end_keeping_its_last_part() -> None:
    text = "noise line\n" * 500_000 + "No module named 'tensorflow.contrib'\n"
    run = _explain_cli("-", input=text)
    assert run.returncode == 1, run.stderr
    assert "[tf1-api-on-tf2]" in run.stdout and "stdin holds" in run.stderr


def test_an_enormous_text_keeps_its_findings_and_evidence_bounded() -> None:
    from core.doctor.explain import MAX_EVIDENCE

    lines = [f"Could not load dynamic library 'cudart64_{i}.dll'; dlerror: not found"
             for i in range(50_000)]
    findings = explain("\n".join(lines))
    assert findings[0].id == "missing-cuda-runtime"
    assert all(len(f.evidence.splitlines()) <= MAX_EVIDENCE for f in findings)
