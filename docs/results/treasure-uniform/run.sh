#!/bin/bash
# Treasure 3x3 from a uniform opening: the warm start's teacher probes uniformly in every attempt
# (`warmStart.readerOpening=0`), so any preference for the centre must come from RL. At pass@3 the centre
# and the four edges are equally good first probes (a reader finds the treasure by attempt 3 after either);
# only the centre makes attempt 2 certain. How much the meta-reward pays for succeeding one attempt earlier
# is set by advantage.trajGamma: this script trains MAGE with the shipped defaults but the opening, at the
# γ_traj each variant names, every variant of a seed from the same warm start, and evaluates each policy
# on the same 256 tasks (evaluation seed 1000, never trained on) with its notes, with no memory and with a
# foreign meta-episode's notes.
# A variant gammaG sets advantage.trajGamma=G; klC sets ppo.klCoef=C (at the shipped γ_traj): the KL to the
# warm start, whose first probe is uniform, pulls the first probe back to uniform.
# Usage: [VARIANTS='gamma0.5 gamma0.9 kl0'] bash docs/results/treasure-uniform/run.sh [seed ...]
# (repository root, after a build; default gamma0.5, seeds 13-17). Resumable: a finished evaluation is
# skipped, an interrupted training resumes. Each finished run's config, metrics, first probes and
# evaluation are kept in docs/results/treasure-uniform (KEEP).
# Table: node docs/results/adaptation-from-scratch/aggregate.mjs 1 "warm start=docs/results/treasure-uniform/evals/warm-start" "γ 0.5=docs/results/treasure-uniform/evals/gamma0.5"
set -euo pipefail
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/treasure-uniform}
KEEP=${KEEP:-docs/results/treasure-uniform}
TR=(--env treasure --set warmStart.readerOpening=0)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(13 14 15 16 17)
mkdir -p "$OUT/evals" "$KEEP/evals"
keep() {
  local run=$1 name=$2
  mkdir -p "$KEEP/runs/$name"
  cp "$run/config.json" "$KEEP/runs/$name/"
  [ -f "$run/machine.json" ] && cp "$run/machine.json" "$KEEP/runs/$name/"
  gzip -c "$run/metrics.jsonl" > "$KEEP/runs/$name/metrics.jsonl.gz"
  node docs/results/adaptation-from-scratch/first-moves.mjs "$run/episodes" 50 > "$KEEP/runs/$name/first-moves.txt"
  cp "$OUT/evals/$name.json" "$KEEP/evals/"
}
for s in "${seeds[@]}"; do
  for v in ${VARIANTS:-gamma0.5}; do
    run="$OUT/runs/$v-s$s"
    if ! grep -qs '"iteration": 299' "$run/checkpoints/latest.json"; then
      resume=()
      [ -d "$run/checkpoints" ] && resume=(--resume)
      case $v in
        gamma*) change=(--set advantage.trajGamma="${v#gamma}") ;;
        kl*) change=(--set ppo.klCoef="${v#kl}") ;;
        *) echo "unknown variant '$v' (gammaG or klC)" >&2; exit 2 ;;
      esac
      $M train "${TR[@]}" "${change[@]}" --seed "$s" --run-dir "$run" "${resume[@]}"
    fi
    [ -s "$OUT/evals/$v-s$s.json" ] || $M eval --env treasure --policy "$run" --method mage "${EVAL[@]}" > "$OUT/evals/$v-s$s.json"
    keep "$run" "$v-s$s"
    # The warm start the run trained from (its config's warmStartDir), played with its own notes.
    warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).extra.warmStartDir)' "$run/config.json")
    [ -s "$OUT/evals/warm-start-s$s.json" ] ||
      $M eval --env treasure --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/warm-start-s$s.json"
    cp "$OUT/evals/warm-start-s$s.json" "$KEEP/evals/"
  done
done
