#!/bin/bash
# Kuhn Poker new-deal, every corpus teacher reading its notes (share 1, every attempt played): does a
# 4x larger warm-start corpus (iterations 8 -> 32) teach mage-tiny the adapter's note-to-move map?
# Warm start only; one change from kuhn-poker-fixed-share1.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
P="--env kuhn-poker --preset laptop --methods warm-start --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 --out runs/kuhn2-a1-corpus4 --seeds $s
done
echo DONE
