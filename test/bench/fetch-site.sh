#!/usr/bin/env bash
# Fetches a real documentation site (the Debian Administrator's Handbook, HTML in 26 languages)
# from its Debian package into a cache folder. Nothing is committed; re-running is a no-op.
# Usage: test/bench/fetch-site.sh [DEST]   (default: .cache/sites/debian-handbook)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/sites/debian-handbook}"
work="$root/.cache/sites-deb"
if [ -f "$dest/en-US/index.html" ]; then echo "site already in $dest"; exit 0; fi
mkdir -p "$work" "$(dirname "$dest")"
cd "$work"
ls debian-handbook_*.deb >/dev/null 2>&1 || apt-get download debian-handbook
rm -rf x && mkdir x
dpkg-deb -x debian-handbook_*.deb x
rm -rf "$dest" && mv x/usr/share/doc/debian-handbook/html "$dest"
rm -rf x
echo "$(find "$dest" -name '*.html' | wc -l) pages in $dest"
