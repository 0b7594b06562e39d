"""What a pasted output says about where it came from: platform, TensorFlow and Python
versions, the conda env, library search paths, installed CUDA toolkits, driver versions.

Every fact is optional; the rules use whatever the user passed and fill the rest from here.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.doctor.kb import Version, minor_of, parse_version
from core.doctor.linesearch import LineIndex, TextIndex
from core.wsl.paths import is_wsl_spec

if TYPE_CHECKING:
    from core.interpreters.probe import ProbeResult

_PLATFORM_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rx, re.ASCII)) for name, rx in (
    ("wsl", r"/usr/lib/wsl/|microsoft-standard-WSL|\bWSL2?\b|/mnt/[a-z]/"),
    # A drive as \b[A-Za-z]:\\ or :/ (not :[\\/]): a pattern whose parts all hold a word is
    # searched only where the text holds one (core.doctor.linesearch).
    ("windows", r"\b[A-Za-z]:\\|\b[A-Za-z]:/|\.dll\b|\.pyd\b|\bWinError\b|python\.exe|"
                r"\bwin_amd64\b|%PATH%"),
    ("macos", r"\.dylib\b|\bdarwin\b|\bmacOS\b|/Users/\w+/"),
    ("linux", r"\.so(?:\.\d+)*\b|/home/\w|/usr/(?:local|lib)/|/opt/|lib/python\d|linux_x86_64"),
))

# pip's "tensorflow==2.1", conda's "tensorflow-gpu=1.13.1", "tensorflow 2.10",
# "TensorFlow version: 2.3", and run together: "tensorflow2.0", "tensorflow-gpu1.13" (dev c1465).
_TF_VERSION = re.compile(
    r"\btensorflow(?:[-_](?:gpu|cpu|intel))?(?:==?|-|\s+|\s*version:?\s*)?v?(\d+\.\d+(?:\.\d+)?)\b",
    re.IGNORECASE | re.ASCII)
# ``\s*`` spans the line break too (``\s*\n?\s*`` would split a blank run in n ways).
_TF_DUNDER_VERSION = re.compile(r"tf\.__version__\)?\s*'?(\d+\.\d+\.\d+)", re.ASCII)
# Where TF's own log lines come from changed across releases: a rough floor/ceiling when the
# version is not printed.
_TF_LOG_ERAS: tuple[tuple[re.Pattern[str], Version, Version], ...] = tuple(
    (re.compile(rx, re.ASCII), low, high) for rx, low, high in (
    (r"external/local_(?:xla|tsl)/|\bxla/tsl/", (2, 15), (2, 99)),
    (r"tensorflow/tsl/", (2, 12), (2, 14)),
    # 2.11 moved stream_executor under compiler/xla (tensorflow/tensorflow#58859, a 2.11 log).
    (r"tensorflow/compiler/xla/stream_executor/", (2, 11), (2, 14)),
    (r"tensorflow/stream_executor/", (1, 13), (2, 10)),
    (r"tensorflow_core[\\/]", (1, 15), (2, 1)),
    (r"tf_jenkins", (0, 12), (1, 15)),
))
_PYTHON_VERSION = (
    re.compile(r"[\\/]Python(\d)(\d{1,2})(?:-32)?[\\/]", re.IGNORECASE | re.ASCII),
    re.compile(r"[\\/]python(\d)\.(\d{1,2})[\\/]", re.ASCII),
    re.compile(r"\bPython (\d)\.(\d{1,2})\.\d+", re.ASCII),
    re.compile(r"-cp(\d)(\d{1,2})-", re.ASCII),
    # In words: "on python 3.11", "Python3.12".
    re.compile(r"\bpython\s?v?(3)\.(\d{1,2})(?!\d)", re.IGNORECASE | re.ASCII),
)
_CONDA_ENV = re.compile(r"[\\/]envs[\\/]([^\\/\s'\"]+)[\\/]", re.ASCII)
_CONDA_BASE = re.compile(r"[\\/](?:ana|mini)conda\d?[\\/]", re.IGNORECASE | re.ASCII)
_CUDA_INSTALL = re.compile(
    r"CUDA[\\/]v(\d+\.\d+)|cuda-(\d+\.\d+)|CUDA_PATH_V(\d+)_(\d+)|(/usr/local/cuda)\b",
    re.IGNORECASE | re.ASCII)
_LD_PATH = re.compile(r"LD_LIBRARY_PATH:\s*(\S*)", re.ASCII)
_DRIVER = re.compile(r"Driver Version:\s*([\d.]+)|kernel reported version is:\s*([\d.]+)|"
                     # In a person's words: "Nvidia Drivers: 390.116", "nvidia driver version is
                     # 418.67" (a version with its dot: "nvidia-driver-430" is a package).
                     # One blank run before the version: "\s*[:=]?\s*" splits a run in n ways.
                     r"(?i:\bnvidia[ -]?drivers?(?: version)?(?: is)?\s*(?:[:=]\s*)?)"
                     r"(\d{3}\.\d{2,3}(?:\.\d{1,3})?)\b", re.ASCII)
_DRIVER_CUDA = re.compile(r"CUDA Version:\s*([\d.]+)", re.ASCII)


# A line an exception starts: "ValueError: ...", "tensorflow.python.framework.errors_impl.X".
# Anchored: searched, an unanchored one would retry a long dotted word from each of its letters.
EXCEPTION_LINE = re.compile(r"^[\w.]+(?:Error|Exception)\b", re.ASCII)


# The rules' patterns read ASCII (re.ASCII: "安装tensorflow2.4" has a word boundary before the
# name): the Unicode spaces of web pages and the full-width names and versions a CJK input
# method types ("ＣＵＤＡ１１．２") are read as that ASCII. One character for one, so the lines
# the findings quote are the user's, and Chinese punctuation ("，", "？") stays as typed.
_AS_ASCII = {
    **dict.fromkeys((0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000), " "),
    **{c: c - 0xFEE0 for c in range(0xFF10, 0xFF1A)},  # digits
    **{c: c - 0xFEE0 for c in (*range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B))},  # letters
    **{c: c - 0xFEE0 for c in (0xFF0D, 0xFF0E, 0xFF3F)},  # - . _
}


@dataclass
class TextContext:
    """Facts about one pasted output. ``platform`` is windows | linux | wsl | macos | None."""

    text: str
    lines: list[str]
    platform: str | None = None
    tf_version: Version | None = None
    tf_era: tuple[Version, Version] | None = None  # from log paths, when no version is printed
    python: Version | None = None
    conda_env: str | None = None
    ld_library_path: str | None = None
    cuda_installs: set[str] = field(default_factory=set)  # "11.2", or "" for an unversioned dir
    driver: Version | None = None
    driver_cuda: Version | None = None
    _index: LineIndex | None = field(default=None, init=False, repr=False)
    _whole: TextIndex | None = field(default=None, init=False, repr=False)

    def last_exception(self) -> str:
        """The output's last exception line ("ModuleNotFoundError: ..."): what failed, or ""."""
        return next((line for line in reversed(self.lines) if EXCEPTION_LINE.match(line)), "")

    def tf_stated_before(self, version: Version) -> bool:
        """Whether the TensorFlow the text or the user states is older than ``version`` (not
        guessed from the log's era)."""
        return self.tf_version is not None and minor_of(self.tf_version) < version

    def tf_text(self) -> str:
        """The stated TensorFlow version as people write it ("2.16.1"), or "" when none is."""
        return ".".join(map(str, self.tf_version)) if self.tf_version else ""

    def tf_at_least(self, version: Version) -> bool | None:
        """True / False when known (exact or from the log era), None when the text cannot say."""
        if self.tf_version:
            return minor_of(self.tf_version) >= version
        if self.tf_era:
            low, high = self.tf_era
            if low >= version:
                return True
            if high < version:
                return False
        return None

    def lines_matching(self, pattern: str | re.Pattern, limit: int = 3) -> list[str]:
        """The first ``limit`` lines ``pattern`` matches (fast in a text of any size:
        :mod:`core.doctor.linesearch`)."""
        if self._index is None:
            self._index = LineIndex(self.lines)
        rx = re.compile(pattern, re.ASCII) if isinstance(pattern, str) else pattern
        return self._index.matching(rx, limit)

    def whole(self) -> TextIndex:
        """The text, for searches of all of it (a pattern that may span lines)."""
        if self._whole is None:
            self._whole = TextIndex(self.text)
        return self._whole


def read_context(text: str, *, platform: str | None = None,
                 tf_version: str | None = None) -> TextContext:
    """The facts ``text`` gives away; a ``platform`` or ``tf_version`` the user stated wins
    over the text's (the text may quote another machine's paths or another release)."""
    text = text.translate(_AS_ASCII)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ctx = TextContext(text=text, lines=lines)
    found = ctx.whole()
    ctx.platform = platform if platform and platform != "unknown" else _guess_platform(found)
    ctx.tf_version = parse_version(tf_version) if tf_version else _tf_version_in(found)
    if ctx.tf_version is None:
        ctx.tf_era = _tf_era_in(found)
    ctx.python = _python_in(found)
    ctx.conda_env = _conda_env_in(found)
    ld = found.search(_LD_PATH)
    ctx.ld_library_path = ld.group(1).rstrip(";") if ld else None
    ctx.cuda_installs = _cuda_installs_in(found)
    ctx.driver, ctx.driver_cuda = _driver_in(found)
    return ctx


def _tf_era_in(found: TextIndex) -> tuple[Version, Version] | None:
    """The releases whose log paths the text shows, when it prints no version: the first era
    in :data:`_TF_LOG_ERAS` (newest first) wins."""
    return next(((low, high) for rx, low, high in _TF_LOG_ERAS if found.search(rx)), None)


def _python_in(found: TextIndex) -> Version | None:
    """The Python version in the paths or banners; the patterns go from the surest (a Windows
    install folder) to the loosest (a wheel tag)."""
    for rx in _PYTHON_VERSION:
        m = found.search(rx)
        if m:
            return (int(m.group(1)), int(m.group(2)))
    return None


def _conda_env_in(found: TextIndex) -> str | None:
    """The conda env in the paths: a named one under ``envs``, else "base" for an
    Anaconda/Miniconda root."""
    env = found.search(_CONDA_ENV)
    return env.group(1) if env else ("base" if found.search(_CONDA_BASE) else None)


def _cuda_installs_in(found: TextIndex) -> set[str]:
    """Installed CUDA toolkits: "11.2" from a versioned folder or CUDA_PATH_V11_2, "" for an
    unversioned ``/usr/local/cuda`` (its version unknown)."""
    installs = set()
    for m in found.finditer(_CUDA_INSTALL):
        if m.group(1) or m.group(2):
            installs.add(m.group(1) or m.group(2))
        elif m.group(3):
            installs.add(f"{m.group(3)}.{m.group(4)}")
        else:
            installs.add("")
    return installs


def _driver_in(found: TextIndex) -> tuple[Version | None, Version | None]:
    """The driver's version and the newest CUDA it supports, as nvidia-smi or TF print them."""
    drv = found.search(_DRIVER)
    dcuda = found.search(_DRIVER_CUDA)
    return (parse_version(drv.group(1) or drv.group(2) or drv.group(3)) if drv else None,
            parse_version(dcuda.group(1)) if dcuda else None)


def _guess_platform(found: TextIndex) -> str | None:
    for name, rx in _PLATFORM_HINTS:
        if found.search(rx):
            return name
    return None


def _tf_version_in(found: TextIndex) -> Version | None:
    """A TF version the text states, when it states exactly one (pip conflict lists name many)."""
    stated = found.findall(_TF_VERSION) + found.findall(_TF_DUNDER_VERSION)
    versions = {minor_of(v) + v[2:3] for v in map(parse_version, stated)
                if v and v[0] in (0, 1, 2)}
    return versions.pop() if len(versions) == 1 else None


def probe_platform(probe: ProbeResult) -> str:
    """windows | wsl | linux | macos: an interpreter named ``wsl://`` is inside WSL (whose
    kernel a stand-in need not be); else from ``platform.platform()`` as the child printed
    it."""
    if is_wsl_spec(probe.python):
        return "wsl"
    text = (probe.platform or sys.platform).lower()
    if text.startswith(("windows", "win32")):
        return "windows"
    if "microsoft" in text or "wsl" in text:
        return "wsl"
    if text.startswith(("macos", "darwin")):
        return "macos"
    return "linux"


OS_RELEASE = Path("/etc/os-release")
_RHEL_LIKE = ("rhel", "centos", "rocky", "almalinux", "ol")


def linux_distro(os_release: Path = OS_RELEASE) -> str | None:
    """The Linux family whose driver commands fit this machine (:func:`distro_family` of its
    os-release); None without the file."""
    try:
        text = os_release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return distro_family(text)


def distro_family(text: str) -> str | None:
    """The Linux family an os-release text names by its ID and ID_LIKE: "ubuntu" (and Mint,
    Pop!_OS), "debian", "fedora", "rhel<major>" (RHEL, Rocky, Alma, CentOS); None for any
    other."""
    fields = dict(re.findall(r'^(\w+)=["\']?([^"\'\n]*)', text, re.MULTILINE | re.ASCII))
    ids = [fields.get("ID", "").lower(), *fields.get("ID_LIKE", "").lower().split()]
    major = fields.get("VERSION_ID", "").split(".")[0]
    if ids[0] == "fedora":
        return "fedora"
    if any(i in _RHEL_LIKE for i in ids):
        return "rhel" + (major if major.isdigit() else "")
    for family in ("ubuntu", "debian"):
        if family in ids:
            return family
    return None
