#!/bin/bash
# The README's Higher-Lower 1..6 row with the shipped defaults and nothing else: per seed, `mage train` with
# the env and the seed only (the env's recipe: the `reading` run preset, warm start included), then
# `mage eval` of the run and of the warm start it trained from, each on the same 256 tasks (evaluation seed
# 1000, never trained on) with its notes, with no memory and with a foreign meta-episode's notes.
# Usage: bash docs/results/shipped-defaults/run.sh [seed ...]   (repository root, after a build; default
# seeds 13-17). Resumable: a finished evaluation is skipped, an interrupted training resumes.
# Table: node docs/results/adaptation-from-scratch/aggregate.mjs 1 "warm start=$OUT/evals/warm-start" "MAGE=$OUT/evals/mage"
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/shipped-defaults}
HL=(--env-package ./examples/custom-env --env higher-lower)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(13 14 15 16 17)
mkdir -p "$OUT/evals"
for s in "${seeds[@]}"; do
  run="$OUT/runs/higher-lower-s$s"
  if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
    resume=()
    [ -d "$run/checkpoints" ] && resume=(--resume)
    $M train "${HL[@]}" --seed "$s" --run-dir "$run" "${resume[@]}"
  fi
  [ -s "$OUT/evals/mage-s$s.json" ] || $M eval "${HL[@]}" --policy "$run" "${EVAL[@]}" > "$OUT/evals/mage-s$s.json"
  # The warm start the run trained from (its config's warmStartDir), played with MAGE's notes.
  warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).extra.warmStartDir)' "$run/config.json")
  [ -s "$OUT/evals/warm-start-s$s.json" ] ||
    $M eval "${HL[@]}" --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
done
