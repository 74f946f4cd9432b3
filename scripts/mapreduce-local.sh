#!/usr/bin/env bash
# mapreduce-local.sh runs warcdedup's cluster steps on one machine, the way
# an engine runs them: a map task per input file, LC_ALL=C sort between the
# steps, one reduce task for the run, and apply tasks that each take the
# files whose key hashes to them. It writes what `warcdedup IN... OUTDIR/`
# writes.
#
#   scripts/mapreduce-local.sh [-t APPLY_TASKS] IN.warc.gz... OUTDIR/
#
# Environment: WARCDEDUP, the binary (default: warcdedup on PATH);
# WARCDEDUP_FLAGS, flags given to every step (the same for all three);
# WARCDEDUP_INDEX, an index directory to deduplicate against and add to;
# TMPDIR, where the lines between the steps go.
set -euo pipefail

tasks=3
if [[ ${1:-} == -t ]]; then
	tasks=$2
	shift 2
fi
if (($# < 2)); then
	echo "usage: $0 [-t APPLY_TASKS] IN.warc.gz... OUTDIR/" >&2
	exit 2
fi
bin=${WARCDEDUP:-warcdedup}
read -r -a flags <<<"${WARCDEDUP_FLAGS:-}"
index=()
[[ -n ${WARCDEDUP_INDEX:-} ]] && index=(--index "$WARCDEDUP_INDEX")
out=${!#}
ins=("${@:1:$#-1}")
work=$(mktemp -d "${TMPDIR:-/tmp}/warcdedup-mr.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Map: one task per file, all at once; each is handed its position in the
# list, as Hadoop's NLineInputFormat hands a line's offset.
pids=()
for i in "${!ins[@]}"; do
	printf '%d\t%s\n' "$i" "${ins[$i]}" | "$bin" map -q "${flags[@]}" >"$work/map-$i" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done

# Shuffle and reduce: every fact, sorted by key, to one task.
LC_ALL=C sort -S 25% -T "$work" "$work"/map-* | "$bin" reduce -q "${flags[@]}" "${index[@]}" >"$work/decisions"

# Shuffle to the apply tasks: a file's lines go to the task its key hashes to.
awk -F '\t' -v n="$tasks" -v dir="$work" '
	!($1 in part) {
		h = 0
		for (i = 1; i <= length($1); i++) h = (h * 31 + index("0123456789abcdef-.:", substr($1, i, 1))) % 1000003
		part[$1] = h % n
	}
	{ print > (dir "/apply-" part[$1]) }' "$work/decisions"
mkdir -p "$out"
pids=()
for f in "$work"/apply-*; do
	[[ -e $f ]] || continue
	LC_ALL=C sort "$f" | "$bin" apply -q "${flags[@]}" "$out" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p"
done

# What the job kept joins the index once every output is written.
if [[ -n ${WARCDEDUP_INDEX:-} ]]; then
	"$bin" index commit "$WARCDEDUP_INDEX" >/dev/null
fi
