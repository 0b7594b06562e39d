"""The packaging files: the PyInstaller spec, the NSIS installer script, the Windows workflow, the
entry scripts of the two executables and the icon. Fast checks (the installer is compiled where
makensis is installed); the frozen app itself is built and run by scripts/smoke_frozen.sh, and
the installer built, installed and removed by the Windows lane (scripts/windows_lane.sh)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import core
from tests.conftest import wait_none

ROOT = Path(__file__).resolve().parent.parent
INSTALLER = ROOT / "resources" / "installer"
sys.path.insert(0, str(INSTALLER))
import bundle_info  # noqa: E402

SPEC = ROOT / "build_installer.spec"
NSI = INSTALLER / "tensordeck.nsi"
WORKFLOW = ROOT / ".github" / "workflows" / "windows.yml"


def _nsi_text() -> str:
    return NSI.read_text(encoding="utf-8-sig")


def _nsi_defines() -> dict[str, str]:
    return dict(re.findall(r'^\s*!define\s+(\w+)\s+"([^"]*)"', _nsi_text(), re.M))


def _nsi_section(name: str) -> str:
    """The body of the NSIS section whose title is ``name`` (quoted in the script)."""
    found = re.search(rf'^Section (?:/o )?"{re.escape(name)}".*?$(.*?)^SectionEnd', _nsi_text(),
                      re.M | re.S)
    assert found, f"no Section {name!r} in {NSI.name}"
    return found.group(1)


def _registry(text: str) -> tuple[set[tuple[str, str]], set[str], set[tuple[str, str]]]:
    """The HKCU registry commands of NSIS ``text``, defines expanded: the (key, value) pairs it
    writes, the keys it deletes whole, the (key, value) pairs it deletes."""
    defines = _nsi_defines()

    def expand(key: str) -> str:
        for name, value in defines.items():
            key = key.replace(f"${{{name}}}", value)
        return key

    pairs = r'HKCU "([^"]+)" "([^"]*)"'
    written = {(expand(k), v) for k, v in re.findall(rf"^\s*WriteReg\w+ {pairs}", text, re.M)}
    keys = {expand(k) for k in re.findall(r'^\s*DeleteRegKey HKCU "([^"]+)"', text, re.M)}
    values = {(expand(k), v) for k, v in re.findall(rf"^\s*DeleteRegValue {pairs}", text, re.M)}
    return written, keys, values


def _spec_list(name: str) -> list[str]:
    """A list of string literals assigned to ``name`` at the top of the spec."""
    for node in ast.parse(SPEC.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError(f"{name} is not assigned in {SPEC.name}")


# -- name and version ----------------------------------------------------------------------


def test_version_and_name_read_without_importing_match_the_package():
    assert bundle_info.project_version() == core.__version__
    assert bundle_info.project_name() == "tensordeck"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^tensordeck = "core\.entry:main"$', pyproject, re.M), (
        "the console executable and pip's console script must have the same name"
    )


def test_version_reader_on_other_trees(tmp_path):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "__init__.py").write_text('"""Doc."""\nX = 1\n__version__ = "2.3.4rc1"\n')
    (tmp_path / "pyproject.toml").write_text(
        '[build-system]\nname = "not-this"\n\n[project]\nname = "other"\nversion = "9"\n'
    )
    assert bundle_info.project_version(tmp_path) == "2.3.4rc1"
    assert bundle_info.project_name(tmp_path) == "other"
    assert bundle_info.version_tuple("2.3.4rc1") == (2, 3, 4, 0)
    assert bundle_info.version_tuple("1.2") == (1, 2, 0, 0)
    (tmp_path / "core" / "__init__.py").write_text("__version__ = compute()\n")
    with pytest.raises(ValueError, match="__version__"):
        bundle_info.project_version(tmp_path)


def test_bundle_info_prints_for_shell_scripts():
    run = subprocess.run([sys.executable, str(INSTALLER / "bundle_info.py"), "version"],
                         capture_output=True, text=True, check=True)
    assert run.stdout.strip() == core.__version__
    bad = subprocess.run([sys.executable, str(INSTALLER / "bundle_info.py"), "size"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "usage" in bad.stderr


# -- the spec ------------------------------------------------------------------------------


def test_spec_parses_and_keeps_tensorflow_and_other_qt_bindings_out():
    excludes = _spec_list("EXCLUDES")
    assert {"tensorflow", "keras", "PyQt5", "PyQt6", "tkinter", "matplotlib"} <= set(excludes)
    # pyqtgraph imports these when it is imported: excluding them breaks the window.
    assert not set(excludes) & {"PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets"}
    text = SPEC.read_text(encoding="utf-8")
    scripts = re.findall(r'analysis\("(\w+\.py)"', text)
    assert scripts == ["entry_cli.py", "entry_gui.py"]
    assert all((INSTALLER / script).is_file() for script in scripts)
    assert "upx=False" in text


def test_every_python_file_core_and_gui_read_as_text_is_shipped_as_source():
    """A .py file named in a string literal, or ``Path(module.__file__)`` read back, is run in
    another interpreter: the frozen app has no source unless the spec ships it."""
    read = set()
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("gui/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"[\"']([A-Za-z_]\w*\.py)[\"']", text):
            read |= {p.relative_to(ROOT).as_posix() for p in ROOT.glob(f"core/**/{name}")}
            read |= {p.relative_to(ROOT).as_posix() for p in ROOT.glob(f"gui/**/{name}")}
        for module in re.findall(r"Path\((\w+)\.__file__\)", text):
            read |= {p.relative_to(ROOT).as_posix() for p in ROOT.glob(f"core/**/{module}.py")}
    assert "core/remote/node_agent.py" in read  # the scan sees what it must
    assert read <= set(bundle_info.SOURCES_READ_AT_RUN_TIME)


def test_data_files_hold_the_runtime_examples_kb_icons_and_child_sources():
    pairs = {(Path(src).relative_to(ROOT).as_posix(), dest)
             for src, dest in bundle_info.data_files()}
    assert ("resources/runtime/tensordeck_runtime.py", "resources/runtime") in pairs
    assert ("resources/examples/quickstart.json", "resources/examples") in pairs
    assert ("resources/icons/tensordeck.ico", "resources/icons") in pairs
    assert ("core/ports.py", "core") in pairs
    assert ("core/wintree.py", "core") in pairs  # the node agent's process trees
    assert any(dest == "resources/kb" for _, dest in pairs)
    assert not any("installer" in dest for _, dest in pairs)


# -- the installer and the workflow ----------------------------------------------------------


def test_nsi_names_the_same_app_version_and_executables():
    defines = _nsi_defines()
    assert defines["AppName"] == bundle_info.DISPLAY_NAME
    assert defines["AppVersion"] == core.__version__
    assert defines["GuiExe"] == bundle_info.GUI_EXE + ".exe"
    assert defines["CliExe"] == bundle_info.project_name() + ".exe"
    raw = NSI.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "makensis reads non-ASCII as UTF-8 only after a BOM"
    text = _nsi_text()
    assert re.search(r"^RequestExecutionLevel user$", text, re.M)
    assert re.search(r'^InstallDir "\$LOCALAPPDATA\\Programs\\\$\{AppName\}"$', text, re.M)
    icon = re.search(r'^!define MUI_ICON "(.+)"$', text, re.M).group(1).replace("\\", "/")
    assert (INSTALLER / icon).resolve() == ROOT / "resources" / "icons" / "tensordeck.ico"


def test_nsi_pages_are_english_and_simplified_chinese_for_every_string():
    text = _nsi_text()
    assert re.findall(r'^!insertmacro MUI_LANGUAGE "(\w+)"$', text, re.M) == ["English",
                                                                           "SimpChinese"]
    strings: dict[str, set[str]] = {}
    for name, language in re.findall(r"^LangString (\w+) \$\{LANG_(\w+)\}", text, re.M):
        strings.setdefault(name, set()).add(language)
    assert strings and all(langs == {"ENGLISH", "SIMPCHINESE"} for langs in strings.values())
    used = set(re.findall(r"\$\((\w+)\)", text))
    assert used == set(strings), "a page names a string that has no translation, or the reverse"


def test_nsi_uninstaller_undoes_every_registry_write_and_keeps_the_users_data():
    text = _nsi_text()
    uninstall = _nsi_section("Uninstall")
    install = text.replace(uninstall, "")
    written, _, _ = _registry(install)
    _, keys, values = _registry(uninstall)
    # Each value written is deleted itself, or with a key it is in.
    left = {(key, value) for key, value in written if (key, value) not in values
            and not any(key == gone or key.startswith(gone + "\\") for gone in keys)}
    assert len(written) > 10 and left == {("Environment", "Path")}, left  # PATH: EditUserPath
    assert 'Call un.EditUserPath' in uninstall and 'Push "-"' in uninstall
    # Only the bundle's own folder goes recursively; the rest file by file: the user's runs,
    # settings (HKCU\Software\TensorDeck, %LOCALAPPDATA%\TensorDeck) and configs stay.
    assert re.findall(r"RMDir /r (.+)$", uninstall, re.M) == ['"$INSTDIR\\_internal"']
    for users in ('Software\\${AppName}"', 'Software\\TensorDeck"', "$LOCALAPPDATA", "$DOCUMENTS"):
        assert users not in uninstall
    # .json keeps its own default program: TensorDeck only joins its "Open with" list.
    assert not re.search(r'Classes\\\.json" ""', text)


@pytest.mark.skipif(shutil.which("makensis") is None, reason="makensis (NSIS) is not installed")
def test_nsi_compiles_into_a_windows_program(tmp_path):
    app = tmp_path / "TensorDeck"
    (app / "_internal").mkdir(parents=True)
    for name in ("tensordeck.exe", "tensordeck-gui.exe", "_internal/base_library.zip"):
        (app / name).write_bytes(b"stand-in")
    run = subprocess.run(["makensis", "-V2", "-DAppVersion=9.8.7", f"-DAppDir={app}",
                          f"-DOutDir={tmp_path}", str(NSI)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    setup = (tmp_path / "TensorDeck-9.8.7-setup.exe").read_bytes()
    machine = struct.unpack_from("<H", setup, struct.unpack_from("<I", setup, 0x3C)[0] + 4)[0]
    assert setup[:2] == b"MZ" and machine == 0x8664, "a 64-bit Windows program (amd64-unicode)"


def test_workflow_parses_and_builds_what_the_repository_has():
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    job = workflow["jobs"]["installer"]
    assert job["runs-on"] == "windows-latest"
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
    assert {"push", "pull_request"} <= set(triggers)
    commands = "\n".join(step.get("run", "") for step in job["steps"])
    for path in ("build_installer.spec", r"resources\installer\tensordeck.nsi",
                 r"resources\installer\bundle_info.py", r"scripts\windows_lane_installer.py"):
        assert path in commands and (ROOT / path.replace("\\", "/")).is_file()
    assert "pytest" in commands and "makensis.exe" in commands and "--smoke" in commands
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-art"))
    output = re.search(r'^OutFile "\$\{OutDir\}\\(.+)"$', _nsi_text(), re.M)
    expected = output.group(1).replace("${AppName}", bundle_info.DISPLAY_NAME).replace(
        "${AppVersion}", "${{ steps.version.outputs.version }}")
    assert upload["with"]["path"] == f"dist/{expected}"


def test_icon_files_are_real():
    assert (ROOT / "resources/icons/tensordeck.png").read_bytes().startswith(b"\x89PNG")
    ico = (ROOT / "resources/icons/tensordeck.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", ico)
    assert (reserved, kind) == (0, 1) and count >= 4
    sizes = set()
    for i in range(count):
        width, _, _, _, _, _, length, offset = struct.unpack_from("<BBBBHHII", ico, 6 + 16 * i)
        assert ico[offset:offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + length <= len(ico)
        sizes.add(width or 256)
    assert {16, 32, 48, 256} <= sizes


# -- the entry scripts, run unfrozen -------------------------------------------------------


def _entry(script: str, *args: str,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run an entry script as the frozen app would, with ``core`` importable: the frozen app
    bundles it, and the Windows lane runs the tests from the source tree without installing
    TensorDeck (the entry script's own folder, not the tree, is first on ``sys.path``)."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, str(INSTALLER / script), *args],
                          capture_output=True, text=True, timeout=60, env=env)


def test_entries_route_internal_commands_to_the_command_line():
    run = _entry("entry_cli.py", "--version")
    assert run.stdout.strip() == f"tensordeck {core.__version__}", run.stderr
    for script in ("entry_cli.py", "entry_gui.py"):
        run = _entry(script, "_remote-task", "--help")
        assert run.returncode == 0 and "_remote-task" in run.stdout, run.stderr


@pytest.mark.skipif(sys.platform.startswith("win"), reason="the watchdog is POSIX-only")
def test_watchdog_command_kills_registered_groups_when_its_stdin_closes():
    from core.proctree import Watchdog

    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        # The launcher's own client of the watchdog, as the frozen app starts it.
        watchdog = Watchdog([sys.executable, str(INSTALLER / "entry_cli.py"), "_watchdog"])
        watchdog.watch(sleeper.pid)
        watchdog.close()
        assert sleeper.wait(timeout=30) == -signal.SIGKILL
        assert not wait_none(watchdog.alive, timeout=30)
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()


def test_gui_smoke_shows_the_window_and_quits(tmp_path):
    pytest.importorskip("PySide6")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path)}
    run = _entry("entry_gui.py", "--smoke", env=env)
    assert run.returncode == 0, run.stderr
    assert re.search(r"window shown \d+\.\d\d s after process start", run.stdout)
