#!/usr/bin/env bash
# mapreduce-slurm.sh runs warcdedup's cluster steps as Slurm jobs: a job
# array of map tasks, one per input file; a reduce job over their facts,
# sorted; a job array of apply tasks, each writing the files whose key
# hashes to it. Each job starts when the one before it has succeeded, and
# the script waits for the last. It writes what `warcdedup IN... OUTDIR/`
# writes. The inputs, the output directory and the work directory must be
# on a file system every node sees.
#
#   scripts/mapreduce-slurm.sh [-r] [-f] [-t TASKS] IN.warc.gz... OUTDIR/
#
# With -f the apply tasks replace outputs that exist (warcdedup apply
# --force; never an input), and WARCDEDUP_CDXJ may name a file that exists;
# without it, either is refused (exit 2). Every output is checked before any
# job is submitted (scripts/job-outputs.sh): one refused (it exists, without
# -f; it is a directory or an input; two inputs would write it) stops the
# script with exit 2 before anything is computed or written.
#
# With -r the reduce runs as the partitioned rounds (warcdedup reduce
# --round, docs/scale.md): a job array of TASKS tasks for each round, task
# N taking the lines of the round before whose group hashes to N.
#
# Environment: WARCDEDUP, the binary (default: warcdedup on PATH);
# WARCDEDUP_FLAGS, flags given to every step; WARCDEDUP_INDEX, an index
# directory to deduplicate against and add to; WARCDEDUP_CDXJ, a file for
# the CDXJ index of the outputs (each apply task indexes what it writes,
# the indexes merged at the end), as --cdxj writes it; WORKDIR, a directory
# in which each run makes a new directory of its own for the lines between
# the steps, and keeps it (default: a new directory under TMPDIR, removed
# when the run succeeds); SBATCH_ARGS, more sbatch options (a partition, an
# account).
#
# It exits 0 only when every task of every step succeeded (3 when they did and
# damaged input was carried over, --lenient), and adds to the
# index (warcdedup index commit) only then.
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
bin=$(command -v "${WARCDEDUP:-warcdedup}")
bin=$(realpath "$bin")
flags=${WARCDEDUP_FLAGS:-}
index=""
[[ -n ${WARCDEDUP_INDEX:-} ]] && index="--index $(printf '%q' "$(realpath -m "$WARCDEDUP_INDEX")")"
out=$(realpath -m "${!#}")
ins=("${@:1:$#-1}")
script=mapreduce-slurm.sh
# shellcheck source=scripts/job-outputs.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/job-outputs.sh"
# shellcheck source=scripts/cdxj-target.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/cdxj-target.sh"
trap '[[ -z $cdxjtmp ]] || rm -f -- "$cdxjtmp"' EXIT
# Each run has a directory of its own: the success marks, facts and
# decisions of another run must never be taken for this one's.
if [[ -n ${WORKDIR:-} ]]; then
	mkdir -p "$WORKDIR"
	work=$(mktemp -d "$(realpath "$WORKDIR")/warcdedup-slurm.XXXXXX")
	echo "mapreduce-slurm.sh: the lines between the steps go to $work" >&2
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/warcdedup-slurm.XXXXXX")
fi
mkdir -p "$out"
read -r -a extra <<<"${SBATCH_ARGS:-}"
q() { printf '%q' "$1"; }

# Killed (SIGTERM, SIGINT, SIGHUP), the script cancels the jobs it
# submitted, whose tasks then remove what they had not finished (scancel
# sends them SIGTERM), and says what is left: the cluster would otherwise
# run the job on, writing outputs and staging the index after the script
# has ended. The apply job is waited for in the background: bash runs a
# trap only once a foreground command has ended.
#
# What is left is read from the work, output and index directories, not
# from how far the script had got: the apply tasks may all have finished
# before sbatch --wait saw it, and a trap runs only once the foreground
# command it came during (the index commit, the CDXJ merge) has ended.
# Every apply task's done mark means every output is written, and what the
# job staged in the index can be committed. With some missing, the outputs
# written are those, named as the inputs, newer in OUTDIR than the run's
# list of inputs: a task renames each output there once it is whole, and
# may have finished some before it was cancelled. The script does not
# commit the index itself: it was told to stop, and says what to run.
submitted=()
waiter=""
finished=0
# shellcheck disable=SC2317 # the traps below run it
stop() {
	trap '' HUP INT TERM
	[[ -s $work/apply.id ]] && submitted+=("$(cut -d';' -f1 "$work/apply.id")")
	((${#submitted[@]} == 0)) || scancel "${submitted[@]}" 2>/dev/null || true
	[[ -z $waiter ]] || wait "$waiter" 2>/dev/null || true
	local me="mapreduce-slurm.sh: stopped by SIG$1"
	# Set before the work directory, and its done marks, are removed.
	if ((finished)); then
		echo "$me once it had finished: every output is in $out" >&2
		exit $((128 + $2))
	fi
	local i left=() staged=0
	for i in $(seq 0 $((tasks - 1))); do
		[[ -e $work/apply-$i.done ]] || left+=("$i")
	done
	# The listing is read whole before grep looks at it: under pipefail, a
	# grep -q that stops early would end the listing with SIGPIPE.
	if [[ -n ${WARCDEDUP_INDEX:-} ]] && grep -q '^a cluster job staged' <<<"$("$bin" index "$WARCDEDUP_INDEX" 2>/dev/null || true)"; then
		staged=1
	fi
	if ((${#left[@]} == 0)); then
		echo "$me after every apply task had finished: every output is written, in $out" >&2
		if ((staged)); then
			echo "mapreduce-slurm.sh: what the job kept is staged in $WARCDEDUP_INDEX, not committed: every output is written, so warcdedup index commit $WARCDEDUP_INDEX adds it to the index" >&2
		fi
		# The merged index is written to cdxjtmp, then linked (renamed,
		# with -f) to its name: until then it is not written.
		if [[ -n $cdxjout && -e $cdxjtmp && ! $cdxjtmp -ef $cdxjout ]]; then
			echo "mapreduce-slurm.sh: the CDXJ index $WARCDEDUP_CDXJ is not written; the apply tasks' indexes in $work make it: LC_ALL=C sort -m $work/cdxj-* >$WARCDEDUP_CDXJ" >&2
		fi
		exit $((128 + $2))
	fi
	echo "$me; its jobs (${submitted[*]:-none submitted}) are cancelled; the apply tasks that had not finished: ${left[*]}" >&2
	written_note "$work/list"
	if ((staged)); then
		echo "mapreduce-slurm.sh: what the job kept is staged in $WARCDEDUP_INDEX, not committed: warcdedup index discard $WARCDEDUP_INDEX removes it (commit it only once every output is written)" >&2
	fi
	exit $((128 + $2))
}
trap 'stop HUP 1' HUP
trap 'stop INT 2' INT
trap 'stop TERM 15' TERM

# The list of inputs, each with its position: map task N of M takes the
# lines whose number is N modulo M.
: >"$work/list"
for i in "${!ins[@]}"; do
	printf '%d\t%s\n' "$i" "$(realpath "${ins[$i]}")" >>"$work/list"
done
n=${#ins[@]}

# Each step is a bash script in the work directory that marks its success
# with a file: a step whose dependency failed is cancelled, and sbatch
# --wait does not say so.
job() {
	local name=$1
	shift
	{
		echo '#!/usr/bin/env bash'
		echo 'set -euo pipefail'
		printf '%s\n' "$@"
	} >"$work/$name.sh"
	chmod +x "$work/$name.sh"
}
mapflags=""
seed=""
if ((rounds)); then
	mapflags="--rounds"
	# Map task 0 also writes the lines of the index's records.
	[[ -n $index ]] && seed="seed=(); [[ \$SLURM_ARRAY_TASK_ID == 0 ]] && seed=($index)"
fi
job map "seed=()" "$seed" "$(q "$bin") map -q $mapflags \"\${seed[@]}\" $flags <$(q "$work/list") >$(q "$work")/facts-\$SLURM_ARRAY_TASK_ID" \
	"touch $(q "$work")/map-\$SLURM_ARRAY_TASK_ID.done"
map=$(sbatch --parsable "${extra[@]}" --job-name=warcdedup-map --array=0-$((n - 1)) \
	-o "$work/map-%a.log" "$work/map.sh")
submitted+=("${map%%;*}")
steps=()
if ((rounds)); then
	# A round's task N takes the lines whose group (the key up to its first
	# space) hashes to N, as an engine's partitioner sends each group whole
	# to one task.
	part='{ g = $1; sub(/ .*/, "", g); h = 0
		for (i = 1; i <= length(g); i++) h = (h * 31 + index("0123456789abcdefghijklmnopqrstuvwxyz-.:", tolower(substr(g, i, 1)))) % 1000003
		if (h % n == t) print }'
	prev="$(q "$work")/facts-*"
	dep=$map
	for round in exact site bands join verify resolve; do
		job "$round" "awk -F '\t' -v n=$tasks -v t=\$SLURM_ARRAY_TASK_ID $(q "$part") $prev | LC_ALL=C sort -T $(q "$work") | $(q "$bin") reduce -q --round $round $flags $index >$(q "$work")/$round-out-\$SLURM_ARRAY_TASK_ID" \
			"touch $(q "$work")/$round-\$SLURM_ARRAY_TASK_ID.done"
		dep=$(sbatch --parsable "${extra[@]}" --job-name=warcdedup-$round --array=0-$((tasks - 1)) \
			--dependency=afterok:"$dep" --kill-on-invalid-dep=yes -o "$work/$round-%a.log" "$work/$round.sh")
		submitted+=("${dep%%;*}")
		steps+=("$round")
		prev="$(q "$work")/$round-out-*"
	done
	decisions=$prev
	reduce=$dep
else
	job reduce "LC_ALL=C sort -T $(q "$work") $(q "$work")/facts-* | $(q "$bin") reduce -q $flags $index >$(q "$work/decisions")" \
		"touch $(q "$work")/reduce.done"
	reduce=$(sbatch --parsable "${extra[@]}" --job-name=warcdedup-reduce \
		--dependency=afterok:"$map" --kill-on-invalid-dep=yes -o "$work/reduce.log" "$work/reduce.sh")
	submitted+=("${reduce%%;*}")
	decisions=$(q "$work/decisions")
fi
cdxj=""
[[ -n ${WARCDEDUP_CDXJ:-} ]] && cdxj="--cdxj $(q "$work")/cdxj-\$SLURM_ARRAY_TASK_ID"
applyforce=""
if ((force)); then
	applyforce="--force"
fi
# An apply task that carried damaged input over (--lenient) exits 3: it is
# done, and the job ends with 3.
job apply "st=0" "LC_ALL=C sort $decisions | $(q "$bin") apply -q $flags $applyforce $cdxj $(q "$out/") || st=\$?" \
	"((st == 0 || st == 3)) || exit \$st" \
	"((st == 0)) || touch $(q "$work")/apply-\$SLURM_ARRAY_TASK_ID.damaged" \
	"touch $(q "$work")/apply-\$SLURM_ARRAY_TASK_ID.done"
sbatch --wait --parsable "${extra[@]}" --job-name=warcdedup-apply --array=0-$((tasks - 1)) \
	--dependency=afterok:"$reduce" --kill-on-invalid-dep=yes -o "$work/apply-%a.log" "$work/apply.sh" >"$work/apply.id" &
waiter=$!
wait "$waiter" || true
waiter=""
missing=()
for i in $(seq 0 $((n - 1))); do [[ -e $work/map-$i.done ]] || missing+=("map task $i"); done
if ((rounds)); then
	for r in "${steps[@]}"; do
		for i in $(seq 0 $((tasks - 1))); do [[ -e $work/$r-$i.done ]] || missing+=("$r task $i"); done
	done
else
	[[ -e $work/reduce.done ]] || missing+=("reduce")
fi
for i in $(seq 0 $((tasks - 1))); do [[ -e $work/apply-$i.done ]] || missing+=("apply task $i"); done
if ((${#missing[@]} > 0)); then
	echo "mapreduce-slurm.sh: did not finish: ${missing[*]}; the steps' logs (all in $work):" >&2
	for l in "$work"/*.log; do
		[[ -s $l ]] && { echo "== $l"; cat "$l"; } >&2
	done
	# An apply task that failed (an output that appeared during the run, a
	# full disk) leaves the others' outputs, which may name records of
	# those it did not write.
	written_note "$work/list" failed
	# The reduce (the resolve round's task that took the run's group) may
	# have staged what the job kept; it is not committed, as not every
	# output was written.
	# The listing is read whole before grep looks at it: under pipefail, a
	# grep -q that stops early would end the listing with SIGPIPE, and the
	# staged segment would go unmentioned.
	if [[ -n ${WARCDEDUP_INDEX:-} ]] && grep -q '^a cluster job staged' <<<"$("$bin" index "$WARCDEDUP_INDEX" 2>/dev/null || true)"; then
		echo "mapreduce-slurm.sh: what the job kept is staged in $WARCDEDUP_INDEX, not committed: warcdedup index discard $WARCDEDUP_INDEX removes it (commit it only once every output is written)" >&2
	fi
	exit 1
fi
# The reduce tasks' warnings that -q does not silence (input revisits whose
# replay the job breaks) would go with the logs: they are shown.
grep -h "input revisit" "$work"/*.log >&2 || true
# What the job kept joins the index once every output is written.
if [[ -n ${WARCDEDUP_INDEX:-} ]]; then
	"$bin" index commit "$WARCDEDUP_INDEX" >/dev/null
fi
# The apply tasks' indexes, each sorted, merged into one.
cdxj_merge "$work"
status=0
if compgen -G "$work/apply-*.damaged" >/dev/null; then
	status=3
fi
finished=1
if [[ -z ${WORKDIR:-} ]]; then
	rm -rf "$work"
fi
exit "$status"
