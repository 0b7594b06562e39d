"""Interpreter discovery, activation environments, and probing real interpreters in children."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.interpreters.activation import activation_env, clean_base_env, dll_search_dirs
from core.interpreters.discover import (
    add_user_interpreter,
    discover_interpreters,
    parse_py_launcher,
    remove_user_interpreter,
    user_interpreters,
)
from core.interpreters.layout import env_layout
from core.interpreters.probe import (
    cached_probe,
    describe_exit,
    os_error_text,
    probe_interpreter,
)

MAIN_PYTHON = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "python")
NO_VENV = ("needs the venv module, which the Windows lane's embeddable CPython lacks"
           if sys.platform == "win32" else "needs the venv module")


@pytest.fixture(autouse=True)
def _own_user_dirs(tmp_path, monkeypatch):
    """platformdirs reads XDG_* (and, on Windows, WIN_PD_OVERRIDE_*): keep the remembered list
    and the probe cache per test."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("WIN_PD_OVERRIDE_APPDATA", str(tmp_path / "config"))
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", str(tmp_path / "cache"))


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    path.chmod(0o755)
    return path


def _conda_env(prefix: Path, platform: str) -> Path:
    (prefix / "conda-meta").mkdir(parents=True)
    return _exe(prefix / ("python.exe" if platform == "win32" else "bin/python"))


@pytest.fixture(scope="module")
def real_venv(tmp_path_factory) -> Path:
    venv = pytest.importorskip("venv", reason=NO_VENV)
    root = tmp_path_factory.mktemp("venvs") / "train"
    venv.create(root, with_pip=False, symlinks=True)
    return root


# -- discovery ----------------------------------------------------------------------------------


def test_conda_trees_envs_txt_venv_and_path(tmp_path, real_venv):
    home = tmp_path / "home"
    base = _conda_env(home / "miniconda3", "linux")
    (home / "miniconda3" / "condabin").mkdir()
    tf = _conda_env(home / "miniconda3" / "envs" / "tf210", "linux")
    elsewhere = _conda_env(tmp_path / "projects" / "env", "linux")
    (home / ".conda").mkdir()
    (home / ".conda" / "environments.txt").write_text(f"{elsewhere.parent.parent}\n")
    plain = _exe(tmp_path / "usr" / "bin" / "python3")
    os.symlink(plain, tmp_path / "usr" / "bin" / "python")  # same interpreter twice on PATH
    env = {"PATH": os.pathsep.join([str(tmp_path / "usr" / "bin"), str(base.parent)]),
           "VIRTUAL_ENV": str(real_venv)}

    found = discover_interpreters(env=env, home=home, platform="linux", use_conda=False)
    by_path = {i.path: i for i in found}
    assert found[0].kind == "current" and found[0].path == os.path.abspath(sys.executable)
    assert by_path[str(real_venv / "bin" / "python")].kind == "venv"
    assert (by_path[str(tf)].kind, by_path[str(tf)].env_name) == ("conda", "tf210")
    assert by_path[str(base)].env_name == "base"
    assert by_path[str(elsewhere)].env_name is None  # conda create -p
    assert by_path[str(plain)].kind == "path"
    assert str(tmp_path / "usr" / "bin" / "python") not in by_path  # deduped by resolved path
    assert [i.path for i in found].count(str(base)) == 1  # conda folder and PATH: once


def test_venv_symlinked_python_is_not_merged_with_its_base(real_venv):
    venv_python = real_venv / "bin" / "python"
    assert os.path.islink(venv_python)  # the case that matters: a symlink to a base python
    found = discover_interpreters(env={"VIRTUAL_ENV": str(real_venv), "PATH": ""},
                                  home=Path("/nonexistent"), use_conda=False)
    paths = [i.path for i in found]
    assert str(venv_python) in paths and os.path.abspath(sys.executable) in paths


def test_windows_layouts(tmp_path):
    conda = _conda_env(tmp_path / "Miniconda3" / "envs" / "tf", "win32")
    assert env_layout(conda, "win32").name == "tf"
    vroot = tmp_path / "venv"
    (vroot / "pyvenv.cfg").parent.mkdir(parents=True)
    (vroot / "pyvenv.cfg").write_text("home = C:\\Python310\n")
    vpy = _exe(vroot / "Scripts" / "python.exe")
    layout = env_layout(vpy, "win32")
    assert (layout.kind, layout.prefix) == ("venv", vroot)
    store_alias = _exe(tmp_path / "WindowsApps" / "python.exe")
    found = discover_interpreters(
        env={"PATH": os.pathsep.join([str(store_alias.parent), str(conda.parent)])},
        home=tmp_path, platform="win32", use_conda=False,
    )
    assert [i.kind for i in found if i.path == str(conda)] == ["conda"]
    assert str(store_alias) not in [i.path for i in found]


def test_py_launcher_output_old_and_new():
    new = (" -V:3.12 *        C:\\Users\\a b\\AppData\\Local\\Programs\\Python\\Python312"
           "\\python.exe\n"
           " -V:3.10          C:\\Python310\\python.exe\n"
           " -V:ContinuumAnalytics/Anaconda39-64 C:\\ProgramData\\Anaconda3\\python.exe\n")
    old = ("Installed Pythons found by py Launcher for Windows\n"
           " -3.9-64 *      C:\\Py39\\python.exe\n")
    assert parse_py_launcher(new) == [
        "C:\\Users\\a b\\AppData\\Local\\Programs\\Python\\Python312\\python.exe",
        "C:\\Python310\\python.exe",
        "C:\\ProgramData\\Anaconda3\\python.exe",
    ]
    assert parse_py_launcher(old) == ["C:\\Py39\\python.exe"]


def test_user_list_add_remove_and_bad_input(tmp_path, real_venv):
    added = add_user_interpreter(str(real_venv))  # a folder is accepted: its python is used
    assert added == str(real_venv / "bin" / "python") and user_interpreters() == [added]
    assert [i.kind for i in discover_interpreters(env={"PATH": ""}, home=tmp_path,
                                                  use_conda=False) if i.path == added] == ["user"]
    with pytest.raises(ValueError, match="not a Python executable"):
        add_user_interpreter(str(tmp_path / "nope"))
    assert remove_user_interpreter(added) and not remove_user_interpreter(added)
    assert user_interpreters() == []


def test_user_list_holds_interpreters_inside_wsl_by_name(tmp_path):
    """A ``wsl://`` name (what env create --wsl registers) is kept as the probe names it and
    listed by discovery as it is: no wsl.exe runs for either."""
    added = add_user_interpreter("WSL://Ubuntu-22.04/home/me/tf-2.21/bin/python")
    assert added == "wsl://Ubuntu-22.04/home/me/tf-2.21/bin/python"
    assert add_user_interpreter(added) == added and user_interpreters() == [added]
    found = discover_interpreters(env={"PATH": ""}, home=tmp_path, use_conda=False)
    assert [(i.path, i.kind) for i in found if i.path.startswith("wsl://")] == [(added, "user")]
    for bad, why in (("wsl://Ubuntu/~/tf/bin/python", "~ is not expanded"),
                     ("wsl://Ubuntu", "names no Linux path"),
                     ("wsl://-d/usr/bin/python3", "is not a WSL distribution name")):
        with pytest.raises(ValueError, match=why):
            add_user_interpreter(bad)
    assert remove_user_interpreter("wsl://Ubuntu-22.04/home/me/tf-2.21/bin/python")
    assert not remove_user_interpreter("wsl://Ubuntu/~/x") and user_interpreters() == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_user_list_takes_a_wsl_name_whole_or_refuses_it(tail):
    """Any text after ``wsl://``: stored as its one canonical name, or a ValueError that says
    why; nothing else lands in the list."""
    from core.wsl.paths import parse_wsl_spec

    try:
        added = add_user_interpreter("wsl://" + tail)
    except ValueError:
        assert "wsl://" + tail not in user_interpreters()
        return
    assert added == parse_wsl_spec(added).spec() and added in user_interpreters()
    assert remove_user_interpreter(added) and added not in user_interpreters()


def test_discovery_on_this_machine_finds_the_running_python(tmp_path):
    started = time.perf_counter()
    found = discover_interpreters(home=tmp_path, use_conda=False)
    print(f"discovery without conda: {time.perf_counter() - started:.3f} s")
    assert found[0].kind == "current" and found[0].prefix == sys.prefix


# -- activation --------------------------------------------------------------------------------


def test_windows_conda_activation_order_and_previous_env_removed(tmp_path):
    prefix = tmp_path / "Miniconda3" / "envs" / "tf"
    python = _conda_env(prefix, "win32")
    for sub in ("Library/bin", "Library/usr/bin", "Scripts"):
        (prefix / sub).mkdir(parents=True)
    base = tmp_path / "Miniconda3"
    base_env = {"Path": f"{base};{base / 'Library' / 'bin'};C:\\Windows", "CONDA_PREFIX": str(base)}
    env = activation_env(str(python), base_env, platform="win32")
    assert "PATH" not in env  # the existing spelling "Path" is kept
    assert env["Path"].split(";") == [
        str(prefix), str(prefix / "Library/mingw-w64/bin"), str(prefix / "Library/usr/bin"),
        str(prefix / "Library/bin"), str(prefix / "Scripts"), str(prefix / "bin"), "C:\\Windows",
    ]
    assert (env["CONDA_PREFIX"], env["CONDA_DEFAULT_ENV"]) == (str(prefix), "tf")
    assert dll_search_dirs(str(python), "win32") == [
        prefix, prefix / "Library/usr/bin", prefix / "Library/bin", prefix / "Scripts",
    ]


def test_windows_venv_with_nvidia_wheels_puts_their_bin_folders_on_path(tmp_path):
    """env create's native-Windows plan: NVIDIA's CUDA 11 wheels in a venv, their DLL folders
    on the task's PATH (TF 2.10 loads cudart64_110.dll & co. from PATH, as from Library\\bin)."""
    prefix = tmp_path / "tf210"
    (prefix / "pyvenv.cfg").parent.mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text("home = C:\\Python310\n")
    python = _exe(prefix / "Scripts" / "python.exe")
    wheels = prefix / "Lib" / "site-packages" / "nvidia"
    for lib in ("cudnn", "cuda_runtime"):
        (wheels / lib / "bin").mkdir(parents=True)
    (wheels / "cublas" / "include").mkdir(parents=True)  # no bin: not a DLL folder
    env = activation_env(str(python), {"PATH": "C:\\Windows"}, platform="win32")
    assert env["PATH"].split(";") == [str(prefix / "Scripts"), str(wheels / "cuda_runtime/bin"),
                                      str(wheels / "cudnn/bin"), "C:\\Windows"]
    assert dll_search_dirs(str(python), "win32") == [
        prefix / "Scripts", wheels / "cuda_runtime/bin", wheels / "cudnn/bin"]
    # Linux TF finds its wheels' libraries itself: nothing added there.
    assert str(wheels) not in activation_env(str(python), {"PATH": "/usr/bin"},
                                             platform="linux")["PATH"]


def test_linux_conda_and_venv_activation(tmp_path, real_venv):
    prefix = tmp_path / "conda" / "envs" / "tf"
    python = _conda_env(prefix, "linux")
    (prefix / "lib").mkdir()
    env = activation_env(str(python), {"PATH": "/usr/bin", "LD_LIBRARY_PATH": "/opt/cuda/lib64"},
                         platform="linux")
    assert env["PATH"] == f"{prefix / 'bin'}:/usr/bin"
    assert env["LD_LIBRARY_PATH"] == f"{prefix / 'lib'}:/opt/cuda/lib64"
    assert dll_search_dirs(str(python), "linux") == [prefix / "lib"]
    venv_env = activation_env(str(real_venv / "bin" / "python"),
                              {"PATH": "/usr/bin", "PYTHONHOME": "/x"}, platform="linux")
    assert venv_env["VIRTUAL_ENV"] == str(real_venv)
    assert venv_env["PATH"] == f"{real_venv / 'bin'}:/usr/bin" and "PYTHONHOME" not in venv_env


def test_clean_base_env_undoes_pyinstaller():
    # The bundle's folder and PATH as this platform writes them (os.pathsep, its own paths).
    if sys.platform == "win32":
        bundle, system = r"C:\Users\me\AppData\Local\Temp\_MEI123", r"C:\Windows\system32"
    else:
        bundle, system = "/tmp/_MEI123", "/usr/bin"
    sep = os.pathsep
    frozen_env = {"LD_LIBRARY_PATH": f"{bundle}{sep}/opt/lib", "LD_LIBRARY_PATH_ORIG": "/opt/lib",
                  "PATH": f"{bundle}{sep}{system}", "_PYI_ARCHIVE_FILE": "x", "HOME": "/h"}
    env = clean_base_env(frozen_env, frozen=True, bundle_dir=bundle)
    assert env == {"LD_LIBRARY_PATH": "/opt/lib", "PATH": system, "HOME": "/h"}
    no_orig = clean_base_env({"LD_LIBRARY_PATH": "/tmp/_MEI1"}, frozen=True, bundle_dir="/t")
    assert "LD_LIBRARY_PATH" not in no_orig
    assert clean_base_env(frozen_env, frozen=False) == frozen_env
    qt = clean_base_env({"QT_PLUGIN_PATH": os.path.join(bundle, "PySide6", "Qt", "plugins"),
                         "MODE": "1", "EMPTY": "", "NEAR": os.path.join(bundle + "4", "x")},
                        frozen=True, bundle_dir=bundle)
    assert qt == {"MODE": "1", "EMPTY": "", "NEAR": os.path.join(bundle + "4", "x")}
    if sys.platform == "win32":  # paths ignore case there: the bundle in other letters goes too
        upper = clean_base_env({"Path": f"{bundle.upper()}{sep}{system}"}, frozen=True,
                               bundle_dir=bundle)
        assert upper == {"Path": system}


# -- probing ---------------------------------------------------------------------------------


def _windows_venv_by_hand(root: Path) -> Path:
    """A venv in the layout `python -m venv` makes on Windows (<venv>\\pyvenv.cfg,
    <venv>\\Scripts\\python.exe, <venv>\\Lib\\site-packages), for an interpreter without the
    venv module (the Windows lane's embeddable CPython). Scripts\\ gets a copy of the base
    python.exe and its DLLs (and, from an embeddable build, its zipped standard library):
    Python starts from there and site.py makes <venv> its prefix (the pyvenv.cfg above it)."""
    base = Path(sys.base_prefix)
    scripts = root / "Scripts"
    scripts.mkdir(parents=True)
    (root / "Lib" / "site-packages").mkdir(parents=True)
    stem = f"python{sys.version_info.major}{sys.version_info.minor}"
    for name in ("python.exe", f"{stem}.dll", "python3.dll", f"{stem}.zip",
                 "vcruntime140.dll", "vcruntime140_1.dll"):
        if (base / name).is_file():
            shutil.copy2(base / name, scripts / name)
    version = ".".join(map(str, sys.version_info[:3]))
    (root / "pyvenv.cfg").write_text(
        f"home = {base}\ninclude-system-site-packages = false\nversion = {version}\n")
    return scripts / "python.exe"


def _venv(root: Path) -> tuple[str, Path]:
    """A real venv of this platform's layout: its python and its site-packages folder."""
    try:
        import venv
    except ImportError:
        if sys.platform != "win32":
            pytest.skip(NO_VENV)
        return str(_windows_venv_by_hand(root)), root / "Lib" / "site-packages"
    venv.create(root, with_pip=False, symlinks=sys.platform != "win32")
    if sys.platform == "win32":
        return str(root / "Scripts" / "python.exe"), root / "Lib" / "site-packages"
    return str(root / "bin" / "python"), next(root.glob("lib/python3*/site-packages"))


def _fake_tf_venv(root: Path, init_source: str) -> str:
    """A real venv whose site-packages holds a 'tensorflow' that misbehaves on import."""
    python, site = _venv(root)
    (site / "tensorflow" / "python" / "platform").mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text(init_source)
    (site / "tensorflow" / "python" / "platform" / "build_info.py").write_text(
        "import collections\nbuild_info = collections.OrderedDict([('cuda_version', '64_112'), "
        "('cudart_dll_name', 'cudart64_112.dll'), ('is_cuda_build', True), "
        "('msvcp_dll_names', 'msvcp140.dll,msvcp140_1.dll')])\n")
    dist = site / "tensorflow-2.10.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.10.1\n")
    return python


def test_probe_without_import_reads_files_only(tmp_path):
    python = _fake_tf_venv(tmp_path / "v", "raise SystemExit('imported!')\n")
    result = probe_interpreter(python, import_tf=False)
    assert result.ok and not result.import_attempted
    assert result.tf_version == "2.10.1"  # from metadata
    assert result.tf_build_info["cudart_dll_name"] == "cudart64_112.dll"
    assert result.is_venv and result.bits in (32, 64)
    json.dumps(result.to_json())


def test_probe_import_failure_is_a_result(tmp_path):
    python = _fake_tf_venv(tmp_path / "v", (
        "raise ImportError('DLL load failed while importing _pywrap_tensorflow_internal: "
        "The specified module could not be found.')\n"))
    result = probe_interpreter(python, timeout=60)
    assert result.import_attempted and not result.import_ok and not result.ok
    assert result.error.startswith("ImportError: DLL load failed while importing")
    assert "Traceback" in result.import_stderr and result.import_returncode == 1


def test_probe_crash_is_a_result(tmp_path):
    if sys.platform == "win32":
        # A native crash: an unhandled access violation (faulthandler's own test helper reads
        # NULL outside any handler). os.abort() is no crash code there: under Wine it is
        # plain exit status 3.
        python = _fake_tf_venv(tmp_path / "v", "import faulthandler\nfaulthandler._read_null()\n")
        result = probe_interpreter(python, timeout=60)
        assert not result.ok and result.import_returncode == 0xC0000005
        assert result.error == ("import tensorflow crashed with 0xC0000005: access violation "
                                "(a native library crashed)")
        return
    python = _fake_tf_venv(tmp_path / "v", "import os\nos.abort()\n")
    result = probe_interpreter(python, timeout=60)
    assert not result.ok and result.import_returncode == -6
    assert result.error == "import tensorflow killed by signal SIGABRT"


def test_probe_hang_is_killed_with_its_children(tmp_path):
    python = _fake_tf_venv(tmp_path / "v", (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print('child started', flush=True)\n"
        "time.sleep(600)\n"))
    before = {p.pid for p in psutil.process_iter()}
    result = probe_interpreter(python, timeout=3)
    assert result.timed_out and not result.ok and "did not finish in 3 s" in result.error
    assert "child started" in result.import_stdout
    left = [p for p in psutil.process_iter(["cmdline"])
            if p.pid not in before and "time.sleep(600)" in " ".join(p.info["cmdline"] or [])]
    assert left == []


def test_probe_of_a_missing_or_broken_interpreter(tmp_path):
    name = "python.exe" if sys.platform == "win32" else "python"
    assert "does not exist" in probe_interpreter(str(tmp_path / name)).error
    broken = tmp_path / name
    if sys.platform == "win32":  # a python.exe that is not a program (not a PE file)
        broken.write_text("echo cannot start\r\nexit /b 3\r\n")
        result = probe_interpreter(str(broken))
        assert not result.ok
        assert result.error.startswith(f"cannot run {broken}: [WinError 193]"), result.error
        return
    broken.write_text("#!/bin/sh\necho 'cannot start' >&2\nexit 3\n")
    broken.chmod(0o755)
    result = probe_interpreter(str(broken))
    assert not result.ok
    assert "exited with status 3" in result.error and "cannot start" in result.error


def test_describe_exit_codes():
    assert describe_exit(3221225501).startswith("crashed with 0xC000001D: illegal instruction")
    assert describe_exit(-11) == "killed by signal SIGSEGV"


def test_cached_probe_follows_installs(tmp_path):
    python = _fake_tf_venv(tmp_path / "v", "raise SystemExit('x')\n")
    first = cached_probe(python, import_tf=False)
    site = Path(first.tf_package_dir).parent
    assert str(site) in first.site_packages
    (site / "tensorflow" / "__init__.py").write_text("raise SystemExit('changed')\n")
    assert cached_probe(python, import_tf=False).metadata_seconds == first.metadata_seconds
    (site / "keras-3.0.0.dist-info").mkdir()  # an install changes the folder's mtime
    (site / "keras-3.0.0.dist-info" / "METADATA").write_text("Name: keras\nVersion: 3.0.0\n")
    again = cached_probe(python, import_tf=False)
    assert again.packages.get("keras") == "3.0.0"


@pytest.mark.tf
def test_real_tensorflow_cpu_probe():
    result = probe_interpreter(MAIN_PYTHON, timeout=240)
    assert result.ok, (result.error, result.import_stderr[-2000:])
    assert result.tf_version.startswith("2.21") and result.import_ok
    assert result.gpus == [] and any("CPU" in d for d in result.devices)
    assert result.tf_native_module.endswith("_pywrap_tensorflow_internal.so")
    assert result.keras_version and result.built_with_cuda is not None
    # verbose level 1 shows TF's per-library loader lines
    assert "dso_loader" in result.import_stderr


@pytest.mark.tf
def test_probe_timings_against_bare_python():
    """Not an assertion on time: prints the numbers for the report."""
    def seconds(argv):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        return time.perf_counter() - started

    bare = seconds([MAIN_PYTHON, "-c", "pass"])
    meta = probe_interpreter(MAIN_PYTHON, import_tf=False).metadata_seconds
    bare_tf = seconds([MAIN_PYTHON, "-c", "import tensorflow"])
    full = probe_interpreter(MAIN_PYTHON, timeout=240)
    print(f"\npython -c pass {bare:.3f} s; metadata probe {meta:.3f} s; "
          f"python -c 'import tensorflow' {bare_tf:.2f} s; "
          f"import probe {full.import_seconds:.2f} s")


def test_a_program_that_does_not_start_is_told_with_windows_error_number():
    """Windows' CreateProcess failures are known by their number (WinError 1359, "Internal
    error", which Wine raises under load): the reason keeps it beside the words; elsewhere there
    is no such number and the words stand alone."""
    exc = OSError(22, "Internal error", None, 1359)
    expected = "Internal error, WinError 1359" if sys.platform == "win32" else "Internal error"
    assert os_error_text(exc) == expected
    assert os_error_text(FileNotFoundError(2, "No such file or directory")) == (
        "No such file or directory")
