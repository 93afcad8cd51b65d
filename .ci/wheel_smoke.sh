#!/usr/bin/env bash
# The distribution as a user gets it: build the wheel (and sdist), install it in a fresh virtual
# environment in a temporary folder (not the checkout), write the leaderboard Space folder with the
# installed figbench, install the Space's requirements from the wheel, and run .ci/smoke.py from
# there (a corpus, a metric, a baseline, a submission, quickstart, the Space serving its page).
# Usage: .ci/wheel_smoke.sh [WORK_DIR]   (default: a new temporary folder; printed at the end)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d -t figbench-wheel-XXXXXX)}"
mkdir -p "$work"
py="${PYTHON:-python3}"
builder="$root/.venv/bin/python"; [ -x "$builder" ] || builder="$py"

rm -rf "$work/dist" "$work/venv" "$work/space"
"$builder" -m build --wheel --sdist --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
wheel="$(ls "$work"/dist/figbench-*.whl)"
"$py" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip
"${pip[@]}" torch==2.13.0                      # the CPU build first, so figbench's torch range is satisfied
"${pip[@]}" "$wheel"
cd "$work"                                      # never the source tree from here on
"$work/venv/bin/figbench" leaderboard space --out "$work/space" --wheel "$wheel" --torch-index ""
(cd "$work/space" && "${pip[@]}" -r requirements.txt)   # ./figbench-*.whl is relative to the Space folder
FIGBENCH_SOURCE_ROOT="$root" "$work/venv/bin/python" "$root/.ci/smoke.py" "$work"
echo "wheel smoke passed in $work"
