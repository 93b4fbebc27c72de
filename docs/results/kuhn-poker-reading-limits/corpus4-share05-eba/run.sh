#!/bin/bash
# One change over ../corpus4-share05: a baseline per (group, attempt) (advantage.episodeBaseline=attempt); the
# share-0.5 warm starts are cached by it and their evaluations copied from it.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
mkdir -p runs/kuhn-c4-s05-eba/evals && cp -n docs/results/kuhn-poker-reading-limits/corpus4-share05/evals/warm-start-* runs/kuhn-c4-s05-eba/evals/
P="--env kuhn-poker --preset laptop --methods warm-start,mage --eval-memory reflection,none --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --cache-dir .mage-cache"
for s in 2 3 4; do
  node packages/cli/dist/bin.js experiment $P --set warmStart.adaptive=0.5 --set warmStart.earlyStop=false --set warmStart.iterations=32 --set advantage.episodeBaseline=attempt --out runs/kuhn-c4-s05-eba --seeds $s
done
echo DONE
