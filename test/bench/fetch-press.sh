#!/usr/bin/env bash
# Fetches the press benchmark's real PDFs into a cache folder (nothing is committed; re-running is a
# no-op): ghostscript-doc's GS9_Color_Management.pdf, texlive-latex-recommended-doc's beamer
# example, and the journal article of the pdf-parse npm package's test data.
# Usage: test/bench/fetch-press.sh [DEST]   (default: .cache/press at the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="${1:-$root/.cache/press}"
work="$root/.cache/press-deb"
mkdir -p "$dest" "$work"
cd "$work"
if [ ! -s "$dest/GS9_Color_Management.pdf" ]; then
  ls ghostscript-doc_*.deb >/dev/null 2>&1 || apt-get download ghostscript-doc
  rm -rf gs && mkdir gs && dpkg-deb -x ghostscript-doc_*.deb gs
  src=$(find gs -name 'GS9_Color_Management.pdf*' | head -1)
  case "$src" in *.gz) gunzip -c "$src" > "$dest/GS9_Color_Management.pdf" ;; *) cp "$src" "$dest/" ;; esac
  rm -rf gs
fi
if ! ls "$dest"/beamer*.pdf >/dev/null 2>&1; then
  ls texlive-latex-recommended-doc_*.deb >/dev/null 2>&1 || apt-get download texlive-latex-recommended-doc
  rm -rf tl && mkdir tl && dpkg-deb -x texlive-latex-recommended-doc_*.deb tl
  for f in $(find tl -path '*beamer*' -name 'beamerexample*.pdf*' | sort); do
    case "$f" in *.gz) gunzip -c "$f" > "$dest/$(basename "${f%.gz}")" ;; *) cp "$f" "$dest/" ;; esac
  done
  rm -rf tl
fi
if ! ls "$dest"/pdf-parse-*.pdf >/dev/null 2>&1; then
  rm -rf pp && mkdir pp && (cd pp && npm pack pdf-parse@1.1.1 --silent >/dev/null && tar xzf pdf-parse-1.1.1.tgz)
  for f in pp/package/test/data/*.pdf; do cp "$f" "$dest/pdf-parse-$(basename "$f")"; done
  rm -rf pp
fi
ls -la "$dest"
