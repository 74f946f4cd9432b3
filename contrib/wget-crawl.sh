#!/usr/bin/env bash
# Crawl a site with wget into a WARC file, then deduplicate that crawl against
# every earlier crawl kept in one index.
#
#   contrib/wget-crawl.sh INDEX OUTDIR URL [wget options...]
#
# The raw crawl is kept in OUTDIR/raw/ (delete it once you have checked the
# output); the deduplicated WARC, named like the raw one, goes to OUTDIR/.
# wget's exit status 8 (some fetch had an HTTP error, such as a 404) is a
# normal end of a crawl.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 INDEX OUTDIR URL [wget options...]" >&2
  exit 2
fi
index=$1 out=$2 url=$3
shift 3
name="crawl-$(date -u +%Y%m%d%H%M%S)"
mkdir -p "$out/raw"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
wget --recursive --level=inf --no-parent --no-verbose --delete-after --no-directories \
  --directory-prefix="$work" --warc-file="$out/raw/$name" "$@" "$url" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 8 ]; then
  echo "$0: wget failed with status $status; nothing deduplicated" >&2
  exit "$status"
fi
exec "${WARCDEDUP:-warcdedup}" --index "$index" "$out/raw/$name.warc.gz" "$out/"
