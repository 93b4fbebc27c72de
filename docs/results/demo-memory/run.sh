#!/bin/bash
# The demo's memory task on several seeds, each the whole `npm run demo` (install, build, warm start,
# training, evaluation) timed with its load average, then its report copied here.
# Usage (from the repository root, installed and built): bash docs/results/demo-memory/run.sh [seed ...]
# (default seeds 1 2 3). `--no-build` skips the install and build steps, which are not part of the 6 minutes.
# A fresh warm start per seed (its own cache directory, emptied first), as on a fresh clone.
set -euo pipefail
HERE=docs/results/demo-memory
mkdir -p "$HERE/evals" "$HERE/logs"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
for s in "${seeds[@]}"; do
  rm -rf "experiments/demo-memory/cache-s$s" "runs/demo-higher-lower5-s$s"
  echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)" > "$HERE/logs/demo-s$s.txt"
  /usr/bin/time -v npm run demo -- --no-build --seed "$s" --cache-dir "experiments/demo-memory/cache-s$s" >> "$HERE/logs/demo-s$s.txt" 2>&1
  echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$HERE/logs/demo-s$s.txt"
  cp "runs/demo-higher-lower5-s$s/report.md" "$HERE/evals/demo-s$s.md"
  cp "runs/demo-higher-lower5-s$s/report.json" "$HERE/evals/demo-s$s.json"
done
