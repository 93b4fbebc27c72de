#!/bin/bash
# Tic-Tac-Toe laptop warm start, steps by tokens (warmStart.batchTokens=2048, the preset at 187a8c9: each
# optimizer step one 4 x 512 run) against steps by turns (batchRows=32, the preset at 6d72c84), seeds 1-3,
# each evaluated with its notes and with no memory on the same 128 in-domain meta-episodes (and the
# out-of-domain suite). One change: how the corpus is cut into steps.
# Run from a worktree of each commit (the "before" from 6d72c84, the "after" from 187a8c9).
M="node packages/cli/dist/bin.js"
out=${OUT:-runs/ws-steps}
for s in 1 2 3; do
  $M experiment --env tictactoe --preset laptop --methods warm-start --eval-memory reflection,none \
    --out "$out" --seeds $s
done
