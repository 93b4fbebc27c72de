#!/bin/bash
# Kuhn Poker new-deal after the stalling fix (a game cut by the turn limit scores as a loss): warm start and
# MAGE with every corpus teacher reading its notes and every attempt in the corpus (share 1) and with none (share 0), seed by seed.
cd /work/exp-g
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir /work/main/.mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=1 --set warmStart.earlyStop=false --out /work/expruns/kuhn2-a1 --seeds $s
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=0 --out /work/expruns/kuhn2-a0 --seeds $s
done
echo DONE
