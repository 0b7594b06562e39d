"""The dependency walk on real binaries built here: PE DLLs from mingw-w64 (x86-64 and i686,
normal and delay-load imports) and ELF shared objects from gcc (RUNPATH $ORIGIN)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from core.doctor.depwalk import walk, walk_finding

MINGW64 = "x86_64-w64-mingw32-gcc"
MINGW32 = "i686-w64-mingw32-gcc"
DLLTOOL = "x86_64-w64-mingw32-dlltool"

needs_mingw = pytest.mark.skipif(
    not (shutil.which(MINGW64) and shutil.which(MINGW32) and shutil.which(DLLTOOL)),
    reason="mingw-w64 missing: apt-get install gcc-mingw-w64-x86-64 gcc-mingw-w64-i686")
needs_gcc = pytest.mark.skipif(not shutil.which("gcc"), reason="gcc missing")


def _run(*cmd: str, cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)


def _dll(cwd: Path, cc: str, name: str, body: str, *libs: str) -> None:
    (cwd / f"{name}.c").write_text(body)
    _run(cc, "-shared", "-o", f"{name}.dll", f"{name}.c", f"-Wl,--out-implib,lib{name}.a",
         "-L.", *libs, cwd=cwd)


def _point_delay_directory(path: Path) -> None:
    """GNU ld links dlltool's delay-import descriptors but leaves the PE data directory entry
    (index 13) empty, which MSVC's linker fills in; fill it in the same way."""
    import pefile

    symbols = subprocess.run(["x86_64-w64-mingw32-nm", str(path)], capture_output=True,
                             text=True, check=True).stdout
    vma = int(re.search(r"^([0-9a-f]+) \S __DELAY_IMPORT_DESCRIPTOR_", symbols, re.M).group(1), 16)
    pe = pefile.PE(str(path))
    entry = pe.OPTIONAL_HEADER.DATA_DIRECTORY[13]
    entry.VirtualAddress = vma - pe.OPTIONAL_HEADER.ImageBase
    entry.Size = 32  # one IMAGE_DELAYLOAD_DESCRIPTOR
    data = pe.write()
    pe.close()
    path.write_bytes(data)


@pytest.fixture(scope="module")
def pe_tree(tmp_path_factory) -> Path:
    """root.pyd -> cudnn64_8.dll -> cudnn_ops_infer64_8.dll (deleted); root.pyd -> arch32.dll
    (only an i686 build present); root.pyd -(delay)-> lazy.dll (present)."""
    d = tmp_path_factory.mktemp("pe")
    bin_dir, sys32, other = d / "cudnn_bin", d / "System32", d / "x86"
    for folder in (bin_dir, sys32, other):
        folder.mkdir()
    _dll(d, MINGW64, "cudnn_ops_infer64_8", "__declspec(dllexport) int ops(void){return 1;}")
    _dll(d, MINGW64, "cudnn64_8", "int ops(void);\n__declspec(dllexport) int cudnn(void)"
         "{return ops();}", "-lcudnn_ops_infer64_8")
    _dll(d, MINGW64, "arch32", "__declspec(dllexport) int a32(void){return 32;}")
    _dll(d, MINGW64, "lazy", "__declspec(dllexport) int lazy(void){return 7;}")
    (d / "lazy.def").write_text("LIBRARY lazy.dll\nEXPORTS\n  lazy\n")
    _run(DLLTOOL, "--input-def", "lazy.def", "--dllname", "lazy.dll", "--output-delaylib",
         "liblazy_delay.a", cwd=d)
    (d / "root.c").write_text("int cudnn(void); int a32(void); int lazy(void);\n"
                              "__declspec(dllexport) int root(void)"
                              "{return cudnn() + a32() + lazy();}")
    _run(MINGW64, "-shared", "-o", "root.pyd", "root.c", "-L.", "-lcudnn64_8", "-larch32",
         "-llazy_delay", cwd=d)
    _point_delay_directory(d / "root.pyd")
    # Lay the files out like an install: cuDNN's main DLL in its bin folder without its
    # sub-DLL, a 32-bit arch32.dll only, lazy.dll in "System32".
    shutil.move(d / "cudnn64_8.dll", bin_dir / "cudnn64_8.dll")
    (d / "cudnn_ops_infer64_8.dll").unlink()
    (d / "arch32.dll").unlink()
    _dll(other, MINGW32, "arch32", "__declspec(dllexport) int a32(void){return 32;}")
    shutil.move(d / "lazy.dll", sys32 / "lazy.dll")
    return d


@needs_mingw
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


@needs_mingw
def test_pe_missing_cudnn_finding(pe_tree: Path, tmp_path: Path) -> None:
    _dll(tmp_path, MINGW64, "arch32", "__declspec(dllexport) int a32(void){return 32;}")
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin", tmp_path],
                  system_dirs=[pe_tree / "System32"])
    assert [m.name for m in result.missing] == ["cudnn_ops_infer64_8.dll"]
    finding = walk_finding(result)
    assert finding.id == "missing-cudnn"
    assert "cudnn_ops_infer64_8.dll" in finding.evidence
    assert "cudnn64_8.dll" in finding.title


@needs_mingw
def test_pe_wrong_architecture_is_skipped_and_reported(pe_tree: Path) -> None:
    result = walk(pe_tree / "root.pyd", search_dirs=[pe_tree / "cudnn_bin", pe_tree / "x86"],
                  system_dirs=[pe_tree / "System32"])
    arch = next(m for m in result.missing if m.name.lower() == "arch32.dll")
    assert arch.wrong_arch == (pe_tree / "x86" / "arch32.dll",)
    assert "another CPU architecture" in arch.chain_text()


@needs_mingw
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


@needs_mingw
def test_pe_all_resolved(pe_tree: Path, tmp_path: Path) -> None:
    shutil.copy(pe_tree / "cudnn_bin" / "cudnn64_8.dll", tmp_path)
    _dll(tmp_path, MINGW64, "cudnn_ops_infer64_8", "__declspec(dllexport) int ops(void){return 1;}")
    _dll(tmp_path, MINGW64, "arch32", "__declspec(dllexport) int a32(void){return 32;}")
    result = walk(pe_tree / "root.pyd", search_dirs=[tmp_path], system_dirs=[pe_tree / "System32"])
    assert result.ok, result.missing
    assert walk_finding(result) is None


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
