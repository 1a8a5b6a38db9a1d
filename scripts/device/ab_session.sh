#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, with .devbin carried:
# several compare_planners.sh runs in one lease, one per line of FILE,
# `BUILDS|SIZES|more bench args` (builds in .devbin, the first the
# baseline), each group's JSON under $OUT/<group>/.
#   usage: bash .devbin/ab_session.sh FILE
#   e.g.   bash .devbin/ab_session.sh scripts/device/lists/ab_register_partitions.txt
set -uo pipefail
base="${OUT:-/tmp/out}"
while IFS='|' read -r builds sizes args; do
    [ -z "$builds" ] && continue
    case "$builds" in \#*) continue ;; esac
    tag=$(echo "$sizes $args" | tr -c 'a-zA-Z0-9' '_' | cut -c1-60)
    mkdir -p "$base/$tag"
    echo "=== $builds | $sizes | $args"
    # shellcheck disable=SC2086
    OUT="$base/$tag" BUILDS="$builds" bash .devbin/compare_planners.sh "$sizes" $args --repeats 5
done < "$1"
