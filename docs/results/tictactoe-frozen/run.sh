#!/bin/bash
# Tic-Tac-Toe against a frozen MCTS-100 (env option replies=board: one reply per board for the whole
# meta-episode), the agent first, every attempt played: can MAGE learn to replay a line that won?
# Finished attempts reveal their moves on one line (reveal=moves), so the note-blind teacher's notes are a
# copy of it. Per seed: the warm start (laptop corpus, with both options), its evaluation, MAGE at the
# hidden-target recipe's budget (300 iterations, mini-batches of 8 rows, the hidden-target credit), and the
# evaluation of the trained policy with notes, with no memory and with foreign notes, on the same tasks
# (evaluation seed 1000, never trained on). Exact levels: `mage adaptation-ceiling tictactoe` (first seat:
# memoryless minimax wins 0.47-0.52 per attempt, the replay reader 0.47 -> 0.71 -> 0.82).
# Usage: [WARM_ONLY=1] bash docs/results/tictactoe-frozen/run.sh [seed ...]   (repository root, after a build)
# Resumable: a finished step (its output file) is skipped, an interrupted training resumes.
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/tictactoe-frozen}
mkdir -p "$OUT/evals"
OPTS=(--set env.options.replies=board --set env.options.reveal=moves)
FROZEN=(--population mcts --no-early-stop --set eval.earlyStop=false --set 'eval.inDomain=["mcts-100"]'
  --set 'eval.outOfDomain=[]' --set rollout.seats=first)
RECIPE=(--iterations 300 --set train.checkpointEvery=25 --set ppo.miniBatchRows=8
  --set advantage.episodeScore=return --set advantage.episodeBaseline=attempt --set advantage.reflectWeight=0
  --set ppo.klCoef=0.1)
EVAL=(--opponents mcts-100 --episodes 256 --foreign-notes --seed 1000 --json)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3)
for s in "${seeds[@]}"; do
  [ -s "$OUT/pretrain-s$s.json" ] || $M pretrain --env tictactoe --seed "$s" "${OPTS[@]}" --json > "$OUT/pretrain-s$s.json"
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$OUT/pretrain-s$s.json")
  [ -s "$OUT/evals/warm-start-s$s.json" ] ||
    $M eval --env tictactoe --policy "$warm" --method mage --option replies='"board"' --option reveal='"moves"' \
      "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
  [ -z "${WARM_ONLY:-}" ] || continue
  run="$OUT/runs/mage-s$s"
  if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
    resume=()
    [ -d "$run/checkpoints" ] && resume=(--resume)
    $M train --env tictactoe --seed "$s" --model "$warm" "${OPTS[@]}" "${FROZEN[@]}" "${RECIPE[@]}" --run-dir "$run" "${resume[@]}"
  fi
  [ -s "$OUT/evals/mage-s$s.json" ] || $M eval --policy "$run" "${EVAL[@]}" > "$OUT/evals/mage-s$s.json"
done
