#!/bin/sh
# choice.sh - the calibrated model against the threads backend on this
# machine, each figure a ratio measured in one run (issue 37's targets):
#
#  1. the model's choice: for every collective and size from 8 B to MAX at
#     p ranks, the measured time of the algorithm the model ranks first
#     over the fastest measured one; the share of (collective, size) cases
#     within 1.25x (target: 90% or more at p = 2);
#  2. the 8 B bias: every algorithm's measured / model at the smallest size
#     (target: 0.7 to 1.4);
#  3. the copy limit: at MAX, out of place, the best allreduce and allgather
#     move the bytes their schedule reads and writes (perf's rw_bytes) at a
#     share of the machine's copy rate, measured in the same run by
#     bench/copyrate.c (p threads each copying MAX bytes of their own at
#     once, the faster of memcpy and streaming stores; target 80% or more),
#     and of sendrecv's (every rank copies its block into its neighbour's
#     buffer: the same bytes across cores); and their out-of-place time
#     over their in-place time (target: within 10%);
#  4. each machine the calibration fitted (full, bus, its memory machine):
#     the rows of 64 KiB to MAX within 25% of its model (target 80%) and
#     its choice within 1.25x of the fastest (target 90%): the memory-
#     machine issue's targets on this host.
#
# One calibration first (collviz calibrate, into a cache of this run's own),
# then ROUNDS rounds, each running every collective's perf -a all once, one
# after another, so that the machine's slow minutes spread over all of
# them; each row keeps its fastest round (other programs only ever slow a
# round down). The figures, the commands and the raw CSV and JSON go to
# bench/results/DATE-choice-HOST-pP.txt and raw/DATE-choice-HOST-pP/.
#
# usage: sh bench/choice.sh [COLLVIZ]   (default build/collviz)
# environment: CHOICE_P (ranks, default 2), CHOICE_ROUNDS (3),
#   CHOICE_MAX (64M), CHOICE_FACTOR (4), CHOICE_ITERS (20),
#   CHOICE_MIN_TIME (0.05 s per size and place), CHOICE_TAG (a word the
#   file names end with: a second run of the day beside the first)
set -u
bin=${1:-build/collviz}
[ -x "$bin" ] || { echo "choice.sh: no $bin; run make first" >&2; exit 2; }
p=${CHOICE_P:-2}
rounds=${CHOICE_ROUNDS:-3}
max=${CHOICE_MAX:-64M}
factor=${CHOICE_FACTOR:-4}
iters=${CHOICE_ITERS:-20}
mintime=${CHOICE_MIN_TIME:-0.05}
maxb=$(echo "$max" | awk '{ n = $0 + 0; u = toupper(substr($0, length($0)))
    print n * (u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : 1) }')
colls="broadcast reduce scatter gather allgather reducescatter allreduce alltoall"
here=$(cd "$(dirname "$0")" && pwd)
copyrate=$(dirname "$bin")/bench/copyrate
[ -x "$copyrate" ] || make -s "$copyrate" >/dev/null 2>&1 ||
    { echo "choice.sh: no $copyrate (make $copyrate)" >&2; exit 2; }
host=$(hostname -s)
day=$(date -u +%Y-%m-%d)
tag=${CHOICE_TAG:+-$CHOICE_TAG}
out="$here/results/$day-choice-$host-p$p$tag.txt"
raw="$here/results/raw/$day-choice-$host-p$p$tag"
mkdir -p "$raw"
rm -f "$raw"/*.csv "$raw"/*.json "$raw"/copyrate.txt
XDG_CACHE_HOME=$(mktemp -d) || exit 1
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
t0=$(date +%s)
load=$(cut -d' ' -f1-3 /proc/loadavg)

"$bin" calibrate -B threads -p "$p" > "$raw/calibrate.txt" 2>&1 ||
    { echo "choice.sh: calibrate failed (see $raw/calibrate.txt)" >&2; exit 1; }
perf() { # round, label, collective, then perf's own options
    r=$1 l=$2 c=$3
    shift 3
    "$bin" perf "$c" -p "$p" -n "$iters" --min-time "$mintime" --csv \
        --json "$raw/$l-r$r.json" "$@" > "$raw/$l-r$r.csv" 2> "$raw/$l-r$r.err" ||
        echo "choice.sh: perf $c (round $r) failed: $(tail -n 1 "$raw/$l-r$r.err")" >&2
}
r=1
while [ "$r" -le "$rounds" ]; do
    for c in $colls; do
        echo "choice.sh: round $r of $rounds: $c (+$(( $(date +%s) - t0 )) s)" >&2
        perf "$r" "$c" "$c" -a all -b 8 -e "$max" -f "$factor"
    done
    # the copy limit at MAX itself (the sweep's factor may step over it)
    for c in allreduce allgather sendrecv; do
        perf "$r" "limit_$c" "$c" -a all -b "$max" -e "$max"
    done
    "$copyrate" -p "$p" -s "$maxb" -r 5 >> "$raw/copyrate.txt" 2>&1
    r=$((r + 1))
done

{
    echo "# collviz bench/choice.sh: the calibrated model against the threads backend"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC'), host: $host"
    echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(nproc) cores; load average before: $load"
    echo "# commands: $bin calibrate -B threads -p $p, then $rounds rounds of"
    echo "#   $bin perf COLL -a all -p $p -b 8 -e $max -f $factor -n $iters --min-time $mintime --csv"
    echo "#   for COLL in $colls,"
    echo "#   then $bin perf allreduce|allgather|sendrecv -a all -p $p -b $max -e $max and"
    echo "#   $copyrate -p $p -s $maxb -r 5 (the copy rate);"
    echo "#   each row's fastest round; rerun: CHOICE_P=$p CHOICE_ROUNDS=$rounds sh bench/choice.sh"
    echo "# the calibration: $(grep -m1 '^# calibration of backend' "$raw/calibrate.txt" | sed 's/^# //')"
    echo "# took $(( $(date +%s) - t0 )) s; raw CSV and JSON in results/raw/$(basename "$raw")/"
    echo
    for f in "$raw"/*.csv; do
        c=$(basename "$f" .csv); c=${c%-r*}
        sed "1d; s/^/$c,/" "$f"
    done | awk -F, -v p="$p" '
    # c,algorithm,size,count,type,redop,root,time_us,algbw,busbw,wrong,
    # time_us_ip,algbw_ip,busbw_ip,wrong_ip,model_us,ratio,...
    $3 ~ /^[0-9]+$/ {
        k = $1 SUBSEP $3 SUBSEP $2
        if (!(k in T) || $8 < T[k]) T[k] = $8
        if ($12 != "" && (!(k in TI) || $12 < TI[k])) TI[k] = $12
        M[k] = $16; W[k] += $11 + ($15 == "" ? 0 : $15)
        key = $1 SUBSEP $3
        if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        if (!(($1, $2) in A)) { A[$1, $2] = 1; algos[$1] = algos[$1] " " $2 }
        if (!($1 in smallest) || $3 + 0 < smallest[$1]) smallest[$1] = $3 + 0
        if ($1 ~ /^limit_/ && $3 + 0 > largest) largest = $3 + 0
    }
    END {
        print "## 1. the model'"'"'s choice (out of place): measured time of the model'"'"'s first over the fastest measured"
        printf "# %-14s %10s  %-20s %-20s %8s\n", "collective", "size", "model chose", "fastest", "ratio"
        within = 0; cases = 0
        for (i = 1; i <= n; i++) {
            split(order[i], cs, SUBSEP); c = cs[1]; s = cs[2]
            if (c ~ /^limit_/) continue
            na = split(algos[c], al, " ")
            best = ""; choice = ""
            for (j = 1; j <= na; j++) {
                k = c SUBSEP s SUBSEP al[j]
                if (!(k in T)) continue
                if (best == "" || T[k] < T[c, s, best]) best = al[j]
                if (M[k] > 0 && (choice == "" || M[k] < M[c, s, choice])) choice = al[j]
            }
            if (best == "" || choice == "") continue
            ratio = T[c, s, choice] / T[c, s, best]
            cases++; if (ratio <= 1.25) within++
            printf "  %-14s %10d  %-20s %-20s %8.2f%s\n", c, s, choice, best, ratio, (ratio > 1.25) ? "  >1.25" : ""
        }
        printf "# within 1.25x of the fastest: %d of %d cases (%.0f%%; target 90%%)\n\n", within, cases, cases ? 100 * within / cases : 0
        print "## 2. at the smallest size (8 B or one element per block): measured / model, out of place"
        inband = 0; nb = 0
        for (c in algos) {
            if (c ~ /^limit_/) continue
            s = smallest[c]; na = split(algos[c], al, " ")
            for (j = 1; j <= na; j++) {
                k = c SUBSEP s SUBSEP al[j]
                if (!(k in T) || !(M[k] > 0)) continue
                r = T[k] / M[k]; nb++; if (r >= 0.7 && r <= 1.4) inband++
                printf "  %-14s %6d B  %-20s measured %9.3f us  model %9.3f us  ratio %6.2f%s\n", c, s, al[j], T[k], M[k], r, (r < 0.7 || r > 1.4) ? "  outside" : ""
            }
        }
        printf "# within 0.7-1.4: %d of %d algorithms\n\n", inband, nb
        wrong = 0; for (k in W) wrong += W[k]
        printf "# wrong elements in all checked runs: %d\n\n", wrong
        print "## 3. the copy limit at " largest " B"
        for (k in T) { split(k, f, SUBSEP); if (f[1] == "limit_sendrecv" && f[2] == largest) printf "COPY %s %d %.3f\n", f[3], largest, T[k] }
        for (i = 1; i <= n; i++) {
            split(order[i], cs, SUBSEP); c = cs[1]; s = cs[2]
            if ((c != "limit_allreduce" && c != "limit_allgather") || s != largest) continue
            na = split(algos[c], al, " "); best = ""
            for (j = 1; j <= na; j++) { k = c SUBSEP s SUBSEP al[j]; if ((k in T) && (best == "" || T[k] < T[c, s, best])) best = al[j] }
            k = c SUBSEP s SUBSEP best
            printf "BEST %s %s %d %.3f %.3f\n", c, best, s, T[k], (k in TI) ? TI[k] : 0
        }
    }' > "$raw/summary.txt"
    grep -v '^BEST \|^COPY ' "$raw/summary.txt"
    # the bytes a schedule reads and writes (perf's rw_bytes, sched_traffic)
    rw_of() { # collective algorithm size
        grep -h "\"algorithm\": \"$2\", \"size\": $3," "$raw/$1"-r1.json |
            sed -n 's/.*"out_of_place": {[^}]*"rw_bytes": \([0-9]*\).*/\1/p' | head -n 1
    }
    xcopy=0
    if read -r _ a s t <<EOF_COPY
$(grep '^COPY ' "$raw/summary.txt")
EOF_COPY
    then
        rw=$(rw_of limit_sendrecv "$a" "$s")
        xcopy=$(awk -v rw="${rw:-0}" -v t="$t" 'BEGIN { printf "%.3f", (t > 0) ? rw / t / 1e3 : 0 }')
    fi
    # the best round of each copy (copyrate.c), the faster of the two
    copy=$(awk '/^copyrate: (memcpy|stream),/ { v = $(NF - 4) + 0; if (v > b) b = v }
                END { printf "%.3f", b }' "$raw/copyrate.txt")
    echo "# copy rate: $(sed -n 's/^copyrate: \(stream\|memcpy\), \([^:]*\):.*/\2/p' "$raw/copyrate.txt" | head -n 1)," \
         "the best of $rounds rounds of 5 of memcpy and of streaming stores: $copy GB/s read and written"
    echo "# across cores: sendrecv out of place at $s B (each rank's block into its neighbour's"
    echo "#   buffer): $t us for ${rw:-?} B read and written: $xcopy GB/s"
    grep '^BEST ' "$raw/summary.txt" | while read -r _ c a s t ti; do
        rw=$(rw_of "$c" "$a" "$s")
        awk -v c="$c" -v a="$a" -v t="$t" -v ti="$ti" -v rw="${rw:-0}" -v copy="$copy" -v xcopy="$xcopy" 'BEGIN {
            rate = (t > 0) ? rw / t / 1e3 : 0
            sub(/^limit_/, "", c)
            printf "  %-10s %-18s out of place %.3f us, in place %.3f us (out/in %.2f; target within 1.10);\n", c, a, t, ti, (ti > 0) ? t / ti : 0
            printf "             %d B read and written: %.2f GB/s, %.0f%% of the copy rate (target 80%%), %.0f%% of the sendrecv rate\n", rw, rate, (copy > 0) ? 100 * rate / copy : 0, (xcopy > 0) ? 100 * rate / xcopy : 0 }'
    done
    # 4. the model's time, each machine the calibration fitted (full, bus,
    # the memory machine): rows from 64 KiB to MAX out of place within
    # 25% of it (each row's fastest round; the models from round 1's
    # JSON, one calibration for all rounds), and its choice within 1.25x
    echo
    echo "## 4. each fitted machine: rows of 64 KiB to $max within 25% of its model (target 80%),"
    echo "##    and its choice within 1.25x of the fastest (target 90%), out of place"
    for f in "$raw"/*-r1.json; do
        c=$(basename "$f" -r1.json)
        case $c in limit_*) continue ;; esac
        grep -o '"algorithm": "[^"]*", "size": [0-9]*,[^}]*"model_us": {[^}]*}' "$f" |
            sed 's/"algorithm": "\([^"]*\)", "size": \([0-9]*\),.*"model_us": {\([^}]*\)}/\1 \2 \3/' |
            tr -d '",:' | awk -v c="$c" '{ printf "M %s %s %s", c, $1, $2; for (i = 3; i < NF; i += 2) printf " %s %s", $i, $(i + 1); print "" }'
    done > "$raw/models.txt"
    for f in "$raw"/*.csv; do
        c=$(basename "$f" .csv); c=${c%-r*}
        sed "1d; s/^/$c,/" "$f"
    done | awk -F, '$3 ~ /^[0-9]+$/ { k = $1 " " $2 " " $3; if (!(k in T) || $8 < T[k]) T[k] = $8 }
        END { for (k in T) print "T", k, T[k] }' > "$raw/times.txt"
    cat "$raw/times.txt" "$raw/models.txt" | awk '
    $1 == "T" { T[$2, $3, $4] = $5; next }
    $1 == "M" && $4 + 0 >= 65536 {
        for (i = 5; i < NF; i += 2) {
            m = $i; v = $(i + 1); k = $2 SUBSEP $3 SUBSEP $4
            if (!(m in seen)) { seen[m] = 1; ms[++nm] = m }
            MOD[m, k] = v; KEYS[k] = 1; G[$2 SUBSEP $4] = G[$2 SUBSEP $4] " " $3
        }
    }
    END {
        for (j = 1; j <= nm; j++) {
            m = ms[j]; rows = 0; inb = 0
            for (k in KEYS) if ((m, k) in MOD && (k in T) && MOD[m, k] > 0) {
                rows++; r = T[k] / MOD[m, k]; if (r >= 0.75 && r <= 1.25) inb++
            }
            cases = 0; ok = 0
            for (g in G) {
                split(g, gs, SUBSEP); n = split(G[g], al, " "); best = ""; ch = ""
                for (a = 1; a <= n; a++) {
                    k = gs[1] SUBSEP al[a] SUBSEP gs[2]
                    if (!(k in T) || !((m, k) in MOD)) continue
                    if (best == "" || T[k] < T[gs[1], best, gs[2]]) best = al[a]
                    if (ch == "" || MOD[m, k] < MOD[m, gs[1], ch, gs[2]]) ch = al[a]
                }
                if (best == "" || ch == "") continue
                cases++; if (T[gs[1], ch, gs[2]] <= 1.25 * T[gs[1], best, gs[2]]) ok++
            }
            printf "  %-6s within 25%%: %d of %d rows (%.0f%%); choice within 1.25x: %d of %d (%.0f%%)\n",
                   m, inb, rows, rows ? 100 * inb / rows : 0, ok, cases, cases ? 100 * ok / cases : 0
        }
    }'
    echo "# the machine the calibration chose: $(grep -m1 'machine that fits' "$raw/calibrate.txt" | sed 's/^# machine that fits: //')"
    echo "# the host's state: $(grep -A1 -m1 '^# host: over' "$raw/calibrate.txt" | sed 's/^#[[:space:]]*//' | tr '\n' ' ')"
} > "$out"
# keep what the report read: the CSV, the copy-limit rows' JSON, the
# calibration, the copies and any error output
find "$raw" -name '*.err' -size 0 -exec rm -f {} +
find "$raw" -name '*.json' ! -name 'limit_*' -exec rm -f {} +
rm -f "$raw/times.txt"
cat "$out"
echo "choice.sh: wrote $out" >&2
