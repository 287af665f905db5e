#!/bin/sh
# gpu.sh - collviz on the machine's NVIDIA GPU(s): what `make test-gpu`
# runs after the tests. For every collective at p = 1, 2, 4 (by default:
# those the machine can hold), `calibrate -B cuda`, then `perf -B cuda -a
# all` from 8 B to 256 MiB in steps of 4x (its model column is then this
# run's calibration: both keep it in a cache folder of their own, and the
# user's saved calibrations are left alone); everything into
# bench/results/DATE-TIME-gpu-HOST.txt,
# headed by the devices' names and the driver's version, and ended by
# two figures computed from the tables: the worst measured/model of the
# rows at 1 MiB and above, and each collective's best algorithm and time
# at 256 MiB (to set against calibrate's copy bandwidth, which the file
# holds too).
#
# The default fits a 10-minute loan of one H100 with room to spare (on
# 2026-11-26: 8 collectives at p = 4 and factor 4 took 152 s, at p = 2
# about 100 s, calibrate 18 s); the whole sweep is GPU_SH_RANKS="1 2 4 8"
# GPU_SH_FACTOR=2, about four times as long.
#
# Each command runs under `timeout` (GPU_SH_LIMIT seconds, default 120),
# in the background while the script waits, so that Ctrl-C or SIGTERM
# stop it at once; the file grows as the runs end ($out.part, renamed
# when done): a run stopped by a signal still leaves what it measured,
# with a line that says where it stopped.
#
# GPU_SH_RANKS (default "1 2 4"), GPU_SH_FACTOR (the sizes' factor,
# default 4) and GPU_SH_CHECK (perf's -c, default 1) widen or trim the
# sweep; each section's line says when it started.
#
# usage: sh bench/gpu.sh [COLLVIZ]   (default build/collviz)
set -u
bin=${1:-build/collviz}
case $bin in */*) ;; *) bin=./$bin ;; esac # the file tested is the one run
[ -x "$bin" ] || { echo "gpu.sh: no $bin; run make first" >&2; exit 2; }
ranks=${GPU_SH_RANKS:-1 2 4}
case $ranks in *[!0-9\ ]* | '') echo "gpu.sh: GPU_SH_RANKS must be rank counts, not '$ranks'" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/results"
out="$here/results/$(date -u +%Y-%m-%d-%H%M%S)-gpu-$(hostname -s).txt"
tmp="$out.part"
limit=${GPU_SH_LIMIT:-120}
cache=$(mktemp -d) || exit 1
export XDG_CACHE_HOME="$cache"
section=start
child=
stopped() {
    trap - INT TERM
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
    echo "# stopped by a signal during: $section" >>"$tmp"
    mv -f "$tmp" "$out"
    rm -rf "$cache"
    echo "gpu.sh: stopped; wrote what was measured to $out" >&2
    exit 130
}
trap stopped INT TERM
# run CMD...: under timeout, in the background (a trap runs while the
# script waits, not only after a foreground command ends); its output to
# the file; its status.
run() {
    timeout "$limit" "$@" >>"$tmp" 2>&1 &
    child=$!
    wait "$child"
    st=$?
    child=
    return $st
}
{
    echo "# collviz on NVIDIA GPUs, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname -s)"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=index,name,driver_version,memory.total \
            --format=csv,noheader | sed 's/^/# device: /'
    else
        echo "# device: nvidia-smi is not installed here"
    fi
} >"$tmp"
devices=$(nvidia-smi -L 2>/dev/null | wc -l)
status=0
t0=$(date +%s)
since() { echo "+$(( $(date +%s) - t0 )) s"; }
for p in $ranks; do
    section="calibrate -p $p"
    echo "== calibrate -p $p ($(since))" >>"$tmp"
    run "$bin" calibrate -B cuda -p "$p" || status=1
    for c in broadcast reduce scatter gather allgather reducescatter allreduce alltoall; do
        section="perf $c -p $p"
        echo "== perf $c -p $p ($(since))" >>"$tmp"
        run "$bin" perf "$c" -B cuda -a all -p "$p" -b 8 -e 256M -f "${GPU_SH_FACTOR:-4}" -c "${GPU_SH_CHECK:-1}" ||
            { echo "# (perf failed: status $?)" >>"$tmp"; status=1; }
    done
done
echo "# devices counted by nvidia-smi: $devices; the runs took $(since)" >>"$tmp"
# The targets' figures: rows are "size count type redop root time ...";
# the model's ratio is the last column.
awk '
/^== perf/ { coll = $3; p = $5 }
/^# collviz perf:/ { algo = $6; sub(",", "", algo) }
/^ *[0-9]/ && NF >= 15 {
    size = $1; t = $6; ratio = $NF
    if (size >= 1048576 && ratio + 0 > 0) {
        d = ratio - 1; if (d < 0) d = -d
        n++
        if (d > worst) { worst = d; wrow = coll " " algo " p=" p " " size " B" }
    }
    if (size == 268435456) {
        k = coll " p=" p
        if (!(k in best) || t < best[k]) { best[k] = t; balgo[k] = algo }
    }
}
END {
    if (n) printf "# worst |measured/model - 1| at 1 MiB and above: %.2f (%s), of %d rows\n", worst, wrow, n
    else print "# worst |measured/model - 1| at 1 MiB and above: no row had a model"
    for (k in best) printf "# best at 256 MiB: %s: %s, %s us\n", k, balgo[k], best[k]
}' "$tmp" >"$tmp.sum" 2>/dev/null
cat "$tmp.sum" >>"$tmp" 2>/dev/null
rm -f "$tmp.sum"
trap - INT TERM # done: a signal now leaves the finished file as it is
mv -f "$tmp" "$out"
rm -rf "$cache"
echo "gpu.sh: wrote $out"
exit $status
