#!/bin/bash
# Kuhn Poker new-deal: MAGE, GiGPO and GRPO from the same reading warm start (every corpus teacher reads its
# notes, 4x corpus, every attempt played), seeds 2-4; each policy evaluated with its notes, with no memory
# and with foreign notes. Usage: bash docs/results/kuhn-poker-method-comparison/run.sh <out dir>  (repo root, after a build)
set -euo pipefail
OUT=${1:-experiments/kuhn-poker-method-comparison}
node packages/cli/dist/bin.js experiment --env kuhn-poker --preset laptop --methods warm-start,mage,gigpo,grpo \
  --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 \
  --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 \
  --eval-memory reflection,none,foreign-notes --out "$OUT" --seeds 2,3,4
