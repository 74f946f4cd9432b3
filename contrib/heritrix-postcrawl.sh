#!/usr/bin/env bash
# Deduplicate a finished Heritrix job's WARC files against every earlier crawl
# kept in one index: a post-crawl step.
#
#   contrib/heritrix-postcrawl.sh JOBDIR INDEX OUTDIR
#
# JOBDIR is a job's directory or one of its launches: every warcs/ directory
# under it is read. Files Heritrix is still writing (*.open) are skipped, with
# a warning; run the step again once the job has finished.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 JOBDIR INDEX OUTDIR" >&2
  exit 2
fi
job=$1 index=$2 out=$3
files=()
while IFS= read -r -d '' f; do
  files+=("$f")
done < <(find "$job" -path '*/warcs/*' -type f \( -name '*.warc.gz' -o -name '*.warc' \) -print0 | sort -z)
open=$(find "$job" -path '*/warcs/*' -type f -name '*.open' | wc -l)
if [ "$open" -gt 0 ]; then
  echo "$0: skipping $open file(s) Heritrix is still writing (*.open)" >&2
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "$0: no finished WARC files under $job/**/warcs/" >&2
  exit 1
fi
mkdir -p "$out"
exec "${WARCDEDUP:-warcdedup}" --index "$index" "${files[@]}" "$out/"
