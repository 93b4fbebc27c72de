#!/bin/bash
# Share 1 (every corpus teacher reads its notes) and a corpus that plays every attempt (warmStart.earlyStop=false).
# Kuhn Poker new-deal first (seed by seed), Tic-Tac-Toe once the share-0 seeds 3-4 finish.
cd /work/exp-d
B="node packages/cli/dist/bin.js experiment --preset laptop --methods warm-start,mage --eval-memory reflection,none,method --cache-dir /work/main/.mage-cache --set warmStart.adaptive=1 --set warmStart.earlyStop=false"
K="--env kuhn-poker --set env.options.mode=new-deal --set eval.earlyStop=false --set eval.episodes=256 --out /work/expruns/kuhn-notes-a1"
T="--env tictactoe --out /work/expruns/ttt-notes-a1"
$B $K --seeds 2
while pgrep -f "ttt-notes --cache-dir" > /dev/null; do sleep 30; done
$B $T --seeds 2
$B $K --seeds 3
$B $T --seeds 3
$B $K --seeds 4
$B $T --seeds 4
echo DONE
