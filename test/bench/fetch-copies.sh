#!/usr/bin/env bash
# Fetches the photographs of the copies benchmark (issue 18): 12 camera photographs of 4-16 MP from
# Debian lomiri-wallpapers-16.04, each reduced to a long side of 2400 px (3.3-3.8 MP, the size of a
# photo published on the web; still over the 2 MP the small-crop target is about) and saved as
# JPEG q92. Nothing is committed; re-running is a no-op.
# Usage: test/bench/fetch-copies.sh [DEST]   (default: .cache/copies at the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/copies}"
work="$root/.cache/copies-deb"
mkdir -p "$dest" "$work"
if [ "$(find "$dest" -maxdepth 1 -name '*.jpg' | wc -l)" -ge 12 ]; then
  echo "photographs already in $dest"
  exit 0
fi
cd "$work"
ls lomiri-wallpapers-16.04_*.deb >/dev/null 2>&1 || apt-get download lomiri-wallpapers-16.04
rm -rf x && mkdir x
dpkg-deb -x lomiri-wallpapers-16.04_*.deb x
for f in Wine_by_Jakkub_Mede greentock_by_Peter_Nerlich seeding_by_Clements_Engelhardt aitzgorri_by_Aitzol_Berasategi \
  Dragonfly_by_Bolly friends_by_Aitzol_Berasategi sunset_by_Aitzol_Berasategi free_by_Peter_Nerlich \
  picosdeeuropa_by_Aitzol_Berasategi umang_by_Abhishek_Mudgal life_by_Aitzol_Berasategi Bridge_by_Sander_Klootwijk; do
  src=$(find x -name "$f.jpg" | head -1)
  [ -n "$src" ] && convert "$src" -resize '2400x2400>' -quality 92 "$dest/$f.jpg"
done
rm -rf x
echo "$(find "$dest" -maxdepth 1 -name '*.jpg' | wc -l) photographs in $dest"
