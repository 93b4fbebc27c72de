#!/bin/bash
# Tic-Tac-Toe `laptop`: MAGE with mixed groups (`--grouping mixed`: opponents mixed inside the episode and
# step groups) against MAGE's per-opponent groups, one change from the default, from the same warm starts;
# then the larger paired evaluation (the 8 in-domain opponents, 64 meta-episodes each, seed 1000: the 512
# tasks of tictactoe-invalid-combined, whose warm-start (ws) and default (t1) evaluations it is compared with).
# Usage (repository root, after a build; CACHE=<dir> the warm-start cache of tictactoe-invalid-penalty's runs):
#   bash docs/results/tictactoe-grouping/run.sh [seed ...]   (default 14 15 16)
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-grouping}
mkdir -p "$OUT/runs" "$OUT/evals"
IN=mcts-100,pattern-centre-first,pattern-corners-first,pattern-edges-first,pattern-main-diagonal-first,pattern-anti-diagonal-first,pattern-bottom-right-sweep,random
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(14 15 16)
for s in "${seeds[@]}"; do
  T=(--env tictactoe --preset laptop --seed "$s" ${CACHE:+--cache-dir "$CACHE"})
  [ -f "$OUT/runs/mixed-s$s/metrics.jsonl" ] && grep -q '"type":"eval"' "$OUT/runs/mixed-s$s/metrics.jsonl" ||
    $M train "${T[@]}" --run-dir "$OUT/runs/mixed-s$s" --resume --grouping mixed
  [ -s "$OUT/evals/big-mixed-s$s.json" ] ||
    $M eval --env tictactoe --policy "$OUT/runs/mixed-s$s" --method mage --opponents $IN --episodes 64 --seed 1000 \
      --no-memory-baseline --json > "$OUT/evals/big-mixed-s$s.json"
done
