#!/usr/bin/env bash
# The distribution as a user gets it, following README.md: build the wheel and sdist (`python -m build`:
# the sdist, then the wheel from the sdist, so nothing is built inside the checkout), install the wheel
# in a fresh virtual environment in a temporary folder (not the checkout), and run .ci/smoke.py from
# there: the README's flow in a folder outside the checkout (`figbench baseline run` writing
# ./results/<spec>.json, `figbench submit results/<spec>.json`, `figbench leaderboard space --out space`
# installed offline from its own folder into another environment and serving the board, printing its URL),
# then a corpus, a metric, a baseline, a submission and quickstart; before it, the core alone (the wheel without
# extras in a venv of its own: .ci/core_smoke.py).
# Usage: .ci/wheel_smoke.sh [WORK_DIR]   (default: a new temporary folder; printed at the end)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d -t figbench-wheel-XXXXXX)}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
py="${PYTHON:-python3}"
builder="$root/.venv/bin/python"; [ -x "$builder" ] || builder="$py"

rm -rf "$work/dist" "$work/venv" "$work/core-venv" "$work/space-venv" "$work/user" "$work/core"
before="$(ls -A "$root" | sort)"
"$builder" -m build --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
# what the build left in the checkout (beside the egg-info that `pip install -e` makes too): must be nothing
comm -13 <(echo "$before") <(ls -A "$root" | sort) | grep -v '\.egg-info$' >"$work/source_tree_new.txt" || true
wheel="$(ls "$work"/dist/figbench-*.whl)"
"$py" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip
"${pip[@]}" torch==2.13.0                      # the CPU build first, so figbench's torch range is satisfied
"${pip[@]}" "$wheel[all]"                      # every extra, as make setup installs them
# the core alone (`pip install figbench`: no extra, no torch) in a venv of its own
"$py" -m venv "$work/core-venv"
"$work/core-venv/bin/python" -m pip install --quiet --upgrade pip
"$work/core-venv/bin/python" -m pip install --quiet "$wheel"
cd "$work"                                      # never the source tree from here on
FIGBENCH_SOURCE_ROOT="$root" "$work/core-venv/bin/python" "$root/.ci/core_smoke.py" "$work"
FIGBENCH_SOURCE_ROOT="$root" "$work/venv/bin/python" "$root/.ci/smoke.py" "$work"
echo "wheel smoke passed in $work"
