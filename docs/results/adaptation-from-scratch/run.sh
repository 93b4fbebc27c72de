#!/bin/bash
# Can RL create note reading from a note-blind warm start? Train (the warm start is pretrained and cached
# on first use), then evaluate with notes, with no memory and with foreign notes on the same 256 tasks.
# Usage: bash docs/results/adaptation-from-scratch/run.sh [seed ...]   (from the repository root, after a build)
set -euo pipefail
source "$(dirname "$0")/protocol.sh"
for s in "${@:-13}"; do
  # Higher-Lower 1..6, one guess per attempt: the warm start, then the recipe.
  $M pretrain "${HL[@]}" --set env.options.maxTurns=1 --set env.options.max=6 --seed "$s" --json > "$OUT/pretrain-hl-s$s.json"
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$OUT/pretrain-hl-s$s.json")
  $M eval "${HL[@]}" --option maxTurns=1 --option max=6 --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/higher-lower6-warm-start-s$s.json"
  $M train "${HL[@]}" --set env.options.maxTurns=1 --set env.options.max=6 --seed "$s" --run-dir "$OUT/runs/higher-lower6-mage-recipe-s$s" "${RECIPE[@]}"
  $M eval "${HL[@]}" --policy "$OUT/runs/higher-lower6-mage-recipe-s$s" "${EVAL[@]}" > "$OUT/evals/higher-lower6-mage-recipe-s$s.json"
  # Doors (3 doors): the same, 120 iterations in the committed run.
  $M pretrain --env doors --seed "$s" --json > "$OUT/pretrain-doors-s$s.json"
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$OUT/pretrain-doors-s$s.json")
  $M eval --env doors --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/doors-warm-start-s$s.json"
  $M train --env doors --seed "$s" --run-dir "$OUT/runs/doors-mage-recipe-s$s" "${RECIPE[@]}" --iterations 120
  $M eval --env doors --policy "$OUT/runs/doors-mage-recipe-s$s" "${EVAL[@]}" > "$OUT/evals/doors-mage-recipe-s$s.json"
done
# Per-seed reading over training, and the table over seeds (pass the Bayes reader's pass@3):
#   node docs/results/adaptation-from-scratch/reading.mjs "$OUT/runs/higher-lower6-mage-recipe-s13/episodes" higher-lower 6 6 50
#   node docs/results/adaptation-from-scratch/aggregate.mjs 1 "MAGE recipe=$OUT/evals/higher-lower6-mage-recipe"
