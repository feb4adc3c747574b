#!/usr/bin/env bash
# Install the built one-folder app for one user (default) or system-wide, with menu entry and icons.
#
#     bash packaging/install.sh [PREFIX]          # default PREFIX: ~/.local
#     bash packaging/install.sh --uninstall [PREFIX]
#
# Lays out, under PREFIX:
#   lib/memhtml-desktop/                     the app folder from dist/memhtml-desktop
#   bin/memhtml-desktop                      a symlink to it (the .desktop file's Exec)
#   share/applications/memhtml-desktop.desktop
#   share/metainfo/io.github.memhtml.Desktop.metainfo.xml
#   share/icons/hicolor/<N>x<N>/apps/memhtml-desktop.png, .../scalable/apps/memhtml-desktop.svg
set -euo pipefail
cd "$(dirname "$0")/.."

uninstall=0
if [ "${1:-}" = "--uninstall" ]; then uninstall=1; shift; fi
PREFIX=${1:-$HOME/.local}
APP_DIR=dist/memhtml-desktop
SIZES="16 32 48 64 128 256 512"

paths=(
  "$PREFIX/lib/memhtml-desktop"
  "$PREFIX/bin/memhtml-desktop"
  "$PREFIX/share/applications/memhtml-desktop.desktop"
  "$PREFIX/share/metainfo/io.github.memhtml.Desktop.metainfo.xml"
  "$PREFIX/share/icons/hicolor/scalable/apps/memhtml-desktop.svg"
)
for size in $SIZES; do paths+=("$PREFIX/share/icons/hicolor/${size}x${size}/apps/memhtml-desktop.png"); done

if [ "$uninstall" = 1 ]; then
  rm -rf "${paths[@]}"
  echo "removed memhtml desktop from $PREFIX"
  exit 0
fi

[ -x "$APP_DIR/memhtml-desktop" ] || { echo "install.sh: build first: bash packaging/build.sh" >&2; exit 2; }
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/metainfo" \
  "$PREFIX/share/icons/hicolor/scalable/apps"
rm -rf "$PREFIX/lib/memhtml-desktop"
cp -a "$APP_DIR" "$PREFIX/lib/memhtml-desktop"
ln -sfn "$PREFIX/lib/memhtml-desktop/memhtml-desktop" "$PREFIX/bin/memhtml-desktop"
install -m 644 packaging/memhtml-desktop.desktop "$PREFIX/share/applications/"
install -m 644 packaging/io.github.memhtml.Desktop.metainfo.xml "$PREFIX/share/metainfo/"
install -m 644 resources/icons/memhtml-desktop.svg "$PREFIX/share/icons/hicolor/scalable/apps/"
for size in $SIZES; do
  mkdir -p "$PREFIX/share/icons/hicolor/${size}x${size}/apps"
  install -m 644 "resources/icons/memhtml-desktop-$size.png" \
    "$PREFIX/share/icons/hicolor/${size}x${size}/apps/memhtml-desktop.png"
done
# Refresh the menu and icon caches where the tools exist (a desktop session picks changes up anyway).
command -v update-desktop-database >/dev/null && update-desktop-database -q "$PREFIX/share/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$PREFIX/share/icons/hicolor" || true
echo "installed memhtml desktop under $PREFIX (make sure $PREFIX/bin is on PATH)"
