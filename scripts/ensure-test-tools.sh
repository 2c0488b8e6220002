#!/usr/bin/env bash
# `npm test` measures written files with an independent tool, ImageMagick's `compare`. A fresh
# machine of this project's kind has no real ImageMagick: install it from Debian's packages when
# we can (root with apt-get), otherwise say what is missing.
if command -v compare >/dev/null 2>&1 && compare -version 2>/dev/null | grep -q ImageMagick; then exit 0; fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ImageMagick (the tests measure watermarked files with its compare)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq imagemagick) >/dev/null 2>&1 && exit 0
fi
echo "ImageMagick's compare is needed by the tests: install it (Debian: apt-get install imagemagick)" >&2
exit 1
