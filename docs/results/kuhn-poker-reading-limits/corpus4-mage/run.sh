#!/bin/bash
# MAGE from the 4x share-1 Kuhn warm start (the cached warm start of ../corpus4/run.sh), same protocol as kuhn-poker-fixed-share1.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 --out runs/kuhn2-a1-corpus4-mage --seeds $s
done
echo DONE
