#!/bin/bash
# gpu-session.sh - the one command a lent GPU machine runs: everything a
# single-GPU lease can prove, in order of worth, each part under its own
# limit, within 9 minutes in all. Run from the repository's root with the
# folder `make gpu-carry` made (.gpu: the binaries, the test programs and
# the runtime libraries the GPU machine lacks) carried beside the tree:
#
#   bash bench/gpu-session.sh          (results under $OUT)
#
# then, back here, `sh bench/gpu-report.sh DIR` turns DIR (the files
# that came back) into a bench/results file.
#
# Parts, each into its own file of $OUT (the device tool brings back 8):
#   env.txt     the device, driver, NCCL, the binary's placement line
#   tests.txt   the cuda tests on the real driver (COLLVIZ_TEST_REAL_GPU)
#   ab.txt      the kernels' A/B at 256 MiB, interleaved in rounds:
#               -B cuda:layout=runs|stride on the copy and float's
#               allreduce, -B cuda:kernels=lanes|packed on half, bfloat16
#               and int8; ring allreduce's out-of-place and in-place
#               columns; NCCL's copy
#   nccl.txt    NCCL beside collviz at p = 1, every collective NCCL has
#   rows.txt    the memory model out of sample: `model -T gpu` priced
#               first, then perf at p = 8 and p = 64
#   dtypes.txt  every datatype and op at p = 4; unaligned int8 at p = 3
#   cancel.txt  SIGINT in a long run, and the milliseconds to its exit
#   calib.txt   calibrate -B cuda -p 4
#
# Against the tests' driver, the same commands at small sizes (`make
# gpu-session-fake`): GPU_SESSION_BIG (default 256M), GPU_SESSION_MID
# (64M), GPU_SESSION_LO (1M), GPU_SESSION_P64 (64), GPU_SESSION_ITERS (20)
# and GPU_SESSION_CALIB (calibrate's options, default none) shrink them.
# (The tests' NCCL moves no data: its rows there are wrong by design.)
set -u
out=${OUT:?gpu-session.sh writes under \$OUT}
carry=${GPU_CARRY:-$PWD/.gpu}
bin=$carry/bin
cv=$bin/collviz
[ -x "$cv" ] || { echo "gpu-session.sh: no $cv: run make gpu-carry" >&2; exit 2; }
big=${GPU_SESSION_BIG:-256M}
mid=${GPU_SESSION_MID:-64M}
lo=${GPU_SESSION_LO:-1M}
p64=${GPU_SESSION_P64:-64}
n=${GPU_SESSION_ITERS:-20}
export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
tmp=$(mktemp -d) || exit 1
export HOME=$tmp XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state \
    XDG_CONFIG_HOME=$tmp/config
t0=$(date +%s)
since() { echo "+$(($(date +%s) - t0)) s"; }

# run LIMIT FILE CMD...: CMD under timeout (SIGINT first, as a user's
# Ctrl-C, then KILL 5 s later), its output and status appended to FILE.
run() {
    local lim=$1 f=$out/$2
    shift 2
    echo "== $* ($(since))" >>"$f"
    timeout -s INT -k 5 "$lim" "$@" >>"$f" 2>&1
    echo "# rc=$?" >>"$f"
}

# 0. what the machine is
{
    echo "# gpu-session.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -srm)"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
        --format=csv 2>&1
    nvidia-smi topo -m 2>&1 | head -20
    for l in $(ldconfig -p 2>/dev/null | awk '/libnccl\.so|libcuda\.so/ {print $NF}'); do
        echo "# lib: $l -> $(readlink -f "$l")"
    done
    "$cv" --version
} >"$out/env.txt" 2>&1
run 30 env.txt "$cv" perf broadcast -B cuda -p 1 -a all -b 8 -e 8 -n 1 -w 0

# 1. the tests on this driver (54 s on the H100 before)
run 90 tests.txt env COLLVIZ_TEST_REAL_GPU=1 COLLVIZ="$cv" \
    sh scripts/run-tests.sh "$bin/test_exec_cuda" "$bin/test_ui_cuda"

# 2. the kernels' variants, interleaved: two rounds of each arm, so a
# drift of the machine shows as a difference between rounds. Layouts
# (runs, stride) on the copy and float's allreduce; kernels (lanes,
# packed) on half, bfloat16 and int8; ring allreduce's out-of-place and
# in-place columns once a round.
big_row() { # OPTS COLL ALGO P TYPE ITERS
    run 15 ab.txt "$cv" perf "$2" -B "cuda:$1" -a "$3" -p "$4" -d "$5" \
        -b "$big" -e "$big" -c 0 -n "$6" -w 3
}
for round in 1 2; do
    for lay in runs stride; do
        echo "# round $round arm layout=$lay" >>"$out/ab.txt"
        big_row "layout=$lay" broadcast linear 1 int8 $((n * 2))
        big_row "layout=$lay" allreduce direct 4 float "$n"
    done
    for k in lanes packed; do
        echo "# round $round arm kernels=$k" >>"$out/ab.txt"
        for t in half bfloat16 int8; do
            big_row "kernels=$k" allreduce direct 4 "$t" "$n"
        done
    done
    echo "# round $round arm layout=runs" >>"$out/ab.txt"
    big_row layout=runs allreduce ring 4 float "$n"
done
echo "# round 0 arm nccl" >>"$out/ab.txt"
run 15 ab.txt "$cv" perf broadcast -B cuda -a nccl -p 1 -d int8 \
    -b "$big" -e "$big" -c 0 -n $((n * 2)) -w 3

# 3. NCCL beside collviz at p = 1: 8 B to BIG by 32, checked
for c in broadcast reduce allgather reducescatter allreduce alltoall gather scatter; do
    run 15 nccl.txt "$cv" perf "$c" -B cuda -p 1 -a all -b 8 -e "$big" -f 32 -n "$n"
done

# 4. the memory model out of sample: priced before the runs, from the
# what-if machine's fixed figures (model -T gpu), then measured; perf's
# own model column is this run's quick calibration
for c in broadcast allreduce alltoall; do
    run 10 rows.txt "$cv" model "$c" -p 8 -T gpu -b "$lo" -e "$mid" -f 4
    run 30 rows.txt "$cv" perf "$c" -B cuda -p 8 -a all -b "$lo" -e "$mid" -f 4 \
        -c 0 -n 10
done
run 10 rows.txt "$cv" model allreduce -p "$p64" -T gpu -b 8 -e "$mid" -f 64
run 40 rows.txt "$cv" perf allreduce -B cuda -p "$p64" -a all -b 8 -e "$mid" \
    -f 64 -n 10

# 5. every datatype and op, with each kernels arm; unaligned int8 (heads
# and tails of vectors)
for k in lanes packed; do
    run 20 dtypes.txt "$cv" perf allreduce -B "cuda:kernels=$k" -p 4 -a direct \
        -d all -o all -b "$lo" -e "$lo"
done
run 20 dtypes.txt "$cv" perf allreduce -B cuda -p 3 -a all -d int8 -u 1 \
    -b "$lo" -e "$mid" -f 16

# 6. cancel: SIGINT 3 s into a run that would take minutes; the time from
# the signal to the process's end (job control on, so that the job in the
# background does not ignore SIGINT, as a shell's background jobs do)
set -m
{
    echo "== perf broadcast -p 4 -a chain -N 0, SIGINT after 3 s ($(since))"
    "$cv" perf broadcast -B cuda -p 4 -a chain -b "$big" -e "$big" -c 0 \
        -n 1000 -N 0 >"$tmp/cancel.out" 2>&1 &
    pid=$!
    sleep 3
    s=$(date +%s%N)
    kill -INT "$pid" 2>/dev/null
    waited=0
    while kill -0 "$pid" 2>/dev/null && [ $waited -lt 150 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    echo "# rc=$rc, ended $((($(date +%s%N) - s) / 1000000)) ms after the signal"
    tail -n 5 "$tmp/cancel.out"
} >>"$out/cancel.txt" 2>&1
set +m

# 7. a calibration
run 40 calib.txt "$cv" calibrate -B cuda -p 4 ${GPU_SESSION_CALIB:-}
echo "# done ($(since))" >>"$out/calib.txt"
rm -rf "$tmp"
