#!/bin/bash
# MAGE from the 4x share-1 Kuhn warm start, trained with every attempt played (rollout.earlyStop=false, as
# the corpus and the evaluation play them): one change from ../corpus4-mage/run.sh. The warm start's
# evaluations were copied from that experiment (same warm start, same protocol) instead of re-run.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
mkdir -p runs/kuhn2-a1-corpus4-mage-nostop/evals
cp -n docs/results/kuhn-poker-reading-limits/corpus4-mage/evals/warm-start-* runs/kuhn2-a1-corpus4-mage-nostop/evals/
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 --set rollout.earlyStop=false --out runs/kuhn2-a1-corpus4-mage-nostop --seeds $s
done
