#!/bin/bash
# Tic-Tac-Toe: a warm start whose every corpus teacher reads its notes (share 1, every attempt played), then
# 16 MAGE iterations (laptop); every policy evaluated with its notes and with no memory on the same tasks.
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
B="node packages/cli/dist/bin.js experiment --env tictactoe --preset laptop --methods warm-start,mage --eval-memory reflection,none --cache-dir .mage-cache --set warmStart.adaptive=1 --set warmStart.earlyStop=false --out runs/ttt-a1"
for s in 3 4 2; do $B --seeds $s; done
echo DONE
