#!/bin/bash
# Tic-Tac-Toe share 1 with 4x the warm-start corpus (warmStart.iterations=32): one change from
# ../tictactoe-notes-share1 (the lever that made the Kuhn warm start read its notes). Seed 2 ran; 3 and 4
# are the same command.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
for s in 2 3 4; do
node packages/cli/dist/bin.js experiment --env tictactoe --preset laptop --methods warm-start,mage \
  --eval-memory reflection,none \
  --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set warmStart.iterations=32 \
  --out runs/ttt-a1-corpus4 --seeds $s
done
