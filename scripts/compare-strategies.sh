#!/bin/sh
# Random against guided (issue 40, item 3; docs/measured/strategies.md):
# explore each given scenario with each strategy, one exploration per
# seed, RUNS runs each, no shrink, under STORE/<scenario>/<strategy>/seed-<S>/.
# An exploration that finished (its explore.json has RUNS runs and was not
# interrupted) is not made again, so the comparison can be made a piece at
# a time, across days; `kchaos compare STORE` prints the table of whatever
# has finished. One cluster at a time: run it alone on the machine.
#
#   scripts/compare-strategies.sh examples/compare/*.yaml
#   SEEDS="1 2 3" RUNS=5 STRATEGIES=guided scripts/compare-strategies.sh examples/compare/weak-untargeted.yaml
#   bin/kchaos compare store/compare
set -eu
KCHAOS=${KCHAOS:-bin/kchaos}
STORE=${STORE:-store/compare}
RUNS=${RUNS:-5}
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8 9 10"}
STRATEGIES=${STRATEGIES:-"random guided"}
[ $# -gt 0 ] || { echo "usage: $0 SCENARIO.yaml..." >&2; exit 254; }
# done_in DIR: an exploration under DIR finished with RUNS runs (kchaos
# compare leaves out an interrupted one).
done_in() {
  runs=$("$KCHAOS" compare --json "$1" 2>/dev/null | sed -n 's/^ *"runs": \([0-9]*\),$/\1/p' | head -n 1)
  [ -n "$runs" ] && [ "$runs" -ge "$RUNS" ]
}
for seed in $SEEDS; do
  for file in "$@"; do
    name=$(basename "$file" .yaml)
    for strategy in $STRATEGIES; do
      dir="$STORE/$name/$strategy/seed-$seed"
      if done_in "$dir"; then
        echo "compare: $name $strategy seed $seed: done"
        continue
      fi
      rm -rf "$dir"
      mkdir -p "$dir"
      echo "compare: $name $strategy seed $seed: exploring ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1 /proc/loadavg))"
      # exit 1 is a finding, 2 nothing judged: both are results here.
      "$KCHAOS" explore "$file" --strategy "$strategy" --seed "$seed" --runs "$RUNS" --no-shrink --quiet --store "$dir" || [ $? -le 2 ]
    done
  done
done
"$KCHAOS" compare "$STORE"
