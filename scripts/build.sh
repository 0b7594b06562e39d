#!/usr/bin/env bash
# Build the frozen app with build_installer.spec: dist/TensorDeck/ (two executables, one
# folder), then a tarball of it, dist/TensorDeck-VERSION-linux-ARCH.tar.gz.
#   scripts/build.sh               folder and tarball
#   scripts/build.sh --no-tarball  the folder only (what the smoke test needs)
# PYTHON names the interpreter whose packages are frozen (default .venv/bin/python); it needs
# the build extra: pip install -e ".[build]".
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}

tarball=1
case "${1:-}" in
  "") ;;
  --no-tarball) tarball=0 ;;
  *) echo "usage: scripts/build.sh [--no-tarball]" >&2; exit 2 ;;
esac
if ! "$python" -c "import PyInstaller" 2>/dev/null; then
  echo "build: PyInstaller is not installed in $python; run: $python -m pip install -e '.[build]'" >&2
  exit 2
fi

name=$("$python" resources/installer/bundle_info.py name)
version=$("$python" resources/installer/bundle_info.py version)
start=$(date +%s%N)
"$python" -m PyInstaller --noconfirm --clean --log-level WARN build_installer.spec
seconds=$(( ($(date +%s%N) - start) / 1000000 ))
size_mb=$(du -sm dist/TensorDeck | cut -f1)
echo "build: $name $version: dist/TensorDeck in $((seconds / 1000)).$(( seconds % 1000 / 100 )) s, ${size_mb} MB"

if [ "$tarball" = 1 ]; then
  archive="dist/TensorDeck-$version-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m).tar.gz"
  tar -C dist -czf "$archive" TensorDeck
  echo "build: $archive ($(du -sm "$archive" | cut -f1) MB)"
fi
