"""Real PE files for the dependency-walk tests, built with mingw-w64 (x86-64 and i686).

The cross-compilers are Linux programs, which Windows CPython (the Windows lane, under Wine)
cannot start. So the Linux side builds the files once (``python3 -m tests.pe_fixtures DIR``,
standard library only) and the tests read them from ``$TENSORDECK_PE_FIXTURES`` when it is
set; without it they build them here, or skip saying why.

Layout of DIR:
  pe/root.pyd                     -> cudnn64_8.dll, arch32.dll, (delay) lazy.dll
  pe/cudnn_bin/cudnn64_8.dll      -> cudnn_ops_infer64_8.dll (not built into the tree)
  pe/x86/arch32.dll               i686 only: the x64 loader skips it
  pe/System32/lazy.dll
  x64/                            x64 builds of arch32, cudnn_ops_infer64_8, vcruntime140_1
  interp/python310.dll            a stand-in for the interpreter's own DLL
  interp/site/_pywrap_tensorflow_internal.pyd -> python310.dll, VCRUNTIME140_1.dll
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

MINGW64 = "x86_64-w64-mingw32-gcc"
MINGW32 = "i686-w64-mingw32-gcc"
DLLTOOL = "x86_64-w64-mingw32-dlltool"
NM = "x86_64-w64-mingw32-nm"
ENV = "TENSORDECK_PE_FIXTURES"


def missing_tools() -> str | None:
    """Why the files cannot be built here, or None."""
    absent = [t for t in (MINGW64, MINGW32, DLLTOOL, NM) if not shutil.which(t)]
    if not absent:
        return None
    if sys.platform == "win32":
        return (f"PE fixtures need mingw-w64 ({', '.join(absent)} not found); on the Windows "
                "lane the Linux side builds them: python3 -m tests.pe_fixtures DIR, then "
                f"{ENV}=DIR")
    return "mingw-w64 missing: apt-get install gcc-mingw-w64-x86-64 gcc-mingw-w64-i686"


def _run(*cmd: str, cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)


def _dll(cwd: Path, cc: str, name: str, body: str, *libs: str, suffix: str = ".dll") -> Path:
    """Build ``name`` + suffix in ``cwd`` (and its import library lib<name>.a)."""
    (cwd / f"{name}.c").write_text(body)
    _run(cc, "-shared", "-o", f"{name}{suffix}", f"{name}.c", f"-Wl,--out-implib,lib{name}.a",
         "-L.", *libs, cwd=cwd)
    return cwd / f"{name}{suffix}"


def _export(symbol: str, value: int) -> str:
    return f"__declspec(dllexport) int {symbol}(void){{return {value};}}"


def _point_delay_directory(path: Path) -> None:
    """GNU ld links dlltool's delay-import descriptors but leaves the PE data directory entry
    (index 13) empty, which MSVC's linker fills in; fill it in the same way. (struct, not
    pefile: the Linux side of the lane builds these with a bare python3.)"""
    symbols = subprocess.run([NM, str(path)], capture_output=True, text=True, check=True).stdout
    vma = int(re.search(r"^([0-9a-f]+) \S __DELAY_IMPORT_DESCRIPTOR_", symbols, re.M).group(1), 16)
    data = bytearray(path.read_bytes())
    optional = struct.unpack_from("<I", data, 0x3C)[0] + 24  # after "PE\0\0" and the COFF header
    assert struct.unpack_from("<H", data, optional)[0] == 0x20B, "PE32+ expected"
    image_base = struct.unpack_from("<Q", data, optional + 24)[0]
    # PE32+ data directories start 112 bytes into the optional header, 8 bytes each.
    struct.pack_into("<II", data, optional + 112 + 13 * 8, vma - image_base, 32)
    path.write_bytes(bytes(data))


def build(dest: Path) -> Path:
    """Build every fixture into ``dest`` (see the module docstring); returns ``dest``."""
    work = dest / "build"
    pe, x64, interp = dest / "pe", dest / "x64", dest / "interp"
    for folder in (work, pe / "cudnn_bin", pe / "System32", pe / "x86", x64, interp / "site"):
        folder.mkdir(parents=True, exist_ok=True)
    ops = _dll(work, MINGW64, "cudnn_ops_infer64_8", _export("ops", 1))
    cudnn = _dll(work, MINGW64, "cudnn64_8", "int ops(void);\n__declspec(dllexport) int cudnn(void)"
                 "{return ops();}", "-lcudnn_ops_infer64_8")
    arch64 = _dll(work, MINGW64, "arch32", _export("a32", 32))
    lazy = _dll(work, MINGW64, "lazy", _export("lazy", 7))
    (work / "lazy.def").write_text("LIBRARY lazy.dll\nEXPORTS\n  lazy\n")
    _run(DLLTOOL, "--input-def", "lazy.def", "--dllname", "lazy.dll", "--output-delaylib",
         "liblazy_delay.a", cwd=work)
    root = _dll(work, MINGW64, "root", "int cudnn(void); int a32(void); int lazy(void);\n"
                "__declspec(dllexport) int root(void){return cudnn() + a32() + lazy();}",
                "-lcudnn64_8", "-larch32", "-llazy_delay", suffix=".pyd")
    _point_delay_directory(root)
    # Laid out like an install: cuDNN's main DLL in its bin folder without its sub-DLL, a
    # 32-bit arch32.dll only, lazy.dll in "System32".
    shutil.copy(root, pe / "root.pyd")
    shutil.copy(cudnn, pe / "cudnn_bin")
    shutil.copy(lazy, pe / "System32")
    (work / "x86").mkdir()
    shutil.copy(_dll(work / "x86", MINGW32, "arch32", _export("a32", 32)), pe / "x86")
    for built in (arch64, ops):
        shutil.copy(built, x64)
    # TF's native module as Windows loads it: it imports the interpreter's DLL and the VC++
    # runtime by name, and neither lives next to it.
    python_dll = _dll(work, MINGW64, "python310", _export("Py_IsInitialized", 1))
    vcruntime = _dll(work, MINGW64, "vcruntime140_1", _export("__CxxFrameHandler4", 4))
    shutil.copy(python_dll, interp)
    shutil.copy(vcruntime, x64)
    pyd = _dll(work, MINGW64, "_pywrap_tensorflow_internal",
               "int Py_IsInitialized(void); int __CxxFrameHandler4(void);\n"
               "__declspec(dllexport) int PyInit__pywrap_tensorflow_internal(void)"
               "{return Py_IsInitialized() + __CxxFrameHandler4();}",
               "-lpython310", "-lvcruntime140_1", suffix=".pyd")
    shutil.copy(pyd, interp / "site")
    shutil.rmtree(work)
    return dest


def provide(dest: Path) -> Path | None:
    """The fixtures in ``dest``: copied from ``$TENSORDECK_PE_FIXTURES`` when set, else built
    here; None when neither is possible (:func:`missing_tools` says why)."""
    prebuilt = os.environ.get(ENV)
    if prebuilt:
        shutil.copytree(prebuilt, dest, dirs_exist_ok=True)
        return dest
    if missing_tools():
        return None
    return build(dest)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m tests.pe_fixtures DIR")
    if why := missing_tools():
        sys.exit(why)
    print(build(Path(sys.argv[1]).resolve()))
