# cdxj-target.sh is sourced by mapreduce-local.sh and mapreduce-slurm.sh:
# the check of WARCDEDUP_CDXJ, the file the job's merged CDXJ index goes
# to. It reads the caller's ins (the inputs), out (OUTDIR), force (-f) and
# script (its name, for messages), and sets cdxjout (the target, "" for
# none) and cdxjtmp (the temporary file beside it the index is written to).
# cdxj_merge DIR then merges the tasks' indexes (DIR/cdxj-*) into it.
#
# The merged CDXJ index is checked before any work, as warcdedup --cdxj
# checks its file: never one of the run's inputs or outputs, and not a file
# that exists unless -f says so. It is written beside its place, then linked
# there (renamed over the old file with -f), so that no file is replaced by
# accident.
cdxjout="" cdxjtmp=""
if [[ -n ${WARCDEDUP_CDXJ:-} ]]; then
	cdxjout=$(realpath -m -- "$WARCDEDUP_CDXJ")
	for f in "${ins[@]}"; do
		for p in "$f" "${out%/}/${f##*/}"; do
			if [[ $cdxjout == "$(realpath -m -- "$p")" || $cdxjout -ef $p ]]; then
				echo "$script: WARCDEDUP_CDXJ $WARCDEDUP_CDXJ is $p, one of the run's inputs or outputs: nothing done" >&2
				exit 2
			fi
		done
	done
	if [[ -d $cdxjout ]] || { [[ -e $cdxjout || -L $WARCDEDUP_CDXJ ]] && ((!force)); }; then
		echo "$script: WARCDEDUP_CDXJ $WARCDEDUP_CDXJ exists (-f replaces a file): nothing done" >&2
		exit 2
	fi
	if ! cdxjtmp=$(mktemp "${cdxjout%/*}/.${cdxjout##*/}.XXXXXX"); then
		echo "$script: cannot write beside WARCDEDUP_CDXJ $WARCDEDUP_CDXJ: nothing done" >&2
		exit 2
	fi
	chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$cdxjtmp"
fi

# cdxj_merge DIR merges the apply tasks' indexes, DIR/cdxj-*, each sorted,
# into the target, and links it there. Without -f a file that appeared at
# the target during the run is left alone, and the index stays in cdxjtmp.
cdxj_merge() {
	[[ -n $cdxjout ]] || return 0
	LC_ALL=C sort -m "$1"/cdxj-* >"$cdxjtmp"
	if ((force)); then
		mv -fT -- "$cdxjtmp" "$cdxjout"
	elif ! ln -T -- "$cdxjtmp" "$cdxjout"; then
		echo "$script: could not link the CDXJ index to $WARCDEDUP_CDXJ (did it appear during the run?): it is left in $cdxjtmp" >&2
		cdxjtmp=""
		exit 1
	fi
}
