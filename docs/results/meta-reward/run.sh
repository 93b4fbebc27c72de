#!/bin/bash
# The meta-reward's own part on Higher-Lower 1..6 (one guess per attempt), where the variants differ: every
# attempt is played and scored in training (rollout.earlyStop=false; with early stop and success-only
# rewards differential and cumulative are one training). Per seed, from the same cached warm start: the
# warm start's evaluation, then MAGE (the recipe with episodeScore=return) with the differential,
# cumulative and single-episode meta-rewards, and GiGPO and GRPO (no notes, no credit across attempts) with
# the same flags; every policy evaluated on the same 256 tasks with its notes,
# with no memory and with a foreign meta-episode's notes (evaluation stops at a success, as pass@k does).
# Usage: [TASK=higher-lower|doors] [VARIANTS='differential cumulative single gigpo grpo'] \
#   bash docs/results/meta-reward/run.sh [seed ...]   (from the repository root, after a build)
# Doors: the env's own recipe (`mage train --env doors` with nothing else) plus rollout.earlyStop=false, its
# foreign notes the teacher's (as the README's Doors row); kept under doors/.
# Resumable: a finished evaluation is skipped, an interrupted training resumes from its last checkpoint.
# Tables: node docs/results/meta-reward/table.mjs docs/results/meta-reward/evals warm-start differential ...
# and node docs/results/adaptation-from-scratch/aggregate.mjs 1 "differential=docs/results/meta-reward/evals/differential" ...
set -euo pipefail
TASK=${TASK:-higher-lower}
case $TASK in
  higher-lower) OUT=${OUT:-experiments/meta-reward} ;;
  doors) OUT=${OUT:-experiments/meta-reward-doors} ;;
  *) echo "TASK must be higher-lower or doors, got '$TASK'" >&2; exit 2 ;;
esac
source "$(dirname "$0")/../adaptation-from-scratch/protocol.sh"
if [ "$TASK" = doors ]; then
  KEEP=${KEEP:-docs/results/meta-reward/doors}
  ENV=(--env doors)
  TRAIN=()
  WARM_EVAL=(--env doors --note-donor teacher)
  RUN_EVAL=(--env doors --note-donor teacher)
else
  KEEP=${KEEP:-docs/results/meta-reward}
  # The runs name their preset: the example env's own default (reading) came later and keys its warm start
  # apart; laptop with the recipe's flags is the same training.
  ENV=("${HL[@]}" --preset laptop --set env.options.maxTurns=1 --set env.options.max=6)
  TRAIN=("${RECIPE[@]}" --set advantage.episodeScore=return)
  WARM_EVAL=("${HL[@]}" --preset laptop --option maxTurns=1 --option max=6)
  RUN_EVAL=("${HL[@]}" --preset laptop)
fi
mkdir -p "$KEEP/evals"
# What is committed of a finished run: its config, metrics, first guesses per 100 iterations and evaluation.
keep() {
  local run=$1 name=$2
  mkdir -p "$KEEP/runs/$name"
  cp "$run/config.json" "$KEEP/runs/$name/"
  gzip -c "$run/metrics.jsonl" > "$KEEP/runs/$name/metrics.jsonl.gz"
  node docs/results/adaptation-from-scratch/first-moves.mjs "$run/episodes" 100 > "$KEEP/runs/$name/first-moves.txt"
  cp "$OUT/evals/$name.json" "$KEEP/evals/"
}
for s in "${@:-13}"; do
  [ -s "$OUT/pretrain-s$s.json" ] || $M pretrain "${ENV[@]}" --seed "$s" --json > "$OUT/pretrain-s$s.json"
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$OUT/pretrain-s$s.json")
  [ -s "$OUT/evals/warm-start-s$s.json" ] ||
    $M eval "${WARM_EVAL[@]}" --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
  cp "$OUT/evals/warm-start-s$s.json" "$KEEP/evals/"
  for variant in ${VARIANTS:-differential cumulative single gigpo grpo}; do
    [ -s "$OUT/evals/$variant-s$s.json" ] && continue
    run="$OUT/runs/$variant-s$s"
    case $variant in
      gigpo | grpo) method=(--method "$variant") ;;
      *) method=(--method mage --set advantage.metaReward="$variant") ;;
    esac
    # A finished run (its last checkpoint is iteration 299) is only evaluated.
    if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
      resume=()
      [ -d "$run/checkpoints" ] && resume=(--resume)
      # From the warm start pretrain made (--model): every variant of a seed starts from the same weights.
      $M train "${ENV[@]}" --seed "$s" --model "$warm" --run-dir "$run" "${TRAIN[@]}" \
        --set rollout.earlyStop=false "${method[@]}" "${resume[@]}"
    fi
    $M eval "${RUN_EVAL[@]}" --policy "$run" --method mage "${EVAL[@]}" > "$OUT/evals/$variant-s$s.json"
    keep "$run" "$variant-s$s"
  done
done
