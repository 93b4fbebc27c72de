#!/bin/bash
# Tic-Tac-Toe, share 1, every attempt played, with each earlier attempt's transcript kept beside its note
# (reflection+history) in the warm-start corpus, in training and in evaluation. One change from ttt-notes-a1.
cd /work/exp-f
for s in 2 3 4; do
node packages/cli/dist/bin.js experiment --env tictactoe --preset laptop --methods warm-start,mage \
  --eval-memory reflection+history,none --cache-dir /work/main/.mage-cache \
  --set warmStart.adaptive=1 --set warmStart.earlyStop=false \
  --set warmStart.memory=reflection+history --set rollout.memory=reflection+history \
  --out /work/expruns/ttt-hist-a1 --seeds $s
done
echo DONE
