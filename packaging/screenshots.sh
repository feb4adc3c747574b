#!/usr/bin/env bash
# Regenerate the README's screenshots with the app's own `screenshot` command, offscreen, on fresh
# copies of the bundled demo store. PYTHON defaults to .venv/bin/python; set APP to use a built
# app instead (APP=dist/memhtml-desktop/memhtml-desktop).
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
if [ -n "${APP:-}" ]; then run=("$APP"); else run=("${PYTHON:-.venv/bin/python}" -m memhtml_desktop); fi
out=docs/screenshots
mkdir -p "$out"
"${run[@]}" screenshot --demo --out "$out/results.png" --view results --query "drain the vip"
"${run[@]}" screenshot --demo --out "$out/reader.png" --view reader --query "postgres replica lag" \
  --open areas/oncall/postgres-replica-lag-over-30-seconds-is-a-stuck-replication-slot.html
"${run[@]}" screenshot --demo --out "$out/recall.png" --view recall --query "drain the vip"
"${run[@]}" screenshot --demo --out "$out/problems.png" --view problems
"${run[@]}" screenshot --demo --out "$out/correct.png" --view correct --size 1100x720 \
  --open projects/billing-service/nightly-compactor-merges-overlapping-intervals.html \
  --claim "The nightly compactor merges overlapping intervals, except on month-end runs." \
  --reason "month-end runs skip the merge"
# Edit → Undo…: the demo's runbook corrected first, then its revert previewed (the moved-back file's diff).
"${run[@]}" screenshot --demo --out "$out/undo.png" --view undo --size 1100x620 --query "drain the vip" \
  --open areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html --file 0
"${run[@]}" screenshot --demo --out "$out/conflicts.png" --view conflicts --size 1100x640
"${run[@]}" screenshot --demo --out "$out/timeline.png" --view timeline --size 1000x520 \
  --open areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html
# The window from its smallest supported size to a full HD screen, in both themes.
for theme in light dark; do
  "${run[@]}" screenshot --demo --out "$out/window-1024x700-$theme.png" --view results --query "drain the vip" \
    --size 1024x700 --theme "$theme"
  "${run[@]}" screenshot --demo --out "$out/window-1920x1080-$theme.png" --view results --query "drain the vip" \
    --size 1920x1080 --theme "$theme" --more 10
done
# The memhtml profile: what an agent on memhtml receives (moves by MMR, low-relevance rows marked).
"${run[@]}" screenshot --demo --out "$out/ranking-memhtml.png" --view results --query "drain the vip" \
  --size 1024x700 --theme light --ranking memhtml
"${run[@]}" screenshot --demo --out "$out/fused-order.png" --view results --query "drain the vip" \
  --size 1920x1080 --theme light --order fused --ranking memhtml
"${run[@]}" screenshot --demo --out "$out/workbench.png" --view workbench --tab compare --size 1024x700 \
  --theme light --query "deregistration delay"
"${run[@]}" screenshot --demo --out "$out/workbench-dark.png" --view workbench --tab probes --size 1024x700 \
  --theme dark
# The recall pane's other shapes (docs/recall.md): the four quota ledgers at the smallest size, and
# the catalogue with its second entry expanded, in the dark theme.
"${run[@]}" screenshot --demo --out "$out/recall-quotas.png" --view recall --query "drain the vip" \
  --size 1024x700 --theme light --shape quotas
"${run[@]}" screenshot --demo --out "$out/recall-catalog.png" --view recall --query "drain the vip" \
  --size 1400x900 --theme dark --shape catalog --expand 2
# The review inbox (docs/review.md): an agent's eight weeks played on the demo copy, the review mark
# halfway; the inbox, the activity chart and the reader's provenance, at both sizes, in both themes.
for theme in light dark; do
  for size in 1024x700 1920x1080; do
    "${run[@]}" screenshot --demo --out "$out/review-inbox-$size-$theme.png" --view review --size "$size" --theme "$theme"
    "${run[@]}" screenshot --demo --out "$out/review-activity-$size-$theme.png" --view activity --size "$size" \
      --theme "$theme"
    "${run[@]}" screenshot --demo --out "$out/review-provenance-$size-$theme.png" --view provenance --size "$size" \
      --theme "$theme"
  done
done
# Correct… keeping the memory's place in the graph (issue 39): the drain runbook, part-of an arc, about a
# person, a <dfn>, four facets, three memories linking to it, its reads; both sizes, both themes.
for theme in light dark; do
  for size in 1024x700 1920x1080; do
    "${run[@]}" screenshot --demo --out "$out/correct-graph-$size-$theme.png" --view correct --size "$size" \
      --theme "$theme" --open areas/oncall/prod-rollbacks-drain-the-vip-before-the-deploy-is-reverted.html \
      --claim "If a prod rollback is issued, drain the VIP for 60 seconds before reverting the deploy." \
      --reason "the delay is 60 s since the ALB change"
  done
done
# The reconcile queue (issue 39): the pairs newest change first, the pair shown side by side, the keys.
for theme in light dark; do
  for size in 1024x700 1920x1080; do
    "${run[@]}" screenshot --demo --out "$out/conflicts-queue-$size-$theme.png" --view conflicts --size "$size" \
      --theme "$theme"
  done
done
