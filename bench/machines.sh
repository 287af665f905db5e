#!/bin/sh
# machines.sh - cluster scale on machines (issue 49 item 5): wall and CPU
# time, peak memory and the algorithms left unpriced ('n/a') of
#   collviz model allreduce -p 16384 -T MACHINE   (25 sizes, 8 B to 128 MiB,
#                                                   and the crossovers)
# on torus:128x128, mesh:128x128, nodes:2048x8, nodes:2048x8,nic=shared
# and fattree:128x128,over=2 (whose messages share NICs and trunks), and of
#   collviz trace allreduce -a ALGO -p 16384 -T torus:128x128 -s 64M --summary
# (ALGO torus and ring), each the fastest of ROUNDS runs. Targets: every algorithm made for the
# machine priced (no n/a), the model under 10 s and the trace summary
# under 1 s on the 2-core development machine. With a second binary
# (BEFORE, say one built from the previous commit) its figures come
# first, for the same commands in the same run.
#
# usage: sh bench/machines.sh [COLLVIZ [BEFORE]]  (default build/collviz)
# environment: MACHINES_ROUNDS (3), MACHINES_TAG (a word the file name
#   ends with). Writes bench/results/DATE-scale-HOST[-TAG].txt, prints it.
set -eu
bin=${1:-build/collviz}
before=${2:-}
rounds=${MACHINES_ROUNDS:-3}
for b in "$bin" $before; do
    [ -x "$b" ] || { echo "machines.sh: $b is not an executable; run make first" >&2; exit 2; }
done
. "$(dirname "$0")/best.sh" # $host, $tmp; best CMD...: WALL_S CPU_S MAX_KB NA
out=bench/results/$(date +%Y-%m-%d)-scale-$host${MACHINES_TAG:+-$MACHINES_TAG}.txt

row() { # LABEL BIN ARGS...
    label=$1 b=$2
    shift 2
    r=$(best "$b" "$@")
    set -- $r
    printf "%-8s %-62s %8.2f %8.2f %9.1f %5d\n" "$label" "$cmd" "$1" "$2" \
        "$(awk "BEGIN{print $3/1024}")" "$4"
}

{
    echo "# bench/machines.sh on $host, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds (fastest wall kept with its CPU time, memory the most)"
    echo "# $("$bin" --version 2>/dev/null | head -1)"
    echo "# binary   command                                                          wall_s    cpu_s   max_MiB   n/a"
    for t in torus:128x128 mesh:128x128 nodes:2048x8 nodes:2048x8,nic=shared \
             fattree:128x128,over=2; do
        cmd="model allreduce -p 16384 -T $t"
        [ -n "$before" ] && row before "$before" model allreduce -p 16384 -T "$t"
        row after "$bin" model allreduce -p 16384 -T "$t"
    done
    for a in torus ring; do
        cmd="trace allreduce -a $a -p 16384 -T torus:128x128 -s 64M --summary"
        for b in $before "$bin"; do
            label=$([ "$b" = "$bin" ] && echo after || echo before)
            if "$b" $cmd > /dev/null 2>&1; then
                row "$label" "$b" $cmd
            else
                printf "%-8s %-62s %s\n" "$label" "$cmd" "refused"
            fi
        done
    done
} | tee "$tmp/report"
keep "$out"
