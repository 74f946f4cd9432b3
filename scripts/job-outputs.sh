# job-outputs.sh is sourced by mapreduce-local.sh and mapreduce-slurm.sh:
# the check of the job's outputs, OUTDIR/ and each input's base name, before
# any step runs, and written_note, which says what the apply tasks wrote
# when the job stops before it ends. It reads the caller's ins (the inputs),
# out (OUTDIR), force (-f) and script (its name, for messages).
#
# Each apply task checks only the outputs of its own files: one that refused
# an output while the others wrote theirs would leave outputs whose revisits
# name records kept in a file never written. So every output is checked
# here, before the map step, as `warcdedup IN... OUTDIR/` checks them all
# before it reads anything, and as warcdedup apply words it (exit 2): two
# inputs of one base name, an output that is a directory or another file
# that is not a regular file, character device or pipe, an output that is
# one of the inputs (with -f too, also through a link), and, without -f, an
# output that exists.
check_outputs() {
	local dir=${out%/} f o b t k line
	local -A base=() inkey=()
	local exist=()
	# An index given as a flag reaches the map and reduce steps, not the
	# script: the segment the reduce stages would be neither committed nor
	# named when the job stops, and apply, which takes no --index, fails.
	for f in ${WARCDEDUP_FLAGS:-}; do
		case $f in
		-index-cdx* | --index-cdx*)
			echo "$script: WARCDEDUP_FLAGS holds $f: the steps take no CDX; a cluster job deduplicates against an index of earlier runs given as WARCDEDUP_INDEX; nothing written" >&2
			exit 2
			;;
		-index | --index | -index=* | --index=*)
			echo "$script: WARCDEDUP_FLAGS holds $f: give the index as WARCDEDUP_INDEX, which the script hands to the steps that read it and commits once every output is written; nothing written" >&2
			exit 2
			;;
		esac
	done
	# Without its trailing "/": "FILE/" does not exist, FILE does.
	if [[ -n $dir && -e $dir && ! -d $dir ]]; then
		echo "$script: $dir is not a directory: nothing written" >&2
		exit 2
	fi
	for f in "${ins[@]}"; do
		# Keyed with a "/" before it: a base name may be empty ("dir/").
		b=/${f##*/}
		if [[ -n ${base[$b]+set} ]]; then
			echo "$script: ${base[$b]} and $f would both write $dir$b: nothing written" >&2
			exit 2
		fi
		base[$b]=$f
	done
	for f in "${ins[@]}"; do
		o=$dir/${f##*/}
		[[ -e $o ]] || continue
		if [[ -d $o ]]; then
			echo "$script: output $o is a directory; nothing written" >&2
			exit 2
		fi
		if [[ ! -f $o && ! -c $o && ! -p $o ]]; then
			t="special file"
			[[ -S $o ]] && t=socket
			[[ -b $o ]] && t="block device"
			echo "$script: output $o is a $t, not a regular file, character device or pipe: nothing written" >&2
			exit 2
		fi
		exist+=("$o")
	done
	((${#exist[@]} > 0)) || return 0
	# An output that is an input is the same file (device and inode, links
	# followed): each file is looked at once, in one stat for the inputs
	# and one for the outputs that exist. An input that is missing fails
	# its map task.
	while IFS= read -r line; do
		inkey[k${line%% *}]=${line#* }
	done < <(stat -L -c '%d:%i %n' -- "${ins[@]}" 2>/dev/null || true)
	while IFS= read -r line; do
		k=k${line%% *}
		if [[ -n ${inkey[$k]+set} ]]; then
			echo "$script: output ${line#* } is the input ${inkey[$k]}: nothing written" >&2
			exit 2
		fi
	done < <(stat -L -c '%d:%i %n' -- "${exist[@]}" 2>/dev/null || true)
	if ((force)) && [[ -n ${WARCDEDUP_INDEX:-} ]]; then
		# An output an earlier job wrote holds records the index names for
		# later revisits; the apply tasks cannot tell whether this job keeps
		# them all again, as the one-machine run checks (--force with
		# --index): written over, they would be in no file.
		if ((${#exist[@]} == 1)); then
			echo "$script: ${exist[0]} already exists, and with WARCDEDUP_INDEX -f could write over records the index names: remove it first, or write to a new OUTDIR; nothing written" >&2
		else
			echo "$script: ${#exist[@]} outputs already exist, and with WARCDEDUP_INDEX -f could write over records the index names: remove them first, or write to a new OUTDIR; nothing written" >&2
		fi
		exit 2
	fi
	((!force)) || return 0
	if ((${#exist[@]} == 1)); then
		echo "$script: ${exist[0]} already exists; use -f to overwrite; nothing written" >&2
	else
		{
			echo "$script: ${#exist[@]} outputs already exist; use -f to overwrite them:"
			printf '  %s\n' "${exist[@]:0:${#exist[@]}-1}"
			echo "  ${exist[-1]}; nothing written"
		} >&2
	fi
	exit 2
}
check_outputs

# written_note STAMP [failed] says which outputs the apply tasks wrote. A
# task renames each output into OUTDIR once it is whole: those newer than
# STAMP, a file made before the apply step started, are the ones written.
# Some written and others not, revisits in those written may name records
# kept in the others: none is to be used until the job has run again. After
# an apply task failed ("failed"), those newer may hold one that is not the
# job's (a file that appeared during the run, which the task refused): with
# every output newer, the note does not say that every output is written.
written_note() {
	local f ix="" written=()
	if [[ -e $1 ]]; then
		for f in "${ins[@]}"; do
			[[ $out/${f##*/} -nt $1 ]] && written+=("${f##*/}")
		done
	fi
	local again="until the job has run again with -f"
	if [[ -n ${WARCDEDUP_INDEX:-} ]]; then
		ix=", nor commit what it staged in $WARCDEDUP_INDEX,"
		# With an index, -f does not write over an output (check_outputs).
		again="until what it staged is discarded (warcdedup index discard $WARCDEDUP_INDEX), the outputs written are removed and the job has run again"
	fi
	if ((${#written[@]} == ${#ins[@]})) && [[ ${2:-} == failed ]]; then
		echo "$script: every output in $out is new since the job started, but an apply task failed: one may be a file that appeared during the run, not the job's, and revisits in the others may name records it does not hold: use none of the outputs$ix $again" >&2
	elif ((${#written[@]} == ${#ins[@]})); then
		echo "$script: every output is written, in $out" >&2
	elif ((${#written[@]} > 0)); then
		local also=""
		[[ ${2:-} != failed ]] || also=" (a file that appeared during the run, which an apply task refused, would be named here too)"
		echo "$script: written, whole, in $out: ${written[*]}; the other outputs are not written, and revisits in those written may name records kept in them: use none of the outputs$ix $again$also" >&2
	else
		echo "$script: no output is written" >&2
	fi
}
