#!/bin/sh
# run.sh - collviz perf -B mpi beside Open MPI's own collectives (its `mpi`
# rows: MPI_Allreduce ... on the same buffers, in the same run), on the
# same rank counts, sizes and datatype; the ratios against the targets.
#
# usage: bench/run.sh [-p "2 4 8"] [-c "allreduce broadcast ..."] [-b 8]
#                     [-e 64M] [-f FACTOR] [-n ITERS] [-w WARMUP] [-r ROUNDS]
#                     [-t SECONDS] [-q] [-o FILE] [-k DIR] [-R DIR]
#                     [-L LAUNCHER]
#   -r: rounds of every sweep, both sides (default 3). A round calibrates
#       collviz at each rank count and runs every collective at that count
#       right after, so a row's rounds are minutes apart and each is
#       compared with a calibration of the same minutes. The comparisons
#       with Open MPI keep each row's fastest round, so that other programs
#       that share the machine for a while do not decide them; the model
#       check takes the median of the rounds' measured/model (report.sh).
#   -t: time every size for at least SECONDS, both sides (collviz perf
#       --min-time): more iterations than ITERS where those
#       would be quicker, so that one scheduling hiccup of a run lasting
#       a fraction of a millisecond does not decide a row (default 0.02).
#   -q: quick (fewer sizes: factor 8, 10 iterations, 1 round, a quick
#       calibration) for a smoke run.
#   -k: keep the raw outputs in DIR (MPI's rows as a table and collviz perf's CSV
#       of every round, mpi-COLL-P.txt and cv-COLL-P.csv, collviz's
#       calibrations of every round, cache-rR/collviz/, and the host state
#       probes, state.txt, and the report's header, header.txt).
#   -R: measure nothing; report again from the raw outputs that -k kept in
#       DIR, with this report.sh (to stdout, and to FILE with -o).
#   -L: start the jobs with LAUNCHER (given -np N PROGRAM ...) instead of
#       mpirun on this machine; across two network namespaces over TCP:
#       -L "sh tests/mpi/two_hosts.sh build-bench --mpirun" (as root).
# Builds collviz and collviz-mpi in build-bench/, then in every round and
# for every rank count calibrates the mpi backend (collviz-mpi calibrate
# -B mpi under mpirun) and for every collective runs `collviz-mpi perf -a
# all -B mpi --csv` under mpirun, whose `mpi` rows (MPI's own collective,
# checked and timed the same way) are the reference, and prints the two
# side by side. Before each
# calibration and each collviz perf run, bench/hoststate probes for 0.1 s
# which state the machine's cross-core data path is in (the report ends
# with how often it was slow). The report goes to stdout
# and to bench/results/YYYY-MM-DD-HOST.txt (or -o FILE).
set -eu
# The whole script is one compound command, read before any of it runs, so
# that editing this file while a bench is under way cannot change its end.
{

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
ranks="2 4 8"
colls="broadcast reduce scatter gather allgather reducescatter allreduce alltoall"
min=8 max=64M factor=2 iters=20 warmup=5 rounds=3 mintime=0.02 out= keep= again=
quick= launcher=
while getopts p:c:b:e:f:n:w:r:t:qo:k:R:L: f; do
    case $f in
    p) ranks=$OPTARG ;;
    c) colls=$OPTARG ;;
    b) min=$OPTARG ;;
    e) max=$OPTARG ;;
    f) factor=$OPTARG ;;
    n) iters=$OPTARG ;;
    w) warmup=$OPTARG ;;
    r) rounds=$OPTARG ;;
    t) mintime=$OPTARG ;;
    q) factor=8 iters=10 warmup=2 rounds=1 quick=--quick ;;
    o) out=$OPTARG ;;
    k) keep=$OPTARG ;;
    R) again=$OPTARG ;;
    L) launcher=$OPTARG ;;
    *) sed -n '5,31p' "$0" >&2; exit 2 ;;
    esac
done

. "$here/report.sh"
tmp=$(mktemp -d /tmp/collviz-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

# report_all DIR: the tables and the targets from the raw outputs in DIR.
report_all() {
    for c in $colls; do
        for p in $ranks; do
            report_pair "$c" "$p" "$1/mpi-$c-$p.txt" "$1/cv-$c-$p.csv" |
                tee -a "$tmp/targets.txt" | grep -v '^target'
        done
    done
    report_targets "$tmp/targets.txt"
    report_state "$1/state.txt"
}

if [ -n "$again" ]; then
    for c in $colls; do
        for p in $ranks; do
            [ -f "$again/cv-$c-$p.csv" ] || {
                echo "run.sh: $again/cv-$c-$p.csv is missing: -R reads the raw outputs that -k kept" >&2
                exit 2
            }
        done
    done
    {
        if [ -f "$again/header.txt" ]; then cat "$again/header.txt"; fi
        echo "# reported again from the kept raw outputs on $(date '+%Y-%m-%d %H:%M %Z')"
        echo
        report_all "$again"
    } | tee ${out:+"$out"}
    exit 0
fi

host=$(hostname -s 2>/dev/null || hostname)
[ -n "$out" ] || out=$here/results/$(date +%Y-%m-%d)-$host.txt
build=$root/build-bench

command -v mpicc >/dev/null && command -v mpirun >/dev/null || {
    echo "run.sh: needs Open MPI's mpicc and mpirun; on Debian type: sudo apt-get install -y openmpi-bin libopenmpi-dev" >&2
    exit 2
}
make -C "$root" BUILD=build-bench MPI=1 "build-bench/collviz" "build-bench/collviz-mpi" \
    "build-bench/bench/hoststate" > "$tmp/make.log" 2>&1 || {
    cat "$tmp/make.log" >&2
    exit 1
}

# Keep the calibrations of this run apart from the user's.
export XDG_CACHE_HOME="$tmp/cache"
cv=$build/collviz-mpi
# probe STEP: the state of the machine's cross-core data path right before
# STEP (bench/hoststate.c: fast, or slow where reading what another core
# has just written takes about 11 times as long), into $tmp/state.txt.
probe() {
    echo "$1 $("$build/bench/hoststate" -q -t 0.1)" >> "$tmp/state.txt"
}
mpirun=${launcher:-"mpirun --oversubscribe --allow-run-as-root --bind-to none"}
# bytes N: N (with a K, M or G suffix, powers of 1024) in bytes.
bytes() {
    case $1 in
    *K) echo $((${1%K} * 1024)) ;;
    *M) echo $((${1%M} * 1048576)) ;;
    *G) echo $((${1%G} * 1073741824)) ;;
    *) echo "$1" ;;
    esac
}
# sweep COLL P: perf's size options. The collectives whose size counts p
# blocks start at one float per block (4P bytes) where MIN is smaller,
# so that their smallest row moves data (at 8 B and 4 ranks a block would
# hold no element), with the factor cut to reach MAX from there where it
# overshot it.
sweep() {
    b=$(bytes "$min") f=$factor
    case $1 in
    scatter | gather | allgather | reducescatter | alltoall)
        if [ "$b" -lt $((4 * $2)) ]; then
            b=$((4 * $2)) top=$(bytes "$max")
            [ $((b * f)) -le "$top" ] || f=$((top / b > 1 ? top / b : 2))
        fi ;;
    esac
    echo "-b $b -e $max -f $f -n $iters -w $warmup"
}
# split COLL P: collviz perf's CSV ($tmp/both.csv) into the schedules' rows
# (cv-COLL-P.csv) and MPI's own as a table (mpi-COLL-P.txt: size count type
# op root time algbw busbw wrong; broadcast in place, as MPI_Bcast has one
# buffer, the others out of place).
split() {
    awk -F, -v coll="$1" -v cv="$tmp/cv-$1-$2.csv" -v mpi="$tmp/mpi-$1-$2.txt" '
    $1 != "mpi" { print >> cv; next }
    { ip = coll == "broadcast"
      printf "%12d  %12d  %8s  %6s  %6d  %9.2f  %7.3f  %7.3f  %6d\n", $2, $3, $4, $5,
             $6, ip ? $11 : $7, ip ? $12 : $8, ip ? $13 : $9, ip ? $14 : $10 >> mpi }
    ' "$tmp/both.csv"
}

{
    report_machine | tee "$tmp/header.txt"
    # Rounds outermost: the rounds of one row lie minutes apart, so that
    # a slow spell of the machine (a busy host) spoils at most one of them.
    # Each rank count of a round starts with a calibration, which the
    # model column of that round's rows uses: the machine's speed drifts
    # by a third over minutes here, and a model calibrated at the start of
    # a long run would be checked against a different machine.
    r=1
    while [ $r -le "$rounds" ]; do
        for p in $ranks; do
            echo "run.sh: round $r of $rounds: calibrate, $p ranks" >&2
            echo "## collviz calibrate -p $p (round $r)"
            probe "round $r p $p calibrate"
            $mpirun -np "$p" "$cv" calibrate -B mpi -p "$p" $quick
            echo
            for c in $colls; do
                echo "run.sh: round $r of $rounds: $c, $p ranks" >&2
                probe "round $r p $p $c"
                $mpirun -np "$p" "$cv" perf "$c" -a all -B mpi -p "$p" $(sweep "$c" "$p") \
                    --min-time "$mintime" --csv > "$tmp/both.csv"
                split "$c" "$p"
            done
        done
        [ -z "$keep" ] || cp -R "$tmp/cache" "$tmp/cache-r$r"
        r=$((r + 1))
    done
    report_all "$tmp"
    echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out"
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp -R "$tmp"/mpi-* "$tmp"/cv-* "$tmp"/cache-r* "$tmp"/state.txt "$tmp"/header.txt "$keep"/ &&
        echo "run.sh: raw outputs kept in $keep" >&2
fi
echo "run.sh: report written to $out" >&2
exit
}
