# The protocol the scripts here share (sourced): the CLI, the output folder, the MAGE recipe,
# the Higher-Lower env and the evaluation (the same 256 tasks with notes, no memory and foreign notes).
M="node packages/cli/dist/bin.js"
OUT=${OUT:-experiments/adaptation-from-scratch}
RECIPE=(--iterations 300 --set train.checkpointEvery=50 --set advantage.episodeBaseline=attempt
  --set ppo.klCoef=0.1 --set ppo.miniBatchRows=8 --set advantage.reflectWeight=0)
HL=(--env-package ./examples/custom-env --env higher-lower)
EVAL=(--episodes 256 --foreign-notes --seed 1000 --json)
mkdir -p "$OUT/evals"
# Doors and Treasure: the 4x warm-start corpus (faithful notes); Treasure's recipe at 16 groups and ppo.lr 3e-4.
# Treasure's rows here were made before its warm start opened with the reader's probe by default: 0 keeps them.
D4=(--set warmStart.iterations=32)
TR=(--env treasure "${D4[@]}" --set warmStart.readerOpening=0)
G16=("${RECIPE[@]}" --set advantage.episodeScore=return --set ppo.lr=3e-4 --set rollout.groups=16)
# The Treasure warm-start check: sets WS to the flags that pass it for seed $1 (twice the epochs below 80%
# notes recall, by $OUT/$2-s$1.json; $2 defaults to pretrain-treasure4x).
checked_warm_start() {
  local recall
  recall=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).envs[0].noteRecall ?? 1)' "$OUT/${2:-pretrain-treasure4x}-s$1.json")
  WS=()
  if node -e 'process.exit(Number(process.argv[1]) < 0.8 ? 0 : 1)' "$recall"; then WS=(--set warmStart.epochs=8); fi
}
