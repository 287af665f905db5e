#!/bin/sh
# straggler.sh - a slow rank on the threads backend (-B threads:slow=R:F,
# issue 49 item 3): how much a straggler slows a collective whose every
# step waits on every rank, against one where it is a leaf.
#
#  1. ring allreduce at p = 4, unslowed and with rank 2 slowed 4x: every
#     step of a ring passes through rank 2, so the whole call should take
#     about as long as rank 2's work (target: slowed / unslowed >= 3);
#  2. binomial broadcast rooted at rank 0, unslowed and with rank 3 (a
#     leaf at p = 4: it receives once and sends nothing) slowed 4x: only
#     rank 3's own receive is slower (target: slowed / unslowed <= 2).
#
# ROUNDS rounds, each running the four cases once per size, their order
# rotated every round (interleaved: a change of the machine's state hits
# every case alike); each (case, size) keeps its fastest round (other
# programs only ever slow a round down). Times are perf's out-of-place
# time per call (--csv's time_us); the calibration perf's model line
# needs is taken once at the start, in a cache of its own; perf prices
# each slowed case with its straggler (calib_straggler), so the table
# also gives the model's ratio ("model") beside the measured one. Prints
# the table; record it with
#   sh bench/straggler.sh build/collviz |
#       tee bench/results/DATE-straggler-HOST.txt
#
# usage: sh bench/straggler.sh [COLLVIZ]   (default build/collviz)
# environment: STRAGGLER_ROUNDS (3), STRAGGLER_SIZES (64K 256K 1M 4M 16M),
#   STRAGGLER_ITERS (10), STRAGGLER_WARMUP (2)
set -u
bin=${1:-build/collviz}
[ -x "$bin" ] || { echo "straggler.sh: no $bin; run make first" >&2; exit 2; }
rounds=${STRAGGLER_ROUNDS:-3}
sizes=${STRAGGLER_SIZES:-64K 256K 1M 4M 16M}
iters=${STRAGGLER_ITERS:-10}
warm=${STRAGGLER_WARMUP:-2}
case "$rounds$iters$warm" in *[!0-9]*|'')
    echo "straggler.sh: STRAGGLER_ROUNDS, STRAGGLER_ITERS and" \
        "STRAGGLER_WARMUP are whole numbers" >&2
    exit 2;;
esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CACHE_HOME="$tmp/cache"
p=4

# one measurement: case size -> the out-of-place time and the model's, in
# us ("" on failure)
measure() {
    size=$2
    case $1 in
        ring) set -- allreduce -a ring -B threads;;
        ring_slow) set -- allreduce -a ring -B threads:slow=2:4;;
        bcast) set -- broadcast -a binomial -r 0 -B threads;;
        bcast_slow) set -- broadcast -a binomial -r 0 -B threads:slow=3:4;;
    esac
    "$bin" perf "$@" -p $p -b "$size" -e "$size" -n "$iters" -w "$warm" \
        --csv 2>/dev/null | awk -F, 'NR == 2 && $10 == 0 { print $7, $15 }'
}

echo "# collviz bench/straggler.sh: a rank slowed 4x (-B threads:slow=R:4)"
echo "# command: sh bench/straggler.sh $bin (rounds $rounds," \
    "-n $iters -w $warm, p = $p)"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# machine: $(uname -n), $(nproc) cpus, $cpu," \
    "$(date -u '+%F %H:%M UTC')"
"$bin" calibrate --quick -p $p >/dev/null 2>&1
cases="ring ring_slow bcast bcast_slow"
r=0
while [ "$r" -lt "$rounds" ]; do
    set -- $cases
    k=0
    while [ $k -lt $((r % 4)) ]; do
        c=$1; shift; set -- "$@" "$c"; k=$((k + 1))
    done
    order="$*"
    for size in $sizes; do
        for c in $order; do
            t=$(measure "$c" "$size")
            echo "$c $size ${t:-fail 0}" >>"$tmp/times"
        done
    done
    r=$((r + 1))
done
# the fastest round of each (case, size), then the ratios and targets
awk -v sizes="$sizes" '
    $3 != "fail" && (!(($1, $2) in best) || $3 + 0 < best[$1, $2]) {
        best[$1, $2] = $3 + 0
    }
    $3 == "fail" { failed[$1, $2] = 1 }
    $4 > 0 { model[$1, $2] = $4 + 0 }
    END {
        n = split(sizes, sz, " ")
        printf "#\n# times: each case'\''s fastest round, us per call"
        printf " (out of place)\n"
        printf "# %8s %10s %10s %6s %6s %6s %10s %10s %6s %6s %6s\n",
               "size", "ring", "ring 2x4", "ratio", "model", ">=3x", "bcast",
               "bcast 3x4", "ratio", "model", "<=2x"
        for (i = 1; i <= n; i++) {
            s = sz[i]
            line = sprintf("%10s", s)
            line = line pair(s, "ring", "ring_slow", 3, 1)
            line = line pair(s, "bcast", "bcast_slow", 2, 0)
            print line
        }
        printf "# targets met: ring %d of %d, broadcast %d of %d\n",
               met[1], n, met[0], n
        if (nfail)
            printf "# %d case(s) failed or found wrong elements\n", nfail
    }
    function pair(s, a, b, target, atleast,    x, y, q, ok) {
        if (!((a, s) in best) || !((b, s) in best)) {
            nfail++
            return sprintf(" %10s %10s %6s %6s %6s", "fail", "fail", "-",
                           "-", "-")
        }
        x = best[a, s]; y = best[b, s]; q = y / x
        ok = atleast ? q >= target : q <= target
        met[atleast] += ok
        mq = model[a, s] > 0 ? sprintf("%6.2f", model[b, s] / model[a, s]) \
                             : sprintf("%6s", "-")
        return sprintf(" %10.1f %10.1f %6.2f %s %6s", x, y, q, mq,
                       ok ? "yes" : "NO")
    }
' "$tmp/times"
