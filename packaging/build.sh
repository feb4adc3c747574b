#!/usr/bin/env bash
# Build the one-folder desktop app with PyInstaller, then check the BUILT app works headless.
#
#     bash packaging/build.sh            # build into dist/memhtml-desktop/, then run the checks
#     bash packaging/build.sh --check    # only run the checks on an existing build
#
# PYTHON names the interpreter (default .venv/bin/python); it needs the project's dependencies and
# PyInstaller (`pip install pyinstaller`, or the `build` extra). MEMHTML_BUILD_MINILM=1 bundles the
# optional neural embedder's packages too (about 100 MB more). The checks (packaging/smoke_test.py)
# run the app with a scrubbed environment from a scratch folder: --version, the bundled data, index
# and search the demo store (both vector backends, same list as the source tree), the spawn parse
# pool, doctor, and an offscreen screenshot. Then the desktop file and the AppStream metadata are
# validated where desktop-file-validate / appstreamcli are installed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
APP_DIR=dist/memhtml-desktop
export QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen}

if [ "${1:-}" != "--check" ]; then
  if ! "$PYTHON" -c 'import PyInstaller' 2>/dev/null; then
    echo "build.sh: PyInstaller is not installed for $PYTHON: $PYTHON -m pip install pyinstaller" >&2
    exit 2
  fi
  echo "+ checking the icon renders (python packaging/render_icons.py makes them from the SVG)"
  "$PYTHON" packaging/render_icons.py --check
  echo "+ pyinstaller packaging/memhtml-desktop.spec"
  SECONDS=0
  "$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/memhtml-desktop.spec
  printf 'built %s in %d s: %s, %s files\n' "$APP_DIR" "$SECONDS" \
    "$(du -sh "$APP_DIR" | cut -f1)" "$(find "$APP_DIR" -type f | wc -l)"
fi

[ -x "$APP_DIR/memhtml-desktop" ] || { echo "build.sh: no $APP_DIR/memhtml-desktop; build first" >&2; exit 2; }

echo "+ checking the built app"
status=0
"$PYTHON" packaging/smoke_test.py "$APP_DIR" --python "$PYTHON" || status=$?

echo "+ installing into a scratch prefix"
prefix=$(mktemp -d)
if bash packaging/install.sh "$prefix" >/dev/null && [ "$("$prefix/bin/memhtml-desktop" --version)" = "$("$PYTHON" -m memhtml_desktop --version)" ]; then
  echo "ok    install.sh: $prefix/bin/memhtml-desktop runs, menu entry, metainfo and icons in place"
else
  echo "FAIL  install.sh"; status=$((status + 1))
fi
rm -rf "$prefix"

echo "+ validating the desktop integration files"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate packaging/memhtml-desktop.desktop && echo "ok    desktop-file-validate" || status=$((status + 1))
else
  echo "skip  desktop-file-validate (apt-get install desktop-file-utils)"
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --pedantic packaging/io.github.memhtml.Desktop.metainfo.xml \
    && echo "ok    appstreamcli validate" || status=$((status + 1))
else
  echo "skip  appstreamcli validate (apt-get install appstream)"
fi
exit "$status"
