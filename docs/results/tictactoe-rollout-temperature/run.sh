#!/bin/bash
# Tic-Tac-Toe `laptop`: MAGE with rollouts at the evaluation's temperature, against the default, and the
# warm start's evaluation on the same tasks. Usage (repository root, after a build):
#   bash docs/results/tictactoe-rollout-temperature/run.sh [seed ...]   (default 11 12 13 14 15 16)
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-rollout-temperature}
mkdir -p "$OUT/runs" "$OUT/evals"
IN=mcts-100,pattern-centre-first,pattern-corners-first,pattern-edges-first,pattern-main-diagonal-first,pattern-anti-diagonal-first,pattern-bottom-right-sweep,random
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(11 12 13 14 15 16)
for s in "${seeds[@]}"; do
  T=(--env tictactoe --preset laptop --seed "$s")
  # The warm start's evaluation on the runs' tasks: one iteration that changes nothing.
  $M train "${T[@]}" --run-dir "$OUT/runs/ws-s$s" --iterations 1 --set ppo.lr=1e-12
  $M train "${T[@]}" --run-dir "$OUT/runs/t07tl-s$s" --set rollout.temperature=0.7
  $M train "${T[@]}" --run-dir "$OUT/runs/t1-s$s"
done
# Before the log-prob fix (code d2fbbd1): --set rollout.temperature=0.7 (runs/t07-s*), and with
# --set rollout.topP=0.8 --set rollout.topK=20 too (runs/evalsamp-s*).
# The larger paired evaluation of seeds 11-13:
for s in 11 12 13; do
  warm=$($M pretrain --env tictactoe --seed "$s" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).dir))')
  $M eval --env tictactoe --policy "$warm" --method mage --opponents $IN --episodes 64 --seed 1000 --no-memory-baseline --json > "$OUT/evals/big-ws-s$s.json"
  $M eval --env tictactoe --policy "$OUT/runs/t07tl-s$s" --opponents $IN --episodes 64 --seed 1000 --no-memory-baseline --json > "$OUT/evals/big-t07tl-s$s.json"
done
python3 "$(dirname "$0")/table.py" "$OUT/runs" "$OUT/evals"
