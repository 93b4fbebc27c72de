#!/bin/bash
# The README's Higher-Lower 1..6 row with the shipped defaults and nothing else: per seed, `mage train` with
# the env and the seed only (the env's recipe: the `reading` run preset, warm start included), then
# `mage eval` of the run and of the warm start it trained from, each on the same 256 tasks (evaluation seed
# 1000, never trained on) with its notes, with no memory and with a foreign meta-episode's notes. METHODS
# adds GiGPO and GRPO the same way (`--method gigpo`, the only flag more), from the same warm start.
# Usage: [METHODS='mage gigpo grpo'] bash docs/results/shipped-defaults/run.sh [seed ...]   (repository
# root, after a build; default MAGE, seeds 13-17). Resumable: a finished evaluation is skipped, an
# interrupted training resumes. Each finished run's config, metrics, first guesses and evaluations are kept
# in docs/results/shipped-defaults.
# Table: node docs/results/adaptation-from-scratch/aggregate.mjs 1 "warm start=docs/results/shipped-defaults/evals/warm-start" "MAGE=docs/results/shipped-defaults/evals/mage"
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/shipped-defaults}
HL=(--env-package ./examples/custom-env --env higher-lower)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(13 14 15 16 17)
KEEP=${KEEP:-docs/results/shipped-defaults}
mkdir -p "$OUT/evals" "$KEEP/evals"
# What is committed of a finished run: its config, metrics and first guesses per 100 iterations, and its
# evaluation (the warm start's beside MAGE's).
keep() {
  local run=$1 name=$2
  mkdir -p "$KEEP/runs/$(basename "$run")"
  cp "$run/config.json" "$KEEP/runs/$(basename "$run")/"
  gzip -c "$run/metrics.jsonl" > "$KEEP/runs/$(basename "$run")/metrics.jsonl.gz"
  node docs/results/adaptation-from-scratch/first-moves.mjs "$run/episodes" 100 > "$KEEP/runs/$(basename "$run")/first-moves.txt"
  cp "$OUT/evals/$name.json" "$KEEP/evals/"
}
for s in "${seeds[@]}"; do
  for m in ${METHODS:-mage}; do
    # MAGE's runs are higher-lower-s<seed>, the others higher-lower-<method>-s<seed>.
    if [ "$m" = mage ]; then run="$OUT/runs/higher-lower-s$s"; method=(); else run="$OUT/runs/higher-lower-$m-s$s"; method=(--method "$m"); fi
    if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
      resume=()
      [ -d "$run/checkpoints" ] && resume=(--resume)
      $M train "${HL[@]}" "${method[@]}" --seed "$s" --run-dir "$run" "${resume[@]}"
    fi
    [ -s "$OUT/evals/$m-s$s.json" ] || $M eval "${HL[@]}" --policy "$run" --method mage "${EVAL[@]}" > "$OUT/evals/$m-s$s.json"
    keep "$run" "$m-s$s"
    # The warm start the run trained from (its config's warmStartDir), played with MAGE's notes.
    warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).extra.warmStartDir)' "$run/config.json")
    [ -s "$OUT/evals/warm-start-s$s.json" ] ||
      $M eval "${HL[@]}" --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
    cp "$OUT/evals/warm-start-s$s.json" "$KEEP/evals/"
  done
done
