#!/usr/bin/env bash
# Smoke test of the frozen app on Linux: build dist/TensorDeck with build_installer.spec, then
# run its two executables the way users do, and print the numbers of the README's table.
#   scripts/smoke_frozen.sh             build, then test
#   scripts/smoke_frozen.sh --no-build  test the dist/TensorDeck already there
# TRAIN_PYTHON: the training interpreter, a Python with TensorFlow (default .venv/bin/python).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
train_python=${TRAIN_PYTHON:-$root/.venv/bin/python}
app=$root/dist/TensorDeck
cli=$app/tensordeck
gui=$app/tensordeck-gui

case "${1:-}" in
  "") scripts/build.sh --no-tarball ;;
  --no-build) ;;
  *) echo "usage: scripts/smoke_frozen.sh [--no-build]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The smoke's settings and run folders stay out of the user's own.
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
json_check() {  # json_check FILE PYTHON-EXPRESSION-ON-d: the expression must be true
  "$train_python" -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

[ -x "$cli" ] && [ -x "$gui" ] || fail "$app lacks tensordeck or tensordeck-gui"
[ ! -e "$app/_internal/tensorflow" ] || fail "TensorFlow is inside the bundle"
echo "smoke: folder $(du -sm "$app" | cut -f1) MB"

# 1. Version, and the console start-up time (the first run is the cold one).
expected="tensordeck $("$train_python" resources/installer/bundle_info.py version)"
[ "$("$cli" --version)" = "$expected" ] || fail "--version is not '$expected'"
t0=$(now_ms); "$cli" --help >/dev/null; t1=$(now_ms)
echo "smoke: tensordeck --help in $((t1 - t0)) ms"

# 2. Internal commands reach the command line from both executables.
"$cli" _remote-task --help | grep -q "_remote-task" || fail "tensordeck _remote-task"
"$gui" _remote-task --help | grep -q "_remote-task" || fail "tensordeck-gui _remote-task"

# 3. The watchdog: kills a registered process group once its stdin closes.
setsid sleep 300 &
group=$!
disown "$group"
printf '["watch", %s]\n' "$group" | "$cli" _watchdog  # one JSON frame (core.proctree.Watchdog)
for _ in $(seq 50); do kill -0 "$group" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$group" 2>/dev/null; then kill -9 "$group"; fail "_watchdog left its group alive"; fi

# 4. The doctor, probing the training interpreter (its probes are read from the bundle).
rc=0; "$cli" doctor --json --python "$train_python" >"$work/doctor.json" || rc=$?
[ "$rc" -le 1 ] || fail "doctor exited with $rc"
json_check "$work/doctor.json" 'd["interpreters"][0]["import_ok"] and d["interpreters"][0]["tf_version"]' \
  || fail "doctor --json did not see TensorFlow in $train_python"

# 4b. The doctor's wording model is read from the bundle: a question no rule knows (corpus c017)
#     gets the cause its words point at.
printf 'the cuda version of my laptop is 12.1, but I can not find the correspond tensorflow-gpu version\n' \
  >"$work/question.txt"
"$cli" doctor --explain "$work/question.txt" --json >"$work/explain.json" || true
json_check "$work/explain.json" 'd["findings"][0]["title"].startswith("Possibly: ")' \
  || fail "doctor --explain made no guess from the wording: $(cat "$work/explain.json")"

# 5. A task's environment: the user's LD_LIBRARY_PATH, nothing of the bundle but the runtime
#    (bash's "_", the last command run, is the shell's own).
mkdir "$work/env"
cat >"$work/env/env_dump.py" <<'PY'
import json, os
import tensordeck_runtime  # shipped in the bundle, on the task's PYTHONPATH
print("ENV=" + json.dumps(dict(os.environ)))
PY
printf '{"name": "env", "strategy": "single", "script": "env_dump.py", "python": "%s"}\n' \
  "$train_python" >"$work/env/job.json"
LD_LIBRARY_PATH=/smoke/user/lib "$cli" --run "$work/env/job.json" --run-dir "$work/env/run" \
  >"$work/env.out" 2>&1 || { cat "$work/env.out"; fail "the environment job failed"; }
sed -n 's/^ENV=//p' "$work/env/run/logs/"*.log >"$work/env.json"
json_check "$work/env.json" "d['LD_LIBRARY_PATH'] == '/smoke/user/lib' and not [k for k, v in
  d.items() if '$app' in v and k != '_' and v != '$app/_internal/resources/runtime']" \
  || fail "a task's environment points into the bundle: $(cat "$work/env.json")"

# 6. The quickstart example (1 ps, 2 workers, a chief) with the training interpreter.
cp -r resources/examples "$work/examples"
"$train_python" - "$work/examples/quickstart.json" "$train_python" <<'PY'
import json, sys
path, python = sys.argv[1:]
config = json.load(open(path))
config["python"] = python
json.dump(config, open(path, "w"))
PY
t0=$(now_ms)
"$cli" --run "$work/examples/quickstart.json" --run-dir "$work/quickstart" >"$work/quickstart.out" 2>&1 \
  || { tail -30 "$work/quickstart.out"; fail "the quickstart run failed"; }
echo "smoke: quickstart run in $(( ($(now_ms) - t0) / 1000 )) s"
json_check "$work/quickstart/summary.json" 'd["status"] == "succeeded"' || fail "summary.json"
for task in chief-0 worker-0 worker-1 ps-0; do
  [ -s "$work/quickstart/logs/$task.log" ] || fail "no log for $task in the run folder"
done

# 7. The window: shown offscreen, then quit cleanly.
QT_QPA_PLATFORM=offscreen "$gui" --smoke || fail "tensordeck-gui --smoke"
echo "smoke: ok"
