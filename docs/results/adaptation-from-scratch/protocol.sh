# The protocol run.sh and comparisons.sh share (sourced): the CLI, the output folder, the MAGE recipe,
# the Higher-Lower env and the evaluation (the same 256 tasks with notes, no memory and foreign notes).
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/adaptation-from-scratch}
RECIPE=(--iterations 300 --set train.checkpointEvery=50 --set advantage.episodeBaseline=attempt
  --set ppo.klCoef=0.1 --set ppo.miniBatchRows=8 --set advantage.reflectWeight=0)
HL=(--env-package ./examples/custom-env --env higher-lower)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
mkdir -p "$OUT/evals"
