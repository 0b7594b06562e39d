"""TensorFlow's known-harmless messages: the start-up lines every healthy run prints (often
twice: once per import of TensorFlow and of Keras), which both faces dim so that the lines that
matter stand out. The log files keep them as printed; dimming is only how they are shown.

One list, each pattern with the TensorFlow (or Abseil) source file that prints it and why it is
harmless. Some are harmless only when the task trains on the CPU (``cpu_only``): "failed call
to cuInit" on a machine that should train on its GPU is the problem, not noise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Noise:
    name: str
    pattern: re.Pattern[str]
    #: The file in TensorFlow's (or Abseil's) sources that prints it.
    source: str
    why: str
    cpu_only: bool = False


def _noise(name: str, pattern: str, source: str, why: str, cpu_only: bool = False) -> Noise:
    return Noise(name, re.compile(pattern), source, why, cpu_only)


KNOWN: tuple[Noise, ...] = (
    _noise("absl-prelude",
           r"^WARNING: All log messages before absl::InitializeLog\(\) is called are written "
           r"to STDERR$",
           "abseil-cpp absl/log/internal/globals.cc (printed by every process that logs "
           "before TensorFlow set up its logging, TF 2.15+)",
           "Abseil says where early messages go"),
    _noise("onednn", r"port\.cc:\d+\] oneDNN custom operations are on",
           "tensorflow/core/util/port.cc",
           "information: oneDNN speeds up the CPU; results differ only by round-off"),
    _noise("cpu-features", r"This TensorFlow binary is optimized to use available CPU "
           r"instructions", "tensorflow/core/platform/cpu_feature_guard.cc",
           "information: a build for this CPU could be faster"),
    _noise("cudart-stub", r"cudart_stub\.cc:\d+\] (Could not find cuda drivers on your machine"
           r"|Ignore above cudart dlerror)",
           "tensorflow/tsl/cuda/cudart_stub.cc (TF 2.10: tensorflow/stream_executor/cuda/"
           "cudart_stub.cc)", "no CUDA runtime: TensorFlow uses the CPU", cpu_only=True),
    _noise("dso-cuda", r"dso_loader\.cc:\d+\] Could not load dynamic library "
           r"'(cudart64_\d+\.dll|libcudart\.so[.\d]*|nvcuda\.dll|libcuda\.so[.\d]*)'",
           "tensorflow/tsl/platform/default/dso_loader.cc (TF 2.10: tensorflow/stream_executor/"
           "platform/default/dso_loader.cc)", "no CUDA: TensorFlow uses the CPU", cpu_only=True),
    _noise("cuinit", r"failed call to cuInit",
           "xla/stream_executor/cuda/cuda_platform.cc (TF 2.16+; TF 2.10: tensorflow/"
           "stream_executor/cuda/cuda_driver.cc)", "no NVIDIA driver or GPU: the CPU is used",
           cpu_only=True),
    _noise("cuda-diagnostics", r"cuda_diagnostics\.cc:\d+\] (retrieving CUDA diagnostic "
           r"information for host|hostname:)",
           "xla/stream_executor/cuda/cuda_diagnostics.cc", "follows the cuInit message",
           cpu_only=True),
    _noise("cuda-factory", r"Unable to register cu(DNN|FFT|BLAS) factory: Attempting to "
           r"register factory for plugin cu\w+ when one has already been registered",
           "xla/stream_executor/cuda/cuda_dnn.cc, cuda_fft.cc, cuda_blas.cc (TF 2.14-2.16)",
           "a plugin registered twice at import; TensorFlow keeps the first"),
    _noise("tf-trt", r"TF-TRT Warning: Could not find TensorRT",
           "tensorflow/compiler/tf2tensorrt/utils/py_utils.cc",
           "TensorRT is optional; training does not use it"),
    _noise("gcs", r"(gcs_file_system\.cc|ram_file_block_cache\.h):\d+\] GCS ",
           "tensorflow/core/platform/cloud/gcs_file_system.cc (TF 2.10 on Windows, at import)",
           "Google Cloud Storage settings at import"),
    _noise("xla-flags", r"parse_flags_from_env\.cc:\d+\] ",
           "tensorflow/compiler/xla/parse_flags_from_env.cc",
           "lists XLA's environment flags at import"),
    _noise("xla-devices", r"Not creating XLA devices, tf_xla_enable_xla_devices not set",
           "tensorflow/compiler/jit/xla_cpu_device.cc, xla_gpu_device.cc",
           "the default: no separate XLA devices"),
)

#: TensorFlow prints each of these in a few hundred characters: a line is matched up to here
#: (a pane draws lines of any length, and a pattern costs what the text it reads costs).
MAX_NOISE_CHARS = 1024


def classify(line: str, *, gpus_expected: bool = False) -> Noise | None:
    """The known-harmless message ``line`` is, or None. ``gpus_expected``: the task should
    train on a GPU, so the no-GPU messages are not harmless there."""
    line = line[:MAX_NOISE_CHARS]
    # Plain "in" tests: this runs for every line a log pane draws.
    if not ("] " in line or "absl::" in line or "TF-TRT" in line
            or "This TensorFlow binary" in line):
        return None
    for noise in KNOWN:
        if (gpus_expected and noise.cpu_only) or not noise.pattern.search(line):
            continue
        return noise
    return None


# --- TF_CPP_MIN_LOG_LEVEL, for the lines that ignore it -------------------------------------

#: A TensorFlow C++ log line and its severity letter: Abseil's ``I0000 00:00:1796190832.64
#: 18876 port.cc:153] ...`` (TF 2.15+), or ``2022-11-02 10:01:02.123456: I tensorflow/core/
#: ...cc:42] ...`` (TF 2.10); after a face's ``[worker-0]`` prefix, if any.
_CPP_LOG = re.compile(r"(?:\[[^\]\n]{1,64}\] *)?(?:([IWEF])\d{4} \d\d:\d\d:\d{1,20}\.\d+ +\d+ "
                      r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF]) )[\w./-]{1,256}:\d+\] ")
_ABSL_PRELUDE = re.compile(r"(?:\[[^\]\n]{1,64}\] *)?" + next(
    n.pattern.pattern.lstrip("^") for n in KNOWN if n.name == "absl-prelude"))
_SEVERITY = {"I": 0, "W": 1, "E": 2, "F": 3}
#: How a line above starts: a severity letter, a date, a face's ``[task]`` prefix.
_FIRST_CHARACTERS = frozenset("IWEF0123456789[")


def tf_log_level(env: Mapping[str, str]) -> int:
    """``TF_CPP_MIN_LOG_LEVEL`` of an environment: 0 (all) to 3 (errors hidden too); 0 when
    unset or not a number, as TensorFlow reads it."""
    value = env.get("TF_CPP_MIN_LOG_LEVEL", "").strip()
    return min(3, int(value)) if value.isdigit() else 0


def shared_log_level(envs: Iterable[Mapping[str, str]]) -> int:
    """The ``TF_CPP_MIN_LOG_LEVEL`` every one of the tasks' environments asks for (a face
    hides what all of them would: 0 when one task shows everything)."""
    return min((tf_log_level(env) for env in envs), default=0)


def below_level(line: str, level: int) -> bool:
    """Whether TensorFlow's ``TF_CPP_MIN_LOG_LEVEL=level`` means to hide ``line``: a C++ log
    line under that severity. TensorFlow hides most itself; the lines printed before
    ``absl::InitializeLog()`` (oneDNN, no CUDA drivers, Abseil's own warning about them) ignore
    the variable, so a face hides them from display. A FATAL line is always shown, and the
    log files keep every line."""
    # A task's own lines rarely start as TensorFlow's do: most are passed at the first letter
    # (this runs for every line a face shows when a level is set).
    if level <= 0 or line[:1] not in _FIRST_CHARACTERS:
        return False
    line = line[:MAX_NOISE_CHARS]
    found = _CPP_LOG.match(line)
    if found:
        return _SEVERITY[found.group(1) or found.group(2)] < min(level, 3)
    return bool(_ABSL_PRELUDE.match(line))
