#!/bin/bash
# Kuhn Poker new-deal, every corpus teacher reading its notes (share 1, every attempt played): does a
# wider mage-tiny (hiddenSize 256, 4 layers, ~4x the parameters) learn the adapter's note-to-move map?
# Warm start only; one change from kuhn-poker-fixed-share1 (warmStart.model, since 9202a8b).
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
P="--env kuhn-poker --preset laptop --methods warm-start --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.model.hiddenSize=256 --out runs/kuhn2-a1-width256 --seeds $s
done
echo DONE
