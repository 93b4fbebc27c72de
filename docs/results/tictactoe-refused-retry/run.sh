#!/bin/bash
# Tic-Tac-Toe `laptop`: MAGE with refused-action rows (`ppo.refusedRetry` 1: every retry after a refused move
# also trains the refused move at the retry's prompt with the refused turn's advantage), one change from the
# default; then the larger paired evaluation (the 8 in-domain opponents, 64 meta-episodes each, seed 1000:
# the 512 tasks of tictactoe-invalid-combined, whose warm-start and default evaluations it is compared with).
# Usage (repository root, after a build; CACHE=<dir> the warm-start cache of tictactoe-invalid-penalty's runs):
#   bash docs/results/tictactoe-refused-retry/run.sh [seed ...]   (default 14 15 16)
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-refused-retry}
mkdir -p "$OUT/runs" "$OUT/evals"
IN=mcts-100,pattern-centre-first,pattern-corners-first,pattern-edges-first,pattern-main-diagonal-first,pattern-anti-diagonal-first,pattern-bottom-right-sweep,random
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(14 15 16)
for s in "${seeds[@]}"; do
  T=(--env tictactoe --preset laptop --seed "$s" ${CACHE:+--cache-dir "$CACHE"})
  [ -f "$OUT/runs/rr1-s$s/metrics.jsonl" ] && grep -q '"type":"eval"' "$OUT/runs/rr1-s$s/metrics.jsonl" ||
    $M train "${T[@]}" --run-dir "$OUT/runs/rr1-s$s" --resume --set ppo.refusedRetry=1
  [ -s "$OUT/evals/big-rr1-s$s.json" ] ||
    $M eval --env tictactoe --policy "$OUT/runs/rr1-s$s" --method mage --opponents $IN --episodes 64 --seed 1000 \
      --no-memory-baseline --json > "$OUT/evals/big-rr1-s$s.json"
done
