"""The doctor's knowledge base: TensorFlow build configurations, CUDA driver minimums and the
library names each CUDA / cuDNN / MSVC runtime ships under.

The facts live in ``resources/kb/*.csv``, each row with its source; this module only parses
them (once, cached) into typed records and answers the questions the rules ask.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath

from core.paths import resource

Version = tuple[int, ...]


def parse_version(text: str | None) -> Version | None:
    """``"2.10.0rc1"`` -> ``(2, 10, 0)``; ``"460.27.03"`` -> ``(460, 27, 3)``; None if no digits."""
    if not text:
        return None
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", text, re.ASCII)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


# A version as a person gives it for the doctor's context (--tf-version, --cuda-version, the
# window's fields): major.minor[.patch], nothing else.
_VERSION_TEXT = re.compile(r"\d{1,3}\.\d{1,3}(?:\.\d{1,4})?", re.ASCII)


def is_version_text(value: str) -> bool:
    return bool(_VERSION_TEXT.fullmatch(value))


def minor_of(version: Version) -> Version:
    """The major.minor part, padded: ``(10,)`` -> ``(10, 0)``."""
    return (*version, 0, 0)[:2]


@dataclass(frozen=True)
class BuildConfig:
    """One row of TensorFlow's "tested build configurations" table."""

    tf_version: Version
    os: str  # "windows" | "linux"
    variant: str  # "cpu" | "gpu"
    package: str
    python: tuple[tuple[Version, Version], ...]  # inclusive (low, high) major.minor ranges
    python_text: str
    compiler: str
    cudnn: str | None
    cuda: str | None
    cudart_lib: str | None
    cudnn_lib: str | None
    status: str  # listed | retracted | missing_in_docs
    source: str
    notes: str

    def supports_python(self, python: Version) -> bool:
        py = minor_of(python)
        return any(low <= py <= high for low, high in self.python)

    @property
    def label(self) -> str:
        return ".".join(map(str, self.tf_version))


@dataclass(frozen=True)
class DriverMinimum:
    cuda: Version
    linux: Version
    windows: Version
    source: str

    def for_os(self, os_name: str) -> Version:
        return self.windows if os_name == "windows" else self.linux


@dataclass(frozen=True)
class LibraryInfo:
    """A shared library's ``kind`` and, for CUDA / cuDNN, the versions its name implies."""

    name: str
    kind: str  # cuda | cudnn | driver | msvc | zlib | optional | other
    cuda_versions: tuple[str, ...] = ()  # KB row labels such as "10.1", "11.x"
    cudnn_major: int | None = None


def _python_ranges(text: str) -> tuple[tuple[Version, Version], ...]:
    ranges = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("-")
        lo = parse_version(low)
        hi = parse_version(high or low)
        if lo and hi:
            ranges.append((minor_of(lo), minor_of(hi)))
    return tuple(ranges)


def _rows(name: str) -> list[dict[str, str]]:
    with resource("kb", name).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@cache
def build_configs() -> tuple[BuildConfig, ...]:
    out = []
    for r in _rows("tf_build_configs.csv"):
        version = parse_version(r["tf_version"])
        if version is None:
            continue
        out.append(BuildConfig(
            tf_version=version, os=r["os"], variant=r["variant"], package=r["package_as_listed"],
            python=_python_ranges(r["python_versions"]), python_text=r["python_versions"],
            compiler=r["compiler"], cudnn=r["cudnn"] or None, cuda=r["cuda"] or None,
            cudart_lib=r["derived_cudart_lib"] or None, cudnn_lib=r["derived_cudnn_lib"] or None,
            status=r["status"], source=r["source"], notes=r["notes"],
        ))
    return tuple(out)


@cache
def _gpu_archs() -> dict[tuple[Version, str], tuple[str, ...]]:
    return {(minor_of(parse_version(r["tf_version"]) or (0,)), r["os"]):
            tuple(r["cuda_compute_capabilities"].split()) for r in _rows("tf_gpu_archs.csv")}


def gpu_archs(tf_version: Version, platform: str | None) -> tuple[str, ...] | None:
    """The architectures a TF release's GPU build (matched on major.minor: pip installs the
    newest patch) was compiled for, as its build_info lists them; None when not recorded."""
    return _gpu_archs().get((minor_of(tf_version), kb_os(platform)))


def releases_running_on(capability: tuple[int, int], platform: str | None) -> list[Version]:
    """The recorded releases (major.minor, newest first) whose GPU build runs on a GPU of
    ``capability`` on this platform's OS."""
    from core.gpu.capability import build_runs_on  # not on the launch path of a run

    return sorted((v for (v, os_name), archs in _gpu_archs().items()
                   if os_name == kb_os(platform) and build_runs_on(archs, capability)),
                  reverse=True)


def kb_os(platform: str | None) -> str:
    """The table a platform reads: WSL2 runs the Linux builds."""
    return "windows" if platform == "windows" else "linux"


def find_build(tf_version: Version | str | None, platform: str | None,
               variant: str = "gpu") -> BuildConfig | None:
    """The listed build row for a TF release (matched on major.minor), or None."""
    version = parse_version(tf_version) if isinstance(tf_version, str) else tf_version
    if not version or len(version) < 2:
        return None  # "TensorFlow 2" names a major, not the release 2.0
    want = minor_of(version)
    for row in build_configs():
        if (row.os == kb_os(platform) and row.variant == variant and row.status == "listed"
                and minor_of(row.tf_version) == want):
            return row
    return None


def python_range_for(tf_version: Version | str | None, platform: str | None) -> BuildConfig | None:
    """The row that states which Pythons a TF release supports (GPU row first, else CPU)."""
    return find_build(tf_version, platform, "gpu") or find_build(tf_version, platform, "cpu")


@cache
def last_windows_gpu_release() -> Version:
    """The last TF release with native-Windows GPU support, read off the table (2.10)."""
    rows = [r.tf_version for r in build_configs()
            if r.os == "windows" and r.variant == "gpu" and r.status == "listed"]
    return minor_of(max(rows))


def windows_gpu_supported(tf_version: Version) -> bool:
    return minor_of(tf_version) <= last_windows_gpu_release()


@dataclass(frozen=True)
class WindowsWheels:
    """A TensorFlow package with no native-Windows build after ``last`` (None: never one)."""

    package: str
    last: str | None
    tensorflow: str | None  # the TF release ``last`` was built for
    python: str | None  # the Pythons ``last`` has Windows wheels for ("3.7-3.10")


@cache
def _windows_wheels() -> dict[str, WindowsWheels]:
    return {r["package"]: WindowsWheels(r["package"], r["last_windows_release"] or None,
                                        r["tensorflow_for_it"] or None,
                                        r["python_for_it"] or None)
            for r in _rows("windows_wheels.csv")}


def windows_wheels(package: str) -> WindowsWheels | None:
    """What the table says of ``package`` (any spelling pip accepts: ``tensorflow_text``)."""
    return _windows_wheels().get(re.sub(r"[-_.]+", "-", package, flags=re.ASCII).lower())


@cache
def driver_minimums() -> tuple[DriverMinimum, ...]:
    return tuple(
        DriverMinimum(cuda=minor_of(parse_version(r["cuda_toolkit"]) or (0,)),
                      linux=parse_version(r["linux_x86_64_min_driver"]) or (0,),
                      windows=parse_version(r["windows_x86_64_min_driver"]) or (0,),
                      source=r["source_note"])
        for r in _rows("cuda_driver_minimums.csv")
    )


def min_driver(cuda: str | Version | None) -> DriverMinimum | None:
    version = parse_version(cuda) if isinstance(cuda, str) else cuda
    if not version:
        return None
    want = minor_of(version)
    return next((d for d in driver_minimums() if d.cuda == want), None)


def driver_max_cuda(driver: Version, os_name: str) -> Version | None:
    """The newest CUDA toolkit in the table whose minimum driver ``driver`` meets."""
    ok = [d.cuda for d in driver_minimums() if driver >= d.for_os(os_name)]
    return max(ok) if ok else None


@cache
def _library_table() -> dict[str, LibraryInfo]:
    """Every CUDA / cuDNN / runtime library name in the KB, lower-cased."""
    table: dict[str, dict] = {}

    def add(name: str, kind: str, cuda: str | None = None, cudnn: int | None = None) -> None:
        entry = table.setdefault(name.lower(), {"kind": kind, "cuda": [], "cudnn": cudnn})
        if cuda and cuda not in entry["cuda"]:
            entry["cuda"].append(cuda)

    cuda_columns = ("cudart", "cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse")
    for file in ("windows_cuda_dll_names.csv", "linux_cuda_lib_names.csv"):
        for r in _rows(file):
            for col in cuda_columns:
                if r[col]:
                    add(r[col], "cuda", r["cuda"])
            for lib in r.get("cudnn", "").split():
                add(lib, "cudnn", cudnn=int(lib.rsplit(".", 1)[-1]))
    for r in _rows("windows_runtime_dlls.csv"):
        dll = r["dll"]
        if dll.startswith("cudnn"):
            major = re.search(r"_(\d+)\.dll", dll, re.ASCII)
            add(dll, "cudnn", cudnn=int(major.group(1)) if major else None)
        elif dll.startswith(("msvcp", "vcruntime")):
            add(dll, "msvc")
        elif dll.startswith("zlib"):
            add(dll, "zlib")
        else:
            add(dll, "driver")
    return {k: LibraryInfo(k, v["kind"], tuple(v["cuda"]), v["cudnn"]) for k, v in table.items()}


# Names outside the tables, recognised by shape (why: cuDNN 8 sub-libraries, versions of
# runtime DLLs not listed, optional profiler / TensorRT libraries that never stop training).
_SHAPES: tuple[tuple[str, str], ...] = (
    (r"^(lib)?cudnn", "cudnn"),
    (r"^(nvcuda|libcuda\.so|nvml|libnvidia-ml)", "driver"),
    (r"^(msvcp|vcruntime|concrt|vcomp)1\d\d", "msvc"),
    (r"^zlibwapi", "zlib"),
    (r"^(lib)?(cupti|nvinfer)", "optional"),
    (r"^(lib)?(cudart|cublas|cufft|curand|cusolver|cusparse|nvrtc|nvjitlink|nccl)", "cuda"),
)


def linux_library_name(name: str) -> str:
    """macOS's name of a library as Linux names it (the version after ``.so``):
    ``libcudart.8.0.dylib`` -> ``libcudart.so.8.0``; any other name as it is."""
    if not name.lower().endswith(".dylib"):
        return name
    parts = name[:-len(".dylib")].split(".")
    versions = list(itertools.takewhile(str.isdigit, reversed(parts[1:])))[::-1]
    return ".".join([*parts[:len(parts) - len(versions)], "so", *versions])


def library_info(name: str) -> LibraryInfo:
    """Classify a library file name (a path is fine): ``cudnn64_8.dll`` -> cudnn, major 8."""
    base = PurePath(name.replace("\\", "/")).name.lower().strip("'\".,")
    known = _library_table().get(base)
    if known:
        return known
    for pattern, kind in _SHAPES:
        if re.match(pattern, base, re.ASCII):
            major = re.search(r"(?:64_|\.so\.)(\d+)", base, re.ASCII) if kind == "cudnn" else None
            return LibraryInfo(base, kind, _named_toolkit(base) if kind == "cuda" else (),
                               cudnn_major=int(major.group(1)) if major else None)
    return LibraryInfo(base, "other")


# Up to CUDA 10.0 every library's name carries its toolkit's major.minor: "libcudart.so.7.5",
# "cublas64_80.dll" (later ones keep a major in every minor: the table knows those).
_OLD_TOOLKIT_NAME = re.compile(r"\.so\.([7-9]|10)\.(\d)$|64_([7-9]|10)(\d)\.dll$", re.ASCII)


def _named_toolkit(base: str) -> tuple[str, ...]:
    m = _OLD_TOOLKIT_NAME.search(base)
    if not m:
        return ()
    major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    return (f"{major}.{minor}",)


def cuda_label_matches(label: str, cuda: str | None) -> bool:
    """Does a KB library row label ("10.1", "11.x", "12.x") cover a toolkit version ("11.2")?"""
    version = parse_version(cuda)
    if not version:
        return False
    if label.endswith(".x"):
        return version[0] == int(label.split(".")[0])
    return minor_of(parse_version(label) or (0,)) == minor_of(version)


def recommended_pair(labels: tuple[str, ...], platform: str | None) -> tuple[str | None,
                                                                         str | None]:
    """The CUDA/cuDNN pair most official builds used for these CUDA labels ("10.1", "11.x")."""
    rows = [r for r in build_configs() if r.os == kb_os(platform) and r.variant == "gpu"
            and r.status == "listed" and any(cuda_label_matches(lb, r.cuda) for lb in labels)]
    if not rows:
        return None, None
    (cuda, cudnn), _ = Counter((r.cuda, r.cudnn) for r in rows).most_common(1)[0]
    return cuda, cudnn


@cache
def tf_versions_for_cuda_label(label: str, platform: str) -> tuple[Version, ...]:
    """TF releases (GPU builds on that OS) whose CUDA falls under a library-row label."""
    return tuple(sorted({minor_of(r.tf_version) for r in build_configs()
                         if r.os == kb_os(platform) and r.variant == "gpu"
                         and r.status == "listed" and cuda_label_matches(label, r.cuda)}))


@cache
def _cuda_toolkits() -> tuple[Version, ...]:
    """Every CUDA toolkit release (major.minor) the driver table lists."""
    return tuple(sorted(d.cuda for d in driver_minimums()))


@cache
def minor_pinned_and_superseded(label: str) -> bool:
    """Whether a CUDA library-row label names a toolkit whose every library carries its minor
    version (before CUDA 10.1: ``libcublas.so.9.0``, ``cublas64_90.dll``) and that a later minor
    of the same major followed (9.0 by 9.1). Such a build's libraries are missing under any
    other minor: the usual cause is the newer toolkit installed in its place, not none."""
    version = parse_version(label)
    if not version or label.endswith(".x"):
        return False
    want = minor_of(version)
    pinned = any(r["cuda"] == label and label in r["cublas"]
                 for r in _rows("linux_cuda_lib_names.csv"))
    return pinned and any(v[0] == want[0] and v > want for v in _cuda_toolkits())


@cache
def _library_sets() -> frozenset[str]:
    """The rows of the library-name table: "10.0" (every name carries 10.0), "11.x" (every
    11.x after 11.0 ships the same names). Windows' DLL names follow the same rule."""
    return frozenset(r["cuda"] for r in _rows("linux_cuda_lib_names.csv"))


def cuda_library_set(version: Version) -> str:
    """The set of library names a CUDA toolkit ships, as its row label: its own row, else its
    major's ``.x`` row, else its own major.minor (9.2's names carry 9.2, which no row lists)."""
    exact = "{}.{}".format(*minor_of(version))
    if exact in _library_sets():
        return exact
    any_minor = f"{version[0]}.x"
    return any_minor if any_minor in _library_sets() else exact


def toolkit_fits(wanted: str, installed: str) -> bool:
    """Whether an installed CUDA toolkit ships the libraries a build wanting ``wanted`` loads.
    ``wanted``: a build's CUDA ("11.2"; "9" is 9.0, as TensorFlow's table writes it) or a
    library-row label ("11.x"); ``installed``: a version a text states ("11.4"; "12" only
    says its major, so only the major is compared)."""
    have = parse_version(installed)
    if wanted.endswith(".x"):
        want_major, want_set = int(wanted.split(".")[0]), wanted
    else:
        want = minor_of(parse_version(wanted) or (0,))
        want_major, want_set = want[0], cuda_library_set(want)
    if not have:
        return True
    if have[0] != want_major:
        return False
    return len(have) < 2 or cuda_library_set(have) == want_set


def cuda_without_build(installed: str, platform: str | None) -> bool:
    """Whether TensorFlow has GPU builds for this CUDA major on the platform's OS, yet none
    of them loads the libraries this toolkit ships (9.1, 9.2, 10.2: names with their own
    minor, which no release was built for)."""
    have = parse_version(installed)
    if not have or len(have) < 2:
        return False
    same_major = [r.cuda for r in build_configs()
                  if r.os == kb_os(platform) and r.variant == "gpu" and r.status == "listed"
                  and r.cuda and (parse_version(r.cuda) or (0,))[0] == have[0]]
    return bool(same_major) and not any(toolkit_fits(c, installed) for c in same_major)


def cudnn_fits(wanted: str, installed: str) -> bool:
    """Whether an installed cuDNN satisfies a build's: the same major, and a minor at least
    the build's (TensorFlow's own check, "Loaded runtime CuDNN library ... but source was
    compiled with"). A version given without its minor is compared by its major only."""
    want, have = parse_version(wanted), parse_version(installed)
    if not want or not have:
        return True
    if want[0] != have[0]:
        return False
    return len(want) < 2 or len(have) < 2 or have[1] >= want[1]


def windows_cuda_has_build(cuda: str) -> bool:
    """Whether any native-Windows TensorFlow GPU build uses a CUDA of this major version
    (none uses CUDA 12: GPU on native Windows ended at 2.10, CUDA 11.2)."""
    version = parse_version(cuda)
    if not version:
        return False
    return any(
        (parse_version(r.cuda) or (0,))[0] == version[0] for r in build_configs()
        if r.os == "windows" and r.variant == "gpu" and r.status == "listed" and r.cuda)


@dataclass(frozen=True)
class RemovedApi:
    """A name a release removed or moved (``removed_apis.csv``): code written for an older one."""

    api: str  # dotted, as TensorDeck spells it: "tensorflow.mul", "keras.Model.predict_classes"
    kind: str  # module | name | argument: only a module's row covers the names under it
    package: str  # the distribution that removed it
    removed_in: str
    instead: str  # what the code uses now
    pin: str  # the requirement that keeps the old release, or ""

    @property
    def shown(self) -> str:
        """The name as code spells it: TensorFlow's as ``tf.``."""
        return "tf" + self.api.removeprefix("tensorflow") if self.api.startswith(
            "tensorflow.") else self.api


@cache
def removed_apis() -> dict[str, RemovedApi]:
    return {r["api"]: RemovedApi(r["api"], r["kind"], r["package"], r["removed_in"], r["instead"],
                                 r["pin"]) for r in _rows("removed_apis.csv")}
