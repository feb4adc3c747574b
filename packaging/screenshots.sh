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
