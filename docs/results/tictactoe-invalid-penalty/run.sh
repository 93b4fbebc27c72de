#!/bin/bash
# Tic-Tac-Toe `laptop`: MAGE with twice the invalid-move penalty (advantage.invalidPenalty 10 instead of 5),
# against the default and the warm start on the same tasks (each run's own final evaluation: 16
# meta-episodes per in-domain opponent, 128 in all). One change.
# Usage (repository root, after a build; CACHE=<dir> for another warm-start cache):
#   bash docs/results/tictactoe-invalid-penalty/run.sh [seed ...]
#   (default 14 15 16 11 12 13)
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-invalid-penalty}
mkdir -p "$OUT/runs"
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(14 15 16 11 12 13)
for s in "${seeds[@]}"; do
  T=(--env tictactoe --preset laptop --seed "$s" ${CACHE:+--cache-dir "$CACHE"})
  $M train "${T[@]}" --run-dir "$OUT/runs/p10-s$s" --set advantage.invalidPenalty=10
  # The warm start's evaluation on the runs' tasks (one iteration that changes nothing) and the default run;
  # skipped when tictactoe-rollout-temperature's run.sh made them on this machine already.
  [ -f "$OUT/runs/ws-s$s/metrics.jsonl" ] || $M train "${T[@]}" --run-dir "$OUT/runs/ws-s$s" --iterations 1 --set ppo.lr=1e-12
  [ -f "$OUT/runs/t1-s$s/metrics.jsonl" ] || $M train "${T[@]}" --run-dir "$OUT/runs/t1-s$s"
done
