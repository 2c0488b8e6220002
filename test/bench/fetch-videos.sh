#!/usr/bin/env bash
# Fetches the video benchmark's real footage from Debian packages into a cache folder (never
# committed): opencv-doc's examples/data (vtest.avi, tree.avi, Megamind.avi, Megamind_bugy.avi)
# and python3-mecavideo's data/video clips. Re-running is a no-op.
# Usage: test/bench/fetch-videos.sh [DEST]   (default: .cache/videos at the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/videos}"
work="$root/.cache/videos-deb"
mkdir -p "$dest" "$work"
if [ -f "$dest/vtest.avi" ] && [ "$(find "$dest" -maxdepth 1 -type f | wc -l)" -ge 5 ]; then
  echo "videos already in $dest"
  exit 0
fi
cd "$work"
ls opencv-doc_*.deb >/dev/null 2>&1 || apt-get download opencv-doc
ls python3-mecavideo_*.deb >/dev/null 2>&1 || apt-get download python3-mecavideo || echo "python3-mecavideo is not available: its clips are skipped"
rm -rf x && mkdir x
for deb in *.deb; do dpkg-deb -x "$deb" x; done
for f in vtest.avi tree.avi Megamind.avi Megamind_bugy.avi; do
  src=$(find x -path '*examples/data*' -name "$f" | head -1)
  [ -n "$src" ] && cp "$src" "$dest/"
done
find x -path '*mecavideo*' \( -name '*.mp4' -o -name '*.avi' -o -name '*.mov' -o -name '*.ogv' \) -exec cp {} "$dest/" \; 2>/dev/null || true
rm -rf x
ls "$dest"
