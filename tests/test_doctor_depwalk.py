"""The dependency walk on real binaries: PE DLLs built with mingw-w64 (x86-64 and i686, normal
and delay-load imports; tests/pe_fixtures.py, also usable prebuilt on the Windows lane) and ELF
shared objects from gcc (RUNPATH $ORIGIN)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.doctor import depwalk
from core.doctor.depwalk import application_dirs, python_searches_path, walk, walk_finding
from core.gpu.info import GpuReport, GpuState
from core.interpreters.probe import ProbeResult
from tests import pe_fixtures

DATA = Path(__file__).parent / "data" / "windows"
needs_gcc = pytest.mark.skipif(
    sys.platform == "win32" or not shutil.which("gcc"),
    reason="ELF fixtures are built with gcc and resolved against Linux's /lib: Linux only"
    if sys.platform == "win32" else "gcc missing")


def _run(*cmd: str, cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pe_files(tmp_path_factory) -> Path:
    """tests/pe_fixtures.py's layout, in a folder of this module's own."""
    d = pe_fixtures.provide(tmp_path_factory.mktemp("pe_files"))
    if d is None:
        pytest.skip(pe_fixtures.missing_tools())
    return d


@pytest.fixture(scope="module")
def pe_tree(pe_files: Path) -> Path:
    """root.pyd -> cudnn64_8.dll -> cudnn_ops_infer64_8.dll (absent); root.pyd -> arch32.dll
    (only an i686 build present); root.pyd -(delay)-> lazy.dll (in System32)."""
    return pe_files / "pe"


def test_pe_reports_missing_dll_with_chain(pe_tree: Path) -> None:
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin", pe_tree / "x86"],
                  system_dirs=[pe_tree / "System32"])
    assert result.format == "pe" and result.arch == "x64" and result.error is None
    sub = next(m for m in result.missing if m.name == "cudnn_ops_infer64_8.dll")
    assert sub.chain == ("root.pyd", "cudnn64_8.dll", "cudnn_ops_infer64_8.dll")
    assert sub.chain_text() == "root.pyd -> cudnn64_8.dll -> cudnn_ops_infer64_8.dll (not found)"
    # kernel32 / msvcrt / api-ms-win-* are the loader's business, never "missing".
    names = {m.name.lower() for m in result.missing}
    assert names == {"cudnn_ops_infer64_8.dll", "arch32.dll"}


def test_pe_missing_cudnn_finding(pe_files: Path, pe_tree: Path, tmp_path: Path) -> None:
    shutil.copy(pe_files / "x64" / "arch32.dll", tmp_path)
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin", tmp_path],
                  system_dirs=[pe_tree / "System32"])
    assert [m.name for m in result.missing] == ["cudnn_ops_infer64_8.dll"]
    finding = walk_finding(result)
    assert finding.id == "missing-cudnn"
    assert "cudnn_ops_infer64_8.dll" in finding.evidence
    assert "cudnn64_8.dll" in finding.title


def test_pe_wrong_architecture_is_skipped_and_reported(pe_tree: Path) -> None:
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin", pe_tree / "x86"],
                  system_dirs=[pe_tree / "System32"])
    arch = next(m for m in result.missing if m.name.lower() == "arch32.dll")
    assert arch.wrong_arch == (pe_tree / "x86" / "arch32.dll",)
    assert "another CPU architecture" in arch.chain_text()


def test_pe_delay_imports_are_walked(pe_tree: Path) -> None:
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin"],
                  system_dirs=[pe_tree / "System32"])
    assert result.resolved["lazy.dll"] == pe_tree / "System32" / "lazy.dll"
    (pe_tree / "System32" / "lazy.dll").rename(pe_tree / "lazy.moved")
    try:
        again = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin"],
                     system_dirs=[pe_tree / "System32"])
    finally:
        (pe_tree / "lazy.moved").rename(pe_tree / "System32" / "lazy.dll")
    lazy = next(m for m in again.missing if m.name.lower() == "lazy.dll")
    assert lazy.delay_load and "delay-loaded" in lazy.chain_text()
    assert again.first_missing.name.lower() != "lazy.dll"  # load-time failures come first


def test_pe_all_resolved(pe_files: Path, pe_tree: Path, tmp_path: Path) -> None:
    shutil.copy(pe_tree / "cudnn_bin" / "cudnn64_8.dll", tmp_path)
    for name in ("cudnn_ops_infer64_8.dll", "arch32.dll"):
        shutil.copy(pe_files / "x64" / name, tmp_path)
    result = walk(pe_tree / "root.pyd", search_dirs=[tmp_path], system_dirs=[pe_tree / "System32"])
    assert result.ok, result.missing
    assert walk_finding(result) is None


# --- the interpreter's folder (issue 9, bug 3) ---------------------------------------------

def _python(pe_files: Path, tmp_path: Path, kind: str) -> Path:
    """A Windows interpreter whose folder holds python310.dll: a plain install, or a venv over
    it (Scripts\\python.exe and pyvenv.cfg ``home``, as ``python -m venv`` writes them)."""
    base = pe_files / "interp"
    (base / "python.exe").touch()
    if kind == "plain":
        return base / "python.exe"
    venv = tmp_path / "venv"
    (venv / "Scripts").mkdir(parents=True)
    (venv / "Scripts" / "python.exe").touch()
    (venv / "pyvenv.cfg").write_text(f"home = {base}\ninclude-system-site-packages = false\n"
                                     "version = 3.10.11\n")
    return venv / "Scripts" / "python.exe"


def test_application_dirs_read_a_venvs_home(tmp_path: Path) -> None:
    base, venv = tmp_path / "Python310", tmp_path / "venv"
    (venv / "Scripts").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"Home = {base}\n")
    assert application_dirs(venv / "Scripts" / "python.exe") == [venv / "Scripts", base]
    assert application_dirs(base / "python.exe") == [base]


def test_pe_interpreter_folder_is_searched(pe_files: Path, tmp_path: Path) -> None:
    pyd = pe_files / "interp" / "site" / "_pywrap_tensorflow_internal.pyd"
    python = _python(pe_files, tmp_path, "venv")
    result = walk(pyd, app_dirs=application_dirs(python), system_dirs=[tmp_path])
    assert result.resolved["python310.dll"] == pe_files / "interp" / "python310.dll"
    assert [m.name for m in result.missing] == ["vcruntime140_1.dll"]
    # With the VC++ runtime in System32, the module loads.
    assert walk(pyd, app_dirs=application_dirs(python), system_dirs=[pe_files / "x64"]).ok


def _failed_import(python: Path, pyd: Path, version: str = "3.10.11") -> ProbeResult:
    """The probe of TF 2.10.1 whose import died as recorded on the Windows lane."""
    stderr = (DATA / "tf210_missing_vcruntime140_1.txt").read_text(encoding="utf-8")
    return ProbeResult(python=str(python), ok=True, python_version=version, bits=64,
                       platform="Windows-10-10.0.18362-SP0", tf_version="2.10.1",
                       packages={"tensorflow": "2.10.1"}, tf_native_module=str(pyd),
                       import_attempted=True, import_ok=False, import_returncode=1,
                       import_stderr=stderr, error=stderr.strip().splitlines()[-1])


NO_DRIVER = GpuReport(GpuState.NO_DRIVER, "NVML Shared Library Not Found")


@pytest.mark.parametrize("kind", ["plain", "venv"])
def test_machine_names_the_missing_vc_runtime_not_python_dll(
        pe_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Every failed TF import on Windows used to report ``python310.dll is not found``."""
    from core.doctor.machine import diagnose_machine

    monkeypatch.setattr(depwalk, "default_system32", lambda: [tmp_path / "System32"])
    pyd = pe_files / "interp" / "site" / "_pywrap_tensorflow_internal.pyd"
    findings = diagnose_machine(NO_DRIVER, [_failed_import(_python(pe_files, tmp_path, kind),
                                                           pyd)])
    first = findings[0]
    assert first.id == "missing-msvc-runtime"
    assert first.title == "vcruntime140_1.dll is not found (needed by " \
                          "_pywrap_tensorflow_internal.pyd)"
    assert "Visual C++ Redistributable" in first.steps[0].text
    assert "vcruntime140_1.dll" in first.steps[0].text
    assert not any("python310.dll" in f.title for f in findings)


@pytest.mark.parametrize(("version", "searched"), [("3.7.9", True), ("3.10.11", False)])
def test_path_is_searched_only_where_python_does(
        pe_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str,
        searched: bool) -> None:
    """Python 3.8+ loads extension modules without PATH; the DLL only on PATH counts there
    for 3.7 alone."""
    from core.doctor.machine import diagnose_machine

    assert python_searches_path((3, 9), conda=True) and not python_searches_path((3, 9), False)
    monkeypatch.setattr(depwalk, "default_system32", lambda: [tmp_path / "System32"])
    monkeypatch.setenv("PATH", str(pe_files / "x64"))
    pyd = pe_files / "interp" / "site" / "_pywrap_tensorflow_internal.pyd"
    probe = _failed_import(_python(pe_files, tmp_path, "plain"), pyd, version)
    titles = [f.title for f in diagnose_machine(NO_DRIVER, [probe])]
    assert any(t.startswith("vcruntime140_1.dll is not found") for t in titles) is not searched


@pytest.fixture(scope="module")
def elf_tree(tmp_path_factory) -> Path:
    """libroot.so (RUNPATH $ORIGIN/sub) -> libmid.so -> libgone.so (deleted)."""
    d = tmp_path_factory.mktemp("elf")
    (d / "sub").mkdir()
    (d / "gone.c").write_text("int gone(void){return 1;}")
    _run("gcc", "-shared", "-fPIC", "-o", "libgone.so", "gone.c", cwd=d)
    (d / "mid.c").write_text("#include <stdio.h>\nint gone(void);\n"
                            "int mid(void){puts(\"mid\"); return gone();}")
    _run("gcc", "-shared", "-fPIC", "-o", "sub/libmid.so", "mid.c", "-L.", "-lgone", cwd=d)
    (d / "root.c").write_text("int mid(void); int root(void){return mid();}")
    _run("gcc", "-shared", "-fPIC", "-o", "libroot.so", "root.c", "-Lsub", "-lmid",
         "-Wl,--enable-new-dtags,-rpath,$ORIGIN/sub", cwd=d)
    (d / "libgone.so").unlink()
    return d


@needs_gcc
def test_elf_runpath_origin_and_missing(elf_tree: Path) -> None:
    result = walk(elf_tree / "libroot.so", search_dirs=[], ld_cache={})
    assert result.format == "elf" and result.error is None
    assert result.resolved["libmid.so"] == elf_tree / "sub" / "libmid.so"  # via $ORIGIN/sub
    assert "libc.so.6" in result.resolved  # default dirs
    assert [m.chain for m in result.missing] == [("libroot.so", "libmid.so", "libgone.so")]
    finding = walk_finding(result)
    assert finding.id == "native-runtime-load-failed"
    assert "libgone.so" in finding.title and "libmid.so" in finding.title


@needs_gcc
def test_elf_ld_library_path_resolves(elf_tree: Path, tmp_path: Path) -> None:
    (tmp_path / "gone.c").write_text("int gone(void){return 1;}")
    _run("gcc", "-shared", "-fPIC", "-o", "libgone.so", "gone.c", cwd=tmp_path)
    result = walk(elf_tree / "libroot.so", search_dirs=[tmp_path], ld_cache={})
    assert result.ok and result.resolved["libgone.so"] == tmp_path / "libgone.so"


def test_not_a_binary(tmp_path: Path) -> None:
    f = tmp_path / "x.pyd"
    f.write_text("hello")
    assert walk(f).error == "x.pyd is neither a PE nor an ELF file"
    assert "cannot read" in walk(tmp_path / "nope.so").error
