#!/bin/bash
# Tic-Tac-Toe laptop warm start with 2 epochs against the preset's 4 (one change), seeds 1-2, evaluated with
# its notes and with no memory (in-domain and out-of-domain suites); then the demo's comparison from the
# 2-epoch warm starts: 4 MAGE iterations, in-domain only (the warm start's evaluations copied from epochs2).
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
M="node packages/cli/dist/bin.js"
for s in 1 2; do
  for e in 2 4; do
    $M experiment --env tictactoe --preset laptop --methods warm-start --eval-memory reflection,none \
      --set warmStart.epochs=$e --out runs/ttt-ws-epochs$e --seeds $s
  done
done
mkdir -p runs/ttt-demo-e2/evals && cp -n runs/ttt-ws-epochs2/evals/warm-start-* runs/ttt-demo-e2/evals/
for s in 1 2; do
  $M experiment --env tictactoe --preset laptop --methods warm-start,mage --eval-memory reflection,none \
    --set warmStart.epochs=2 --set train.iterations=4 --set 'eval.outOfDomain=[]' --out runs/ttt-demo-e2 --seeds $s
done
