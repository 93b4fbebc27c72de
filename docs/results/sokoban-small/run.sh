#!/bin/bash
# Sokoban at a learnable size: one move per turn, 5×5 rooms (3×3 inside), solutions of 2-8 moves, 12 turns.
# In-domain 1 box; out-of-domain 2 and 3 boxes (longer solutions, more turns). Seed by seed.
cd /work/exp-e
for s in 2 3 4; do
node packages/cli/dist/bin.js experiment --env sokoban --preset laptop --methods warm-start,mage,gigpo --eval-memory reflection,none,method \
  --set env.options.movesPerTurn=1 --set env.options.width=5 --set env.options.height=5 --set env.options.boxes=1 \
  --set env.options.maxTurns=12 --set env.options.minSolutionLength=2 --set env.options.maxSolutionLength=8 \
  --set eval.episodes=64 \
  --set 'eval.outOfDomainEnvOptions=[{"boxes":2,"maxSolutionLength":12,"maxTurns":16},{"boxes":3,"maxSolutionLength":16,"maxTurns":20}]' \
  --out /work/expruns/sokoban-small5 --cache-dir /work/main/.mage-cache --seeds $s
done
echo DONE
