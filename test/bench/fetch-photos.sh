#!/usr/bin/env bash
# Fetches the benchmark photographs of research/watermark.md section 4.1 from Debian packages
# (opencv-doc, python3-skimage) into a cache folder. Nothing is committed; re-running is a no-op.
# Usage: test/bench/fetch-photos.sh [DEST]   (default: .cache/photos at the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/photos}"
work="$root/.cache/photos-deb"
mkdir -p "$dest" "$work"
if [ "$(find "$dest" -maxdepth 1 -type f | wc -l)" -ge 34 ]; then
  echo "photos already in $dest"
  exit 0
fi
cd "$work"
if ! ls opencv-doc_*.deb >/dev/null 2>&1 || ! ls python3-skimage_*.deb >/dev/null 2>&1; then
  apt-get download opencv-doc python3-skimage
fi
rm -rf x && mkdir x
dpkg-deb -x opencv-doc_*.deb x
dpkg-deb -x python3-skimage_*.deb x
data=$(find x -type d -path '*opencv-doc/examples/data' | head -1)
for f in fruits baboon home starry_night messi5 building butterfly apple orange aero1 aero3 leuvenA graf1 board \
  aloeL chicky_512 smarties squirrel_cls HappyFish ela_original licenseplate_motion rubberwhale1; do
  src=$(find "$data" -maxdepth 1 -name "$f.*" \( -name '*.jpg' -o -name '*.png' \) | head -1)
  [ -n "$src" ] && cp "$src" "$dest/"
done
for f in scenetext01 scenetext02 scenetext03 scenetext05; do
  src=$(find x -path '*text/*' -name "$f.jpg" | head -1)
  [ -n "$src" ] && cp "$src" "$dest/"
done
src=$(find x -path '*alphamat/input_images/plant.jpg' | head -1); [ -n "$src" ] && cp "$src" "$dest/plant.jpg"
src=$(find x -path '*hfs/data/000.jpg' | head -1); [ -n "$src" ] && cp "$src" "$dest/hfs000.jpg"
skd=$(find x -type d -path '*skimage/data' | head -1)
for f in coffee astronaut chelsea rocket motorcycle_left hubble_deep_field; do
  src=$(find "$skd" -maxdepth 1 -name "$f.*" \( -name '*.jpg' -o -name '*.png' \) | head -1)
  [ -n "$src" ] && cp "$src" "$dest/"
done
rm -rf x
echo "$(find "$dest" -maxdepth 1 -type f | wc -l) photos in $dest"
