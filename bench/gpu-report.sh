#!/bin/sh
# gpu-report.sh - what bench/gpu-session.sh measured, as a results file:
# the machine (device, driver, NCCL), then each part's figures against
# its target (issue: a workstation's GPUs), computed from the files.
#
# usage: sh bench/gpu-report.sh DIR [> bench/results/DATE-gpu-DEVICE.txt]
# DIR holds env.txt, tests.txt, ab.txt, nccl.txt, rows.txt, dtypes.txt,
# cancel.txt and calib.txt (a part that did not run is said missing).
set -u
dir=${1:?usage: sh bench/gpu-report.sh DIR}
[ -d "$dir" ] || { echo "gpu-report.sh: no folder $dir" >&2; exit 2; }
part() { [ -f "$dir/$1" ] || { echo "(missing: $1)"; return 1; }; }

# perf's tables as one line per row: FILE'S-TAG coll algo p type redop
# size oop_us ip_us oop_wrong ip_wrong model_us; TAG is what the line
# before the command said ("# round R layout L"), or "-".
rows() {
    awk '
    /^# round / { tag = $3 ":" $5 }
    /^== / { lay = "-"; for (i = 1; i <= NF; i++) if ($i ~ /^cuda:/) { lay = $i; sub("cuda:", "", lay) } }
    /^# collviz perf:/ { coll = $4; sub(",", "", coll); algo = $6; sub(",", "", algo)
                         for (i = NF; i > 1; i--) if ($i ~ /^ranks?,?$/ && $(i - 1) ~ /^[0-9]+$/) p = $(i - 1) }
    /^ +[0-9]+ +[0-9]+ / && NF >= 13 {
        if (have) print row, "-"
        row = (tag == "" ? "-" : tag) " " lay " " coll " " algo " " p " " $3 " " $4 " " $1 " " $6 " " $10 " " ($9 + 0) " " ($13 + 0)
        have = 1; next
    }
    /^#  model/ && have { print row, $3; have = 0; next }
    have && !/^#  model/ { print row, "-"; have = 0 }
    END { if (have) print row, "-" }' "$1"
}

echo "# collviz on a lent GPU: bench/gpu-session.sh, read by bench/gpu-report.sh"
if part env.txt >/dev/null; then
    sed -n '1p' "$dir/env.txt"
    grep -E '^name|, *[0-9]+ MiB' "$dir/env.txt" | sed 's/^/# device: /'
    grep '^# lib:' "$dir/env.txt"
    grep -m1 '^collviz ' "$dir/env.txt" | sed 's/^/# build: /'
    grep -m1 '^# placement:' "$dir/env.txt"
else
    part env.txt
fi

echo
echo "## tests on the real driver"
part tests.txt && grep -E 'passed|failed' "$dir/tests.txt" | tail -n 3

echo
echo "## the kernels' A/B (2 rounds interleaved; us, out of place / in place)"
if part ab.txt; then
    rows "$dir/ab.txt" | awk '
    $4 == "nccl" { nccl = $9; next }
    $1 != "-" {
        split($1, rl, ":"); split($2, kv, "="); k = $3 " " $4 " p=" $5 " " $6 " " kv[1]
        if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
        if (!((k, kv[2]) in arm)) { arm[k, kv[2]] = 1; arms[k] = arms[k] " " kv[2] }
        t[k, kv[2]] = t[k, kv[2]] (t[k, kv[2]] == "" ? "" : ", ") $9 " / " $10
        o[k, kv[2]] += $9; c[k, kv[2]]++
        wrong += $11 + $12
    }
    END {
        for (i = 1; i <= nk; i++) {
            k = keys[i]; split(substr(arms[k], 2), an, " ")
            printf "%s\n", k
            for (j = 1; an[j] != ""; j++) {
                m = o[k, an[j]] / c[k, an[j]]
                printf "    %-8s %-40s mean %.1f", an[j], t[k, an[j]], m
                if (j > 1) printf "  (%.3fx %s)", m / first, an[1]
                else first = m
                printf "\n"
                if (j == 1 || m < best[k]) best[k] = m
            }
        }
        for (i = 1; i <= nk; i++) if (keys[i] ~ /^broadcast linear p=1/) copy = best[keys[i]]
        if (nccl > 0 && copy > 0)
            printf "# target: the copy within 5%% of NCCL'\''s: collviz %.1f us, NCCL %.1f us: %.3fx\n", copy, nccl, copy / nccl
        f = 0; for (i = 1; i <= nk; i++) if (keys[i] ~ /direct p=4 float/) f = best[keys[i]]
        for (i = 1; i <= nk; i++) if (f > 0 && keys[i] ~ /direct p=4 (half|bfloat16)/)
            printf "# target: %s within 1.2x of float'\''s bytes a second (the same bytes): %.3fx\n", keys[i], best[keys[i]] / f
        printf "# wrong elements in these rows: %d (unchecked rows count 0)\n", wrong
    }'
    rows "$dir/ab.txt" | awk '$4 == "ring" { o += $9; i += $10 }
        END { if (i > 0) printf "# target: ring allreduce out of place within 1.1x of in place: %.3fx\n", o / i }'
fi

echo
echo "## NCCL beside collviz at p = 1 (each collective's largest size)"
if part nccl.txt; then
    rows "$dir/nccl.txt" | awk '
    { k = $3; if ($8 + 0 > big[k] + 0) big[k] = $8 }
    { r[NR] = $0 }
    END {
        for (i = 1; i <= NR; i++) {
            split(r[i], f, " ")
            if (f[8] != big[f[3]]) continue
            if (f[4] == "nccl") lib[f[3]] = f[9]
            else if (!(f[3] in best) || f[9] + 0 < best[f[3]] + 0) { best[f[3]] = f[9]; who[f[3]] = f[4] }
        }
        printf "%-14s %12s %-18s %10s %10s %s\n", "collective", "size(B)", "best collviz", "us", "nccl us", "collviz/nccl"
        for (c in best)
            printf "%-14s %12s %-18s %10s %10s %s\n", c, big[c], who[c], best[c], (lib[c] == "" ? "n/a" : lib[c]),
                (lib[c] + 0 > 0) ? sprintf("%.3f", best[c] / lib[c]) : "n/a"
    }'
    printf '# wrong elements: %s\n' "$(rows "$dir/nccl.txt" | awk '$4 != "nccl" { w += $11 + $12 } END { print w + 0 }') in collviz's rows"
fi

echo
echo "## the memory model out of sample (measured / priced)"
if part rows.txt; then
    # model -T gpu's tables: the column names, then rows of sizes
    awk '
    /^== .* model / { coll = $4; p = ""; for (i = 1; i <= NF; i++) if ($i == "-p") p = $(i + 1); in_model = 1 }
    /^== .* perf / { in_model = 0 }
    in_model && /^# +size +count/ { n = NF; for (i = 4; i <= NF; i++) name[i - 1] = $i }
    in_model && /^ +[0-9]+ +[0-9]+ / { for (i = 3; i <= NF - 2; i++) print "M", coll, p, name[i], $1, $i + 0 }' "$dir/rows.txt" >"$dir/.priced"
    rows "$dir/rows.txt" | awk '{ print "R", $3, $5, $4, $8, $9, $13 }' >>"$dir/.priced"
    awk '
    $1 == "M" { m[$2, $3, $4, $5] = $6; next }
    $1 == "R" {
        k = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
        if (k in m && m[k] > 0) { r = $6 / m[k]; n++; if (r >= 0.8 && r <= 1.25) in1++
            printf "%-10s p=%-3s %-20s %10s B  measured %10.2f  what-if %10.2f  %.2fx  calibrated %s\n", $2, $3, $4, $5, $6, m[k], r, $7 }
    }
    END { printf "# within 25%% of the what-if gpu machine priced before the run: %d of %d rows\n", in1, n }' "$dir/.priced"
    rm -f "$dir/.priced"
fi

echo
echo "## every datatype and op; unaligned int8"
part dtypes.txt && grep -c '^ *[0-9]' "$dir/dtypes.txt" | sed 's/^/# rows: /' &&
    grep -E '^# Out of bounds' "$dir/dtypes.txt" | sort | uniq -c

echo
echo "## cancel"
part cancel.txt && grep -E '^# rc=' "$dir/cancel.txt"

echo
echo "## calibration"
part calib.txt && grep -vE '^== ' "$dir/calib.txt" | tail -n 12

echo
echo "## every part's exit status (0 fine; 124 its limit; 1 a wrong element or a failed run)"
for f in "$dir"/*.txt; do
    printf '%-12s %s\n' "$(basename "$f")" "$(grep '^# rc=' "$f" | sed 's/^# rc=//; s/,.*//' | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done
