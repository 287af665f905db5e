/* recorded.c - a recorded GPU run against the model, without a GPU.
 *
 * usage: recorded [-v] [-c CACHE_BYTES] [-f whole|next|none] DIR
 *
 * Reads DIR/run1-gpu-sh-p1.txt and DIR/run2-gpu-sh-p4-p2.txt (the H100
 * run of bench/results/raw/2026-11-26-gpu-h100, or another run with the
 * same files), takes a gpu machine's level from the one-rank copies and
 * the calibration's alpha alone (tests/recorded.h: rec_fit_gpu), and
 * prints, for the model column the run recorded and for the gpu machine,
 * the rows of p >= 2 at 1 MiB and above within 25% of the model and the
 * (collective, p, size) groups where the model's cheapest algorithm is
 * the fastest measured; -v: a line per row and per group. The run's
 * executor fused a copy-in only into a reduce of the next step
 * (MEM_FUSE_NEXT), so the machine is priced that way (-f: another way,
 * as today's backends, whole, or none). Exit status 2 when
 * the files cannot be read or lack a parameter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/recorded.h"

#define H100_L2 50e6

int main(int argc, char **argv)
{
    int verbose = 0, i = 1;
    double cache = H100_L2;
    MemFuse fuse = MEM_FUSE_NEXT;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            cache = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
            const char *f = argv[++i];
            fuse = !strcmp(f, "whole") ? MEM_FUSE_WHOLE
                   : !strcmp(f, "none") ? MEM_FUSE_NONE : MEM_FUSE_NEXT;
        }
        else
            break;
    }
    if (i + 1 != argc || !(cache > 0)) {
        fprintf(stderr, "usage: recorded [-v] [-c CACHE_BYTES] "
                        "[-f whole|next|none] DIR\n");
        return 2;
    }
    char p1[4096], p42[4096];
    snprintf(p1, sizeof p1, "%s/run1-gpu-sh-p1.txt", argv[i]);
    snprintf(p42, sizeof p42, "%s/run2-gpu-sh-p4-p2.txt", argv[i]);
    RecRun run = {0};
    MemLevel ml;
    if (rec_read(p1, &run) || rec_read(p42, &run)) {
        fprintf(stderr, "recorded: %s or %s cannot be read\n", p1, p42);
        return 2;
    }
    if (rec_fit_gpu(&run, cache, &ml)) {
        fprintf(stderr, "recorded: the run lacks a one-rank copy or its "
                        "calibration's alpha\n");
        rec_free(&run);
        return 2;
    }
    ml.fuse = fuse;
    printf("# level from the one-rank copies: step %.3f us, call %.3f us, "
           "memory %.0f GB/s of traffic, cache %.0f MB at %.0f GB/s\n",
           ml.step * 1e6, ml.call * 1e6, 1 / ml.beta_mem / 1e9, cache / 1e6,
           1 / ml.beta_cache / 1e9);
    RecScore old, gpu;
    if (rec_score(&run, NULL, 0.25, 1u << 20, NULL, &old) ||
        rec_score(&run, &ml, 0.25, 1u << 20, verbose ? stdout : NULL, &gpu)) {
        fprintf(stderr, "recorded: a row's schedule could not be priced\n");
        rec_free(&run);
        return 2;
    }
    printf("model as recorded (bus): %d of %d rows within 25%%, fastest "
           "chosen in %d of %d groups\n", old.within, old.rows, old.chosen,
           old.groups);
    printf("gpu machine:             %d of %d rows within 25%%, fastest "
           "chosen in %d of %d groups\n", gpu.within, gpu.rows, gpu.chosen,
           gpu.groups);
    rec_free(&run);
    return 0;
}
