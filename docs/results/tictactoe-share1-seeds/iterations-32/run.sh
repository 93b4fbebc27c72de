#!/bin/bash
# One change from ../run.sh: 32 MAGE iterations instead of 16 (the same cached warm starts; their evaluations
# are copied from ../evals so the report shows them beside MAGE).
cd "$(git rev-parse --show-toplevel)"  # at the commit the README names
mkdir -p runs/ttt-a1-i32/evals && cp -n docs/results/tictactoe-share1-seeds/evals/warm-start-* runs/ttt-a1-i32/evals/
B="node packages/cli/dist/bin.js experiment --env tictactoe --preset laptop --methods mage --eval-memory reflection,none --cache-dir .mage-cache --set warmStart.adaptive=1 --set warmStart.earlyStop=false --set train.iterations=32 --out runs/ttt-a1-i32"
for s in 2 3 4; do $B --seeds $s; done
echo DONE
