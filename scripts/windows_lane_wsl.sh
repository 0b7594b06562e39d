# The wsl.exe stand-in for the Windows lane's test runs (sourced by scripts/windows_lane.sh).
#
# Windows CPython under Wine cannot start a Linux program, so the lane's Linux side builds the
# stand-in (tests/wsl/wsl_standin.c: the mingw wsl.exe the tests start) and runs its Linux
# server, which runs each "distribution" command on this machine with the Wine prefix's drive
# C: at /mnt/c and / at /mnt/z; TENSORDECK_WSL_STANDIN tells tests/wsl/fixtures.py where it
# is. One server per prefix (the lines of stages side by side have a drive C: each). The
# distributions' "tf" venv, where TensorFlow trains on the Linux side, is the Linux suite's
# .venv (tensorflow-cpu); CI makes it beside the lane, so the server waits for it, at most
# WSL_VENV_WAIT seconds.

WSL_VENV_WAIT=${WSL_VENV_WAIT:-900}

# wsl_standin_up: build the stand-in and start its server for this prefix.
wsl_standin_up() {
  [ -n "${TENSORDECK_WSL_STANDIN:-}" ] && return 0
  local state=$lane_home/wsl-standin-${WINEPREFIX##*/} venv=$root/.venv waited=0
  rm -rf "$state" && mkdir -p "$state"
  python3 -m tests.wsl.build "$state" >/dev/null || { say "FAIL: building the wsl.exe stand-in"; return 1; }
  until "$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1; do
    if [ $waited -ge "$WSL_VENV_WAIT" ]; then
      say "FAIL: the WSL tests train in $venv, which has no TensorFlow: make it first" \
          "(python3 -m venv .venv && .venv/bin/pip install -e '.[test]')"
      return 1
    fi
    sleep 10
    waited=$((waited + 10))
  done
  # The server stops, with everything it started, when its stdin closes: a FIFO whose writer
  # is this shell (closed by wsl_standin_down, or when the lane dies).
  mkfifo "$state/stdin"
  python3 -m tests.wsl.wsl_server --state "$state" --venv "$venv" --drive "c=$drive_c" \
    --drive z=/ <"$state/stdin" >"$state/server.log" 2>&1 &
  wsl_server_pid=$!
  exec {wsl_server_stdin}>"$state/stdin"
  local n=0
  until [ -f "$state/server.json" ]; do
    if ! kill -0 "$wsl_server_pid" 2>/dev/null || [ $n -ge 600 ]; then
      say "FAIL: the wsl.exe stand-in's server did not start:"
      cat "$state/server.log"
      return 1
    fi
    sleep 0.1
    n=$((n + 1))
  done
  export TENSORDECK_WSL_STANDIN="Z:${state//\//\\}"
  say "wsl.exe stand-in: server $wsl_server_pid, its state in $state"
}

# wsl_standin_down: stop the server and everything it started.
wsl_standin_down() {
  [ -n "${wsl_server_pid:-}" ] || return 0
  exec {wsl_server_stdin}>&-
  # Windows programs started since (the wineserver too) may hold the FIFO open: say it too.
  kill -TERM "$wsl_server_pid" 2>/dev/null || true
  wait "$wsl_server_pid" 2>/dev/null || true
  unset wsl_server_pid TENSORDECK_WSL_STANDIN
}
