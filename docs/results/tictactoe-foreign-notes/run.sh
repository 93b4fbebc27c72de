#!/bin/bash
# Foreign-notes control on the share-0 Tic-Tac-Toe MAGE and GiGPO runs (seeds 2-4): own notes, none, foreign notes.
cd /work/main
for s in 2 3 4; do
  for m in mage gigpo; do
    node packages/cli/dist/bin.js eval --env tictactoe --preset laptop --policy /work/expruns/ttt-notes/runs/$m-s$s --method mage --memory reflection --foreign-notes \
      --opponents mcts-100,pattern-anti-diagonal-first,pattern-bottom-right-sweep,pattern-centre-first,pattern-corners-first,pattern-edges-first,pattern-main-diagonal-first,random \
      --episodes 16 --seed 1001 --json > /work/expruns/foreign/$m-s$s.json
  done
done
echo DONE
