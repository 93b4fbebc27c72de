#!/bin/bash
# One change over ../corpus4-mage: MAGE's rollouts sample at temperature 1.5 from the 3 likeliest tokens
# (rollout.temperature=1.5 rollout.topK=3), seeds 2-4; the warm starts and their evaluations are corpus4-mage's.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
mkdir -p runs/kuhn-t15k3/evals && cp -n docs/results/kuhn-poker-reading-limits/corpus4-mage/evals/warm-start-* runs/kuhn-t15k3/evals/
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 --set rollout.temperature=1.5 --set rollout.topK=3 --out runs/kuhn-t15k3 --seeds $s
done
