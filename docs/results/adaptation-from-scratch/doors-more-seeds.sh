#!/bin/bash
# Doors (3 doors) on two more seeds, the same protocol as comparisons.sh's Doors rows on this machine
# (4x-corpus warm start, the recipe with episodeScore=return, GiGPO and GRPO, the teacher's notes as the
# foreign ones). Committed as doors4x-{mage,gigpo,grpo}-rerun-s16/17 beside seeds 13-15.
# Usage: bash docs/results/adaptation-from-scratch/doors-more-seeds.sh 16   (repository root, after a build)
set -euo pipefail
source "$(dirname "$0")/protocol.sh"
for s in "$@"; do
  $M pretrain --env doors "${D4[@]}" --seed "$s" --json > "$OUT/pretrain-doors4x-s$s.json"
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' "$OUT/pretrain-doors4x-s$s.json")
  $M eval --env doors --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/doors4x-warm-start-s$s.json"
  $M train --env doors "${D4[@]}" --seed "$s" --run-dir "$OUT/runs/doors4x-mage-rerun-s$s" "${RECIPE[@]}" \
    --set advantage.episodeScore=return
  $M eval --env doors --policy "$OUT/runs/doors4x-mage-rerun-s$s" --method mage "${EVAL[@]}" > "$OUT/evals/doors4x-mage-rerun-s$s.json"
  $M eval --env doors --policy "$OUT/runs/doors4x-mage-rerun-s$s" --method mage "${EVAL[@]}" --note-donor teacher \
    > "$OUT/evals/doors4x-mage-rerun-teacher-donor-s$s.json"
  for m in gigpo grpo; do
    $M train --env doors "${D4[@]}" --seed "$s" --run-dir "$OUT/runs/doors4x-$m-rerun-s$s" "${RECIPE[@]}" --method $m
    $M eval --env doors --policy "$OUT/runs/doors4x-$m-rerun-s$s" --method mage "${EVAL[@]}" > "$OUT/evals/doors4x-$m-rerun-s$s.json"
  done
done
