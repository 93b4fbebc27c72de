#!/bin/bash
# Tic-Tac-Toe against a frozen MCTS-100 with the env's shipped defaults (`--env tictactoe-frozen` and nothing
# else): the agent first, every attempt played, finished attempts revealing the agent's moves, the note-blind
# minimax teacher, the `reading` budget. Per seed: the warm start, its evaluation, MAGE, its evaluation with
# notes, with no memory and with foreign notes on the same 256 tasks (evaluation seed 1000, never trained on).
# Usage: [WARM_ONLY=1] [METHODS='mage gigpo grpo'] bash docs/results/tictactoe-frozen/run-env.sh [seed ...]
# (repository root, after a build). OUT (default experiments/tictactoe-frozen-env) holds the results and, under
# cache/, the warm starts. Resumable: a finished step (its output file) is skipped, a training resumes.
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-frozen-env}
mkdir -p "$OUT/evals"
ENV=(--env tictactoe-frozen)
EVAL=(--opponents mcts-100 --episodes 256 --foreign-notes --seed 1000 --json)
json_dir() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$1"; }
for s in "${@:-1}"; do
  if [ ! -s "$OUT/pretrain-s$s.json" ]; then
    $M pretrain "${ENV[@]}" --seed "$s" --cache-dir "$OUT/cache" --json > "$OUT/pretrain-s$s.json.tmp"
    mv "$OUT/pretrain-s$s.json.tmp" "$OUT/pretrain-s$s.json"
  fi
  warm=$(json_dir "$OUT/pretrain-s$s.json")
  [ -s "$OUT/evals/warm-start-s$s.json" ] ||
    $M eval "${ENV[@]}" --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
  [ -z "${WARM_ONLY:-}" ] || continue
  for m in ${METHODS:-mage}; do
    run="$OUT/runs/$m-s$s"
    [ -s "$OUT/evals/$m-s$s.json" ] && continue
    if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
      resume=()
      [ -d "$run/checkpoints" ] && resume=(--resume)
      $M train "${ENV[@]}" --method "$m" --seed "$s" --model "$warm" --run-dir "$run" "${resume[@]}"
    fi
    $M eval "${ENV[@]}" --policy "$run" "${EVAL[@]}" > "$OUT/evals/$m-s$s.json"
  done
done
