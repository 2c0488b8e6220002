#!/usr/bin/env bash
# Fetches large real photographs (Debian lomiri-wallpapers-20.04: 4096x2304 to 6028x3391 JPEGs, one
# 4:2:2, one progressive, one with an ICC profile) and the Adobe RGB (1998) profile of colord-data,
# used to make Adobe RGB test files. Nothing is committed; re-running is a no-op.
# Usage: test/bench/fetch-wallpapers.sh [DEST]   (default: .cache/wallpapers; the profile goes to DEST/../icc)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/wallpapers}"
icc="$(dirname "$dest")/icc"
work="$root/.cache/wallpapers-deb"
mkdir -p "$dest" "$icc" "$work"
if [ "$(find "$dest" -maxdepth 1 -name '*.jpg' | wc -l)" -ge 4 ] && [ -f "$icc/AdobeRGB1998.icc" ]; then
  echo "wallpapers already in $dest"
  exit 0
fi
cd "$work"
if ! ls lomiri-wallpapers-20.04_*.deb >/dev/null 2>&1 || ! ls colord-data_*.deb >/dev/null 2>&1; then
  apt-get download lomiri-wallpapers-20.04 colord-data
fi
rm -rf x && mkdir x
dpkg-deb -x lomiri-wallpapers-20.04_*.deb x
dpkg-deb -x colord-data_*.deb x
find x -path '*/backgrounds/*' -name '*.jpg' -exec cp {} "$dest/" \;
cp "$(find x -name AdobeRGB1998.icc | head -1)" "$icc/"
rm -rf x
echo "$(find "$dest" -maxdepth 1 -name '*.jpg' | wc -l) photographs in $dest, profile in $icc"
