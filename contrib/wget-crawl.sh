#!/usr/bin/env bash
# Crawl a site with wget into a WARC file, then deduplicate that crawl against
# every earlier crawl kept in one index.
#
#   contrib/wget-crawl.sh INDEX OUTDIR URL [wget options...]
#
# The raw crawl is kept in OUTDIR/raw/ (delete it once you have checked the
# output); the deduplicated WARC, named like the raw one, goes to OUTDIR/.
# Each run's name is its own (crawl-UTCTIME-PID, made with O_EXCL), so runs
# started together into one OUTDIR never share a file.
# wget's exit status 8 (some fetch had an HTTP error, such as a 404) is a
# normal end of a crawl.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 INDEX OUTDIR URL [wget options...]" >&2
  exit 2
fi
index=$1 out=$2 url=$3
shift 3
mkdir -p "$out/raw"
# The raw WARC's name is claimed by creating it empty with noclobber
# (O_EXCL): wget truncates the file it is given, so it must be this run's.
# The PID tells apart runs started in one second; a suffix, the rare name
# taken all the same.
stamp=$(date -u +%Y%m%d%H%M%S)
name="crawl-$stamp-$$"
n=0
until (set -C && : >"$out/raw/$name.warc.gz") 2>/dev/null; do
  n=$((n + 1))
  if [ "$n" -gt 100 ] || [ ! -w "$out/raw" ]; then
    echo "$0: cannot create a raw WARC file in $out/raw/" >&2
    exit 1
  fi
  name="crawl-$stamp-$$-$n"
done
raw="$out/raw/$name.warc.gz"
work=$(mktemp -d)
# wget's downloads (deleted as it goes) stay in a directory of their own; a
# raw file wget wrote nothing into is removed.
trap 'rm -rf "$work"; [ -s "$raw" ] || rm -f "$raw"' EXIT
status=0
wget --recursive --level=inf --no-parent --no-verbose --delete-after --no-directories \
  --directory-prefix="$work" --warc-file="$out/raw/$name" "$@" "$url" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 8 ]; then
  echo "$0: wget failed with status $status; nothing deduplicated" >&2
  exit "$status"
fi
"${WARCDEDUP:-warcdedup}" --index "$index" "$raw" "$out/"
