#!/bin/bash
# Kuhn new-deal: the 4x corpus warm start with three quarters of its transcripts from reading teachers
# (share 0.75, between corpus4-share05 and corpus4-mage), then MAGE.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=0.75 --set warmStart.earlyStop=false --set warmStart.iterations=32 --out runs/kuhn-c4-s075 --seeds $s
done
echo DONE
