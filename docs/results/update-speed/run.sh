#!/bin/bash
# The Higher-Lower recipe's update, side by side: the build of 2910875 (before the update changes) and this
# checkout's build, alternated, same seed and warm start, 8 iterations each, twice; then this build for 300
# iterations (STEPS, default "side-by-side head-300"; "base-300" runs the base build for 300 too).
# Usage (from the repository root, after a build):
#   BASE=<a built checkout of 2910875> bash docs/results/update-speed/run.sh
# (git worktree add --detach ../base 2910875 && (cd ../base && pnpm install --frozen-lockfile && pnpm build);
# MODEL=<a warm start directory> trains both from it: the builds key their warm starts differently when the
# recipes changed between them. Without MODEL each finds or pretrains its own.)
set -euo pipefail
STEPS=${STEPS:-side-by-side head-300}
OUT=${OUT:-experiments/update-speed}
mkdir -p "$OUT"
HL=(--preset laptop --env-package ./examples/custom-env --env higher-lower --set env.options.maxTurns=1 --set env.options.max=6 --seed 13)
if [ -n "${MODEL:-}" ]; then HL+=(--model "$(realpath "$MODEL")"); fi
has() { [[ " $STEPS " == *" $1 "* ]]; }
RECIPE=(--set advantage.episodeBaseline=attempt --set ppo.klCoef=0.1 --set ppo.miniBatchRows=8 --set advantage.reflectWeight=0)
here=$(pwd)
has side-by-side && for rep in 1 2; do
  for side in base head; do
    dir=$here; [ "$side" = base ] && dir=$BASE
    rm -rf "$here/$OUT/$side-$rep"
    (cd "$dir" && /usr/bin/time -v node packages/cli/dist/bin.js train "${HL[@]}" --run-dir "$here/$OUT/$side-$rep" \
      --iterations 8 "${RECIPE[@]}" --set eval.episodes=4) > "$OUT/$side-$rep.log" 2>&1
  done
done
if has base-300; then
  (cd "$BASE" && /usr/bin/time -v node packages/cli/dist/bin.js train "${HL[@]}" \
    --run-dir "$here/$OUT/base-300" --iterations 300 --set train.checkpointEvery=50 "${RECIPE[@]}") > "$OUT/base-300.log" 2>&1
fi
if has head-300; then
  /usr/bin/time -v node packages/cli/dist/bin.js train "${HL[@]}" --run-dir "$OUT/head-300" --iterations 300 \
    --set train.checkpointEvery=50 "${RECIPE[@]}" > "$OUT/head-300.log" 2>&1
fi
# Per run: node docs/results/update-speed/updates.mjs "$OUT"/*/metrics.jsonl
