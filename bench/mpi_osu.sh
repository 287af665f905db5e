#!/bin/sh
# mpi_osu.sh - collviz-mpi's `mpi` row (perf -B mpi -a mpi: MPI's own
# collective on collviz's buffers) against the same collective timed as
# the OSU micro-benchmarks time it (bench/mpi/osu_ref.c: warmup, one
# barrier, the calls back to back, the slowest rank's mean per call), in
# the same run, interleaved: every round runs each case once on both
# sides, the reference first in odd rounds and the row first in even
# ones, rounds outermost (a case's rounds lie minutes apart).
#
# usage: bench/mpi_osu.sh [-B BUILD] [-p "2 4"] [-c "allreduce allgather
#                         broadcast"] [-s "8 1M 64M"] [-r ROUNDS]
#                         [-o FILE] [-L LAUNCHER]
#   -B: the build folder holding collviz-mpi and bench/osu_ref (default
#       build; `make bench-osu` builds both and passes its own).
#   -s: sizes in nccl-tests' sense (a collective of p blocks, allgather,
#       moves the whole size; where that holds less than a float per
#       block it runs at 4 bytes per block instead, 16 B at 4 ranks).
#   -r: rounds (default 5).
#   -o: also write the report to FILE.
#   -L: start the jobs with LAUNCHER (given -np N PROGRAM ...) instead
#       of `mpirun` (both sides the same).
# Iterations: 10000 (warmup 1000) up to 64 KiB, 200 (20) up to 4 MiB,
# 10 (2) above. Prints per case the fastest round of each side, their
# ratio row/reference ("best") and the median of the rounds' ratios
# ("median"); the target is 1.1 or less. Every round's pair follows.
set -eu
{

build=build ranks="2 4" colls="allreduce allgather broadcast"
sizes="8 1M 64M" rounds=5 out= launcher=mpirun
while getopts B:p:c:s:r:o:L: f; do
    case $f in
    B) build=$OPTARG ;;
    p) ranks=$OPTARG ;;
    c) colls=$OPTARG ;;
    s) sizes=$OPTARG ;;
    r) rounds=$OPTARG ;;
    o) out=$OPTARG ;;
    L) launcher=$OPTARG ;;
    *) sed -n '10,27p' "$0" >&2; exit 2 ;;
    esac
done
ref=$build/bench/osu_ref cv=$build/collviz-mpi
for b in "$ref" "$cv"; do
    [ -x "$b" ] || { echo "mpi_osu.sh: $b is missing: make bench-osu builds it" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/collviz-osu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
# collviz's own calibrations stay out of the user's cache
export XDG_CACHE_HOME="$tmp/cache"

# bytes N: N (K, M, G: powers of 1024) in bytes.
bytes() {
    case $1 in
    *K) echo $((${1%K} * 1024)) ;;
    *M) echo $((${1%M} * 1048576)) ;;
    *G) echo $((${1%G} * 1073741824)) ;;
    *) echo "$1" ;;
    esac
}
# size COLL P BYTES: BYTES, or 4 per block where a block would be empty.
size() {
    case $1 in
    allgather | gather | scatter | reducescatter | alltoall)
        [ "$3" -ge $((4 * $2)) ] && echo "$3" || echo $((4 * $2)) ;;
    *) echo "$3" ;;
    esac
}
# iters BYTES: "ITERS WARMUP".
iters() {
    if [ "$1" -le 65536 ]; then echo "10000 1000"
    elif [ "$1" -le 4194304 ]; then echo "200 20"
    else echo "10 2"; fi
}
# ref_us COLL P BYTES N W / row_us ...: one job's time per call (us).
ref_us() {
    $launcher -np "$2" "$ref" "$1" "$3" "$4" "$5" | awk '/^osu_ref/ && !/WRONG/ { print $(NF-1) }'
}
row_us() {
    $launcher -np "$2" "$cv" perf "$1" -B mpi -a mpi -p "$2" -b "$3" -e "$3" \
        -n "$4" -w "$5" --csv 2>"$tmp/err" |
        awk -F, '$1 == "mpi" && $10 == 0 { print $7 }'
}
# one ROUND COLL P BYTES: one pair, as "COLL P BYTES ROUND REF ROW".
one() {
    set -- "$1" "$2" "$3" "$4" $(iters "$4")
    if [ $(($1 % 2)) -eq 1 ]; then
        a=$(ref_us "$2" "$3" "$4" "$5" "$6") b=$(row_us "$2" "$3" "$4" "$5" "$6")
    else
        b=$(row_us "$2" "$3" "$4" "$5" "$6") a=$(ref_us "$2" "$3" "$4" "$5" "$6")
    fi
    echo "$2 $3 $4 $1 ${a:-nan} ${b:-nan}"
}

# report: the table from $tmp/pairs.txt.
report() {
    sort -k1,1 -k2,2n -k3,3n -k4,4n "$tmp/pairs.txt" | awk '
    function med(v, n,   i, j, t) {
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function flush() {
        if (!k) return
        b = mref > 0 ? mrow / mref : 0
        m = n ? med(r, n) : 0
        printf "%-10s %2d %9d %10.2f %10.2f %6.2f %6.2f %4d/%d  %s\n", c, p, s, mref, mrow,
               b, m, n, rounds, n && b <= 1.1 && m <= 1.1 ? "met" : "missed"
        met += n && b <= 1.1 && m <= 1.1; all++
    }
    BEGIN { printf "%-10s %2s %9s %10s %10s %6s %6s %6s\n", "coll", "p", "bytes",
                   "ref_us", "row_us", "best", "median", "rounds" }
    { key = $1 " " $2 " " $3
      if (key != k) { flush(); k = key; c = $1; p = $2; s = $3; n = 0; mref = mrow = 0; rounds = 0 }
      rounds++
      if ($5 == "nan" || $6 == "nan" || $5 <= 0) next
      n++; r[n] = $6 / $5
      if (!mref || $5 < mref) mref = $5
      if (!mrow || $6 < mrow) mrow = $6 }
    END { flush(); printf "# target (best and median within 1.1x): %d of %d met\n", met, all }'
}

{
    echo "# collviz-mpi's mpi row against an OSU-style loop of the same collective"
    echo "# $(date '+%Y-%m-%d %H:%M %Z'), host $(hostname), $(nproc) CPUs, $(mpirun --version 2>/dev/null | head -n 1)"
    echo "# command: sh bench/mpi_osu.sh -p \"$ranks\" -c \"$colls\" -s \"$sizes\" -r $rounds"
    echo "# launcher: $launcher; float, sum, out of place, root 0"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    : > "$tmp/pairs.txt"
    # perf prices every row with a calibration: one quick one per rank
    # count first, so that no timed job calibrates
    for p in $ranks; do
        $launcher -np "$p" "$cv" calibrate -B mpi -p "$p" --quick > /dev/null 2>&1 ||
            echo "# (the quick calibration at $p ranks failed; perf calibrates itself)"
    done
    r=1
    while [ $r -le "$rounds" ]; do
        echo "mpi_osu.sh: round $r of $rounds ($(cut -d' ' -f1 /proc/loadavg))" >&2
        for p in $ranks; do
            for s in $sizes; do
                for c in $colls; do
                    one "$r" "$c" "$p" "$(size "$c" "$p" "$(bytes "$s")")" >> "$tmp/pairs.txt"
                done
            done
        done
        echo "# load average after round $r: $(cut -d' ' -f1-3 /proc/loadavg)"
        r=$((r + 1))
    done
    echo "# ref_us, row_us: each side's fastest round; best: row_us / ref_us;"
    echo "# median: the median over the rounds of row / reference"
    report
    echo "# every round: coll p bytes round ref_us row_us"
    sort -k1,1 -k2,2n -k3,3n -k4,4n "$tmp/pairs.txt" | sed 's/^/#   /'
} | tee ${out:+"$out"}

exit 0
}
