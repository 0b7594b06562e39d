"""Walk a native module's import tables the way the OS loader would, and name the first
library it cannot find, with the chain that needs it:
``_pywrap_tensorflow_internal.pyd -> cudnn64_8.dll -> cudnn_ops_infer64_8.dll (not found)``.

Windows PE files are read with pefile (normal and delay-load imports), Linux ELF files with
pyelftools (DT_NEEDED, RPATH / RUNPATH with $ORIGIN). Nothing is loaded or executed, so it
works on a PE file from Linux too. Every search folder is a parameter, which keeps tests
hermetic; the defaults describe the running machine.

The PE search order is the one Python 3.8+ gets for an extension module: it loads the .pyd
with ``LoadLibraryExW(path, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)``
(CPython Python/dynload_win.c), so the loader searches, for the .pyd and everything it pulls in:
the .pyd's folder, the application directory (python.exe's folder, where python3X.dll and
vcruntime140.dll live, already loaded by python.exe anyway), the ``os.add_dll_directory``
folders, System32, and not PATH (Microsoft, "Dynamic-link library search order"). Pythons
before 3.8, and conda's patched Python, do search PATH: after System32.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from core.doctor import kb
from core.doctor.fixes import FixContext, finding_title, make_finding
from core.findings import Finding

# Windows resolves these itself: API-set contracts and the KnownDLLs registry list (plus ntdll,
# always mapped). Reporting them as missing is Dependency Walker's notorious false alarm.
_API_SET = re.compile(r"^(api|ext)-ms-", re.IGNORECASE)
KNOWN_DLLS = frozenset(name.lower() for name in (
    "ntdll.dll", "kernel32.dll", "kernelbase.dll", "user32.dll", "gdi32.dll", "gdiplus.dll",
    "advapi32.dll", "sechost.dll", "rpcrt4.dll", "combase.dll", "ole32.dll", "oleaut32.dll",
    "shell32.dll", "shlwapi.dll", "shcore.dll", "comdlg32.dll", "coml2.dll", "clbcatq.dll",
    "difxapi.dll", "imagehlp.dll", "imm32.dll", "msctf.dll", "msvcrt.dll", "normaliz.dll",
    "nsi.dll", "psapi.dll", "setupapi.dll", "wldap32.dll", "ws2_32.dll", "wow64.dll",
    "wow64win.dll",
))
_PE_MACHINES = {0x14C: "x86", 0x8664: "x64", 0xAA64: "arm64", 0x1C4: "arm"}
_ELF_DEFAULT_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64",
                     "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu")


@dataclass(frozen=True)
class Missing:
    """A library no search folder holds; ``chain`` runs from the root module to it."""

    name: str
    chain: tuple[str, ...]
    delay_load: bool = False
    wrong_arch: tuple[Path, ...] = ()  # files of that name the loader skips (other machine)

    def chain_text(self) -> str:
        note = "not found"
        if self.wrong_arch:
            note += f"; {self.wrong_arch[0]} is for another CPU architecture"
        if self.delay_load:
            note += "; delay-loaded"
        return " -> ".join(self.chain) + f" ({note})"


@dataclass
class WalkResult:
    root: Path
    format: str  # "pe" | "elf" | "unknown"
    arch: str | None = None
    resolved: dict[str, Path] = field(default_factory=dict)
    missing: list[Missing] = field(default_factory=list)
    wrong_arch: dict[str, list[Path]] = field(default_factory=dict)
    error: str | None = None

    @property
    def first_missing(self) -> Missing | None:
        """Load-time imports first: a delay-loaded DLL fails only when first called."""
        eager = [m for m in self.missing if not m.delay_load]
        return next(iter(eager or self.missing), None)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.missing


def walk(root: Path, *, app_dirs: Sequence[Path] = (), search_dirs: Sequence[Path] = (),
         system_dirs: Sequence[Path] | None = None, path_dirs: Sequence[Path] = (),
         ld_cache: Mapping[str, Path] | None = None) -> WalkResult:
    """Walk ``root`` (a .pyd/.dll or .so).

    PE, searched in this order after ``root``'s own folder: ``app_dirs`` (the interpreter's
    folder: :func:`application_dirs`), ``search_dirs`` (``os.add_dll_directory`` folders),
    ``system_dirs`` (System32; None: this machine's), ``path_dirs`` (PATH, only for a Python
    that still searches it: :func:`python_searches_path`).
    ELF: ``search_dirs`` is LD_LIBRARY_PATH, ``system_dirs`` the default lib dirs,
    ``ld_cache`` soname -> path (None reads ``ldconfig -p``); ``app_dirs``/``path_dirs`` unused.
    """
    root = Path(root)
    try:
        with root.open("rb") as f:
            magic = f.read(4)  # TF's native module is ~1 GB: never read it whole
    except OSError as exc:
        return WalkResult(root, "unknown", error=f"cannot read {root}: {exc.strerror}")
    if magic[:2] == b"MZ":
        system = default_system32() if system_dirs is None else system_dirs
        return _PeWalker(root, [*app_dirs, *search_dirs, *system, *path_dirs]).run()
    if magic == b"\x7fELF":
        return _ElfWalker(root, list(search_dirs), system_dirs, ld_cache).run()
    return WalkResult(root, "unknown", error=f"{root.name} is neither a PE nor an ELF file")


def default_system32() -> list[Path]:
    root = os.environ.get("SYSTEMROOT", r"C:\Windows")
    return [Path(root) / "System32"] if sys.platform == "win32" else []


def application_dirs(python: str | os.PathLike[str]) -> list[Path]:
    """Where the DLLs of the process running ``python`` (python.exe) come from.

    The interpreter's folder; for a venv also the base install's (pyvenv.cfg ``home``): since
    3.7.2 a venv's Scripts\\python.exe is a launcher that starts the base python.exe, so that
    folder is the application directory and holds python3X.dll. (Older venvs copied python.exe
    and python3X.dll into Scripts, hence the interpreter's own folder first.)
    """
    exe = Path(python)
    dirs = [exe.parent]
    # CPython looks for pyvenv.cfg next to the executable, then one folder up (getpath.py).
    for cfg in (exe.parent / "pyvenv.cfg", exe.parent.parent / "pyvenv.cfg"):
        home = _pyvenv_home(cfg)
        if home is not None:
            dirs.append(home)
            break
    return dirs


def _pyvenv_home(cfg: Path) -> Path | None:
    try:
        text = cfg.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "home" and value.strip():
            return Path(value.strip())
    return None


def python_searches_path(python_version: tuple[int, ...] | None, conda: bool) -> bool:
    """Whether PATH is searched for an extension module's DLLs: before Python 3.8 (the standard
    search order), and by conda's Python, patched to add PATH (CondaEcosystemModifyDllSearchPath;
    some builds only with CONDA_DLL_SEARCH_MODIFICATION_ENABLE set: counted as searching, so
    the walk never blames a DLL the loader may find)."""
    return conda or (python_version is not None and python_version[:2] < (3, 8))


# --- PE ------------------------------------------------------------------------------------

def _pe_info(path: Path) -> tuple[str | None, list[str], list[str]]:
    """(machine, load-time imports, delay-load imports) of a PE file."""
    import pefile

    pe = pefile.PE(str(path), fast_load=True)
    try:
        pe.parse_data_directories(directories=[
            pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"],
            pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"],
        ])
        machine = _PE_MACHINES.get(pe.FILE_HEADER.Machine, hex(pe.FILE_HEADER.Machine))
        eager = [e.dll.decode("ascii", "replace")
                 for e in getattr(pe, "DIRECTORY_ENTRY_IMPORT", [])]
        delay = [e.dll.decode("ascii", "replace")
                 for e in getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", [])]
        return machine, eager, delay
    finally:
        pe.close()


class _PeWalker:
    def __init__(self, root: Path, dirs: list[Path]):
        self.root = root
        # One search path for the whole load: the loader computes it for the module passed to
        # LoadLibraryExW and uses it for every dependency (a dependency's own folder is not
        # searched for its imports).
        self.dirs = list(dict.fromkeys([root.parent, *dirs]))
        self.result = WalkResult(root, "pe")

    def run(self) -> WalkResult:
        try:
            self.result.arch = _pe_info(self.root)[0]
        except Exception as exc:  # pefile raises PEFormatError and struct errors alike
            self.result.error = f"{self.root.name}: not a valid PE file ({exc})"
            return self.result
        self._visit(self.root, (self.root.name,), delay=False)
        return self.result

    def _visit(self, path: Path, chain: tuple[str, ...], delay: bool) -> None:
        self.result.resolved[path.name.lower()] = path
        try:
            _, eager, delayed = _pe_info(path)
        except Exception as exc:
            self.result.error = f"{path}: not a valid PE file ({exc})"
            return
        for name, is_delay in [(n, delay) for n in eager] + [(n, True) for n in delayed]:
            key = name.lower()
            if _API_SET.match(key) or key in KNOWN_DLLS or key in self.result.resolved:
                continue
            if any(m.name.lower() == key for m in self.result.missing):
                continue
            found, skipped = self._find(name)
            if skipped:
                self.result.wrong_arch[key] = skipped
            if found is None:
                self.result.missing.append(Missing(name, (*chain, name), is_delay, tuple(skipped)))
            else:
                self._visit(found, (*chain, found.name), is_delay)

    def _find(self, name: str) -> tuple[Path | None, list[Path]]:
        skipped = []
        for folder in self.dirs:
            candidate = _existing(folder, name)
            if candidate is None:
                continue
            try:
                machine = _pe_info(candidate)[0]
            except Exception:
                skipped.append(candidate)
                continue
            if machine != self.result.arch:
                skipped.append(candidate)  # the loader passes over a wrong-architecture DLL
                continue
            return candidate, skipped
        return None, skipped


def _existing(folder: Path, name: str) -> Path | None:
    """``folder/name``, matching case-insensitively as Windows does (even on Linux)."""
    direct = folder / name
    if direct.is_file():
        return direct
    try:
        lowered = name.lower()
        return next((p for p in folder.iterdir() if p.name.lower() == lowered and p.is_file()),
                    None)
    except OSError:
        return None


# --- ELF -----------------------------------------------------------------------------------

def _elf_info(path: Path) -> tuple[str, list[str], list[str], list[str]]:
    """(arch, DT_NEEDED, DT_RPATH dirs, DT_RUNPATH dirs) of an ELF file."""
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile

    with path.open("rb") as f:
        elf = ELFFile(f)
        arch = f"{elf['e_machine']}/{elf.elfclass}"
        needed, rpath, runpath = [], [], []
        for section in elf.iter_sections():
            if not isinstance(section, DynamicSection):
                continue
            for tag in section.iter_tags():
                # pyelftools sets these attributes per tag kind at run time: no type knows them.
                if tag.entry.d_tag == "DT_NEEDED":
                    needed.append(tag.needed)  # type: ignore[attr-defined]
                elif tag.entry.d_tag == "DT_RPATH":
                    rpath.extend(tag.rpath.split(":"))  # type: ignore[attr-defined]
                elif tag.entry.d_tag == "DT_RUNPATH":
                    runpath.extend(tag.runpath.split(":"))  # type: ignore[attr-defined]
        return arch, needed, rpath, runpath


@cache
def system_ld_cache() -> dict[str, Path]:
    """soname -> path from ``ldconfig -p`` (the ld.so.cache), for this machine's arch."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    cache_map: dict[str, Path] = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m and ("x86-64" in m.group(2) or "64bit" in m.group(2) or sys.maxsize <= 2**32):
            cache_map.setdefault(m.group(1), Path(m.group(3)))
    return cache_map


class _ElfWalker:
    def __init__(self, root: Path, search_dirs: list[Path], system_dirs: Sequence[Path] | None,
                 ld_cache: Mapping[str, Path] | None):
        self.root = root
        self.search_dirs = search_dirs
        self.system_dirs = [Path(d) for d in (_ELF_DEFAULT_DIRS if system_dirs is None
                                              else system_dirs)]
        self.ld_cache = system_ld_cache() if ld_cache is None else ld_cache
        self.result = WalkResult(root, "elf")

    def run(self) -> WalkResult:
        try:
            self.result.arch = _elf_info(self.root)[0]
        except Exception as exc:  # pyelftools raises ELFError and struct errors alike
            self.result.error = f"{self.root.name}: not a valid ELF file ({exc})"
            return self.result
        self._visit(self.root, (self.root.name,), inherited_rpath=[])
        return self.result

    def _visit(self, path: Path, chain: tuple[str, ...], inherited_rpath: list[Path]) -> None:
        self.result.resolved[path.name] = path
        try:
            _, needed, rpath, runpath = _elf_info(path)
        except Exception as exc:
            self.result.error = f"{path}: not a valid ELF file ({exc})"
            return
        origin = str(path.parent)
        expand = [Path(d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin))
                  for d in (runpath or rpath) if d]
        # ld.so: DT_RPATH (of this object and the ones that loaded it) only when there is no
        # DT_RUNPATH; then LD_LIBRARY_PATH; then DT_RUNPATH; then ld.so.cache; then defaults.
        rpath_dirs = [] if runpath else expand + inherited_rpath
        runpath_dirs = expand if runpath else []
        for name in needed:
            if name in self.result.resolved or any(m.name == name for m in self.result.missing):
                continue
            found, skipped = self._find(name, [*rpath_dirs, *self.search_dirs, *runpath_dirs])
            if skipped:
                self.result.wrong_arch[name] = skipped
            if found is None:
                self.result.missing.append(Missing(name, (*chain, name), False, tuple(skipped)))
            else:
                self._visit(found, (*chain, found.name), rpath_dirs)

    def _find(self, name: str, dirs: list[Path]) -> tuple[Path | None, list[Path]]:
        if "/" in name:
            return (Path(name), []) if Path(name).is_file() else (None, [])
        cached = self.ld_cache.get(name)
        candidates = [d / name for d in dirs]
        candidates += [cached] if cached else []
        candidates += [d / name for d in self.system_dirs]
        skipped = []
        for candidate in dict.fromkeys(candidates):
            if not candidate.is_file():
                continue
            try:
                arch = _elf_info(candidate)[0]
            except Exception:
                skipped.append(candidate)
                continue
            if arch != self.result.arch:
                skipped.append(candidate)
                continue
            return candidate, skipped
        return None, skipped


# --- as a finding --------------------------------------------------------------------------

_KIND_TO_FINDING = {"cudnn": "missing-cudnn", "zlib": "missing-cudnn",
                    "cuda": "missing-cuda-runtime", "msvc": "missing-msvc-runtime",
                    "driver": "no-nvidia-driver"}


def walk_finding(result: WalkResult, ctx: FixContext | None = None) -> Finding | None:
    """The walk's verdict as a Finding (None when every library resolves)."""
    ctx = ctx or FixContext(platform="windows" if result.format == "pe" else "linux")
    miss = result.first_missing
    if miss is None:
        return None
    info = kb.library_info(miss.name)
    fid = _KIND_TO_FINDING.get(info.kind, "native-runtime-load-failed")
    ctx.detail.setdefault("library", miss.name)
    needed_by = miss.chain[-2] if len(miss.chain) > 1 else result.root.name
    title = finding_title("library-wrong-arch" if miss.wrong_arch else "library-not-found",
                          library=miss.name, needed_by=needed_by)
    return make_finding(fid, miss.chain_text(), ctx, title=title)
