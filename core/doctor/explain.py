"""Diagnose a captured output (the error of ``import tensorflow``, a training log) from its text.

The rules read what TensorFlow, the Windows / Linux loaders, pip, gRPC and the NVIDIA tools
print (formats from TF 0.12 to 2.21), plus the context the text gives away (platform, versions,
conda env, search paths). Each rule scores the causes it supports; the same cause from several
rules keeps its best score and its evidence (the first :data:`MAX_EVIDENCE` lines). Findings
come back most likely first.

The text may be anything (a 10 MB line, a million matching lines), so reading it is bounded and
linear: its end and each line cut as :func:`core.doctor.capture.bounded_text` says, each pattern
one search of the whole text, no pattern that reads the rest of a line again from every place it
could start (:func:`core.doctor.facts.then`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from core.doctor import kb
from core.doctor.capture import bounded_text
from core.doctor.context import EXCEPTION_LINE, TextContext, read_context
from core.doctor.facts import MAX_LIBRARIES, Facts, library_stem, read_facts, then
from core.doctor.fixes import FixContext, finding_title, make_finding
from core.doctor.packages import (
    ADD_ON_OPS,
    KNOWN_DEPENDENCIES,
    TF_PACKAGE_PARTS,
    add_on_ops_rules,
    distribution,
    missing_module_rules,
)
from core.doctor.prose import prose_rules
from core.doctor.protos import protos_rules
from core.doctor.reasons import fact_rules, tf_too_old
from core.doctor.removed import removed_api, removed_api_rules
from core.doctor.scores import MAX_EVIDENCE as MAX_EVIDENCE  # re-exported: the limit is read here
from core.doctor.scores import Scores
from core.doctor.wording import GUESS_TITLE, shipped_model
from core.findings import Finding, Text


@dataclass(frozen=True)
class _Signature:
    """A message that points at one cause."""

    fid: str
    score: int
    pattern: re.Pattern
    title: Text | None = None
    detail: tuple[tuple[str, object], ...] = ()


# Words that state what something needs or refuses.
_NEEDS = (r"\brequir(?:es?|ed|ing)\b|\bminimum\b|>=|\bat least\b|\bnot supported\b|"
          r"\bunsupported\b|\btoo (?:old|low)\b")
_OLDER = _NEEDS + r"|\bnot new enough\b|\b(?:newer|older)\b"


def _sig(fid: str, score: int, pattern: str, variant: str | None = None,
         **detail) -> _Signature:
    """``variant``: the title is the message ``finding.<fid>.<variant>``, not the default."""
    return _Signature(fid, score, re.compile(pattern, re.IGNORECASE | re.ASCII),
                      finding_title(f"{fid}.{variant}") if variant else None,
                      tuple(detail.items()))


# What Keras 3 or a person says of what it no longer does ("... is deprecated in Keras 3", "not
# yet supported", "the text module is missing in Keras 3", "`conv2d` is not available with").
_KERAS3_REFUSES = (r"not (?:yet )?(?:supported|available)|\bdeprecated\b|\bremoved\b|"
                   r"\bno longer\b|\bmissing\b|\bgone\b|does ?n[o']?t (?:exist|have)")

_SIGNATURES: tuple[_Signature, ...] = (
    # Driver.
    _sig("no-nvidia-driver", 95, r"couldn't communicate with the NVIDIA driver"),
    _sig("no-nvidia-driver", 92, r"no NVIDIA GPU device is present|/dev/nvidia0 does not exist"),
    _sig("no-nvidia-driver", 90, r"NVML Shared Library Not Found|NVMLError_LibraryNotFound"),
    _sig("no-nvidia-driver", 85, r"'nvidia-smi' is not recognized|"
         r"nvidia-smi: (command )?not found"),
    _sig("no-nvidia-driver", 80, r"/proc/driver/nvidia/version does not exist"),
    # NVIDIA's own container images, started without the GPU (no --gpus / NVIDIA runtime).
    _sig("no-nvidia-driver", 88, r"NVIDIA Driver was not detected\.\s+GPU functionality will "
         r"not be available", "container"),
    _sig("no-nvidia-driver", 72, r"CUDA_ERROR_NO_DEVICE|no CUDA-capable device is detected",
         "no-device"),
    _sig("driver-not-loaded", 90, r"Driver Not Loaded|NVMLError_DriverNotLoaded"),
    _sig("driver-not-loaded", 88, r"kernel version \S+ does not match DSO|"
         r"Driver/library version mismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH|"
         # NVML's name for it (dev c1346: the user-space library and the loaded module differ).
         r"NVML_ERROR_LIB_RM_VERSION_MISMATCH"),
    # TF's own diagnostic: no NVIDIA kernel module on this host (none installed, or a container
    # given no GPU); every development case with it (c208, c255, c1306, c1307) is no driver.
    _sig("no-nvidia-driver", 84, r"kernel driver does not appear to be running"),
    _sig("driver-not-loaded", 70, r"failed call to cuInit: (?:CUDA_ERROR_UNKNOWN|UNKNOWN ERROR)"),
    # 303, CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, and 34, CUDA_ERROR_STUB_LIBRARY: only the
    # toolkit's stub libcuda is there (a container started without the NVIDIA runtime, --gpus),
    # no driver's.
    _sig("no-nvidia-driver", 82, r"cuInit: (?:UNKNOWN ERROR \((?:303|34)\)|"
         r"CUDA_ERROR_SHARED_OBJECT_INIT_FAILED|CUDA_ERROR_STUB_LIBRARY)"),
    _sig("driver-too-old", 96, r"CUDA driver version is insufficient for CUDA runtime version|"
         r"CUDA_ERROR_INSUFFICIENT_DRIVER|cudaErrorInsufficientDriver|"
         r"NVIDIA driver on your system is too old"),
    # cuDNN's check of the driver in TF 2.x ("Possibly insufficient driver version: 450.203.8"),
    # and nvidia-container-cli refusing a CUDA image on an older driver.
    _sig("driver-too-old", 90, r"Possibly insufficient driver version|"
         r"unsatisfied condition: cuda>=\d"),
    # The CUDA runtime failing to start on this driver: a runtime newer than the driver (an
    # app's bundled CUDA 11 on a driver for CUDA 10).
    _sig("driver-too-old", 70, r"cudaGetDevice\(\) failed\. Status: initialization error"),
    _sig("driver-too-old", 82, r"CUDA_ERROR_UNSUPPORTED_PTX_VERSION|"
         r"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|forward compatibility was attempted"),
    # Versions of CUDA / cuDNN.
    # "Loaded runtime CuDNN library: 7.1.4 but ...", and TF 1.x's "7005 (compatibility
    # version 7000) but ...".
    _sig("cuda-version-mismatch", 95, then("Loaded runtime CuDNN library", "but source was "
                                           "compiled with") + "|"
         r"CuDNN library needs to have matching major version|"
         r"CuDNN library major and minor version needs to match"),
    # A build with no code for this GPU's compute capability.
    _sig("gpu-arch-unsupported", 93, r"minimum required (?:Cuda|compute) capability|"
         # Its words for a capability it has no code for (dev c1305, a title).
         r"(?i:invalid GPU compute capability)"),
    _sig("gpu-arch-unsupported", 88, r"no kernel image is available for execution|"
         r"device kernel image is invalid"),
    # The same in a person's words ("AWS GPU instance isn't supported because it requires >=
    # 3.5 cuda compute capability", "compute capability 3.0 is not supported"): dev c1208.
    _sig("gpu-arch-unsupported", 80, then(r"\bcompute capability", _NEEDS) + "|"
         + then(_NEEDS, r"\bcompute capability")),
    # A system's glibc older than the build needs, in a person's words ("the version of glibc
    # installed on the cluster (2.12) is not new enough", "TF requires glibc 2.16": dev c1247).
    _sig("os-too-old", 78, then(r"\bglibc\b", _OLDER) + "|" + then(_OLDER, r"\bglibc\b"),
         library="glibc"),
    _sig("cuda-version-mismatch", 60, r"no kernel image is available for execution|"
         r"device kernel image is invalid"),
    _sig("missing-cudnn", 82, r"DNN library is not found|Unable to load cuDNN DSO"),
    # An op the graph or SavedModel uses that this TensorFlow does not have: a newer TF made it
    # ("No op named LeakyRelu in defined operations" under TF 1.12: dev c1203).
    _sig("tf-too-old", 70, r"No op named (?!" + ADD_ON_OPS + r")\w+ in defined operations|"
         r"Op type not registered '(?!" + ADD_ON_OPS + r")"),
    # cuDNN not there is a missing library's line; "DNN library is not found" without one is a
    # cuDNN that loaded and would not start: another version than the build's (dev c1190, c1192).
    _sig("cuda-version-mismatch", 84, r"DNN library is not found"),
    # XLA's JIT needs the toolkit's compiler pieces, which pip's CUDA runtime wheels lack.
    _sig("missing-cuda-runtime", 88, r"libdevice not found|Can't find libdevice directory|"
         r"Couldn't (?:invoke|find|get) ptxas|Failed to launch ptxas|"
         + then(r"\bptxas\b", r"\bnot found\b"), "xla", xla=True),
    # Memory.
    _sig("gpu-out-of-memory", 96, r"CUDA_ERROR_OUT_OF_MEMORY|OOM when allocating tensor|"
         r"RESOURCE_EXHAUSTED: Out of memory|CUDNN_STATUS_ALLOC_FAILED"),
    _sig("gpu-out-of-memory", 90, r"Resource ?exhausted|ran out of memory trying to allocate|"
         r"failed to allocate [\d.]+\w? \(\d+ bytes\) from device"),
    # "Failed to get convolution algorithm" cut short (an issue's title, a first line) is the
    # same message (dev c1274).
    _sig("gpu-out-of-memory", 74, r"Failed to get convolution algorithm|"
         r"Could not create cudnn handle|CUDNN_STATUS_INTERNAL_ERROR|"
         r"CUDNN_STATUS_NOT_INITIALIZED|Blas \w+ launch fail|CUBLAS_STATUS_(?:ALLOC_FAILED|"
         r"NOT_INITIALIZED)|BLAS operation using StreamExecutor without BLAS support",
         "cudnn-init"),
    _sig("cuda-version-mismatch", 62, r"Failed to get convolution algorithm|"
         r"Could not create cudnn handle|CUDNN_STATUS_INTERNAL_ERROR|CUDNN_STATUS_NOT_INITIALIZED"),
    # Python's own out-of-memory, and NumPy's: the host's RAM.
    _sig("host-out-of-memory", 84, r"^(?:[\w.]+\.)?_?(?:Array)?MemoryError\b|"
         r"Unable to allocate [\d.]+ [KMGT]i?B for an array"),
    # protobuf's C++ headers refusing code generated by another protoc than TF's (a custom op
    # or Horovod built against TensorFlow's headers).
    _sig("mixed-tf-packages", 82, r"This file was generated by an? (?:older|newer) version of "
         r"protoc", protobuf=True),
    # "怎么解决oom": the word, not inside another ("room", "zoom").
    _sig("gpu-out-of-memory", 80, r"(?<![a-z])oom(?![a-z])|显存(?:不足|溢出|不够)|爆显存"),
    # CPU.
    _sig("cpu-no-avx", 98, r"compiled to use \w+ instructions, but these aren't available"),
    _sig("cpu-no-avx", 96, r"-1073741795|3221225501|0xC000001D|STATUS_ILLEGAL_INSTRUCTION",
         "illegal-instruction"),
    _sig("cpu-no-avx", 92, r"Illegal (?:hardware )?instruction|\bSIGILL\b|"
         r"exit(?:ed with)? code:? 132\b", "illegal-instruction"),
    # cuDNN's kernels asked of a TensorFlow that registered the CPU alone (NCCL's have their
    # own finding: nccl-unavailable).
    # A device placement asking for the GPU of a TensorFlow built without CUDA.
    _sig("cpu-only-build", 88, r"The requested device appears to be a GPU, but CUDA is not "
         r"enabled"),
    _sig("cpu-only-build", 82, then(r"No OpKernel was registered to support Op 'Cudnn\w*'",
                                    r"Registered devices: \[CPU(?:, ?XLA_CPU)?\]"), "gpu-op"),
    # In words: "my CPU does not support AVX", "a CPU without AVX".
    _sig("cpu-no-avx", 90, then(r"\bCPU", r"\b(?:no|without|lacks?|(?:does|do)(?:n'?t| not) "
                                          r"(?:support|have)|not support(?:ed)?)\s+(?:the\s+)?"
                                          r"AVX")),
    # Packages and Python.
    _sig("python-unsupported", 95, r"requires a 64-bit Python", bits=32),
    # macOS's loader: an x86_64 TensorFlow in an arm64 Python (Apple silicon) or the reverse.
    _sig("python-unsupported", 88, r"incompatible architecture \(have '?\(?(?:x86_64|arm64e?)|"
         r"mach-o,? but wrong architecture", "architecture"),
    # TF's own self-check naming the VC++ runtime's DLLs, in whatever language it was shown.
    _sig("missing-msvc-runtime", 86, then(r"msvcp140\.dll", r"msvcp140_1\.dll")),
    _sig("python-unsupported", 92, r"Could not find a version that satisfies the requirement "
         r"(?:tensorflow|tf-nightly)|No matching distribution found for (?:tensorflow|tf-nightly)",
         "no-wheel"),
    # tflite-runtime's last release (2.14.0) has wheels for Linux and Python 3.8-3.11 only.
    _sig("python-unsupported", 90, r"(?:No matching distribution found for|Could not find a "
         r"version that satisfies the requirement) tflite[-_]runtime\b", "tflite-runtime",
         tflite=True),
    _sig("python-unsupported", 88, then("tensorflow", r"\.whl is not a supported wheel on this "
                                              "platform", gap=r"\S")),
    # The same in a person's words ("pip install tensorflow: wheel not supported in this
    # platform", dev c1276).
    _sig("python-unsupported", 80, then(r"\btensorflow", r"\bwheel (?:is )?not supported\b|"
                                        r"\bnot a supported wheel\b")),
    _sig("python-unsupported", 84, r"\[MSC v\.\d+ 32 bit|Python\d+-32[\\/]", bits=32),
    # pip 22+: every release it saw wants another Python.
    _sig("python-unsupported", 93, r"Ignored the following versions that require a different "
         r"python version|requires-python|Requires-Python|requires python\s*[<>=~]"),
    # conda's solver on a Python no TensorFlow package supports.
    _sig("python-unsupported", 85, r"incompatible with (?:the existing|your) python|"
         r"python\[version=[^\]\n]{1,40}\]"),
    _sig("mixed-tf-packages", 95, r"conflicting TensorFlow installations"),
    _sig("mixed-tf-packages", 90, r"compiled using NumPy 1\.x cannot be run in|"
         r"_ARRAY_API not found|numpy<2\b|support NumPy 2\b", numpy="downgrade"),
    # The same in a person's words: "Numpy's version has been upgraded to 2.x, but now
    # tensorflow can't support it".
    _sig("mixed-tf-packages", 80, then(r"\bnumpy\b[^\n]{0,40}?(?<![\d.])2(?:\.x|\.\d+)?\b",
                                      r"(?:can'?t|cannot|does ?n[o']?t|not) (?:support|work)|"
                                      r"incompatible|not compatible"), "numpy-api",
         numpy="downgrade"),
    # protobuf 4 says "cannot not be created" (sic).
    # protobuf's C++ part without the procedure the generated code asks (dev c1323: a system
    # protobuf older than TensorBoard's generated code).
    _sig("mixed-tf-packages", 88, r"cannot import name '_message' from 'google\.protobuf\.pyext'|"
         r"Descriptors cannot (?:not )?be created directly|"
         # The workarounds protobuf prints with it, when the rest was not pasted.
         r"Downgrade the protobuf package to 3\.20|PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python",
         protobuf=True),
    # Keras 2.2's layers handed to tf.keras code, or the other way round.
    _sig("mixed-tf-packages", 84, r"has no attribute '_?(?:inbound|outbound)_nodes'", "keras"),
    # A Keras (2) that lacks what the code was written for: it and TF, or the code, are of
    # another line (Keras 3's missing names score higher in core.doctor.reasons).
    _sig("mixed-tf-packages", 83, r"[Mm]odule 'keras[\w.]*' has no attribute", "keras"),
    # TensorBoard of another release, or several installed.
    _sig("mixed-tf-packages", 86, r"[Mm]odule 'tensorboard[\w.]*' has no attribute"),
    _sig("mixed-tf-packages", 88, r"Another metric with the same name already exists", "keras"),
    # TF 1.13-1.14 registering its bfloat16 type on a NumPy older than the one it needs.
    _sig("mixed-tf-packages", 84, r"PyBfloat16_Type\.tp_base != nullptr", "numpy-api"),
    # NumPy's C API against a TF built for another NumPy: its own words, in every release, and
    # pybind's when TF's module then fails ("... The signature was () -> handle").
    _sig("mixed-tf-packages", 76, r"numpy\.core\.(?:_?multiarray(?:_umath)?|umath) failed to "
         r"import|numpy\.(?:dtype|ndarray) size changed|Unable to convert function return value "
         r"to a Python type"),
    _sig("tf-windows-gpu-unsupported", 95, r"\"tensorflow-gpu\" package has been removed",
         "package-removed"),
    # Colab has no TF 1 any more: a TF 1 notebook there.
    _sig("tf1-api-on-tf2", 92, r"Tensorflow 1 is unsupported in Colab"),
    # TF 1's ways TF 2 refuses: a Dimension's .value (TF 2's shapes hold ints), a tensor as a
    # variable's initial value inside a function.
    _sig("tf1-api-on-tf2", 82, r"'int' object has no attribute 'value'|Tensor-typed variable "
         r"initializers must either be wrapped in an init_scope or callable"),
    # Modules, formats and layer types Keras 2 had and Keras 3 (TF 2.16+) does not.
    _sig("keras3-strategy-unsupported", 88, r"No module named 'keras\.(?:src\.)?(?:engine|"
         r"layers\.core|wrappers|utils\.generic_utils|preprocessing\.text)'|"
         r"Keras 3 only supports|"
         r"Only instances of `?keras\.Layer`? can be\b", "mixed-keras"),
    # A saved model's built-in class unknown to the Keras reading it: saved by Keras 2 and read
    # by Keras 3 (TF 2.16+), or the other way round.
    _sig("keras3-strategy-unsupported", 80, r"Could not locate class '(?:Model|Functional|"
         r"Sequential|InputLayer)'\. Make sure custom classes are decorated", "mixed-keras"),
    # A graph made by a newer TF, run by an older one whose op lacks an attribute the newer one
    # added (Conv2D's 'dilations' in TF 1.5, dev c1443).
    _sig("tf-too-old", 88, r"NodeDef mentions attr '\w+' not in Op<", "saved-model"),
    # The other way: code for Keras 3 (its own modules) on a Keras 2.
    _sig("mixed-tf-packages", 84, r"No module named 'keras\.src\.(?:legacy|ops|trainers|tree)\b",
         "keras"),
    # pip: the and-cuda extra exists only for Linux wheels.
    _sig("tf-windows-gpu-unsupported", 92, r"does not provide the extra ['\"]and-cuda['\"]|"
         r"No matching distribution found for nvidia-[\w-]+-cu1\d"),
    _sig("missing-cudnn", 68, r"Could not find cuDNN"),
    # Keras 3's own refusals name what to do: tf_keras and TF_USE_LEGACY_KERAS.
    _sig("keras3-strategy-unsupported", 92, r"Keras is Keras 3|TF_USE_LEGACY_KERAS|"
         + then(r"\bKeras 3\b", _KERAS3_REFUSES) + "|"
         + then(_KERAS3_REFUSES, r"\bKeras 3\b"), "mixed-keras"),
    # Distribution.
    _sig("nccl-unavailable", 95, r"NcclAllReduce|\bNccl\w*'? used by"),
    _sig("nccl-unavailable", 82, then(r"\bNCCL\b", r"not supported|unavailable|not available|"
                                       r"not found|not built")),
    _sig("keras3-strategy-unsupported", 92, r"No module named 'tensorflow(?:\.python)?\.estimator'|"
         r"No module named 'tensorflow_estimator'|has no attribute 'estimator'",
         "estimator", estimator=True),
    _sig("keras3-strategy-unsupported", 90, then("unsupported type", "PerReplica") + "|"
         + then("PerReplica", "unsupported|not supported"),
         "per-replica"),
    _sig("keras3-strategy-unsupported", 86, then("ParameterServerStrategy", "not supported|"
                                                  "unsupported|NotImplementedError"),
         "ps-strategy"),
    _sig("keras3-strategy-unsupported", 70,
         r"KerasTensor cannot be used as input to a TensorFlow function",
         "mixed-keras"),
    # A Keras 3 object (its classes live in ``keras.src.``; Keras 2's in ``keras.engine``)
    # refused by code written for Keras 2 / tf.keras: "Data of type <class
    # 'keras.src.backend.common.keras_tensor.KerasTensor'> is not allowed".
    _sig("keras3-strategy-unsupported", 86,
         then(r"keras\.src\.[\w.]*KerasTensor", r"\bnot (?:allowed|supported|a valid)|"
              r"\bunsupported\b|\bcan ?n[o']?t be|\bcould not be|\bExpected\b|\bmust be\b"),
         "mixed-keras"),
    _sig("tf1-api-on-tf2", 92, r"module 'tensorflow\._api\.v2\.\w+' has no attribute|"
         # TF 2's refusals of TF 1's graph APIs ("tf.placeholder() is not compatible with eager
         # execution", "Exporting/importing meta graphs is not supported when eager execution
         # is enabled"), and a TF Hub module of TF 1's format loaded in TF 2.
         r"\bis not (?:compatible with|supported (?:when|with|in)) eager (?:execution|mode)|"
         r"is stored using TF 1\.x format|"
         # Keras 2.2's TF backend on TF 2: "`get_session` is not available when using
         # TensorFlow 2.0."
         r"is not available when using TensorFlow 2"),
    _sig("port-in-use", 95, r"Address already in use|Only one usage of each socket address|"
         r"WSAEADDRINUSE|errno\"?:\s*(?:48|98)\b|\[Errno (?:48|98)\]"),
    _sig("port-in-use", 90, r"Failed to add port to server|Could not start gRPC server|"
         r"No address added out of total"),
    # In words: two servers on one port ("called twice ... with the same ports", "both tasks
    # use the same port"), "端口被占用".
    _sig("port-in-use", 80, then(r"\b(?:twice|two|both|again)\b", r"\bsame (?:host ?)?ports?\b")
         + "|" + then(r"\bsame (?:host ?)?ports?\b", r"\b(?:twice|two|both|again)\b")
         + r"|端口\s*(?:已经?)?被占用|端口冲突"),
    # In words: "port 6006 is already used", "Port 6006 is in use by another program",
    # "could not bind to port 6006", "the port is occupied".
    _sig("port-in-use", 86, then(r"\bports?\b", r"\b(?:already (?:in use|used|taken|bound|"
                                              r"occupied)|in use by (?:another|other|a different)|"
                                              r"(?:is|was|being) (?:used|taken|occupied) by)")
         + "|" + then(r"\b(?:could ?n[o']?t|can ?n[o']?t|unable to|failed to) bind",
                      r"\bport\b")),
    # 10013 only as the error's code (WSAEACCES), never a bare number: "step 10013/20000".
    _sig("port-in-use", 88, r"forbidden by its access permissions|WSAEACCES|"
         r"(?:WinError|Errno|wsa_error\"?:|\berror(?: code)?:?|\berrno\"?:?)\s*10013\b|"
         r"\b(?:bind|socket)\b[^\n]{0,40}\b10013\b|\b10013\b[^\n]{0,40}\b(?:bind|socket)\b",
         "reserved"),
    _sig("peer-unreachable", 95, r"CreateSession still waiting for response from (?:worker|ps)",
         "waiting"),
    _sig("peer-unreachable", 86, r"failed to connect to all addresses|"
         + then("Connection refused", "grpc|ipv4|ipv6|UNAVAILABLE") + "|"
         + then("Worker|task", "has been preempted|is unavailable|unreachable")),
    _sig("peer-unreachable", 75, r"UnavailableError|\bUNAVAILABLE:|Socket closed|"
         r"Connection reset by peer|" + then("heartbeat", "time(?:d )?out")),
    _sig("peer-unreachable", 60, r"DEADLINE_EXCEEDED|Deadline Exceeded"),
    # NCCL's own socket transport (MirroredStrategy across machines, Horovod) failing to connect.
    _sig("peer-unreachable", 82, then(r"\bNCCL WARN\b", r"Connection refused|connect timeout|"
                                       r"Connection timed out|closed by remote peer")
         + r"|Connection closed by remote peer", "nccl", nccl=True),
    # In words: a task waits for another, or a cluster does not start.
    _sig("peer-unreachable", 72, r"等待\s*(?:ps|worker|chief)|"
         + then(r"waiting for", r"\b(?:ps|worker|chief)\b") + "|"
         + then(r"MultiWorker|TF_CONFIG|ParameterServer", r"fails? to start|\bhangs?\b|stuck")),
    # Warnings that only say an optional library (TensorRT) is absent: nothing is wrong.
    _sig("optional-library-missing", 20, r"Could not find TensorRT|TF-TRT Warning"),
    # NumPy's deprecation of the aliases TF <= 2.6 still uses: the NumPy that removed them.
    _sig("dependency-version-conflict", 84, r"In the future `np\.(?:object|bool|int|float|"
         r"complex|str)` will be defined", package="numpy", numpy="aliases"),
    _sig("conda-env-not-activated", 80, then(r"conda", r"\boutside\b|without activat|"
                                                      r"not activated")),
    # A NumPy older than TF's code (NumPy 1.12's einsum, asked by TF 1.3+).
    _sig("dependency-version-conflict", 84, r"cannot import name '?c_einsum\b", package="numpy"),
    # A library asking TensorFlow's C++ for a symbol this TF lacks (Itanium mangling: namespace
    # tensorflow): a custom op or companion (tensorflow-text ...) built for another TF.
    _sig("mixed-tf-packages", 86, r"undefined symbol: _ZN\w*?10tensorflow", "companion",
         companion=True),
    # NumPy older than the one TF was built against: its C core has another module name.
    _sig("mixed-tf-packages", 88, r"No module named '?numpy\.core\._multiarray_umath",
         "numpy-api", numpy="upgrade"),
    # TF's library asking protobuf's for a C++ symbol it lacks (Itanium mangling: namespace
    # google::protobuf): a protobuf of another release than the build's.
    _sig("dependency-version-conflict", 86, r"undefined symbol: _ZN\w*?6google8protobuf",
         package="protobuf"),
    # transformers hides its TF classes when the TensorFlow it finds is missing or too old.
    _sig("mixed-tf-packages", 84, r"cannot import name '?TF[A-Z]\w+'? from '?transformers\b",
         "companion", companion=True),
    # A package's own check of the TensorFlow it needs (keras-retinanet, TF Addons).
    _sig("mixed-tf-packages", 86, r"You are using tensorflow version [\d.]+\.? The minimum "
         r"required version is", "requires"),
    # Python's own warning: TF's extension modules built for another Python.
    _sig("python-unsupported", 84, r"compiletime version \d\.\d+ of module '[\w.]*tensorflow"
         r"[\w.]*' does not match runtime version"),
    # The C++ allocator failing: the host's RAM (a GPU's out-of-memory is TF's own message).
    _sig("host-out-of-memory", 80, r"terminate called after throwing an instance of "
         r"'std::bad_alloc'"),
    # Keras 3's own words (Keras 2 said these otherwise), and what it removed from Model.
    _sig("keras3-strategy-unsupported", 84, r"has never been called and thus has no defined "
         r"(?:input|output)|Unrecognized keyword arguments passed to \w+|object has no attribute "
         r"'(?:fit|evaluate|predict)_generator'|KerasLayer`? (?:cannot|can'?t|could not) be "
         r"added to (?:the |a )?Sequential", "mixed-keras"),
    # TF 1's contrib, said gone in a person's words.
    _sig("tf1-api-on-tf2", 80, then(r"tf\.contrib|tensorflow\.contrib", r"\bremoved\b|missing|"
                                    r"no longer|does ?n[o']?t exist|not (?:exist|available)")),
)

# Library-load messages across TF and loader versions: what was NOT found, and what was.
_MISSING_LIB = (
    re.compile(r"Could not load dynamic library '([^']+)'", re.ASCII),
    re.compile(r"Couldn't open CUDA library ([\w.\-]+?)\.?(?:\s|$)", re.ASCII),
    re.compile(r"Could not load library ([\w.\-]+?)\.? Error code", re.ASCII),
    re.compile(r"Could not locate (zlibwapi\.dll)", re.ASCII),
    re.compile(r"Could not find '([\w.\-]+\.dll)'", re.ASCII),
    # From the start of a name only: from every letter of it, each try would read it again.
    re.compile(r"(?<![\w.\-])([\w.\-]+\.so(?:\.\d+)*): cannot open shared object file", re.ASCII),
    re.compile(r"Error loading \"(?:[^\"]*[\\/])?([\w.\-]+\.dll)\"", re.ASCII),
    # TF's Windows self-check (python/platform/self_check.py): "'msvcp140.dll or msvcp140_1.dll'".
    re.compile(r"Could not find the DLL\(s\) '([^']+)'", re.ASCII),
)
_ANY_MISSING_LIB = re.compile("|".join(f"(?:{rx.pattern})" for rx in _MISSING_LIB), re.ASCII)
# ERROR_MOD_NOT_FOUND (126) in Windows' words, in Wine's ("Module not found."), or bare (TF 1.x).
# ERROR_MOD_NOT_FOUND in Windows' languages (French, German, Spanish, Italian, Portuguese,
# Russian, Chinese, Japanese, Korean) too: the loader's text is the system's.
_MODULE_NOT_FOUND = re.compile(r"specified module could not be found|"
                               + then("DLL load failed", r"\bModule not found") + "|"
                               r"\b126\b|0x7E\b|DLL load failed\s*$|module sp[ée]cifi[ée] est "
                               r"introuvable|angegebene Modul wurde nicht gefunden|"
                               r"encontrar el m[óo]dulo especificado|modulo specificato|"
                               r"m[óo]dulo especificado|указанный модуль|找不到指定的模块|"
                               r"找不到指定的模組|指定されたモジュールが見つかりません|"
                               r"지정된 모듈을 찾을 수 없습니다", re.IGNORECASE | re.ASCII)
_LOADED_LIB = re.compile(r"Successfully opened (?:dynamic|CUDA) library ([\w.\-]+)",
                         re.IGNORECASE | re.ASCII)
_TF1_ONLY = frozenset({
    "Session", "InteractiveSession", "placeholder", "sparse_placeholder", "app", "flags",
    "get_variable", "variable_scope", "global_variables_initializer", "ConfigProto",
    "GPUOptions", "reset_default_graph", "get_default_graph", "random_normal", "random_uniform",
    "truncated_normal", "set_random_seed", "to_float", "to_int32", "log", "Print", "layers",
    "gfile", "python_io", "GraphDef", "RunOptions", "local_variables_initializer", "assign",
    "trainable_variables", "global_variables", "train.Saver", "logging", "div", "mod",
})
# Top-level names every TensorFlow release has (0.x to 2.x): missing, TensorFlow is broken.
_EVERY_TF = frozenset({
    "Variable", "constant", "__version__", "Tensor", "float32", "int32", "matmul", "reshape",
    "zeros", "ones", "reduce_sum", "cast", "shape", "Graph", "device", "nn", "train", "math",
    "DType", "TensorShape", "convert_to_tensor", "identity", "add", "multiply",
})
# Top-level names TF 2 has that TF 1 gained late (1.4-1.14): missing where no TF 2 is stated,
# the TensorFlow is older than the code (dev c883, c921, c952, c1309).
_LATER_TF1 = frozenset({
    "config", "function", "distribute", "AUTO_REUSE", "py_function", "numpy_function", "data",
    "keras", "random", "io", "debugging", "autograph", "TensorSpec", "RaggedTensor", "sort",
    "argsort",
})
# "Module 'tensorflow' ..." too: a title or a sentence starts with a capital.
_NO_ATTR = re.compile(r"[Mm]odule 'tensorflow(?:\.compat\.v2)?' has no attribute '(\w+)'", re.ASCII)
_PY2_NO_ATTR = re.compile(r"'module' object has no attribute '(\w+)'", re.ASCII)
_SCRIPT = re.compile(r"File \"([^\"]+\.py)\", line \d+", re.ASCII)


def explain(text: str, *, platform: str | None = None, tf_version: str | None = None,
            cuda_version: str | None = None, distro: str | None = None) -> list[Finding]:
    """Findings that explain ``text``, the most likely cause first; never none: an output the
    rules do not know gets a finding quoting its decisive lines, one with no error says so.
    ``cuda_version``: the CUDA toolkit the user says is installed (as if the text said it).
    ``distro`` (:func:`core.doctor.context.linux_distro`) picks the Linux driver commands."""
    ctx = read_context(bounded_text(text), platform=platform, tf_version=tf_version)
    facts = read_facts(ctx)
    ctx.cuda_installs |= facts.cuda_stated
    if version := kb.parse_version(cuda_version or ""):
        ctx.cuda_installs.add(".".join(map(str, version[:2])))
    ctx.platform = ctx.platform or facts.platform_said
    ctx.tf_version = ctx.tf_version or facts.tf_version_said
    scores = Scores()
    for sig in _SIGNATURES:
        lines = ctx.lines_matching(sig.pattern)
        if lines:
            scores.add(sig.fid, sig.score, lines, title=sig.title, **dict(sig.detail))
    _library_rules(ctx, facts, scores)
    _os_rules(ctx, scores)  # before the import failure, which it explains
    _import_failure_rules(ctx, scores)
    _no_gpu_rules(ctx, facts, scores)
    fact_rules(ctx, facts, scores)
    prose_rules(ctx, scores)
    _driver_version_rules(ctx, scores)
    _python_rules(ctx, scores)
    _pip_conflict_rules(ctx, scores)
    _tf1_rules(ctx, scores)
    _saved_by_newer_rules(ctx, scores)
    _host_memory_rules(ctx, scores)
    _memory_words_rules(ctx, scores)
    missing_module_rules(ctx, scores)
    add_on_ops_rules(ctx, scores)
    protos_rules(ctx, scores)
    removed_api_rules(ctx, scores)
    _shadowed_rules(ctx, scores)
    _install_rules(ctx, scores)
    _dependency_rules(ctx, scores)
    _detail_rules(ctx, scores)
    _drop_consequences(scores)
    if not scores.by_id:
        _last_resort(ctx, scores)
    return _findings(ctx, scores, distro)


def probe_errors(stderr: str, *, platform: str | None, tf_version: str | None,
                 distro: str | None = None) -> list[Finding]:
    """The errors :func:`explain` finds in an interpreter's probe output, for the machine's and
    the pre-run checks. WSL's GPU is not guessed from the text: those checks look inside the
    distribution (core.doctor.wsl_checks)."""
    return [f for f in explain(stderr, platform=platform, tf_version=tf_version, distro=distro)
            if f.severity == "error" and f.id != "wsl-gpu-unavailable"]


def _findings(ctx: TextContext, scores: Scores, distro: str | None) -> list[Finding]:
    """Ranked by the evidence's score alone: a likely warning goes before an unlikely error."""
    ranked = sorted(scores.by_id.items(), key=lambda item: -item[1].score)
    out = []
    for fid, cand in ranked:
        fix_ctx = FixContext(platform=ctx.platform, tf_version=ctx.tf_version,
                             python=ctx.python, conda_env=ctx.conda_env, distro=distro,
                             detail=cand.detail)
        evidence = cand.evidence or [_context_summary(ctx)]
        # A guess is never more than a warning, whatever the cause it names.
        guessed = cand.title is not None and cand.title.message_id == GUESS_TITLE
        out.append(make_finding(fid, evidence, fix_ctx, title=cand.title,
                                severity="warning" if guessed else None))
    return out


def _context_summary(ctx: TextContext) -> str:
    parts = [f"platform: {ctx.platform or 'unknown'}"]
    if ctx.tf_version:
        parts.append("TensorFlow " + ".".join(map(str, ctx.tf_version)))
    return ", ".join(parts)


# --- libraries -----------------------------------------------------------------------------

def _libraries(ctx: TextContext, facts: Facts) -> tuple[dict[str, str], set[str]]:
    """Missing library name -> the line that says so (the loaders' messages first, then any
    wording); and the names that did load."""
    missing: dict[str, str] = {}
    for line in ctx.lines_matching(_ANY_MISSING_LIB, MAX_LIBRARIES):
        for rx in _MISSING_LIB:
            for found in rx.findall(line):
                for name in re.split(r"\s+or\s+|,\s*", found, flags=re.ASCII)[:MAX_LIBRARIES]:
                    missing.setdefault(name.lower(), line)
    for name, line in facts.libraries_missing.items():
        missing.setdefault(name, line)
    loaded = {m.lower() for m in ctx.whole().findall(_LOADED_LIB)}
    return {k: v for k, v in missing.items() if k not in loaded}, loaded


@dataclass(frozen=True)
class _Missing:
    """The libraries a text says are missing (name -> the line that says so), what the
    knowledge base knows of each, and the names that did load."""

    lines: dict[str, str]
    infos: dict[str, kb.LibraryInfo]
    loaded: set[str]

    def of_kind(self, *kinds: str) -> list[str]:
        """The missing libraries of these kinds, in the text's order (the first names the fix)."""
        return [name for name, info in self.infos.items() if info.kind in kinds]


def _library_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """Missing libraries, each kind to its cause: the VC++ runtime, the driver, cuDNN, CUDA."""
    lines, loaded = _libraries(ctx, facts)
    if not lines:
        return
    missing = _Missing(lines, {name: kb.library_info(name) for name in lines}, loaded)
    cuda_libs, cudnn_libs = missing.of_kind("cuda"), missing.of_kind("cudnn", "zlib")
    _runtime_library_rules(missing, scores)
    row = kb.find_build(ctx.tf_version, ctx.platform, "gpu") if ctx.tf_version else None
    if cudnn_libs:
        scores.add("missing-cudnn", 68 if cuda_libs else 86, [lines[n] for n in cudnn_libs],
                   library=cudnn_libs[0], **_pair_detail(row))
        # As with CUDA, TF loads one cuDNN major: another cuDNN installed is always a candidate.
        majors = sorted(m for m in (missing.infos[n].cudnn_major for n in cudnn_libs) if m)
        if majors:
            scores.add("cuda-version-mismatch", 50, [lines[n] for n in cudnn_libs],
                       cudnn=str(majors[-1]))
    _other_version_rules(facts, scores, cuda_libs + cudnn_libs, lines)
    if cuda_libs:
        _cuda_library_rules(ctx, scores, missing, cuda_libs, row)


def _runtime_library_rules(missing: _Missing, scores: Scores) -> None:
    """Libraries that name their cause outright: the VC++ runtime (named by TF's self-check or
    a loader message: the cause, not a guess), the driver's, an optional one (TensorRT)."""
    msvc_libs = missing.of_kind("msvc")
    if msvc_libs:
        scores.add("missing-msvc-runtime", 97, [missing.lines[n] for n in msvc_libs],
                   title=finding_title("missing-msvc-runtime."
                                       + ("named-one" if len(msvc_libs) == 1 else "named-many"),
                                       libraries=", ".join(msvc_libs)),
                   library=msvc_libs[0])
    for name, info in missing.infos.items():
        if info.kind == "driver":
            scores.add("no-nvidia-driver", 90, missing.lines[name],
                       title=finding_title("no-nvidia-driver.library", library=name))
        elif info.kind == "optional":
            scores.add("optional-library-missing", 10, missing.lines[name])


def _cuda_library_rules(ctx: TextContext, scores: Scores, missing: _Missing,
                        cuda_libs: list[str], row: kb.BuildConfig | None) -> None:
    """CUDA libraries missing: the runtime is absent, or another CUDA version is there, or the
    env that holds it is not activated; the fix names the build's CUDA/cuDNN pair."""
    name = cuda_libs[0]
    labels = missing.infos[name].cuda_versions
    cuda, cudnn = (row.cuda, row.cudnn) if row else kb.recommended_pair(labels, ctx.platform)
    evidence = [missing.lines[n] for n in cuda_libs]
    evidence += ctx.lines_matching(r"Ignore above cudart dlerror|Cannot dlopen some GPU", 2)
    scores.add("missing-cuda-runtime", 70, evidence, library=name, cuda=cuda, cudnn=cudnn)
    # TF loads one exact CUDA version: another installed toolkit is always a candidate, and
    # the likelier one where the names pin a minor that a newer minor followed (9.0 by 9.1).
    # A name every minor of its major ships (libcudart.so.11.0 in all of 11.x) pins none.
    pinned = bool(labels) and all(kb.minor_pinned_and_superseded(label) for label in labels)
    scores.add("cuda-version-mismatch", 76 if pinned else 50, evidence, cuda=cuda, cudnn=cudnn)
    _mismatch_rules(ctx, scores, labels, row, evidence, missing.loaded)
    _activation_rules(ctx, scores, evidence)


def _pair_detail(row: kb.BuildConfig | None) -> dict:
    return {"cuda": row.cuda, "cudnn": row.cudnn} if row else {}


def _mismatch_rules(ctx: TextContext, scores: Scores, labels: tuple[str, ...],
                    row: kb.BuildConfig | None, evidence: list[str], loaded: set[str]) -> None:
    """The wanted CUDA is missing while another CUDA is clearly there."""
    wanted = labels[-1] if labels else None
    if row and labels and not any(kb.cuda_label_matches(lb, row.cuda) for lb in labels):
        # The build asks for a CUDA its official release was not built with: a community or
        # mismatched wheel; the CUDA that is installed is not the one it wants.
        scores.add("cuda-version-mismatch", 84, evidence, cuda=wanted,
                   title=finding_title("cuda-version-mismatch.unofficial", wanted=wanted,
                                       official=row.cuda))
    if any(kb.library_info(n).kind == "cuda" for n in loaded):
        # Part of the CUDA set loads and part does not: one toolkit is installed, and it is
        # not the version this build names (TF 2.4's cusolver64_10 under CUDA 11.1+).
        scores.add("cuda-version-mismatch", 86, evidence + ctx.lines_matching(_LOADED_LIB, 1),
                   cuda=wanted)
    _installed_toolkit_rules(ctx, scores, labels, evidence, wanted)


def _installed_toolkit_rules(ctx: TextContext, scores: Scores, labels: tuple[str, ...],
                             evidence: list[str], wanted: str | None) -> None:
    """A CUDA toolkit the text shows installed is not the wanted version: a versioned folder,
    or an unversioned one on the search path."""
    installed = {v for v in ctx.cuda_installs if v}
    if installed and labels and not any(kb.toolkit_fits(lb, v)
                                        for lb in labels for v in installed):
        # Stated, and it explains the missing library: before any "missing" finding.
        scores.add("cuda-version-mismatch", 88, evidence, cuda=wanted,
                   installed=", ".join(sorted(installed)))
    elif "" in ctx.cuda_installs and not installed and ctx.ld_library_path is not None and (
            "cuda" in ctx.ld_library_path):
        # A CUDA toolkit folder is on the search path, yet the wanted version is not in it.
        scores.add("cuda-version-mismatch", 78, evidence, cuda=wanted)


def _other_version_rules(facts: Facts, scores: Scores, wanted: list[str],
                         missing: dict[str, str]) -> None:
    """A library is missing while the text names the same library of another version
    (``libcusolver.so.10`` wanted, ``libcusolver.so.11`` there): another toolkit is installed.
    The other one counts when it is not itself said missing, or is named on the same line
    ("requires libcusolver.so.10 other than libcusolver.so.11")."""
    for name in wanted:
        if library_stem(name) == name:
            continue  # an unversioned name ("libcudart.so": a link, a cut line) wants none
        # Nor is an unversioned name another version.
        others = sorted(n for n in facts.libraries_named
                        if n != name and library_stem(n) == library_stem(name) != n
                        and missing.get(n, missing[name]) == missing[name])
        if others:
            fid = "cuda-version-mismatch"
            scores.add(fid, 88, [missing[name], f"(the text names {', '.join(others[:3])})"])
            return


# TF's loader line as it prints it, to the end of the loader's error: "; LD_LIBRARY_PATH: ..."
# follows whenever the variable is set, so only a line that ends there says it is unset (a
# line cut before the end, "...No such file or director", says nothing about it).
_LOADER_LINE = re.compile(r"Could not load dynamic library '[^']*'"
                          + then(r"; dlerror:", r"No such file or directory\s*$", r"[^\n;]"),
                          re.ASCII)


def _activation_rules(ctx: TextContext, scores: Scores, evidence: list[str]) -> None:
    """CUDA libraries missing because the env that holds them is not activated."""
    if ctx.platform in ("linux", "wsl", None) and ctx.ld_library_path is None and (
            ctx.lines_matching(_LOADER_LINE, 1)) and (
            ctx.tf_at_least((2, 14)) is not True):
        # TF's loader prints "; LD_LIBRARY_PATH: ..." whenever it is set. Unset, with a TF that
        # does not bundle CUDA, means the conda env's lib folder (TF's documented recipe, put
        # on LD_LIBRARY_PATH by the env's activation script) is not on the path.
        scores.add("conda-env-not-activated", 75 if ctx.platform else 60,
                   [*evidence, "(no LD_LIBRARY_PATH in TensorFlow's message: it is not set)"])
    if ctx.conda_env:
        scores.add("conda-env-not-activated", 65 if ctx.platform == "windows" else 76,
                   [*evidence, f"(conda env in the paths: {ctx.conda_env})"])


# --- import failures -----------------------------------------------------------------------

# TensorFlow's native import failed: the loader's words, TF's, a person's, or Node's for
# tfjs-node's binding (which loads TensorFlow's C library, tensorflow.dll / libtensorflow.so).
# TF 1.0-1.2's own words on Windows once the native module's DLLs failed to load.
_NO_PYWRAP = re.compile(r"No module named '?_?pywrap_tensorflow", re.ASCII)
_IMPORT_FAILED = re.compile(
    r"DLL load failed|Failed to load the native TensorFlow runtime|tfjs_binding\.node|"
    + then("ImportError", "_pywrap_tensorflow") + "|" + _NO_PYWRAP.pattern + "|"
    r"(?:not able to|unable to|can'?t|cannot|could ?n[o']?t|fail(?:s|ed)? to) import tensorflow",
    re.IGNORECASE | re.ASCII)


# A versioned symbol of the C or C++ runtime that this system's is too old to have (the binary
# was built on a newer system), in the loader's words ("version `GLIBC_2.17' not found") or a
# person's ("GLIBCXX_3.4.26 not found").
_OLD_RUNTIME = re.compile(r"(?<![\w.])[`'‘\"]?((GLIBC|GLIBCXX|CXXABI)_\d+(?:\.\d+)*)[`'’\"]?"
                          r"\s+(?:was\s+|is\s+)?not found", re.ASCII)


def _import_failure_rules(ctx: TextContext, scores: Scores) -> None:
    failed = ctx.lines_matching(_IMPORT_FAILED, 2)
    if not failed or _dependency_dll(ctx):
        return
    tf1 = ctx.tf_at_least((2, 0)) is False
    if ctx.lines_matching(r"initiali[sz]ation routine failed|\b1114\b|0x45A", 1):
        lines = ctx.lines_matching(r"initiali[sz]ation routine failed|\b1114\b|0x45A")
        # A DLL was found and its start-up code failed: the CPU lacking an instruction the
        # build uses is the usual cause (a missing DLL says "not found" instead).
        scores.add("cpu-no-avx", 75, lines)
        scores.add("native-runtime-load-failed", 66, lines)
        scores.add("missing-msvc-runtime", 58, lines)
    elif lines := ctx.lines_matching(_MODULE_NOT_FOUND):
        if tf1 or ctx.lines_matching(r"tensorflow[-_]gpu", 1):
            scores.add("missing-cuda-runtime", 74, lines)
            scores.add("missing-cudnn", 60, lines)
        # The loader does not say which DLL: the VC++ runtime is the usual one on TF 2.
        scores.add("missing-msvc-runtime", 72 if not tf1 else 66, lines,
                   title=finding_title("missing-msvc-runtime.unnamed"))
        scores.add("native-runtime-load-failed", 62, lines)
        scores.add("cpu-no-avx", 55, lines)
    elif lines := ctx.lines_matching(r"not a valid Win32 application|WinError 193|0xC1\b"):
        scores.add("python-unsupported", 82, lines, bits=32,
                   title=finding_title("python-unsupported.bitness"))
        scores.add("native-runtime-load-failed", 60, lines)
    elif lines := ctx.lines_matching(r"specified procedure could not be found|\b127\b|0x7F\b"):
        scores.add("mixed-tf-packages", 72, lines,
                   title=finding_title("mixed-tf-packages.procedure"))
        scores.add("native-runtime-load-failed", 68, lines)
    elif no_mod := ctx.lines_matching(_NO_PYWRAP, 1):
        # TF 1.0-1.2's words alone: builds from before AVX (1.6), so a GPU build's CUDA or
        # cuDNN DLLs, or a Python it has no build for (below) (dev c1263, c1264, c1282).
        scores.add("missing-cuda-runtime", 63, no_mod)
        scores.add("cuda-version-mismatch", 62, no_mod)
    elif not scores.has("os-too-old"):  # the system's age explains it (_os_rules)
        _unexplained_import_failure(ctx, scores, failed)
    scores.add("native-runtime-load-failed", 60, failed)
    if no_mod := ctx.lines_matching(_NO_PYWRAP):
        scores.add("python-unsupported", 64, no_mod)


# macOS's loader on a binary built for a newer macOS: "Symbol not found: ____chkstk_darwin
# (which was built for Mac OS X 10.15)", "(built for macOS 12.0 which is newer than running OS)".
_OLD_MACOS = re.compile(r"\(?which was built for Mac OS X (\d+\.\d+)\)|"
                        r"built for macOS (\d+\.\d+) which is newer than running OS", re.ASCII)


def _os_rules(ctx: TextContext, scores: Scores) -> None:
    if m := next(filter(None, map(_OLD_MACOS.search, ctx.lines_matching(_OLD_MACOS, 1))), None):
        version = m.group(1) or m.group(2)
        scores.add("os-too-old", 92, m.string, macos=version,
                   title=finding_title("os-too-old.macos", version=version))
    lines = ctx.lines_matching(_OLD_RUNTIME, 2)
    if not (found := _OLD_RUNTIME.search(lines[0]) if lines else None):
        return
    library = "glibc" if found.group(2) == "GLIBC" else "libstdc++"
    scores.add("os-too-old", 92, lines, library=library,
               title=finding_title("os-too-old.symbol", library=library,
                                   version=found.group(1)))


_NIGHTLY = re.compile(r"\btf[-_]nightly|\btf[-_]estimator[-_]nightly|"
                      r"\btensorflow[-_ ]nightly|\b\d\.\d{1,2}\.\d\.dev20\d{6}",
                      re.IGNORECASE | re.ASCII)


def _unexplained_import_failure(ctx: TextContext, scores: Scores, failed: list[str]) -> None:
    """The import failed and the loader says nothing more. The symptom is ranked below its
    causes: TF 2.1+ needs the VC++ 2019 runtime (msvcp140_1.dll), which older machines lack;
    TF 1.6 to 2.0 needed no new runtime but was the first built with AVX."""
    new_runtime = ctx.tf_at_least((2, 1))
    msvc, avx = (66, 60) if new_runtime else (60, 68) if new_runtime is False else (63, 64)
    scores.add("native-runtime-load-failed", 62, failed)
    if nightly := ctx.lines_matching(_NIGHTLY, 1):
        # A nightly installs into the same tensorflow/ folder as a release: what is left of
        # the other one breaks the import.
        scores.add("mixed-tf-packages", 70, [*failed, *nightly])
    if ctx.platform in ("windows", None):
        scores.add("missing-msvc-runtime", msvc, failed)
    scores.add("cpu-no-avx", avx, failed)


def _dependency_dll(ctx: TextContext) -> bool:
    """The DLL that failed belongs to another package (h5py, scipy): the traceback's last
    site-packages frame is that package's, and nothing names TensorFlow's native runtime."""
    if not ctx.lines_matching(r"DLL load failed", 1) or ctx.lines_matching(
            r"native TensorFlow runtime|_pywrap_tensorflow|pywrap_tfe", 1):
        return False
    frames = ctx.whole().findall(_TRACEBACK_FRAME)
    return bool(frames) and frames[-1] not in (*_NOT_DEPENDENCIES, "keras", "tf_keras")


# --- no GPU listed ------------------------------------------------------------------------

def _no_gpu_rules(ctx: TextContext, facts: Facts, scores: Scores) -> None:
    """TF lists no GPU: a CPU-only build, Windows' TF 2.11+, or missing CUDA or driver."""
    lines = facts.no_gpu
    unnamed = ctx.lines_matching(r"Cannot dlopen some GPU libraries|"
                                 r"Could not find cuda drivers on your machine")
    if not lines and not unnamed:
        return
    evidence = lines + unnamed
    if _cpu_only_context(ctx, facts, scores, evidence, cuda_build=bool(unnamed)):
        return
    _windows_build_rules(ctx, facts, scores, evidence)
    if ctx.platform == "wsl" and all(kb.library_info(name).kind == "driver"
                                     for name in facts.libraries_missing):
        # Inside WSL the driver's libcuda comes from Windows (/usr/lib/wsl/lib, /dev/dxg): not
        # found, WSL offers no GPU; none listed with nothing said, it may (dev c1108: updating
        # WSL fixed it), or CUDA's libraries are not on the path (dev c155).
        scores.add("wsl-gpu-unavailable", 66 if ctx.lines_matching("cuda drivers", 1) else 56,
                   evidence)
    if "XLA_GPU" in ctx.text and not facts.libraries_missing:
        # TF 2.1-2.3 list an XLA_GPU device where the driver works and CUDA's libraries do not
        # load: another CUDA than the build's, as a rule (dev c1149: 10.2 for 2.1's 10.1).
        scores.add("cuda-version-mismatch", 66, evidence + ctx.lines_matching("XLA_GPU", 1))
    if not scores.has("missing-cuda-runtime"):
        scores.add("missing-cuda-runtime", 64 if unnamed else 58, evidence,
                   unnamed=bool(unnamed) or None)
    scores.add("no-nvidia-driver", 55 if ctx.lines_matching("cuda drivers", 1) else 42, evidence)


def _windows_build_rules(ctx: TextContext, facts: Facts, scores: Scores,
                         evidence: list[str]) -> None:
    """No GPU because native Windows' TF 2.11+ (``tensorflow-intel``) has none: sure on
    Windows, possible where the platform is unknown."""
    intel = "tensorflow-intel" in ctx.text.lower() or "tensorflow_intel" in ctx.text.lower()
    new_tf = ctx.tf_at_least((2, 11))
    if ctx.platform == "windows":
        if new_tf or intel:
            scores.add("tf-windows-gpu-unsupported", 95, evidence)
        elif new_tf is None:
            scores.add("tf-windows-gpu-unsupported", 62, evidence)
    elif ctx.platform is None and new_tf is not False:
        # Linux's plain `tensorflow` wheel is a CUDA build since 2.1; a CPU-only build of a
        # 2.11+ release is what Windows gets.
        scores.add("tf-windows-gpu-unsupported", 80 if facts.cpu_build and new_tf else 50,
                   evidence)


# What a GPU build of TF prints about its CUDA libraries (found or not).
_CUDA_LOOKED_FOR = re.compile(r"tensorflow[-_]gpu|cudart|libcuda|cuda_|dlerror|dso_loader|"
                              r"dynamic library|cublas|cudnn64|libcudnn", re.ASCII)


def _cpu_only_context(ctx: TextContext, facts: Facts, scores: Scores, evidence: list[str], *,
                      cuda_build: bool) -> bool:
    """No GPU listed, and the platform or the package says why: no CUDA on macOS, a
    ``tensorflow-cpu`` install, TF before 2.1 whose ``tensorflow`` package was CPU-only (unless
    TF said it could not open its GPU libraries: ``cuda_build``)."""
    lower = ctx.text.lower()
    if ctx.platform == "macos":
        scores.add("cpu-only-build", 90, evidence, title=finding_title("cpu-only-build.macos"))
        return True
    if re.search(r"tensorflow[-_]cpu", lower, re.ASCII):
        scores.add("cpu-only-build", 88, evidence + ctx.lines_matching(r"tensorflow[-_]cpu", 1),
                   title=finding_title("cpu-only-build.tensorflow-cpu"))
        return True
    if ctx.tf_at_least((2, 1)) is False and ctx.platform != "windows" and not cuda_build and (
            not re.search(
            r"tensorflow[-_]gpu|cudart|libcuda|cuda_", lower, re.ASCII)):
        scores.add("cpu-only-build", 80, evidence,
                   title=finding_title("cpu-only-build.before-2.1"))
        return True
    if ctx.platform in ("linux", "wsl") and facts.cpu_build:
        scores.add("cpu-only-build", 86, evidence, title=finding_title("cpu-only-build.not-cuda"))
        return True
    if ctx.tf_at_least((2, 1)) is None and ctx.platform != "windows" and not cuda_build and (
            not _CUDA_LOOKED_FOR.search(lower)):
        # A GPU build says which CUDA library it could not open; a CPU-only one looks for
        # none. Possible, not sure: the output may just be cut before those lines.
        scores.add("cpu-only-build", 60, evidence,
                   title=finding_title("cpu-only-build.no-cuda-looked-for"))
    return False


# --- driver versions -----------------------------------------------------------------------

def _driver_version_rules(ctx: TextContext, scores: Scores) -> None:
    row = kb.find_build(ctx.tf_version, ctx.platform, "gpu") if ctx.tf_version else None
    need = kb.parse_version(row.cuda) if row and row.cuda else None
    if not row or not need:
        return
    lines = ctx.lines_matching(r"Driver Version|CUDA Version|kernel reported version")
    if ctx.driver_cuda and kb.minor_of(ctx.driver_cuda) < kb.minor_of(need):
        scores.add("driver-too-old", 92, lines, cuda=row.cuda)
    minimum = kb.min_driver(need)
    os_name = "windows" if ctx.platform == "windows" else "linux"
    if ctx.driver and minimum and ctx.driver < minimum.for_os(os_name):
        scores.add("driver-too-old", 92, lines, cuda=row.cuda)


# --- Python and packages -------------------------------------------------------------------

def _python_rules(ctx: TextContext, scores: Scores) -> None:
    if not ctx.python:
        return
    row = ctx.tf_version and kb.python_range_for(ctx.tf_version, ctx.platform)
    py = ".".join(map(str, ctx.python))
    if row and not row.supports_python(ctx.python):
        scores.add("python-unsupported", 88, f"Python {py} (from the paths); TensorFlow "
                   f"{row.label} supports {row.python_text}")
    elif not row and not any(r.supports_python(ctx.python) for r in kb.build_configs()
                             if r.status == "listed" and r.os == kb.kb_os(ctx.platform)):
        scores.add("python-unsupported", 86, f"Python {py} (from the paths): no TensorFlow "
                   "release supports it")


_PIP_REQUIRES = re.compile(r"^((?:tensorflow|tf-nightly)[\w-]*) (\d[\w.]*) requires",
                           re.I | re.ASCII)
_PIP_LIST = re.compile(r"^((?:tensorflow|tf-nightly)(?:-gpu|-cpu|-intel)?|tf_nightly)\s+(\d\S*)$",
                       re.I | re.ASCII)
_PIP_LINE = re.compile(f"(?:{_PIP_REQUIRES.pattern})|(?:{_PIP_LIST.pattern})", re.I | re.ASCII)
# NumPy's own words (before 1.11 without the 0x), and a person's ("compiled with API 0x10
# installed 0xf").
_NUMPY_API = re.compile(r"compiled (?:against|with) API(?: version)? ((?:0x)?[0-9a-f]+)\b"
                        r"(?:,| but)? (?:this version of numpy is|installed) ((?:0x)?[0-9a-f]+)\b",
                        re.IGNORECASE | re.ASCII)
_TF_DISTS = re.compile(r"^(tensorflow(?:-gpu|-cpu|-intel)?|tf-nightly(?:-gpu|-cpu)?)$",
                       re.I | re.ASCII)
# The same distributions as pip show ("Name: tensorflow-gpu", then "Version: 1.3.0") and pip
# freeze ("tensorflow-gpu==1.3.0") print them.
_PIP_SHOW = re.compile(r"^Name: ((?:tensorflow|tf-nightly)[\w-]*)[ \t]*\nVersion: (\d[\w.]*)",
                       re.I | re.M | re.ASCII)
_PIP_FREEZE = re.compile(r"^((?:tensorflow|tf-nightly|tf_nightly)[\w-]*)==(\d[\w.]*)\s*$",
                         re.I | re.ASCII)


def _tf_distributions(ctx: TextContext) -> tuple[dict[str, set[str]], list[str]]:
    """The TensorFlow distributions the text shows installed (pip's resolver, pip list, pip
    freeze, pip show), each with the versions it is said at, and the lines that say so."""
    found: dict[str, set[str]] = {}
    lines: list[str] = []

    def seen(name: str, version: str, line: str) -> None:
        name = name.lower().replace("_", "-")
        if _TF_DISTS.match(name):
            found.setdefault(name, set()).add(version)
            lines.append(line)

    for line in ctx.lines_matching(_PIP_LINE, len(ctx.lines)):
        if m := _PIP_REQUIRES.match(line) or _PIP_LIST.match(line):
            seen(m.group(1), m.group(2), line)
    for line in ctx.lines_matching(_PIP_FREEZE, len(ctx.lines)):
        if m := _PIP_FREEZE.match(line):
            seen(m.group(1), m.group(2), line)
    for m in itertools.islice(ctx.whole().finditer(_PIP_SHOW), 64):
        seen(m.group(1), m.group(2), " ".join(m.group(0).split()))
    return found, lines


# pip (9 to 25) on TensorFlow's requirement of a package the environment has at another
# version: "tensorflow 1.10.0 has requirement numpy<=1.14.5,>=1.13.3, but you'll have numpy
# 1.15.4 which is incompatible" (pip 20.3+: "requires ..., but you have ...").
_PIP_DEPENDENCY = re.compile(
    r"\b(?:tensorflow|tf-nightly)[\w-]* \d[\w.]* (?:has requirement|requires) ([A-Za-z][\w.-]*)"
    r"[^\n]{0,80}?, but you(?:'ll| will)? have ([A-Za-z][\w.-]*) \d[\w.]* which is incompatible",
    re.IGNORECASE | re.ASCII)
# TensorFlow's own family: one of them at another version is a mixed install, not a dependency.
_TF_FAMILY = re.compile(r"tensorflow|tf[-_]|keras|tensorboard|tb-nightly", re.IGNORECASE | re.ASCII)


# pip refusing a package: its name, as the user wrote it; uv's words for the same, with the
# platform its hint names ("You're on Windows (`win_amd64`), but ... only has wheels for ...").
_NO_DISTRIBUTION = re.compile(r"(?:No matching distribution found for|Could not find a version "
                              r"that satisfies the requirement) ([A-Za-z0-9][\w.-]*)|"
                              r"Distribution `([A-Za-z0-9][\w.-]*?)(?:==[^`\s]*)?(?: @ [^`]*)?` "
                              r"can't be installed because it doesn't have a source "
                              r"distribution or wheel for the current platform", re.ASCII)
_UV_ON_WINDOWS = re.compile(r"You're on Windows \(`win", re.ASCII)


def _windows_wheel_rule(ctx: TextContext, scores: Scores) -> None:
    """pip on Windows finding no release of a package that publishes none for Windows (at all,
    or after a release): the knowledge base's table, not the Python's version."""
    uv_on_windows = bool(ctx.lines_matching(_UV_ON_WINDOWS, 1))
    if ctx.platform != "windows" and not uv_on_windows:
        return
    for line in ctx.lines_matching(_NO_DISTRIBUTION, 4):
        m = _NO_DISTRIBUTION.search(line)
        package = m and (m.group(1) or m.group(2))
        info = kb.windows_wheels(package) if package else None
        if info is None and m and m.group(2) and uv_on_windows:
            # uv's hint lists the wheels there are, none for Windows (dev c1152).
            scores.add("no-windows-build", 92, line, title=finding_title(
                "no-windows-build.never", package=package))
            continue
        if info is None:
            continue
        variant = "after" if info.last else "never"
        scores.add("no-windows-build", 94, line, package=info.package, last=info.last,
                   tensorflow=info.tensorflow, python=info.python,
                   title=finding_title(f"no-windows-build.{variant}", package=info.package,
                                       last=info.last or "", tensorflow=info.tensorflow or ""))
        return


def _pip_conflict_rules(ctx: TextContext, scores: Scores) -> None:
    _pip_dependency_rule(ctx, scores)
    _windows_wheel_rule(ctx, scores)
    found, lines = _tf_distributions(ctx)
    versions = set().union(*found.values()) if found else set()
    if len(found) >= 2 and len(versions) >= 2:
        scores.add("mixed-tf-packages", 90, lines[:4])
    elif lines and _PIP_REQUIRES.match(lines[0]):
        scores.add("mixed-tf-packages", 66, lines[:3],
                   title=finding_title("mixed-tf-packages.requires"))
    m = ctx.whole().search(_NUMPY_API)
    if m:
        newer = int(m.group(1), 16) > int(m.group(2), 16)
        scores.add("mixed-tf-packages", 90, ctx.lines_matching(_NUMPY_API),
                   title=finding_title("mixed-tf-packages.numpy-api"),
                   numpy="upgrade" if newer else "downgrade")


def _pip_dependency_rule(ctx: TextContext, scores: Scores) -> None:
    """pip says a package TensorFlow requires is installed at a version it does not accept."""
    for line in ctx.lines_matching(_PIP_DEPENDENCY, MAX_EVIDENCE):
        m = _PIP_DEPENDENCY.search(line)
        if m and m.group(1).lower() == m.group(2).lower() and not _TF_FAMILY.match(m.group(1)):
            _dependency_conflict(scores, [line], m.group(1))
            return
    _resolver_dependency_rule(ctx, scores)


def _dependency_conflict(scores: Scores, lines: list[str], package: str) -> None:
    package = package.lower()
    scores.add("dependency-version-conflict", 86, lines, package=package,
               title=finding_title("dependency-version-conflict.package", package=package))


# Poetry's and uv's resolvers: TensorFlow's requirement of a package against the project's own
# ("tensorflow (2.13.0) depends on numpy (>=1.22,<=1.24.3)" ... "because qibocal depends on both
# numpy (^1.25.0) and tensorflow (^2.12.0), version solving failed"; uv: "... and you require
# numpy>=1.25").
_RESOLVER_TF_NEEDS = re.compile(r"\b(?:tensorflow|tf-nightly)[\w-]*"
                                r"(?: \([^)\n]{1,40}\)|==[\w.*]+)? "
                                r"(?:depends on|requires) ([A-Za-z][\w.-]*)", re.ASCII)
_RESOLVER_PROJECT_NEEDS = re.compile(r"depends on both ([A-Za-z][\w.-]*)|"
                                     r"\byou require ([A-Za-z][\w.-]*)", re.ASCII)
_RESOLVER_FAILED = re.compile(r"version solving failed|requirements are unsatisfiable", re.ASCII)


def _resolver_dependency_rule(ctx: TextContext, scores: Scores) -> None:
    """A resolver finds TensorFlow's requirement of a package and the project's in conflict
    (dev c1160: numpy ^1.25 against TF 2.13's numpy<=1.24.3)."""
    if not ctx.lines_matching(_RESOLVER_FAILED, 1):
        return
    tf_needs = {m.group(1).lower(): m.string for m in
                map(_RESOLVER_TF_NEEDS.search, ctx.lines_matching(_RESOLVER_TF_NEEDS, 4)) if m}
    for m in filter(None, map(_RESOLVER_PROJECT_NEEDS.search,
                              ctx.lines_matching(_RESOLVER_PROJECT_NEEDS, 2))):
        package = (m.group(1) or m.group(2)).lower()
        if package in tf_needs and not _TF_FAMILY.match(package):
            _dependency_conflict(scores, [tf_needs[package], m.string], package)
            return


_REMOVED_MODULE = re.compile(r"No module named '(tensorflow\.(?:contrib|examples))|"
                             r"[Mm]odule 'tensorflow' has no attribute '(contrib|examples)'",
                             re.ASCII)


def _memory_words_rules(ctx: TextContext, scores: Scores) -> None:
    """"内存溢出" (memory overflowed) says no which memory: the GPU's where the text speaks of
    its video memory or the GPU."""
    overflow = ctx.lines_matching(r"内存(?:溢出|不足|不够)", 1)
    gpu = ctx.lines_matching(r"显存|显卡|(?i:\bgpu\b)", 1)
    if overflow and gpu:
        scores.add("gpu-out-of-memory", 78, [*overflow, *gpu])


def _host_memory_rules(ctx: TextContext, scores: Scores) -> None:
    """tcmalloc's "large alloc" is a warning alone; with a notebook kernel that then dies or a
    process killed, the host's RAM ran out (Colab, Jupyter)."""
    large = ctx.lines_matching(r"tcmalloc: large alloc \d+", 1)
    died = ctx.lines_matching(r"KernelRestarter: restarting kernel|kernel appears to have died|"
                              r"\bKilled\s*$", 1)
    if large and died:
        scores.add("host-out-of-memory", 82, [*large, *died])


def _tf1_rules(ctx: TextContext, scores: Scores) -> None:
    for line in ctx.lines_matching(_REMOVED_MODULE, len(ctx.lines)):
        m = _REMOVED_MODULE.search(line)
        if m:
            module = m.group(1) or f"tensorflow.{m.group(2)}"
            scores.add("tf1-api-on-tf2", 95, line, removed=[module],
                       title=finding_title("tf1-api-on-tf2.removed-module", module=module))
    for line, name in _tf_attributes_missing(ctx):
        if "." in name:
            # A name under a module TF has ("tf.contrib.tpu.InputPipelineConfig", Python 2's
            # words, dev c1430): on a TF 1 the text states, one a later 1.x brought.
            if ctx.tf_stated_before((2, 0)):
                tf_too_old(ctx, scores, line, f"tf.{name}")
            continue
        if name in ("estimator", "contrib", "examples") or removed_api("tensorflow", name):
            continue  # their own findings (keras3's estimator, TF 1's contrib, api-removed)
        if name in _EVERY_TF:
            # Every release has it: the package that imported is not a whole TensorFlow (an
            # uninstall of a second distribution took shared files, or leftovers of another).
            scores.add("mixed-tf-packages", 86, line)
            continue
        if ctx.tf_stated_before((2, 0)):
            # TF 1 has TF 1's API: a name it lacks is one a later release brought.
            tf_too_old(ctx, scores, line, f"tf.{name}")
            continue
        if name in _LATER_TF1 and ctx.tf_at_least((2, 0)) is None:
            # Below what a tensorflow that is not the package scores (its source tree, a file).
            tf_too_old(ctx, scores, line, f"tf.{name}", score=80)
            continue
        known = name in _TF1_ONLY
        scores.add("tf1-api-on-tf2", 93 if known else 55, line,
                   title=None if known else finding_title("tf1-api-on-tf2.unknown-attribute",
                                                          name=name))


# A model the text says was saved (built, trained) with a TensorFlow release: "a saved H5
# model that is built on Tensorflow 2.12".
_MODEL_FROM = re.compile(r"\b(?:model|h5|checkpoint|weights)\b[^\n]{0,60}?\b(?:built|saved|"
                         r"trained|created|made|exported)\s+(?:on|with|in|using|by)\s+"
                         r"(?:tensorflow|tf)[\s-]?v?(\d+\.\d+)", re.IGNORECASE | re.ASCII)


def _saved_by_newer_rules(ctx: TextContext, scores: Scores) -> None:
    """The text says the model was saved by a newer TensorFlow than the one stated to load it."""
    if not ctx.tf_version:
        return
    for line in ctx.lines_matching(_MODEL_FROM, 2):
        m = _MODEL_FROM.search(line)
        saved = kb.parse_version(m.group(1)) if m else None
        if saved and kb.minor_of(saved) > kb.minor_of(ctx.tf_version):
            scores.add("tf-too-old", 84, line, title=finding_title("tf-too-old.saved-model"))
            return


def _tf_attributes_missing(ctx: TextContext) -> list[tuple[str, str]]:
    """Names TensorFlow's module lacks, with their lines: "module 'tensorflow' has no attribute
    'Session'", and Python 2's "'module' object has no attribute 'Session'" where the code the
    traceback quotes asks ``tf.Session``."""
    found = [(line, m.group(1)) for line in ctx.lines_matching(_NO_ATTR, len(ctx.lines))
             if (m := _NO_ATTR.search(line))]
    for line in ctx.lines_matching(_PY2_NO_ATTR, 2):
        if (m := _PY2_NO_ATTR.search(line)) and (path := _tf_path_to(ctx, m.group(1))):
            found.append((line, path))
    return found


# A dotted name under ``tf`` in code: "tf.contrib.tpu.InputPipelineConfig". Each expression is
# read once, whole (no part of it is tried again), so the search is linear in the line.
_TF_DOTTED = re.compile(r"\btf((?:\.\w+)+)", re.ASCII)


def _tf_path_to(ctx: TextContext, name: str) -> str | None:
    """The path under ``tf`` that the quoted code asks ``name`` at ("Session", or
    "contrib.tpu.InputPipelineConfig"), or None when no code line asks for it under ``tf``."""
    for code in ctx.lines_matching(rf"\b{re.escape(name)}\b", 3):
        for m in _TF_DOTTED.finditer(code):
            parts = m.group(1)[1:].split(".")
            if name in parts:
                return ".".join(parts[:parts.index(name) + 1])
    return None


# --- a tensorflow that is not the installed package -------------------------------------------

# TF 1.x's own words when Python is started in its source tree.
_SOURCE_TREE = re.compile(r"should not try to import tensorflow from its source directory",
                          re.ASCII)
# Python's, when a script named tensorflow.py imports itself instead of the package.
_CIRCULAR = re.compile(r"partially initialized module 'tensorflow\b", re.ASCII)
_FRAME_FILE = re.compile(r"File \"([^\"\n]{1,400}\.py)\", line \d+", re.ASCII)
# Where an installed TensorFlow lives, a Bazel run's and TF 1's `setup.py develop` build too.
_INSTALLED = ("site-packages", "dist-packages", "runfiles", ".egg", "_python_build")


def _shadowing_frame(path: str) -> bool:
    """A traceback frame in a tensorflow that is not an installed one: TensorFlow's own package
    (its source tree), or a file of the user's named tensorflow.py."""
    path = path.replace("\\", "/")
    if any(word in path for word in _INSTALLED):
        return False
    parts = path.split("/")
    return parts[-1] == "tensorflow.py" or any(
        name == "tensorflow" and following.removesuffix(".py") in TF_PACKAGE_PARTS
        for name, following in itertools.pairwise(parts))


def _shadowed_rules(ctx: TextContext, scores: Scores) -> None:
    """Python imported TensorFlow's source tree or the user's own tensorflow.py, not the
    package: the error that follows is not the installation's."""
    said = ctx.lines_matching(_SOURCE_TREE, 1) or ctx.lines_matching(_CIRCULAR, 1)
    if said:
        # TF 1 says "source directory" after any import error: a dependency that is not
        # installed at all (module-not-installed) is then the error, not the source tree.
        scores.add("tf-shadowed", 60 if scores.has("module-not-installed") else 96, said)
        return
    frames = [(line, m.group(1)) for line in ctx.lines_matching(_FRAME_FILE, MAX_EVIDENCE * 4)
              if (m := _FRAME_FILE.search(line)) and _shadowing_frame(m.group(1))]
    errors = ctx.lines_matching(r"^\w*(?:ImportError|ModuleNotFoundError|AttributeError)\b", 1)
    if frames and errors:
        # A script named tensorflow.py imports itself: every name TF has is missing from it,
        # TF 1's too (before tf1-api-on-tf2).
        own_file = any(path.endswith("tensorflow.py") for _, path in frames)
        scores.add("tf-shadowed", 95 if own_file else 88,
                   [line for line, _ in frames[:2]] + errors)


# --- pip, at install time ----------------------------------------------------------------

# What pip prints when it gives up, by cause (pip 9 to 25).
_PIP_FAILURES: tuple[tuple[str, str], ...] = (
    # First: without the index, every requirement is "not found" (not the Python's fault).
    ("network", r"Could not fetch URL|NewConnectionError|Max retries exceeded|"
                r"Failed to establish a new connection|Temporary failure in name resolution|"
                r"ProxyError|getaddrinfo failed"),
    ("wheel", r"is not a supported wheel on this platform"),
    ("conflict", r"ResolutionImpossible|conflicting dependencies|"
                 + then("Cannot install ", " because") + "|"
                 + then("has requirement ", ", but you(?:'ll| will) have")),
    ("long-path", r"\[WinError 206\]|[Ll]ong [Pp]ath|filename or extension is too long"),
    ("old-pip", r"Running setup\.py \w+ for package from \S+\.whl"),
    ("access", r"\[WinError 5\]|\[Errno 13\] Permission denied|Access is denied|"
               r"\[Errno 1\] Operation not permitted"),
    ("build", r"Failed building wheel for|subprocess-exited-with-error|"
              r"Failed to build installable wheels|legacy-install-failure|"
              r"Microsoft Visual C\+\+ 14\.0 (?:or greater )?is required"),
    ("notfound", r"Could not find a version that satisfies the requirement|"
                 r"No matching distribution found for"),
)
# pip's words, or its temporary folders in a path (old pips print no "ERROR:").
_PIP_ERROR = re.compile(r"^ERROR: |^error: |Could not install packages|"
                        r"[\\/]pip-[\w-]+-(?:build|uninstall|install|unpack|req-build)\b",
                        re.MULTILINE | re.ASCII)


# pip's own version, as its upgrade notice, `pip --version` or `pip -v` prints it.
_PIP_VERSION = re.compile(r"You are using pip version (\d+)\.|"
                          r"^(?:Using )?pip (\d+)\.\d+(?:\.\d+)? from ", re.MULTILINE | re.ASCII)
_TF_NOT_FOUND = re.compile(r"No matching distribution found for (?:tensorflow|tf-nightly)|"
                           r"Could not find a version that satisfies the requirement "
                           r"(?:tensorflow|tf-nightly)", re.ASCII)
_FROM_VERSIONS = re.compile(r"\(from versions: ([\w.,\s]{1,4000})\)", re.ASCII)
# A wheel for macOS 11 or later that this Mac's pip refuses: pip before 20.3 calls Big Sur
# "10.16" and knows no macosx_11 tag (an arm64 wheel on an Intel Mac is the architecture).
_MACOS11_WHEEL = re.compile(r"macosx_(?:1[1-9]|[2-9]\d)_\d+_(?:x86_64|universal2|intel)\.whl is "
                            r"not a supported wheel", re.ASCII)


def _old_pip_rule(ctx: TextContext, scores: Scores) -> None:
    """pip before 19 cannot install the manylinux2010 wheels of TensorFlow 1.15 and later (nor
    the 2014 ones after): it finds no version of TensorFlow for a Python that has them, or
    lists only the manylinux1 ones (1.14 and 2.0's betas at most, dev c917; a pip 19+ the text
    states rules that out). pip before 20.3 knows no macOS 11 tag."""
    lines = ctx.lines_matching(_TF_NOT_FOUND, 1)
    m = ctx.whole().search(_PIP_VERSION)
    pip = int(m.group(1) or m.group(2)) if m else None
    if lines and m and pip is not None and pip < 19:
        scores.add("pip-install-failed", 94, [*lines, m.group(0)], why="old-pip-tags")
    elif lines and pip is None and _manylinux1_only(ctx):
        scores.add("pip-install-failed", 94, lines, why="old-pip-tags")
    elif refused := ctx.lines_matching(_MACOS11_WHEEL, 1):
        scores.add("pip-install-failed", 88, refused, why="old-pip-tags")


# The version a requirement asks at least: "tensorflow<2.2,>=2.1", "tensorflow-gpu==1.15.0".
_ASKED_AT_LEAST = re.compile(r"requirement (?:tensorflow|tf-nightly)[\w-]*\S*?(?:==|>=|~=)\s*"
                             r"(\d+\.\d+)", re.ASCII)


def _manylinux1_only(ctx: TextContext) -> bool:
    """Asked for TF 1.15+, pip lists only what manylinux1 wheels were left: up to 1.13 or 1.14
    (Python 3.7 has no older ones), or 2.0's alphas and betas, never 1.15 or 2.0 itself. A list
    that stops there because the thread is that old asks for an older release (dev c940)."""
    for line in ctx.lines_matching(_FROM_VERSIONS, 2):
        m, asked = _FROM_VERSIONS.search(line), _ASKED_AT_LEAST.search(line)
        if not m or not asked or kb.minor_of(kb.parse_version(asked.group(1)) or ()) < (1, 15):
            continue
        words = [w.strip() for w in m.group(1).split(",")]
        every = [kb.minor_of(v) for v in map(kb.parse_version, words) if v]
        finals = [kb.minor_of(kb.parse_version(w) or ()) for w in words
                  if re.fullmatch(r"\d+(?:\.\d+)+", w, re.ASCII)]
        if finals and (1, 13) <= max(finals) < (1, 15) and max(every) <= (2, 0):
            return True
    return False


def _install_rules(ctx: TextContext, scores: Scores) -> None:
    """pip refusing or failing an install, for any package (TensorFlow's own "no version for
    this Python" is python-unsupported, a signature above)."""
    _old_pip_rule(ctx, scores)
    pip_said = bool(_PIP_ERROR.search(ctx.text))
    for why, pattern in _PIP_FAILURES:
        lines = ctx.lines_matching(pattern)
        if not lines:
            continue
        if why == "notfound" and scores.has("python-unsupported"):
            continue
        if why in ("access", "long-path", "network") and not pip_said:
            continue  # the same words from other programs are not an install failure
        score = {"network": 94, "notfound": 80}.get(why, 85)
        scores.add("pip-install-failed", score, lines + ctx.lines_matching(r"^ERROR: ", 2),
                   why=why, title=finding_title("pip-install-failed.network") if why == "network"
                   else None)
        return


# --- dependency packages ------------------------------------------------------------------

# Import-time errors that a dependency raises, or that name one: the package, found from what
# the message means (a name missing from a module, a version the module checks).
_DEP_MESSAGES = (
    re.compile(r"cannot import name '\w+' from '([\w.]+)'", re.ASCII),
    re.compile(r"module '([\w.]+)' has no attribute '\w+'", re.ASCII),
    re.compile(r"^(\w+) is running against \w+ [\d.]+ when it was built against", re.ASCII),
    re.compile(r"(?:requires|needs) (\w[\w-]*)\s*(?:version\s*)?[<>=]=?\s*\d", re.ASCII),
)
_ANY_DEP_MESSAGE = re.compile("|".join(f"(?:{rx.pattern})" for rx in _DEP_MESSAGES), re.ASCII)
_TRACEBACK_FRAME = re.compile(r"File \"[^\"]*[\\/]site-packages[\\/]([\w]+)[\\/]", re.ASCII)
_NOT_DEPENDENCIES = ("tensorflow", "tensorflow_core", "__main__", "builtins")
_NUMPY_ALIASES = re.compile(r"module 'numpy' has no attribute '(?:object|bool|int|float|"
                            r"complex|str)'", re.ASCII)


def _dependency_rules(ctx: TextContext, scores: Scores) -> None:
    """An error raised by (or naming) a package TensorFlow depends on: its version does not
    fit this TensorFlow. Known mismatches (numpy ABI, protobuf descriptors) are signatures."""
    mixed = scores.by_id.get("mixed-tf-packages")
    if (mixed and {"numpy", "protobuf"} & set(mixed.detail)) or scores.has("tf1-api-on-tf2"):
        return  # a known mismatch, with its own fix
    frames = ctx.whole().findall(_TRACEBACK_FRAME)
    if _dependency_dll(ctx):
        package = distribution(frames[-1])
        scores.add("dependency-version-conflict", 84,
                   ctx.lines_matching(r"DLL load failed|File \"[^\"]*site-packages", 2)[-1:]
                   + ctx.lines_matching(r"DLL load failed"),
                   title=finding_title("dependency-version-conflict.dll", package=package),
                   package=package)
        return
    for line in reversed(ctx.lines_matching(_ANY_DEP_MESSAGE, len(ctx.lines))):
        pip_said = _PIP_DEPENDENCY.search(line)
        if pip_said and _TF_FAMILY.match(pip_said.group(1)):
            continue  # TensorFlow's own family at another version: a mixed install
        module = _dependency_named(line, frames)
        if module is not None:
            _dependency_message_rule(ctx, scores, line, distribution(module), frames)
            return


def _dependency_named(line: str, frames: list[str]) -> str | None:
    """The module a dependency's message names, when it is a dependency: not TensorFlow, and
    not the user's own code (a known dependency, a site-packages frame, a site-packages path)."""
    for rx in _DEP_MESSAGES:
        m = rx.search(line)
        top = m.group(1).split(".")[0] if m else ""
        if m and top not in _NOT_DEPENDENCIES and (
                top in KNOWN_DEPENDENCIES or top in frames or "site-packages" in line):
            return m.group(1)
    return None


def _dependency_message_rule(ctx: TextContext, scores: Scores, line: str, package: str,
                             frames: list[str]) -> None:
    """The message's package conflicts with TF; surer when TF is in the text at all."""
    detail = {"package": package}
    if _NUMPY_ALIASES.search(line):
        detail["numpy"] = "aliases"
    near_tf = "tensorflow" in ctx.text.lower() or any(f.startswith("tensorflow") for f in frames)
    scores.add("dependency-version-conflict", 82 if near_tf else 70, line,
               title=finding_title("dependency-version-conflict.package", package=package),
               **detail)


# --- nothing known ------------------------------------------------------------------------

# The lines that carry an error: an exception, a fatal/error log line, a failed command.
_DECISIVE = re.compile(
    r"^(?:[\w.]+(?:Error|Exception|Exit|Interrupt|Warning)\b|Traceback \(most recent|"
    r"(?:ERROR|FATAL|Fatal|error|fatal)\b|[EF]\d{4} |\S*:\s*[EF] \S+\.cc:\d+\])|"
    r"\b(?:failed|cannot|could not|not found|not registered|No module named|not recognized|denied|"
    r"Segmentation fault|core dumped|Aborted)\b",
    re.IGNORECASE | re.ASCII)


# Python's warnings (the warnings module's "file:line: Category: message"): alone, nothing failed.
_PY_WARNING = re.compile(r"^(?:[\w.]+\.)?(?:Deprecation|PendingDeprecation|Future|User|Runtime|"
                         r"Resource|Syntax|Import)Warning\b", re.ASCII)
# TensorFlow's own log line of the info level ("2022-02-13 17:05:33.353387: I tensorflow/...").
_TF_INFO = re.compile(r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:[\d.]+: )?I (?:tensorflow|external|tsl)/",
                      re.ASCII)


def _contradicted(ctx: TextContext, fid: str) -> bool:
    """A cause the facts stated rule out, which words alone may still point at: TF 2 breaking
    TF 1 code under a TF 1 the text states (dev c1430), or native Windows' missing GPU build
    on another platform or a release that has one."""
    if fid == "tf1-api-on-tf2":
        return ctx.tf_stated_before((2, 0))
    if fid == "tf-windows-gpu-unsupported":
        return ctx.platform in ("linux", "wsl", "macos") or ctx.tf_at_least((2, 11)) is False
    return False


def _last_resort(ctx: TextContext, scores: Scores) -> None:
    """No rule matched: quote the lines that matter, or say that there is no error; first,
    the cause the output's words point at when the wording model is sure of one."""
    guess = shipped_model().guess("\n".join(ctx.lines), ctx.lines)
    if guess and not _contradicted(ctx, guess.fid):
        scores.add(guess.fid, 2, guess.lines,
                   title=Text.of(GUESS_TITLE, cause=finding_title(guess.fid)))
    decisive = ctx.lines_matching(_DECISIVE, len(ctx.lines))
    exceptions = [ln for ln in decisive if EXCEPTION_LINE.match(ln)]
    # The last exception is what failed; the other error lines (at most 3) lead to it.
    quoted = [ln for ln in decisive if ln not in exceptions[-1:]][-3:] + exceptions[-1:]
    if quoted and all(_PY_WARNING.match(line) for line in quoted):
        scores.add("no-error-found", 0, quoted, title=finding_title("no-error-found.warnings"))
    elif quoted and all(_TF_INFO.match(line) for line in quoted):
        # TensorFlow says what it did ("Could not identify NUMA node ..."): nothing failed.
        scores.add("no-error-found", 0, quoted, title=finding_title("no-error-found.info"))
    elif quoted:
        scores.add("unrecognized-error", 1, quoted)
    else:
        scores.add("no-error-found", 0, ctx.lines[-2:] or ["(empty output)"])


def _drop_consequences(scores: Scores) -> None:
    """Without the driver library, cuInit fails and TF adds "kernel driver does not appear to
    be running": those follow from the missing driver, not from a driver that failed to load."""
    loaded = scores.by_id.get("driver-not-loaded")
    missing = scores.by_id.get("no-nvidia-driver")
    if loaded and missing and missing.score >= 90 and loaded.score < 88:
        missing.evidence.extend(line for line in loaded.evidence if line not in missing.evidence)
        del scores.by_id["driver-not-loaded"]


_PORT = re.compile(r"target_address\"?:\s*\"[^\"]*:(\d+)\"|(?:port|:)\s?(\d{4,5})\b", re.ASCII)


def _detail_rules(ctx: TextContext, scores: Scores) -> None:
    """Facts the fix text needs: the script, the port, the task waited for."""
    if scores.has("tf1-api-on-tf2"):
        scripts = [s for s in ctx.whole().findall(_SCRIPT) if "site-packages" not in s]
        if scripts:
            scores.by_id["tf1-api-on-tf2"].detail.setdefault("script", scripts[-1])
    if scores.has("port-in-use"):
        m = ctx.whole().search(_PORT)
        if m:
            scores.by_id["port-in-use"].detail.setdefault("port", m.group(1) or m.group(2))
