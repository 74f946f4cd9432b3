#!/usr/bin/env bash
# mapreduce-local.sh runs warcdedup's cluster steps on one machine, the way
# an engine runs them: a map task per input file, LC_ALL=C sort between the
# steps, one reduce task for the run, and apply tasks that each take the
# files whose key hashes to them. It writes what `warcdedup IN... OUTDIR/`
# writes.
#
#   scripts/mapreduce-local.sh [-r] [-f] [-t TASKS] IN.warc.gz... OUTDIR/
#
# With -f the apply tasks replace outputs that exist (warcdedup apply
# --force; never an input, and not with WARCDEDUP_INDEX, whose records an
# output may hold), and WARCDEDUP_CDXJ may name a file that exists;
# without it, either is refused (exit 2). Every output is checked before the
# map step runs (scripts/job-outputs.sh): one refused (it exists, without
# -f; it is a directory or an input; two inputs would write it) stops the
# job with exit 2 before anything is computed or written.
#
# With -r the reduce runs as the partitioned rounds (warcdedup reduce
# --round, docs/scale.md), each round's lines split among TASKS reduce
# tasks by their group, as an engine's partitioner splits them; TASKS is
# also the number of apply tasks.
#
# Environment: WARCDEDUP, the binary (default: warcdedup on PATH);
# WARCDEDUP_FLAGS, flags given to every step (the same for all three);
# WARCDEDUP_INDEX, an index directory to deduplicate against and add to;
# WARCDEDUP_CDXJ, a file for the CDXJ index of the outputs (each apply task
# indexes what it writes; the tasks' indexes are merged), as --cdxj writes
# it; TMPDIR, where the lines between the steps go.
#
# When a task fails, the script waits for the others of its step, then exits
# with the failed task's status: no task runs on after the script ends. A job
# that carried damaged input over (--lenient) exits 3 once every output is
# written, as warcdedup does. On SIGTERM, SIGINT or SIGHUP it stops every
# task it started (each removes what it had not finished), waits for them,
# says what is left (a staged index segment), and exits with 128 and the
# signal's number.
set -euo pipefail

tasks=3
rounds=0
force=0
while (($# > 0)); do
	case $1 in
	-f)
		force=1
		shift
		;;
	-t)
		tasks=$2
		shift 2
		;;
	-r)
		rounds=1
		shift
		;;
	*) break ;;
	esac
done
if (($# < 2)); then
	echo "usage: $0 [-r] [-f] [-t TASKS] IN.warc.gz... OUTDIR/" >&2
	exit 2
fi
bin=${WARCDEDUP:-warcdedup}
read -r -a flags <<<"${WARCDEDUP_FLAGS:-}"
index=()
[[ -n ${WARCDEDUP_INDEX:-} ]] && index=(--index "$WARCDEDUP_INDEX")
out=${!#}
ins=("${@:1:$#-1}")
script=mapreduce-local.sh
# shellcheck source=scripts/job-outputs.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/job-outputs.sh"
# shellcheck source=scripts/cdxj-target.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/cdxj-target.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/warcdedup-mr.XXXXXX")
trap 'rm -rf "$work"; [[ -z $cdxjtmp ]] || rm -f -- "$cdxjtmp"' EXIT

# staged_note WHY: says that what the reduce kept is staged in the index
# and not committed, when it is: the job did not write every output.
staged_note() {
	local ix
	[[ -n ${WARCDEDUP_INDEX:-} ]] || return 0
	ix=$("$bin" index "$WARCDEDUP_INDEX" 2>/dev/null) || return 0
	[[ $ix == "a cluster job staged"* ]] || return 0
	echo "mapreduce-local.sh: $1: what the job kept is staged in $WARCDEDUP_INDEX, not committed: warcdedup index discard $WARCDEDUP_INDEX removes it (commit it only once every output is written)" >&2
}

# Every task runs in the background and the script waits for it, even a
# step that has one task: bash runs a trap only once the foreground command
# has ended, but interrupts wait. pids holds the warcdedup steps of the
# tasks running; phase says how far the job got.
pids=()
phase=map
# shellcheck disable=SC2317 # the traps below run it
stop() {
	local name=$1 n=$2
	trap '' HUP INT TERM
	# A task is at most two processes: the warcdedup step ($!, in pids)
	# and what feeds it, the job's first process (jobs -p). The steps are
	# stopped first, so that none takes the end of its input for the whole
	# of it. Background tasks ignore SIGINT (bash without job control), so
	# each is sent SIGTERM, on which a step removes what it had not
	# finished.
	kill -TERM "${pids[@]}" 2>/dev/null || true
	# shellcheck disable=SC2046 # one PID a word
	kill -TERM $(jobs -pr) 2>/dev/null || true
	wait || true
	echo "mapreduce-local.sh: stopped by SIG$name in the $phase step; its tasks are stopped" >&2
	# The outputs newer than the apply step's start are the ones written.
	[[ $phase != apply ]] || written_note "$work/apply.start"
	[[ $phase == map ]] || staged_note "stopped by SIG$name"
	exit $((128 + n))
}
trap 'stop HUP 1' HUP
trap 'stop INT 2' INT
trap 'stop TERM 15' TERM

# wait_all PID...: waits for every task, so that none runs on (writing
# outputs, or into the work directory) once the script has ended; fails
# with the status of the first that failed.
wait_all() {
	local p s rc=0
	for p; do
		s=0
		wait "$p" || s=$?
		# 3 is a task that finished with damaged input carried over
		# (--lenient): any failure comes before it.
		if ((rc == 0 || rc == 3 && s != 0)); then
			rc=$s
		fi
	done
	return "$rc"
}

# Map: one task per file, all at once; each is handed its position in the
# list, as Hadoop's NLineInputFormat hands a line's offset.
mapflags=()
((rounds)) && mapflags=(--rounds)
pids=()
for i in "${!ins[@]}"; do
	seed=()
	# With the rounds, one map task also writes the lines of the index's
	# records.
	((rounds && i == 0)) && seed=("${index[@]}")
	printf '%d\t%s\n' "$i" "${ins[$i]}" | "$bin" map -q "${mapflags[@]}" "${seed[@]}" "${flags[@]}" >"$work/map-$i" &
	pids+=($!)
done
wait_all "${pids[@]}" || exit

# partition PREFIX FILE...: the lines of FILE... to PREFIX-0 ... PREFIX-(n-1)
# by a hash of their group (the key up to its first space), as an engine's
# partitioner sends each group whole to one task.
partition() {
	local prefix=$1
	shift
	# In the background, so that a signal stops it (see above).
	awk -F '\t' -v n="$tasks" -v prefix="$prefix" '
		{
			g = $1
			sub(/ .*/, "", g)
			if (!(g in part)) {
				h = 0
				for (i = 1; i <= length(g); i++) h = (h * 31 + index("0123456789abcdefghijklmnopqrstuvwxyz-.:", tolower(substr(g, i, 1)))) % 1000003
				part[g] = h % n
			}
			print > (prefix "-" part[g])
		}' "$@" &
	pids=($!)
	wait_all "${pids[@]}"
}

if ((rounds)); then
	# The rounds: each a shuffle (partition, then sort in each task) and
	# its reduce tasks.
	phase=reduce
	cur=("$work"/map-*)
	for round in exact site bands join verify resolve; do
		partition "$work/$round-in" "${cur[@]}"
		rm -f "${cur[@]}"
		pids=()
		for f in "$work/$round-in"-*; do
			[[ -e $f ]] || continue
			LC_ALL=C sort -S 10% -T "$work" "$f" | "$bin" reduce -q --round "$round" "${flags[@]}" "${index[@]}" >"${f/-in-/-out-}" &
			pids+=($!)
		done
		wait_all "${pids[@]}" || exit
		rm -f "$work/$round-in"-*
		cur=("$work/$round-out"-*)
	done
	cat "${cur[@]}" >"$work/decisions"
else
	# Shuffle and reduce: every fact, sorted by key, to one task.
	phase=reduce
	LC_ALL=C sort -S 25% -T "$work" "$work"/map-* | "$bin" reduce -q "${flags[@]}" "${index[@]}" >"$work/decisions" &
	pids=($!)
	wait_all "${pids[@]}" || exit
fi

# Shuffle to the apply tasks: a file's lines go to the task its key hashes to.
partition "$work/apply" "$work/decisions"
mkdir -p "$out"
touch "$work/apply.start"
phase=apply
applyforce=()
if ((force)); then
	applyforce=(--force)
fi
pids=()
for f in "$work"/apply-*; do
	[[ -e $f ]] || continue
	cdxj=()
	[[ -n ${WARCDEDUP_CDXJ:-} ]] && cdxj=(--cdxj "$work/cdxj-${f##*-}")
	LC_ALL=C sort "$f" | "$bin" apply -q "${flags[@]}" "${applyforce[@]}" "${cdxj[@]}" "$out" &
	pids+=($!)
done
status=0
wait_all "${pids[@]}" || status=$?
if ((status != 0 && status != 3)); then
	# An output refused after the check above (one that appeared during the
	# run), a full disk: the other tasks wrote theirs, which may name
	# records of the outputs not written. The reduce staged what the job
	# kept; not every output was written, so it is not committed.
	echo "mapreduce-local.sh: an apply task failed (exit $status)" >&2
	written_note "$work/apply.start" failed
	staged_note "an apply task failed"
	exit "$status"
fi

# What the job kept joins the index once every output is written.
phase=commit
if [[ -n ${WARCDEDUP_INDEX:-} ]]; then
	"$bin" index commit "$WARCDEDUP_INDEX" >/dev/null
fi

# The tasks' indexes, each sorted, merged into one.
cdxj_merge "$work"
# Every output is written; 3 says damaged input was carried over into some
# (--lenient), as warcdedup's own exit status does.
exit "$status"
