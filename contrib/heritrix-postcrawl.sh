#!/usr/bin/env bash
# Deduplicate a finished Heritrix job's WARC files against every earlier crawl
# kept in one index: a post-crawl step.
#
#   contrib/heritrix-postcrawl.sh JOBDIR INDEX OUTDIR
#
# JOBDIR is a job's directory or one of its launches (JOBDIR/latest, the
# symlink Heritrix keeps to the current launch, is followed): every warcs/
# directory under it is read. Files Heritrix is still writing (*.open) are skipped, with
# a warning; run the step again once the job has finished. A file whose
# output is in OUTDIR already (an earlier run's) is not done again, so that
# a second run does the files the first skipped; outputs are never replaced.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 JOBDIR INDEX OUTDIR" >&2
  exit 2
fi
job=$1 index=$2 out=$3
files=()
already=0
while IFS= read -r -d '' f; do
  if [ -e "$out/${f##*/}" ] || [ -L "$out/${f##*/}" ]; then
    already=$((already + 1))
    continue
  fi
  files+=("$f")
done < <(find "$job/" -path '*/warcs/*' -type f \( -name '*.warc.gz' -o -name '*.warc' \) -print0 | sort -z)
if [ "$already" -gt 0 ]; then
  echo "$0: $already file(s) have an output in $out already (an earlier run): not done again" >&2
fi
open=$(find "$job/" -path '*/warcs/*' -type f -name '*.open' | wc -l)
if [ "$open" -gt 0 ]; then
  echo "$0: skipping $open file(s) Heritrix is still writing (*.open)" >&2
fi
if [ ${#files[@]} -eq 0 ]; then
  if [ "$already" -gt 0 ]; then
    exit 0
  fi
  echo "$0: no finished WARC files under $job/**/warcs/" >&2
  exit 1
fi
mkdir -p "$out"
exec "${WARCDEDUP:-warcdedup}" --index "$index" "${files[@]}" "$out/"
