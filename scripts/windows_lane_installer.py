"""The Windows lane's installer checks, run by Windows CPython ($WINPY) inside the lane's Wine
prefix (scripts/windows_lane.sh installer); it asks Windows itself (the registry, the shell's
known folders, the .lnk file's bytes) what the NSIS installer wrote and what its uninstaller left.

  python windows_lane_installer.py prepare STATE PATH  set the user's PATH (HKCU\\Environment)
                                                       before an install; STATE remembers it
  python windows_lane_installer.py installed STATE     check the install
  python windows_lane_installer.py user-data STATE     save what the installed programs made,
                                                       which the uninstall must keep
  python windows_lane_installer.py removed STATE       check the uninstall against STATE (waits
                                                       for the uninstaller's copy in %TEMP%)
  python windows_lane_installer.py path-kept STATE     only the PATH: it is as it was

Prints one `PASS: ...` line per check, or `FAIL: ...` lines and exits 1.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
import sys
import time
import winreg
from pathlib import Path

APP = "TensorDeck"
GUI_EXE = "tensordeck-gui.exe"
CLI_EXE = "tensordeck.exe"
PROG_ID = "TensorDeck.Config"
UNINSTALL_KEY = rf"Software\Microsoft\Windows\CurrentVersion\Uninstall\{APP}"
SETTINGS_KEY = rf"Software\{APP}"  # the window's QSettings (organisation TensorDeck)
#: The uninstaller runs as a copy of itself from %TEMP% and returns at once: wait for it.
UNINSTALL_WAIT_S = 120
# shell32's CSIDL numbers: the folders NSIS's $SMPROGRAMS, $DESKTOP, $DOCUMENTS, $LOCALAPPDATA.
CSIDL = {"programs": 0x02, "desktop": 0x10, "documents": 0x05, "local_appdata": 0x1C}

failures: list[str] = []


def check(ok: bool, what: str, detail: object = "") -> None:
    print(f"PASS: {what}" if ok else f"FAIL: {what}: {detail}", flush=True)
    if not ok:
        failures.append(what)


def known_folder(name: str) -> Path:
    buf = ctypes.create_unicode_buffer(260)
    ctypes.windll.shell32.SHGetFolderPathW(None, CSIDL[name], None, 0, buf)
    return Path(buf.value)


def install_dir() -> Path:
    return known_folder("local_appdata") / "Programs" / APP


def reg_value(path: str, name: str) -> str | int | None:
    """A value under HKCU, or None when the key or the value is not there."""
    try:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, path) as key:
            return winreg.QueryValueEx(key, name)[0]
    except FileNotFoundError:
        return None


def reg_key_exists(path: str) -> bool:
    try:
        winreg.OpenKey(winreg.HKEY_CURRENT_USER, path).Close()
        return True
    except FileNotFoundError:
        return False


def reg_tree(path: str) -> dict[str, object]:
    """Every value under an HKCU key and its subkeys, as {"subkey\\name": data}."""
    found: dict[str, object] = {}
    try:
        key = winreg.OpenKey(winreg.HKEY_CURRENT_USER, path)
    except FileNotFoundError:
        return found
    with key:
        subkeys, values, _ = winreg.QueryInfoKey(key)
        for i in range(values):
            name, data, _ = winreg.EnumValue(key, i)
            found[name] = data
        for i in range(subkeys):
            sub = winreg.EnumKey(key, i)
            found |= {f"{sub}\\{k}": v for k, v in reg_tree(f"{path}\\{sub}").items()}
    return found


def user_path() -> str | None:
    """The user's own PATH (HKCU\\Environment), unexpanded."""
    return reg_value("Environment", "Path")  # type: ignore[return-value]


def set_user_path(value: str) -> None:
    with winreg.CreateKey(winreg.HKEY_CURRENT_USER, "Environment") as key:
        winreg.SetValueEx(key, "Path", 0, winreg.REG_EXPAND_SZ, value)


def shortcut(lnk: Path) -> tuple[str, str]:
    """(target, working folder) of a .lnk file, read as MS-SHLLINK lays it out: the header,
    the optional item-ID list, the LinkInfo (the target's local path), then the strings."""
    data = lnk.read_bytes()
    flags = struct.unpack_from("<I", data, 0x14)[0]
    pos, target = 0x4C, ""
    if flags & 0x01:  # HasLinkTargetIDList
        pos += 2 + struct.unpack_from("<H", data, pos)[0]
    if flags & 0x02:  # HasLinkInfo
        size, header, info_flags, _, base, _, suffix = struct.unpack_from("<7I", data, pos)
        if header >= 0x24:  # the Unicode offsets follow
            base_w, suffix_w = struct.unpack_from("<2I", data, pos + 0x1C)
            target = _utf16z(data, pos + base_w) + _utf16z(data, pos + suffix_w)
        elif info_flags & 0x01:
            target = _ansiz(data, pos + base) + _ansiz(data, pos + suffix)
        pos += size
    strings = {}
    wide = bool(flags & 0x80)
    for bit, name in ((0x04, "name"), (0x08, "relative"), (0x10, "workdir"), (0x20, "args"),
                      (0x40, "icon")):
        if flags & bit:
            count = struct.unpack_from("<H", data, pos)[0]
            width = 2 if wide else 1
            raw = data[pos + 2:pos + 2 + count * width]
            # Wine counts the terminating NUL too; Windows does not.
            strings[name] = raw.decode("utf-16-le" if wide else "mbcs").rstrip("\0")
            pos += 2 + count * width
    return target, strings.get("workdir", "")


def _utf16z(data: bytes, at: int) -> str:
    end = at
    while data[end:end + 2] != b"\0\0":
        end += 2
    return data[at:end].decode("utf-16-le")


def _ansiz(data: bytes, at: int) -> str:
    return data[at:data.index(b"\0", at)].decode("mbcs")


def same_path(a: str | Path, b: str | Path) -> bool:
    return os.path.normcase(os.path.normpath(str(a))) == os.path.normcase(os.path.normpath(str(b)))


def path_entries(value: str | None) -> list[str]:
    return [entry for entry in (value or "").split(";") if entry]


def user_data() -> dict[str, object]:
    """What belongs to the user and must survive an uninstall: the window's settings (registry),
    files under %LOCALAPPDATA%\\TensorDeck, and the run folders of the lane's job."""
    local = known_folder("local_appdata") / APP
    runs = known_folder("documents") / "tensordeck-lane-job" / "runs"
    files = sorted(str(p) for folder in (local, runs) if folder.is_dir()
                   for p in folder.rglob("*") if p.is_file())
    return {"settings": {k: repr(v) for k, v in reg_tree(SETTINGS_KEY).items()}, "files": files}


def check_installed(state: Path) -> None:
    folder = install_dir()
    for name in (GUI_EXE, CLI_EXE, "uninstall.exe", "_internal"):
        check((folder / name).exists(), f"installed {folder / name}")
    lnk = known_folder("programs") / f"{APP}.lnk"
    check(lnk.is_file(), f"Start menu shortcut {lnk}")
    if lnk.is_file():
        target, workdir = shortcut(lnk)
        check(same_path(target, folder / GUI_EXE), "the shortcut starts the window", target)
        check(same_path(workdir, known_folder("documents")), "the shortcut starts in Documents",
              workdir)
    check(not (known_folder("desktop") / f"{APP}.lnk").exists(),
          "no desktop shortcut by default (an option, off)")
    uninstall = reg_value(UNINSTALL_KEY, "QuietUninstallString")
    check(uninstall == f'"{folder}\\uninstall.exe" /S', "uninstall entry (HKCU)", uninstall)
    check(same_path(str(reg_value(UNINSTALL_KEY, "InstallLocation")), folder),
          "uninstall entry's InstallLocation")
    command = reg_value(rf"Software\Classes\{PROG_ID}\shell\open\command", "")
    check(command == f'"{folder}\\{GUI_EXE}" "%1"', '"Open with" command for .json', command)
    check(reg_value(r"Software\Classes\.json\OpenWithProgids", PROG_ID) == "",
          ".json's Open-with list names TensorDeck")
    before = json.loads(state.read_text(encoding="utf-8"))["path"]
    after = user_path()
    check(path_entries(after) == [*path_entries(before), str(folder)],
          "the install folder added to the end of the user's PATH", after)


def save_user_data(state: Path) -> None:
    saved = json.loads(state.read_text(encoding="utf-8"))
    state.write_text(json.dumps({**saved, "user_data": user_data()}), encoding="utf-8")


def check_removed(state: Path) -> None:
    folder = install_dir()
    deadline = time.monotonic() + UNINSTALL_WAIT_S
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    left = sorted(str(p) for p in folder.rglob("*")) if folder.exists() else []
    check(not folder.exists(), f"{folder} removed", left[:5])
    for lnk in (known_folder("programs") / f"{APP}.lnk", known_folder("desktop") / f"{APP}.lnk"):
        check(not lnk.exists(), f"{lnk} removed")
    for key in (UNINSTALL_KEY, rf"Software\Classes\{PROG_ID}",
                rf"Software\Classes\Applications\{GUI_EXE}"):
        check(not reg_key_exists(key), f"HKCU\\{key} removed")
    check(reg_value(r"Software\Classes\.json\OpenWithProgids", PROG_ID) is None,
          ".json's Open-with list no longer names TensorDeck")
    saved = json.loads(state.read_text(encoding="utf-8"))
    check(user_path() == saved["path"], "the user's PATH is as it was before the install",
          f"{user_path()!r} != {saved['path']!r}")
    if "user_data" not in saved:  # nothing ran from this install (the long-PATH round)
        return
    kept = saved["user_data"]
    check(bool(kept["settings"]) and bool(kept["files"]),
          "the installed app made settings and a run folder (the next check has data)", kept)
    check(user_data() == kept, "the user's settings, caches and run folders are all still there",
          user_data())


def check_path_kept(state: Path) -> None:
    before = json.loads(state.read_text(encoding="utf-8"))["path"]
    check(user_path() == before, "a PATH too long to edit safely is left as it was",
          f"{len(user_path() or '')} characters now, {len(before)} before")


def main(argv: list[str]) -> int:
    checks = {"installed": check_installed, "user-data": save_user_data,
              "removed": check_removed, "path-kept": check_path_kept}
    if argv[:1] == ["prepare"] and len(argv) == 3:
        set_user_path(argv[2])
        Path(argv[1]).write_text(json.dumps({"path": argv[2]}), encoding="utf-8")
        return 0
    if len(argv) != 2 or argv[0] not in checks:
        print(__doc__, file=sys.stderr)
        return 2
    checks[argv[0]](Path(argv[1]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
