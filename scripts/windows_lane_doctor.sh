#!/usr/bin/env bash
# The doctor against the real TensorFlow 2.10.1 Windows wheel, under Wine: the Windows lane's
# doctor check. Run through the lane, which exports WINEPREFIX, $WINPY and $TFPY:
#
#   scripts/windows_lane.sh shell scripts/windows_lane_doctor.sh [--record DIR]
#
# `tensordeck doctor --json --python $TFPY`, run by Windows CPython ($WINPY), three times:
#   healthy_no_gpu          TF imports, no NVIDIA driver: first finding no-nvidia-driver (a
#                           warning: CPU training works), nothing worse;
#   missing_vcruntime140_1  VCRUNTIME140_1.dll moved out of the TF Python's folder and System32:
#                           the first finding names it, with the VC++ Redistributable fix (found
#                           by the dependency walk; the loader's message names no DLL);
#   missing_msvcp140_1      MSVCP140_1.dll moved out of System32 (the Python folder has none; TF's
#                           self-check names it): the same.
# Moved DLLs always go back (trap). Prints `windows-lane doctor: PASS|FAIL <case>` lines and
# exits 1 on any failure.
# --record DIR also saves each case's raw `import tensorflow` output (tf210_<case>.txt) and
# the probe and GPU report the doctor diagnosed (probe_tf210_<case>.json): tests/data/windows.
# Wine's gap worked around here: python.exe dies at start when its stdout or stderr is a
# regular file, so Windows programs only ever write into pipes.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${WINEPREFIX:?run through scripts/windows_lane.sh shell}" "${WINPY:?}" "${TFPY:?}"

record=
if [ "${1:-}" = "--record" ]; then
  record=$(realpath "${2:?--record DIR}")
  mkdir -p "$record"
fi

started=$(date +%s)
tf_dir=$(dirname "$(winepath -u "$TFPY" 2>/dev/null)")
system32=$WINEPREFIX/drive_c/windows/system32
stash=$(mktemp -d)
moved=()  # "original path" of every DLL in $stash

hide() {  # hide DLL: move every copy the loader could find (case-insensitive names) aside
  local folder path
  for folder in "$tf_dir" "$system32"; do
    while IFS= read -r path; do
      mkdir -p "$stash/$(basename "$folder")"
      mv "$path" "$stash/$(basename "$folder")/"
      moved+=("$path")
    done < <(find "$folder" -maxdepth 1 -iname "$1")
  done
}
restore() {
  local path
  for path in "${moved[@]}"; do
    mv -f "$stash/$(basename "$(dirname "$path")")/$(basename "$path")" "$path"
  done
  moved=()
}
trap 'restore; rm -rf "$stash"' EXIT
trap 'exit 130' INT TERM

failures=0
run_case() {  # run_case NAME EXPECTED-EXIT FIRST-ID NAMED-TEXT
  local name=$1 want_rc=$2 first_id=$3 named=$4 out=$stash/$1.json rc verdict
  set +e
  wine "$WINPY" -m core doctor --json --python "$TFPY" 2> >(cat >"$stash/$name.err") \
    | cat >"$out"
  rc=${PIPESTATUS[0]}
  set -e
  verdict=$(python3 - "$out" "$rc" "$want_rc" "$first_id" "$named" <<'PY'
import json, sys

path, rc, want_rc, first_id, named = sys.argv[1:]
try:
    data = json.load(open(path, encoding="utf-8"))
except ValueError as exc:
    print(f"FAIL doctor printed no JSON ({exc}); exit {rc}")
    sys.exit()
findings = data["findings"]
first = findings[0] if findings else {}
problems = []
if rc != want_rc:
    problems.append(f"exit {rc}, expected {want_rc}")
if first.get("id") != first_id:
    problems.append(f"first finding {first.get('id')}, expected {first_id}")
if named.lower() not in first.get("title", "").lower():
    problems.append(f"first finding's title does not name {named}")
[interp] = data["interpreters"] or [{}]
if first_id == "no-nvidia-driver":
    if not interp.get("import_ok") or interp.get("tf_version") != "2.10.1":
        problems.append(f"TF 2.10.1 did not import: {interp.get('error')}")
    if any(f["severity"] == "error" for f in findings):
        problems.append("an error finding on a healthy machine")
else:
    if "Visual C++ Redistributable" not in first.get("fix", ""):
        problems.append("the fix does not name the Visual C++ Redistributable")
    if any("python310.dll" in f["title"].lower() for f in findings):
        problems.append("a finding blames python310.dll (the interpreter's own DLL)")
status = "FAIL " + "; ".join(problems) if problems else "PASS"
print(f"{status} (first finding: {first.get('id')}: {first.get('title')})")
PY
)
  echo "windows-lane doctor: ${verdict%% *} $name ${verdict#* }"
  if [ "${verdict%% *}" != PASS ]; then
    failures=$((failures + 1))
    sed 's/^/    /' "$stash/$name.err" | tail -n 20
  fi
  if [ -n "$record" ]; then
    wine "$TFPY" -c "import tensorflow as tf; print(tf.__version__); \
print(tf.config.list_physical_devices())" 2>&1 | cat >"$record/tf210_$name.txt" || true
    wine "$WINPY" -c "import json, sys
from core.gpu import read_gpus
from core.interpreters.probe import probe_interpreter
print(json.dumps({'gpus': read_gpus(processes=False).to_json(),
                  'probe': probe_interpreter(sys.argv[1]).to_json()}, indent=1))" "$TFPY" \
      2> >(cat >&2) | cat >"$record/probe_tf210_$name.json"
  fi
}

run_case healthy_no_gpu 0 no-nvidia-driver "NVIDIA driver"
hide vcruntime140_1.dll
run_case missing_vcruntime140_1 1 missing-msvc-runtime vcruntime140_1.dll
restore
hide msvcp140_1.dll
run_case missing_msvcp140_1 1 missing-msvc-runtime msvcp140_1.dll
restore

echo "windows-lane doctor: $((3 - failures))/3 cases passed in $(($(date +%s) - started)) s"
[ "$failures" -eq 0 ]
