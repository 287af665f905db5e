#!/bin/sh
# scale.sh - the model and trace at cluster scale (issue 37): wall time and
# peak memory of
#   collviz model COLL -p P                      (every collective)
#   collviz trace allreduce -a ring -p P -s 1M   (the summary)
# at P = 1024, 4096, 16384 and 65536, each the fastest of ROUNDS runs, and
# as ratios in the same run: each time over the same command's at 1024
# ranks beside the ranks' ratio (linear growth: 4, 16, 64). Targets: at
# 16384 ranks `model allreduce` and the trace summary under 1 s and 1 GiB.
#
# usage: sh bench/scale.sh [COLLVIZ]   (default build/collviz)
# environment: SCALE_ROUNDS (3), SCALE_RANKS ("1024 4096 16384 65536"),
#   SCALE_TAG (a word the file name ends with: a second run of the day).
# Writes bench/results/DATE-scale-HOST[-TAG].txt and prints it.
set -eu
bin=${1:-build/collviz}
rounds=${SCALE_ROUNDS:-3}
ranks=${SCALE_RANKS:-"1024 4096 16384 65536"}
[ -x "$bin" ] || { echo "scale.sh: $bin is not an executable; run make first" >&2; exit 2; }
. "$(dirname "$0")/best.sh" # $host, $tmp; best CMD...: WALL_S CPU_S MAX_KB NA
out=bench/results/$(date +%Y-%m-%d)-scale-$host${SCALE_TAG:+-$SCALE_TAG}.txt

{
    echo "# bench/scale.sh on $host, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $rounds rounds (fastest kept, memory the most)"
    echo "# $("$bin" --version 2>/dev/null | head -1)"
    echo "# command                                   ranks   wall_s   max_MiB   wall/wall@1024   ranks/1024"
    for cmd in "model allreduce" "model broadcast" "model reduce" "model scatter" \
               "model gather" "model allgather" "model reducescatter" \
               "model alltoall" "trace allreduce -a ring -s 1M"; do
        base=""
        for p in $ranks; do
            set -- $cmd
            r=$(best "$bin" "$@" -p "$p")
            s=${r%% *}; kb=$(echo "$r" | cut -d' ' -f3)
            [ -z "$base" ] && base=$s
            printf "%-42s %6d %8.2f %9.1f %16s %12s\n" "$cmd" "$p" "$s" \
                "$(awk "BEGIN{print $kb/1024}")" \
                "$(awk "BEGIN{ if ($base > 0) printf \"%.1f\", $s/$base; else print \"-\" }")" \
                "$(awk "BEGIN{printf \"%g\", $p/1024}")"
        done
    done
} | tee "$tmp/report"
keep "$out"
