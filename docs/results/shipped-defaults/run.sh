#!/bin/bash
# The README's Higher-Lower 1..6 row with the shipped defaults and nothing else: per seed, `mage train` with
# the env and the seed only (the env's recipe: the `reading` run preset, warm start included), then
# `mage eval` of the run and of the warm start it trained from, each on the same 256 tasks (evaluation seed
# 1000, never trained on) with its notes, with no memory and with a foreign meta-episode's notes.
# Usage: bash docs/results/shipped-defaults/run.sh [seed ...]   (repository root, after a build; default
# seeds 13-17). Resumable: a finished evaluation is skipped, an interrupted training resumes. Each finished
# seed's config, metrics, first guesses and evaluations are kept in docs/results/shipped-defaults.
# Table: node docs/results/adaptation-from-scratch/aggregate.mjs 1 "warm start=docs/results/shipped-defaults/evals/warm-start" "MAGE=docs/results/shipped-defaults/evals/mage"
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/shipped-defaults}
HL=(--env-package ./examples/custom-env --env higher-lower)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(13 14 15 16 17)
KEEP=docs/results/shipped-defaults
mkdir -p "$OUT/evals" "$KEEP/evals"
# What is committed of a finished seed: the run's config, metrics and first guesses per 100 iterations, and
# both evaluations.
keep() {
  local run=$1 s=$2
  mkdir -p "$KEEP/runs/higher-lower-s$s"
  cp "$run/config.json" "$KEEP/runs/higher-lower-s$s/"
  gzip -c "$run/metrics.jsonl" > "$KEEP/runs/higher-lower-s$s/metrics.jsonl.gz"
  node docs/results/adaptation-from-scratch/first-moves.mjs "$run/episodes" 100 > "$KEEP/runs/higher-lower-s$s/first-moves.txt"
  cp "$OUT/evals/mage-s$s.json" "$OUT/evals/warm-start-s$s.json" "$KEEP/evals/"
}
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
  keep "$run" "$s"
done
