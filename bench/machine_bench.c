/* machine_bench.c - how long the cost model takes to price a schedule on a
 * large machine, and how much memory it needs (targets: an allreduce on a
 * 128x128 torus, p = 16384, priced in under 1 s; a `collviz model` sweep
 * of sizes on it, each size's schedule built and priced, in under 5 s in
 * all; the pricer's memory linear in p).
 *
 * The schedule is the 2D-torus allreduce, built here by hand (the
 * generators stop at p = 1024): a ring reduce-scatter along x, a ring
 * allreduce along y of the block each rank owns, a ring allgather along
 * x. Every message goes to a neighbour, one hop, and no two share a link,
 * so on a uniform torus each step costs alpha + bytes beta (+ bytes gamma
 * where it reduces): the model's figure is checked against that sum. A
 * small instance is executed symbolically first, to show the builder is
 * an allreduce.
 *
 * Usage: machine_bench [-s] [X Y]   (-s: no sweep; X Y: the torus,
 * default 128 128; a smaller one is for profiling under callgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/machine.h"
#include "core/model.h"
#include "core/sched.h"
#include "core/sim.h"
#include "core/sweep.h"

#define ALPHA 1e-6
#define BETA 1e-10
#define GAMMA 5e-11
#define TARGET_PRICE 1.0 /* s: one schedule priced */
#define TARGET_SWEEP 5.0 /* s: the sweep, built and priced */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident memory of the process so far, MiB. */
static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

/* sched_init, or for p beyond COLL_MAX_RANKS (which sched_init refuses;
 * the machine takes up to MACHINE_MAX_RANKS) the same initialisation done
 * here: Schedule's fields are public and sched_fini frees what this
 * allocates. */
static CvError sched_begin(Schedule *s, const CollCall *c, const char *algo)
{
    CvError e = sched_init(s, c, algo);
    if (e != CV_ERR_RANKS || c->nranks <= COLL_MAX_RANKS)
        return e;
    memset(s, 0, sizeof *s);
    s->call = *c;
    s->algo = algo;
    s->bufsize = calloc((size_t)c->nranks * BUF_COUNT, sizeof *s->bufsize);
    if (!s->bufsize)
        return s->err = CV_ERR_NOMEM;
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        s->bufsize[(size_t)r * BUF_COUNT + BUF_SEND] = l.send_count;
        s->bufsize[(size_t)r * BUF_COUNT + BUF_RECV] = l.recv_count;
    }
    return CV_OK;
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

/* Phase 1 or 3: a ring along x in every row at once, X - 1 steps; in step
 * k rank x sends block (x - k - shift) mod X of count / X elements to
 * x + 1 (shift 1 reducing: rank x ends owning block x; shift 0 copying). */
static void ring_x(Schedule *s, int X, int Y, size_t blk, bool reduce)
{
    for (int k = 0; k < X - 1; k++) {
        sched_step(s, reduce ? "reduce-scatter x" : "allgather x");
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++) {
                int src = x + X * y, dst = mod(x + 1, X) + X * y;
                size_t off = (size_t)mod(x - k - (reduce ? 1 : 0), X) * blk;
                if (reduce)
                    sched_reduce(s, src, BUF_RECV, off, dst, BUF_RECV, off, blk);
                else
                    sched_copy(s, src, BUF_RECV, off, dst, BUF_RECV, off, blk);
            }
    }
}

/* Phase 2: in every column at once, a ring allreduce along y of block x
 * (the one rank (x, y) owns), split in Y sub-blocks of sub elements:
 * Y - 1 reducing steps, then Y - 1 copying ones. */
static void ring_y(Schedule *s, int X, int Y, size_t blk, size_t sub)
{
    for (int k = 0; k < 2 * (Y - 1); k++) {
        bool reduce = k < Y - 1;
        int j = reduce ? k + 1 : k - (Y - 1);
        sched_step(s, reduce ? "reduce-scatter y" : "allgather y");
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++) {
                int src = x + X * y, dst = x + X * mod(y + 1, Y);
                size_t off = (size_t)x * blk + (size_t)mod(y - j, Y) * sub;
                if (reduce)
                    sched_reduce(s, src, BUF_RECV, off, dst, BUF_RECV, off, sub);
                else
                    sched_copy(s, src, BUF_RECV, off, dst, BUF_RECV, off, sub);
            }
    }
}

/* The 2D-torus allreduce of count floats per rank (a multiple of X * Y),
 * in place, rank r = x + X y. */
static CvError build_torus_allreduce(Schedule *s, int X, int Y, size_t count)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = X * Y, .count = count,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    CvError e = sched_begin(s, &c, "torus2d");
    if (e)
        return e;
    size_t blk = count / (size_t)X, sub = blk / (size_t)Y;
    ring_x(s, X, Y, blk, true);
    ring_y(s, X, Y, blk, sub);
    ring_x(s, X, Y, blk, false);
    return sched_end(s);
}

/* The schedule's time by hand on a uniform torus: each step one hop,
 * alpha + bytes beta, plus bytes gamma where it reduces. */
static double hand_formula(int X, int Y, size_t count)
{
    double b1 = (double)count / X * 4, b2 = b1 / Y;
    return (X - 1) * (ALPHA + b1 * (BETA + GAMMA)) +
           (Y - 1) * (ALPHA + b2 * (BETA + GAMMA)) +
           (Y - 1) * (ALPHA + b2 * BETA) + (X - 1) * (ALPHA + b1 * BETA);
}

static int torus(Machine *m, int X, int Y)
{
    CvError e = machine_grid(m, MACHINE_TORUS, 2, (int[]){X, Y}, false,
                             ALPHA, BETA, GAMMA);
    if (e)
        fprintf(stderr, "machine_bench: torus %dx%d: %s\n", X, Y, cv_strerror(e));
    return e != CV_OK;
}

/* Whether the model's seconds and the hand formula's agree to 1e-9
 * relative; prints both. */
static bool agrees(const char *what, double model, double hand)
{
    double rel = (model - hand) / hand;
    bool ok = rel < 1e-9 && rel > -1e-9;
    printf("%s: model %.9e s, formula %.9e s, relative difference %.2e: %s\n",
           what, model, hand, rel, ok ? "agree" : "DISAGREE");
    return ok;
}

/* Build a small instance, validate and execute it symbolically, and price
 * it against the formula; 0 when it is an allreduce. */
static int check_small(int X, int Y)
{
    Schedule s;
    Sim sim;
    SchedCheck chk;
    Machine m;
    CostTerms t;
    double sec = 0;
    size_t count = (size_t)X * Y * 3;
    int bad_rank = -1;
    size_t bad_elem = 0, nwrong = 0;
    CvError e = build_torus_allreduce(&s, X, Y, count);
    if (!e)
        e = sched_validate(&s, &chk, NULL);
    if (!e)
        e = sim_init(&sim, &s);
    if (!e) {
        e = sim_run(&sim);
        if (!e)
            e = sim_check(&sim, &bad_rank, &bad_elem, &nwrong);
        sim_fini(&sim);
    }
    if (!e && torus(&m, X, Y))
        e = CV_ERR_ARG;
    if (!e)
        e = model_machine_cost(&s, &m, false, &t, &sec);
    if (e) {
        fprintf(stderr, "machine_bench: %dx%d allreduce: %s (rank %d, element %zu, "
                "%zu wrong)\n", X, Y, cv_strerror(e), bad_rank, bad_elem, nwrong);
        sched_fini(&s);
        return 1;
    }
    printf("check %dx%d (p = %d, count %zu): %zu steps, %zu transfers, valid, "
           "symbolic execution is an allreduce\n", X, Y, X * Y, count,
           s.nsteps, s.nxfers);
    char what[64];
    snprintf(what, sizeof what, "check %dx%d time", X, Y);
    agrees(what, sec, hand_formula(X, Y, count));
    sched_fini(&s);
    return 0;
}

/* The Pricer's own arrays for machine m, as pricer_init allocates them:
 * bytes and msgs per link, touched links, reduced and copied per rank. */
static double pricer_bytes(const Machine *m)
{
    return (double)m->nlinks * (sizeof(double) + 2 * sizeof(int)) +
           (double)m->nranks * 2 * sizeof(double);
}

/* Transfers the pricer's step scratch holds after pricing step 0 of s
 * (each step of this schedule has as many transfers); -1 on failure. */
static long scratch_transfers(const Schedule *s, const Machine *m)
{
    Pricer pr;
    StepPrice sp;
    if (pricer_init(&pr, m))
        return -1;
    long n = price_step(&pr, s, 0, false, &sp) ? -1 : (long)pr.scratch_cap;
    pricer_fini(&pr);
    return n;
}

/* Memory at one torus size: pricer and schedule, per rank; the pricer's
 * bytes per rank into *per_rank. */
static int memory_row(int X, int Y, const Schedule *have, double *per_rank)
{
    Machine m;
    Schedule own, *s = (Schedule *)have;
    if (torus(&m, X, Y))
        return 1;
    if (!s) {
        CvError e = build_torus_allreduce(&own, X, Y, (size_t)X * Y * 16);
        if (e) {
            fprintf(stderr, "machine_bench: %dx%d: %s\n", X, Y, cv_strerror(e));
            return 1;
        }
        s = &own;
    }
    double pb = pricer_bytes(&m), sb = (double)s->nxfers * sizeof(Transfer);
    long sc = scratch_transfers(s, &m);
    printf("memory %3dx%-3d p %5d: links %6d, pricer %8.3f MiB (%.0f B/rank), "
           "step scratch %ld transfers (%.2f per rank), schedule %8.1f MiB "
           "(%zu transfers, %.0f B/rank)\n", X, Y, m.nranks, m.nlinks,
           mib(pb), pb / m.nranks, sc, (double)sc / m.nranks, mib(sb),
           s->nxfers, sb / m.nranks);
    if (s == &own)
        sched_fini(&own);
    *per_rank = pb / m.nranks;
    return sc < 0;
}

/* Build and price the schedule once at count floats per rank. */
static int price_big(int X, int Y, size_t count, Schedule *s, double *price_s)
{
    Machine m;
    CostTerms t;
    double sec = 0;
    if (torus(&m, X, Y))
        return 1;
    double rss0 = peak_rss_mib(), t0 = now();
    CvError e = build_torus_allreduce(s, X, Y, count);
    double t1 = now(), rss1 = peak_rss_mib();
    if (!e)
        e = model_machine_cost(s, &m, false, &t, &sec);
    double t2 = now(), rss2 = peak_rss_mib();
    if (e) {
        fprintf(stderr, "machine_bench: %dx%d: %s\n", X, Y, cv_strerror(e));
        sched_fini(s);
        return 1;
    }
    char desc[256];
    machine_describe(&m, false, desc, sizeof desc);
    printf("machine: %s; %d ranks, %d links\n", desc, m.nranks, m.nlinks);
    printf("schedule: allreduce torus2d, %zu floats (%zu B) per rank: %zu steps, "
           "%zu transfers; built in %.3f s\n", count, count * 4, s->nsteps,
           s->nxfers, t1 - t0);
    printf("pricing: model_machine_cost %.3f s (%.1f ns per transfer); terms "
           "a %.0f b %.0f g %.0f, %.0f steps\n", t2 - t1,
           1e9 * (t2 - t1) / (double)s->nxfers, t.a, t.b, t.g, t.steps);
    agrees("predicted time", sec, hand_formula(X, Y, count));
    printf("peak RSS: %.1f MiB before building, %.1f after building, %.1f after "
           "pricing (pricing added %.1f MiB)\n", rss0, rss1, rss2, rss2 - rss1);
    *price_s = t2 - t1;
    return 0;
}

/* The sweep collviz model -b 64K -e 128M -f 4 walks: sizes per rank from
 * one float per sub-block (4 X Y bytes) up, each built and priced. */
static int sweep(int X, int Y, double *total)
{
    Machine m;
    Sweep sw = {.min = 4ull * X * Y, .max = 128ull << 20, .factor = 4};
    unsigned long long size = sw.min;
    double build = 0, price = 0;
    if (torus(&m, X, Y))
        return 1;
    printf("# sweep: %-11s %10s %7s %9s %8s %8s %13s %s\n", "bytes", "count",
           "steps", "xfers", "build_s", "price_s", "predicted_s", "formula");
    do {
        Schedule s;
        CostTerms t;
        double sec = 0, t0 = now();
        size_t count = (size_t)(size / 4);
        CvError e = build_torus_allreduce(&s, X, Y, count);
        double t1 = now();
        if (!e)
            e = model_machine_cost(&s, &m, false, &t, &sec);
        double t2 = now();
        if (e) {
            fprintf(stderr, "machine_bench: sweep %llu B: %s\n", size, cv_strerror(e));
            sched_fini(&s);
            return 1;
        }
        double hand = hand_formula(X, Y, count), rel = (sec - hand) / hand;
        printf("sweep %13llu %10zu %7zu %9zu %8.3f %8.3f %13.6e %s\n", size, count,
               s.nsteps, s.nxfers, t1 - t0, t2 - t1, sec,
               rel < 1e-9 && rel > -1e-9 ? "agree" : "DISAGREE");
        build += t1 - t0, price += t2 - t1;
        sched_fini(&s);
    } while (sweep_next(&sw, &size));
    printf("sweep total: %zu sizes, %.3f s (building %.3f s, pricing %.3f s); "
           "peak RSS %.1f MiB\n", sweep_len(&sw), build + price, build, price,
           peak_rss_mib());
    *total = build + price;
    return 0;
}

int main(int argc, char **argv)
{
    int X = 128, Y = 128, a = 1;
    bool do_sweep = true;
    if (a < argc && !strcmp(argv[a], "-s"))
        do_sweep = false, a++;
    if (a + 1 < argc)
        X = atoi(argv[a]), Y = atoi(argv[a + 1]);
    if (X < 2 || Y < 2 || (long)X * Y > MACHINE_MAX_RANKS) {
        fprintf(stderr, "usage: machine_bench [-s] [X Y] (2 <= X, Y; X Y <= %d)\n",
                MACHINE_MAX_RANKS);
        return 2;
    }
    printf("# machine_bench: pricing a 2D-torus allreduce on a %dx%d torus "
           "(p = %d), alpha %g s, beta %g s/B, gamma %g s/B\n", X, Y, X * Y,
           ALPHA, BETA, GAMMA);
    printf("# targets: one schedule priced in under %.0f s; the model sweep "
           "built and priced in under %.0f s; pricer memory linear in p\n",
           TARGET_PRICE, TARGET_SWEEP);
    if (check_small(4, 4) || check_small(8, 4))
        return 1;

    /* the pricer's bytes per rank at smaller tori (first, so that the peak
       RSS reported below is the big schedule's) and at this one: equal when
       its memory is linear in p */
    int bad = 0;
    double lo = 1e300, hi = 0, pr;
    if (X == Y && X >= 32)
        for (int side = 32; side < X && !bad; side *= 2) {
            bad |= memory_row(side, side, NULL, &pr);
            lo = pr < lo ? pr : lo, hi = pr > hi ? pr : hi;
        }
    if (bad)
        return 1;

    Schedule big;
    double price_s = 0, sweep_s = 0;
    size_t count = (size_t)X * Y * 16; /* 1 MiB per rank at 128x128 */
    if (price_big(X, Y, count, &big, &price_s))
        return 1;
    bad |= memory_row(X, Y, &big, &pr);
    lo = pr < lo ? pr : lo, hi = pr > hi ? pr : hi;
    sched_fini(&big);
    if (bad)
        return 1;
    if (do_sweep && sweep(X, Y, &sweep_s))
        return 1;

    const char *note = X == 128 && Y == 128 ? "" : " (the targets are set for 128x128)";
    printf("verdict: pricing %.3f s (target < %.0f s): target %s%s\n", price_s,
           TARGET_PRICE, price_s < TARGET_PRICE ? "met" : "missed", note);
    if (do_sweep)
        printf("verdict: sweep %.3f s (target < %.0f s): target %s%s\n", sweep_s,
               TARGET_SWEEP, sweep_s < TARGET_SWEEP ? "met" : "missed", note);
    printf("verdict: pricer memory %.0f to %.0f B per rank over the tori "
           "measured: %s\n", lo, hi,
           hi <= lo * 1.0001 ? "linear in p" : "NOT linear in p");
    return 0;
}
