#!/usr/bin/env bash
# Crawl a site with wget into a WARC file, then deduplicate that crawl against
# every earlier crawl kept in one index.
#
#   contrib/wget-crawl.sh INDEX OUTDIR URL [wget options...]
#
# The raw crawl is kept in OUTDIR/raw/ (delete it once you have checked the
# output); the deduplicated WARC files, named like the raw ones, go to
# OUTDIR/. Each run's name is its own (crawl-UTCTIME-PID, made with O_EXCL),
# so runs started together into one OUTDIR never share a file.
# Every WARC file wget writes for the crawl is deduplicated, in one run of
# warcdedup: NAME.warc.gz, or with --warc-max-size NAME-00000.warc.gz,
# NAME-00001.warc.gz, ... and NAME-meta.warc.gz (wget's log), each .warc
# instead with --no-warc-compression. --warc-file is the script's own and
# is refused (exit 2), and so are its abbreviations (--warc-fi) and the
# wgetrc command warc_file (-e warc_file=NAME).
# wget's exit status 8 (some fetch had an HTTP error, such as a 404) is a
# normal end of a crawl.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 INDEX OUTDIR URL [wget options...]" >&2
  exit 2
fi
index=$1 out=$2 url=$3
shift 3
# wget takes the last WARC file name it is given: the user's would send
# the crawl where this script does not look, and the crawl would be done
# before the script found nothing to deduplicate. wget takes it in more
# forms than --warc-file: getopt_long takes any unambiguous abbreviation of
# a long option (--warc-f, no shorter: --warc- is ambiguous), and the
# wgetrc command warc_file runs from -e or --execute (from --exe: --ex is
# ambiguous), given as the rest of its word (-eCMD, -qeCMD, --execute=CMD)
# or as the next one. wget reads a command's name ignoring case, dashes and
# underscores (WARC-File and warcfile are warc_file), and spaces around it
# and the "=". All of these are refused. What follows -- is URLs. The
# first e of a word of short options is taken for -e, and the word after
# an -e is looked at as an option too: where wget reads them otherwise (an
# earlier option's value, -Pexports), a command found there is refused all
# the same. Refusing too much leaves the crawl undone, with the reason
# said; refusing too little lets wget crawl where the script does not look.
warc_file_command() {
  local c=$1
  c=${c#"${c%%[![:space:]]*}"}
  [[ $c =~ ^([[:alnum:]_-]*)[[:space:]]*= ]] || return 1
  c=${BASH_REMATCH[1]//[-_]/}
  [[ ${c,,} == warcfile ]]
}
refuse() {
  echo "$0: --warc-file is not for the user: the crawl goes to OUTDIR/raw/ under a name of its own; nothing done" >&2
  exit 2
}
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  a=${args[i]}
  case $a in
  --) break ;;
  --?*)
    opt=${a#--}
    opt=${opt%%=*}
    if [ ${#opt} -ge 6 ] && [[ warc-file == "$opt"* ]]; then
      refuse
    fi
    if [ ${#opt} -ge 3 ] && [[ execute == "$opt"* ]]; then
      cmd=${args[i + 1]:-}
      [[ $a != *=* ]] || cmd=${a#*=}
      ! warc_file_command "$cmd" || refuse
    fi
    ;;
  -*e*)
    cmd=${a#*e}
    [ -n "$cmd" ] || cmd=${args[i + 1]:-}
    ! warc_file_command "$cmd" || refuse
    ;;
  esac
done
mkdir -p "$out/raw"
# The raw WARC's name is claimed by creating it empty with noclobber
# (O_EXCL): wget truncates the file it is given, so it must be this run's.
# The PID tells apart runs started in one second; a suffix (at most three
# digits, never one of wget's five-digit numbers), the rare name taken all
# the same.
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
# raw file wget wrote nothing into (the claimed name, when wget names its
# files otherwise) is removed.
trap 'rm -rf "$work"; [ -s "$raw" ] || rm -f "$raw"' EXIT
# wget runs in the background and the script waits for it, so that a
# signal to the script (kill, timeout, a scheduler's stop) stops the crawl
# too rather than leave wget crawling on, unwatched: bash runs a trap only
# once its foreground command has ended, and a background command ignores
# SIGINT, so wget is sent SIGTERM (on SIGHUP it would go on, logging to a
# file). Its standard input stays the script's (wget -i - reads it).
wgetpid=""
stop() {
  trap '' HUP INT TERM
  if [ -n "$wgetpid" ]; then
    kill -TERM "$wgetpid" 2>/dev/null || true
    wait "$wgetpid" 2>/dev/null || true
  fi
  echo "$0: stopped by SIG$1 during the crawl: wget is stopped, what it fetched is in $out/raw/$name*; nothing deduplicated" >&2
  exit $((128 + $2))
}
trap 'stop HUP 1' HUP
trap 'stop INT 2' INT
trap 'stop TERM 15' TERM
status=0
wget --recursive --level=inf --no-parent --no-verbose --delete-after --no-directories \
  --directory-prefix="$work" --warc-file="$out/raw/$name" "$@" "$url" <&0 &
wgetpid=$!
wait "$wgetpid" || status=$?
wgetpid=""
trap - HUP INT TERM
if [ "$status" -ne 0 ] && [ "$status" -ne 8 ]; then
  echo "$0: wget failed with status $status; nothing deduplicated" >&2
  exit "$status"
fi
# The WARC files wget wrote for this crawl (wget's names for --warc-file,
# --warc-max-size and --no-warc-compression; its --warc-cdx index, NAME.cdx,
# is no WARC and stays in raw/). Another run's name has another PID, or is
# NAME-N with N of at most three digits: its files never match.
warcs=()
for f in "$out/raw/$name"*; do
  if [[ ${f##*/} =~ ^"$name"(-[0-9]{5,}|-meta)?\.warc(\.gz)?$ ]] && [ -s "$f" ]; then
    warcs+=("$f")
  fi
done
if [ ${#warcs[@]} -eq 0 ]; then
  echo "$0: wget wrote no WARC file named $out/raw/$name*.warc*; nothing deduplicated" >&2
  exit 1
fi
# warcdedup takes the script's place, so that a signal reaches it, and it
# removes what it had not finished.
rm -rf "$work"
[ -s "$raw" ] || rm -f "$raw"
trap - EXIT
exec "${WARCDEDUP:-warcdedup}" --index "$index" "${warcs[@]}" "$out/"
