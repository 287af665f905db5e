#!/bin/sh
# modes.sh - perf's timing modes against its default loop, each figure a
# ratio measured in one run (issue 53's E4):
#
#  1. -z 1 (every collective its own call, on the host's clock), -z 3
#     (every iteration its own call, on the backend's clock), -I 1 (each
#     iteration's time kept) and -C 1 (the host's clock around the calls)
#     over the default loop's time, for the same schedule and size:
#     -I 1 and -C 1 must measure what the default does (target: within
#     the machine's noise, 1.0 +- 10%); -z 1 can only add time (at least
#     1.0, minus the noise);
#  2. in every -C 1 row, the row's time over the host's clock around the
#     same calls: the backend never reports less than the host waited
#     for (target: 0.9 or more at -z 0 over many iterations; exactly 1 at
#     -z 1, which is the host's clock).
#
# ROUNDS rounds, each running every mode once per size, the modes in an
# order rotated every round; each (mode, size) keeps its fastest round
# (other programs only ever slow a round down). threads, and mpi where
# collviz-mpi and mpirun are there (MODES_MPI=0 leaves it out). The
# figures go to bench/results/DATE-modes-HOST.txt.
#
# usage: sh bench/modes.sh [COLLVIZ]   (default build/collviz)
# environment: MODES_ROUNDS (5), MODES_P (2), MODES_SIZES (8 1M 16M),
#   MODES_ITERS (50), MODES_MPI (1)
set -u
bin=${1:-build/collviz}
[ -x "$bin" ] || { echo "modes.sh: no $bin; run make first" >&2; exit 2; }
rounds=${MODES_ROUNDS:-5}
p=${MODES_P:-2}
sizes=${MODES_SIZES:-8 1M 16M}
iters=${MODES_ITERS:-50}
mpi=${MODES_MPI:-1}
case "$rounds$p$iters" in *[!0-9]*|'') echo "modes.sh: MODES_ROUNDS, MODES_P and MODES_ITERS are whole numbers" >&2; exit 2;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CACHE_HOME="$tmp/cache"
host=$(uname -n)
out="bench/results/$(date +%F)-modes-$host.txt"
mpirun_ok=0
if [ "$mpi" = 1 ] && [ -x "$(dirname "$bin")/collviz-mpi" ] && command -v mpirun >/dev/null; then
    mpirun_ok=1
fi

# one measurement: backend mode size -> "time_us cputime_us" of the
# out-of-place side (cputime_us empty without -C 1)
measure() {
    be=$1 mode=$2 size=$3
    case $mode in
        default) flags="";;
        z1) flags="-z 1";;
        z3) flags="-z 3";;
        I1) flags="-I 1";;
        C1) flags="-C 1";;
    esac
    if [ "$be" = threads ]; then
        set -- "$bin" perf allreduce -a ring -p "$p" -b "$size" -e "$size" \
            -n "$iters" -w 5 --csv $flags
    else
        set -- mpirun --oversubscribe -np "$p" "$(dirname "$bin")/collviz-mpi" \
            perf allreduce -B mpi -a ring -p "$p" -b "$size" -e "$size" \
            -n "$iters" -w 5 --csv $flags
    fi
    "$@" 2>/dev/null | awk -F, 'NR == 2 { print $7, $24 }'
}

backends=threads
[ $mpirun_ok = 1 ] && backends="threads mpi"
# calibrations first, so that no round calibrates
"$bin" calibrate --quick -p "$p" >/dev/null 2>&1
[ $mpirun_ok = 1 ] && mpirun --oversubscribe -np "$p" \
    "$(dirname "$bin")/collviz-mpi" calibrate --quick -B mpi -p "$p" >/dev/null 2>&1
modes="default z1 z3 I1 C1"
r=0
while [ $r -lt "$rounds" ]; do
    # the modes rotated by the round
    set -- $modes
    k=0
    while [ $k -lt $((r % 5)) ]; do m=$1; shift; set -- "$@" "$m"; k=$((k + 1)); done
    order="$*"
    for be in $backends; do
        for size in $sizes; do
            for mode in $order; do
                echo "$be $size $mode $(measure "$be" "$mode" "$size")" >>"$tmp/raw"
            done
        done
    done
    r=$((r + 1))
done
{
    echo "# perf's timing modes against the default loop, ring allreduce at $p ranks,"
    echo "# $iters iterations, the fastest of $rounds rounds (modes rotated per round)"
    echo "# host $host, $(date '+%F %T'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# command: sh bench/modes.sh $bin (MODES_SIZES='$sizes')"
    echo "#"
    awk '
        { t = $4 + 0; if (!(($1, $2, $3) in best) || t < best[$1, $2, $3]) best[$1, $2, $3] = t
          if ($3 == "C1") { c = $5 + 0; if (c > 0) { q = t / c; if (!(($1, $2) in lo) || q < lo[$1, $2]) lo[$1, $2] = q } }
          seen[$1, $2] = 1; order[++n] = $1 SUBSEP $2 }
        END {
            printf "%-8s %10s %10s %8s %8s %8s %8s %14s\n", "backend", "size", "default", "z1/def", "z3/def", "I1/def", "C1/def", "C1 time/host"
            for (i = 1; i <= n; i++) {
                key = order[i]; if (done[key]++) continue
                split(key, kk, SUBSEP); d = best[kk[1], kk[2], "default"]
                if (d <= 0) continue
                printf "%-8s %10s %9.2fus %8.2f %8.2f %8.2f %8.2f %14.3f\n", kk[1], kk[2], d,
                    best[kk[1], kk[2], "z1"] / d, best[kk[1], kk[2], "z3"] / d,
                    best[kk[1], kk[2], "I1"] / d, best[kk[1], kk[2], "C1"] / d, lo[kk[1], kk[2]]
            }
        }' "$tmp/raw"
    echo "#"
    echo "# z1/def: at least 1 (blocking adds each call's start and wait); I1/def and"
    echo "# C1/def: 1 within the noise (the same loop); C1 time/host: the lowest ratio"
    echo "# of the row's time to the host's clock around the same calls (at most 1,"
    echo "# near 1 over many iterations)"
} | tee "$out"
echo "modes.sh: written $out" >&2
