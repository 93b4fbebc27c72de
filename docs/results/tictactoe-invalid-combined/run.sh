#!/bin/bash
# Tic-Tac-Toe `laptop`: MAGE with rollouts at the evaluation's temperature (0.7, log-probs at 0.7) and twice the
# invalid-move penalty (10), the two changes that each lowered invalid moves on average, together; then the
# larger paired evaluation (the 8 in-domain opponents, 64 meta-episodes each, seed 1000: the same 512 tasks)
# of the warm start, the default run, each change alone and both.
# Usage (repository root, after a build; RUNS=<dir> holding ws-s*, t1-s* and p10-s* of
# tictactoe-invalid-penalty's run.sh, made from the same warm starts; CACHE=<dir> their warm-start cache):
#   bash docs/results/tictactoe-invalid-combined/run.sh [seed ...]   (default 14 15 16)
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-invalid-combined}
RUNS=${RUNS:-experiments/tictactoe-invalid-penalty/runs}
mkdir -p "$OUT/runs" "$OUT/evals"
IN=mcts-100,pattern-centre-first,pattern-corners-first,pattern-edges-first,pattern-main-diagonal-first,pattern-anti-diagonal-first,pattern-bottom-right-sweep,random
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(14 15 16)
big() { # <policy> <name>
  [ -s "$OUT/evals/big-$2.json" ] ||
    $M eval --env tictactoe --policy "$1" --method mage --opponents $IN --episodes 64 --seed 1000 --no-memory-baseline --json > "$OUT/evals/big-$2.json"
}
for s in "${seeds[@]}"; do
  T=(--env tictactoe --preset laptop --seed "$s" ${CACHE:+--cache-dir "$CACHE"})
  [ -f "$OUT/runs/c07p10-s$s/metrics.jsonl" ] ||
    $M train "${T[@]}" --run-dir "$OUT/runs/c07p10-s$s" --set rollout.temperature=0.7 --set advantage.invalidPenalty=10
  big "$OUT/runs/c07p10-s$s" "c07p10-s$s"
  big "$RUNS/ws-s$s" "ws-s$s"
  big "$RUNS/t1-s$s" "t1-s$s"
done
# Each change alone, by the same evaluation (rollouts at 0.7: tictactoe-rollout-temperature's t07tl-s*).
for s in "${seeds[@]}"; do
  big "$RUNS/p10-s$s" "p10-s$s"
  [ -z "${T07:-}" ] || big "$T07/t07tl-s$s" "t07tl-s$s"
done
