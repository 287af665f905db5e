# report.sh - the report functions of bench/run.sh (sourced, POSIX sh+awk).

# The machine, the software, and how busy the machine is.
report_machine() {
    echo "# collviz bench: collviz perf -B mpi beside Open MPI's own collectives (its mpi rows)"
    echo "# date: $(date '+%Y-%m-%d %H:%M %Z'), host: $host"
    echo "# cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
         "$(nproc) cores; memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "# $(mpirun --version 2>/dev/null | head -1); $(${CC:-cc} --version | head -1)"
    echo "# sweep: -b $min -e $max -f $factor -n $iters -w $warmup, at least $mintime s per size (more iterations where"
    echo "#   ITERS take less), float sum, $rounds rounds; the collectives of p blocks"
    echo "#   from one element per block (4p B) where MIN is smaller"
    echo "# launched by: $mpirun"
    echo "# timing: warmup, a barrier, then the iterations timed as a whole, the"
    echo "#   slowest rank's mean per iteration, for both (collviz-mpi, -B mpi)"
    echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
}

# report_pair COLL P MPI_TXT CV_CSV: the side-by-side table, then lines
# starting with "target" for report_targets. The files may hold several
# rounds of the same sweep: each row keeps its fastest round (other
# programs on the machine only ever slow a round down), for both sides.
# The model check takes the median of the rounds' measured/model instead
# (each round's row against the model of that round's calibration: run.sh),
# as the calibration does with its own rounds (calib.c): the machine in a
# typical minute against the model of the same minutes. A size that misses
# is steady when all its rounds but one miss on the same side (the model
# is off there), unsteady when they scatter across the band (the machine
# varied more between minutes than the tolerance allows).
# MPI_Bcast has one buffer (the root's data stays where it is), so
# broadcast is compared with collviz's in-place columns (run.sh's split
# takes MPI's in place too); the other collectives out of place.
report_pair() {
    awk -v coll="$1" -v p="$2" -F'[ ,]+' '
    function keep(t, b, key, T, B) {
        if (!(key in T) || t < T[key]) { T[key] = t; B[key] = b }
    }
    function median(a, n, k,    i, j, v, x) {
        for (i = 1; i <= n; i++) v[i] = a[k, i]
        for (i = 2; i <= n; i++) {         # insertion sort
            x = v[i]
            for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
            v[j + 1] = x
        }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    FNR == 1 { file++ }
    file == 1 && $0 !~ /^#/ {          # MPI: size count type op root time algbw busbw wrong
        sub(/^ +/, ""); split($0, f, / +/)
        if (!(f[1] in cnt)) size[++n] = f[1]
        cnt[f[1]] = f[2]; keep(f[6], f[8], f[1], mt, mb)
        if (f[9] != 0) mwrong += f[9]
        next
    }
    file == 2 && FNR > 1 && $1 != "algorithm" {   # collviz perf --csv
        k = $1 SUBSEP $2
        if (coll == "broadcast") keep($11, $13, k, ct, cb)
        else keep($7, $9, k, ct, cb)
        if ($15 > 0) {
            rout[k, ++nout[k]] = $7 / $15
            if ($21 != 0) {                     # host_moved (collviz perf):
                dropped[$1]++                   #   1 cross-core reads, 2 speed
                if ($21 % 2) dropx[$1]++
                if ($21 >= 2) drops[$1]++
            } else rsame[k, ++nsame[k]] = $7 / $15
            rounds[$1]++
        }
        if (!($1 in seen)) { seen[$1] = 1; algos[++na] = $1 }
        cwrong += ($10 > 0 ? $10 : 0) + ($14 > 0 ? $14 : 0)
    }
    END {
        for (k in ct) {
            split(k, ks, SUBSEP); a = ks[1]; s = ks[2]
            if (!(s in bt) || ct[k] < bt[s]) { bt[s] = ct[k]; bb[s] = cb[k]; ba[s] = a }
            if (s >= 1048576 && nsame[k] > 0) {
                r = median(rsame, nsame[k], k)
                if (!(a in slo) || r < slo[a]) slo[a] = r
                if (!(a in shi) || r > shi[a]) shi[a] = r
                if (r < 0.75 || r > 1.25) smiss[a]++
            } else if (s >= 1048576 && nout[k] > 0) snone[a]++
            if (s >= 1048576 && nout[k] > 0) {
                r = median(rout, nout[k], k)
                if (!(a in lo) || r < lo[a]) lo[a] = r
                if (!(a in hi) || r > hi[a]) hi[a] = r
                if (r >= 0.75 && r <= 1.25) continue
                below = above = 0
                for (i = 1; i <= nout[k]; i++) {
                    below += rout[k, i] < 0.75; above += rout[k, i] > 1.25
                }
                if (below >= nout[k] - 1 || above >= nout[k] - 1) steady[a]++
                else unsteady[a]++
            }
        }
        printf "## %s, %d ranks: Open MPI against the fastest collviz algorithm per size\n", coll, p
        printf "# %10s %10s %9s  %-18s %10s %9s %8s %8s\n", "size(B)", "MPI(us)", "MPI busbw",
               "collviz best", "time(us)", "busbw", "speedup", "busbw x"
        small = 0
        for (i = 1; i <= n; i++) {
            s = size[i]; if (!(s in bt)) continue
            sp = bt[s] > 0 ? mt[s] / bt[s] : 0
            bx = mb[s] > 0 ? bb[s] / mb[s] : 0
            printf "  %10d %10.2f %9.3f  %-18s %10.2f %9.3f %8.2f %8.2f\n", s, mt[s], mb[s],
                   ba[s], bt[s], bb[s], sp, bx
            if (!small && cnt[s] > 0) { small = s
                printf "target small %s %d %d %.3f %.3f %s\n", coll, p, s, mt[s], bt[s], ba[s] }
            last = s
        }
        printf "target large %s %d %d %.4f %.4f %s\n", coll, p, last, mb[last], bb[last], ba[last]
        for (i = 1; i <= na; i++) { a = algos[i]
            if (a in lo) printf "target model %s %d %s %.6f %.6f %d %d\n", coll, p, a, lo[a],
                                hi[a], steady[a], unsteady[a]
            if (a in lo) printf "target same %s %d %s %.6f %.6f %d %d %d %d %d %d\n", coll, p,
                                a, (a in slo) ? slo[a] : 0, (a in shi) ? shi[a] : 0, smiss[a],
                                snone[a], dropped[a], rounds[a], dropx[a], drops[a] }
        printf "target wrong %s %d %d %d\n", coll, p, mwrong, cwrong
        print ""
    }' "$3" "$4"
}

# report_targets FILE: the targets against the "target" lines.
report_targets() {
    awk '
    # The targets are set at 8 B (or the smallest whole block) and at
    # 64 MiB; a sweep that stops short of either shows its rows as "-".
    $2 == "small" {
        at = $5 < 1024; ok = $7 <= 1.5 * $6; bad_small += at && !ok; ns_at += at
        small[++ns] = sprintf("  %-14s %2d %8d %10.2f %10.2f  %-18s %6.2f  %s", $3, $4, $5, $6,
                              $7, $8, $7 > 0 ? $6 / $7 : 0, !at ? "-" : ok ? "ok" : "MISSED")
    }
    $2 == "large" {
        want = 0.9
        at = $5 >= 67108864; r = $6 > 0 ? $7 / $6 : 0; ok = r >= want
        bad_large += at && !ok; nl_at += at
        large[++nl] = sprintf("  %-14s %2d %10d %9.3f %9.3f  %-18s %6.2f %4.1fx  %s", $3, $4, $5,
                              $6, $7, $8, r, want, !at ? "-" : ok ? "ok" : "MISSED")
    }
    $2 == "model" {
        ok = $6 >= 0.75 && $7 <= 1.25; bad_model += !ok; bad_steady += $8 > 0
        why = $8 > 0 ? sprintf(" (steady at %d size%s)", $8, $8 > 1 ? "s" : "") : " (unsteady)"
        model[++nm] = sprintf("  %-14s %2d  %-18s %6.2f %6.2f  %s", $3, $4, $5, $6, $7,
                              ok ? "ok" : "MISSED" why)
    }
    $2 == "same" {
        ok = $8 == 0; bad_same += !ok; ns_sizes += $9; drop += $10; all += $11
        dropx += $12; drops += $13
        same[++nsm] = sprintf("  %-14s %2d  %-18s %6s %6s  %s", $3, $4, $5,
                              $6 > 0 ? sprintf("%.2f", $6) : "-", $7 > 0 ? sprintf("%.2f", $7) : "-",
                              (ok ? "ok" : sprintf("MISSED at %d size%s", $8, $8 > 1 ? "s" : "")) \
                              ($9 ? sprintf(" (%d size%s no round)", $9, $9 > 1 ? "s" : "") : ""))
    }
    $2 == "wrong" && ($5 != 0 || $6 != 0) { wrong = wrong sprintf(" %s/%d(mpi %d, collviz %d)", $3, $4, $5, $6) }
    END {
        print "## targets"
        print "# 1. the best algorithm within 1.5x Open MPI'"'"'s time at the smallest size with count >= 1"
        print "#    (8 B, or the smallest whole block; \"-\": the sweep starts above 1 KiB)"
        printf "# %-14s %2s %8s %10s %10s  %-18s %6s\n", "collective", "p", "size(B)", "MPI(us)",
               "collviz", "algorithm", "ratio"
        for (i = 1; i <= ns; i++) print small[i]
        print "# 2. busbw at the largest size: at least 0.9x Open MPI'"'"'s"
        print "#    (at 64 MiB; \"-\": the sweep stops below it)"
        printf "# %-14s %2s %10s %9s %9s  %-18s %6s %5s\n", "collective", "p", "size(B)", "MPI",
               "collviz", "algorithm", "ratio", "want"
        for (i = 1; i <= nl; i++) print large[i]
        print "# 3. every algorithm within 25% of the calibrated model at sizes >= 1 MiB"
        printf "# %-14s %2s  %-18s %6s %6s\n", "collective", "p", "algorithm", "min", "max"
        print "#   (median over the rounds of measured / the model of the round, out of place;"
        print "#   a size missed steadily: every round but one beyond the band on the same side,"
        print "#   unsteadily: the rounds scatter across it)"
        for (i = 1; i <= nm; i++) print model[i]
        if (nsm) {
            print "# 3b. the same, over the rounds in which the machine ran as during the calibration:"
            print "#   read what another core had just written as fast, and ran at the same speed"
            print "#   (collviz perf: host_moved 0; its probes between the sizes tell both)"
            printf "#   %d of %d measurements at all sizes did not, and are left out here\n", drop, all
            printf "#   (cross-core reads moved around %d, speed around %d; some both)\n", dropx, drops
            printf "# %-14s %2s  %-18s %6s %6s\n", "collective", "p", "algorithm", "min", "max"
            for (i = 1; i <= nsm; i++) print same[i]
            printf "# model in the calibrated state: %d of %d algorithms missed", bad_same, nsm
            printf "%s\n", ns_sizes ? sprintf("; %d sizes had no such round", ns_sizes) : ""
        }
        printf "# missed: %d of %d small-size, %d of %d bandwidth, %d of %d model targets\n",
               bad_small, ns_at, bad_large, nl_at, bad_model, nm
        printf "#   (model: %d with a steady miss, %d only where the rounds scatter)\n",
               bad_steady, bad_model - bad_steady
        print "# wrong elements:" (wrong == "" ? " none" : wrong)
    }' "$1"
}

# report_state FILE: how often bench/hoststate found the machine's
# cross-core data path slow (lines "round R p P STEP fast|slow RATIO").
report_state() {
    [ -s "$1" ] || return 0
    awk '
    { n++; k = $2 SUBSEP $4; probes[k]++; if (!($4 in seenp)) { seenp[$4] = 1; ps[++np] = $4 }
      if (!($2 in seenr)) { seenr[$2] = 1; rs[++nr] = $2 }
      if ($6 == "slow") { slow++; slows[k]++; which = which sprintf(" r%s/p%s/%s(%.1f)", $2, $4, $5, $7) } }
    END {
        print "## host state: bench/hoststate for 0.1 s before each calibration and each"
        print "#   collviz perf run; slow: reading what another core has just written took"
        print "#   more than 3 times as long as reading data written once (about 11 times"
        print "#   in that state, which the machine enters and leaves on its own)"
        printf "# %5s", "round"
        for (j = 1; j <= np; j++) printf "  %9s", "p=" ps[j]
        printf "\n"
        for (i = 1; i <= nr; i++) {
            printf "  %5s", rs[i]
            for (j = 1; j <= np; j++) { k = rs[i] SUBSEP ps[j]
                printf "  %9s", (k in probes) ? sprintf("%d of %d", slows[k] + 0, probes[k]) : "-" }
            printf "\n"
        }
        printf "# slow: %d of %d probes%s\n", slow, n, slow ? ":" which : ""
    }' "$1"
}
