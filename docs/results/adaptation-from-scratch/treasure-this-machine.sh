#!/bin/bash
# Treasure 3x3 trained again on this machine (runs differ by machine from the first update on), with the
# protocol of comparisons.sh's warm-start check: a 4x-corpus warm start, made again with twice the epochs
# when its notes recall less than 80%; the recipe + episodeScore=return at 16 groups and ppo.lr 3e-4.
#   mage <seed>...       the warm start, its evaluation, MAGE, evaluated with its own notes, none, and the
#                        teacher's notes as the foreign ones (committed as $NAME-s*)
#   baselines <seed>...  GiGPO and GRPO from the same warm start (after `mage` for that seed)
# VARIANT=opening: the same with a warm-start teacher that opens every meta-episode with the Bayes reader's
# first probe (`warmStart.readerOpening=1`, now Treasure's default; later attempts note-blind), runs named
# treasure-opening-*. Without it the warm start opens uniformly (`protocol.sh` sets the share to 0).
# Usage: bash docs/results/adaptation-from-scratch/treasure-this-machine.sh mage 13   (repository root, after a build)
set -euo pipefail
source "$(dirname "$0")/protocol.sh"
NAME=treasure-rerun
PRE=pretrain-treasure4x
if [ "${VARIANT:-}" = opening ]; then
  TR+=(--set warmStart.readerOpening=1)
  NAME=treasure-opening
  PRE=pretrain-treasure4x-opening
fi
what=$1
shift
for s in "$@"; do
  if [ "$what" = mage ]; then
    $M pretrain "${TR[@]}" --seed "$s" --json > "$OUT/$PRE-s$s.json"
    checked_warm_start "$s" "$PRE"
    if [ ${#WS[@]} -gt 0 ]; then
      $M pretrain "${TR[@]}" "${WS[@]}" --seed "$s" --json > "$OUT/$PRE-8ep-s$s.json"
    fi
    warm=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).dir)' \
      "$OUT/$PRE$([ ${#WS[@]} -gt 0 ] && echo -8ep)-s$s.json")
    $M eval --env treasure --policy "$warm" --method mage "${EVAL[@]}" > "$OUT/evals/$NAME-warm-start-s$s.json"
    $M train "${TR[@]}" "${WS[@]}" --seed "$s" --run-dir "$OUT/runs/$NAME-mage-s$s" "${G16[@]}"
    $M eval --env treasure --policy "$OUT/runs/$NAME-mage-s$s" "${EVAL[@]}" > "$OUT/evals/$NAME-mage-s$s.json"
    $M eval --env treasure --policy "$OUT/runs/$NAME-mage-s$s" "${EVAL[@]}" --note-donor teacher \
      > "$OUT/evals/$NAME-mage-teacher-donor-s$s.json"
  else
    checked_warm_start "$s" "$PRE"
    for m in gigpo grpo; do
      $M train "${TR[@]}" "${WS[@]}" --seed "$s" --run-dir "$OUT/runs/$NAME-$m-s$s" "${G16[@]}" --method $m
      $M eval --env treasure --policy "$OUT/runs/$NAME-$m-s$s" --method mage "${EVAL[@]}" > "$OUT/evals/$NAME-$m-s$s.json"
    done
  fi
done
