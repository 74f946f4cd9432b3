#!/usr/bin/env bash
# Deduplicate a Browsertrix-crawler collection's WARC files against every
# earlier crawl kept in one index.
#
#   contrib/browsertrix-postcrawl.sh COLLECTION INDEX OUTDIR
#
# COLLECTION is the crawler's collection directory (crawls/collections/NAME);
# its archive/ directory holds the WARC files. Files still being written
# (*.open) are skipped.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 COLLECTION INDEX OUTDIR" >&2
  exit 2
fi
coll=$1 index=$2 out=$3
if [ ! -d "$coll/archive" ]; then
  echo "$0: $coll has no archive/ directory: not a Browsertrix-crawler collection" >&2
  exit 2
fi
files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(find "$coll/archive/" -maxdepth 1 -type f \( -name '*.warc.gz' -o -name '*.warc' \) -print0 | sort -z)
if [ ${#files[@]} -eq 0 ]; then
  echo "$0: no WARC files in $coll/archive/" >&2
  exit 1
fi
mkdir -p "$out"
exec "${WARCDEDUP:-warcdedup}" --index "$index" "${files[@]}" "$out/"
