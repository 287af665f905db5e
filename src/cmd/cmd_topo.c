/* cmd_topo.c - `collviz topo`: a machine (-T's shorthand or a file) in
 * words: its dimensions, link classes, links on request, routes between
 * ranks; or written back as a machine file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "scene/spec.h"
#include "core/machine_file.h"

enum {
    TP_TOPO, TP_RANKS, TP_ALPHA, TP_BETA, TP_GAMMA, TP_LINKS, TP_ROUTE,
    TP_ROUTES, TP_FILE, TP_HELP, TP_NOPTS
};

/* Routes printed by --routes at most (p * (p - 1) of them). */
#define TOPO_MAX_ROUTES 4096

static const CliOpt topo_opts[TP_NOPTS] = {
    [TP_TOPO] = SPEC_OPT_TOPO,
    [TP_RANKS] = {'p', "ranks", "RANKS", "ranks of full, bus, switch or ring without a shape"},
    [TP_ALPHA] = CLI_OPT_ALPHA,
    [TP_BETA] = CLI_OPT_BETA,
    [TP_GAMMA] = CLI_OPT_GAMMA,
    [TP_LINKS] = {0, "links", NULL, "list every link: number, ends, class"},
    [TP_ROUTE] = {0, "route", "SRC,DST", "the links a message from rank SRC to rank DST crosses"},
    [TP_ROUTES] = {0, "routes", NULL, "the route of every pair of ranks (up to 4096 pairs)"},
    [TP_FILE] = {0, "file", NULL, "write the machine as a machine file (ASTRA-sim's network format) instead"},
    [TP_HELP] = CLI_OPT_HELP,
};

static const CliCmd topo_cmd = {
    .name = "topo",
    .usage = "topo [MACHINE | -T MACHINE] [-p RANKS] [--links] [--route SRC,DST]\n"
             "               [--routes] [--file] [--alpha T] [--beta GB/s] [--gamma GB/s]",
    .about = "Describe the machine that -T names, as every command prices on it.\n"
             "MACHINE is KIND[:SHAPE][,OPTION]... or a machine file:\n"
             "  full[:P]         a port per rank into a non-blocking fabric (default)\n"
             "  bus[:P]          one medium every byte crosses\n"
             "  switch[:P]       one switch; ',reduce': NVLS's switch, which sums the\n"
             "                   copies marked for it and multicasts (-a nvls)\n"
             "  ring[:P]         a bidirectional ring\n"
             "  torus:AxB[xC]    rings in each dimension, the first varying fastest\n"
             "  mesh:AxB         the same without wrap-around\n"
             "  nodes:GxL        G nodes of L GPUs: an NVSwitch in each (class nvlink),\n"
             "                   a NIC per GPU on a switch per rail (class net);\n"
             "                   ',nic=shared': one NIC per node; ',intra=pcie'\n"
             "  fattree:GxL      G leaves of L ranks (class host), each leaf's L/R\n"
             "                   uplinks one trunk into a non-blocking core (class\n"
             "                   up: R times fewer links); ',over=R', default 1;\n"
             "                   ',backbone=GB/s': a core of that rate that\n"
             "                   every message between leaves crosses\n"
             "  ,place=cyclic    ranks dealt round the last dimension first (mpirun\n"
             "                   --map-by node); default block: rank r at place r\n"
             "  gpu[:P], host[:P] memory machines: ranks sharing one GPU's or one\n"
             "                   host's memory; a step costs one start (step=TIME),\n"
             "                   the call one more (call=TIME), then its memory\n"
             "                   traffic (a copy reads and writes, a reduce reads\n"
             "                   two; reads=apart: a range read twice counts twice)\n"
             "                   at bw=GB/s, or cachebw=GB/s where the call's\n"
             "                   buffers fit half of cache=SIZE\n"
             "OPTIONs set link parameters, of every class or of one (CLASS.KEY=V):\n"
             "alpha=TIME per message, bw=GB/s per link per direction, lat=TIME per\n"
             "hop, links=K parallel links (alpha and bw a link's; a step's\n"
             "messages and bytes spread evenly over them), and gamma=GB/s,\n"
             "the reduce speed, e.g. torus:4x4,y.bw=25,x.links=2;\n"
             "link=A>B:slow=F (A-B: both ways) makes the links from A to B F\n"
             "times slower, link=A>B:down takes them away (a ring's route goes\n"
             "the other way round, a fully connected line's through another\n"
             "member; a machine left without a route is refused), rank=R:slow=F\n"
             "makes every message R sends or receives and what it reduces F\n"
             "times slower (a straggler); 16 at most, in the file collviz_fix.\n"
             "Defaults: --alpha, --beta, --gamma (1 us, 10 GB/s, 20 GB/s); nodes'\n"
             "classes: nvlink 450 GB/s, pcie 64 GB/s, net 50 GB/s per direction.\n"
             "A machine file is ASTRA-sim's network description (topology: Ring,\n"
             "FullyConnected, Switch, and collviz's Mesh, ReducingSwitch and\n"
             "SharedSwitch (a NIC per node, shared by its GPUs);\n"
             "npus_count; bandwidth in GB/s; latency in ns per hop; collviz_alpha\n"
             "in us, collviz_gamma in GB/s, collviz_place: block or cyclic,\n"
             "collviz_names (the classes), collviz_kind, collviz_fix: [fixes]; a\n"
             "memory machine: collviz_memory: gpu or host, npus_count, bandwidth,\n"
             "collviz_step and collviz_call in us, collviz_cache in bytes with\n"
             "collviz_cache_bandwidth, collviz_reads: shared or apart), named by\n"
             "a path with a '/' or ending in .yml or .yaml; --file writes one.\n"
             "Messages travel the dimensions in order, the shorter way round a\n"
             "ring (ties go up); a step's message costs the most messages times\n"
             "alpha on a link of its route, plus the most bytes times beta, plus\n"
             "the latencies of its hops (see 'collviz trace --links').",
    .opts = topo_opts,
    .nopts = TP_NOPTS,
    .max_pos = 1,
};

static void print_link(const Machine *m, int l)
{
    MachineLink ml = machine_link(m, l);
    char a[32], b[32];
    machine_endpoint_name(m, ml.from, a, sizeof a);
    machine_endpoint_name(m, ml.to, b, sizeof b);
    printf("%d %s %s %s%s\n", l, a, b, m->cls[ml.cls].name,
           ml.used ? "" : " unused");
}

static void print_route(const Machine *m, int src, int dst, int *links)
{
    int n = machine_route(m, src, dst, links, machine_max_hops(m) + 1);
    printf("r%d -> r%d: %d hop%s", src, dst, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++) {
        MachineLink ml = machine_link(m, links[i]);
        char to[32];
        machine_endpoint_name(m, ml.to, to, sizeof to);
        printf(" -%s-> %s", m->cls[ml.cls].name, to);
    }
    printf("\n");
}

static void print_machine(const Machine *m)
{
    char d[512];
    machine_describe(m, false, d, sizeof d);
    int used = 0;
    for (int l = 0; l < m->nlinks; l++)
        used += machine_link(m, l).used;
    printf("# machine: %s\n# %d rank%s, %d link%s", d, m->nranks,
           m->nranks == 1 ? "" : "s", used, used == 1 ? "" : "s");
    if (used < m->nlinks) /* a mesh's ends: numbered, joining nothing */
        printf(" (and %d numbered that join nothing: --links marks them "
               "unused)", m->nlinks - used);
    printf("\n");
    if (machine_is_memory(m)) {
        const MemLevel *ml = &m->mem;
        printf("# the ranks share one memory (%s): a step costs one start "
               "(%g us) whatever its transfers,\n# the first also the call's "
               "(%g us), then its memory traffic (a copy reads and writes,\n"
               "# a reduce reads two and writes one%s) at %g GB/s, or %g GB/s "
               "where the call's\n# buffers fit half of the %g MB cache "
               "(blended up to twice it)\n",
               m->kind == MACHINE_GPU ? "a GPU's slices" : "a host's cores",
               ml->step * 1e6, ml->call * 1e6,
               ml->shared_reads ? "; a range several transfers read, once"
                                : "",
               1 / ml->beta_mem / 1e9,
               ml->beta_cache > 0 ? 1 / ml->beta_cache / 1e9
                                  : 1 / ml->beta_mem / 1e9,
               ml->cache / 1e6);
    } else if (m->kind == MACHINE_BUS) {
        printf("# every rank has a port up and down (class port: alpha per "
               "message) to one medium (class bus: every byte of a step)\n");
    } else {
        printf("# dimension kind size class (routed in this order)\n");
        for (int i = 0; i < m->ndims; i++)
            printf("%d %s%s%s %d %s\n", i, dim_kind_name(m->dim[i].kind),
                   m->dim[i].reduce ? ",reduce" : "",
                   m->dim[i].shared ? ",shared" : "", m->dim[i].size,
                   m->cls[m->dim[i].cls].name);
    }
    printf("# class alpha_us bw_GBps lat_ns links (alpha and bw: all its "
           "parallel links together)\n");
    for (int c = 0; c < m->ncls; c++)
        printf("%s %g %g %g %g\n", m->cls[c].name, m->cls[c].alpha * 1e6,
               m->cls[c].beta > 0 ? 1 / m->cls[c].beta / 1e9 : 0,
               m->cls[c].lat * 1e9,
               m->cls[c].lanes > 1 ? m->cls[c].lanes : 1);
}

static int parse_pair(const char *s, int p, int *a, int *b, CliErr *e)
{
    long x, y;
    char first[16];
    const char *comma = s ? strchr(s, ',') : NULL;
    if (comma && (size_t)(comma - s) < sizeof first) {
        memcpy(first, s, (size_t)(comma - s));
        first[comma - s] = 0;
        if (cli_whole_number(first, &x) && cli_whole_number(comma + 1, &y) &&
            x >= 0 && y >= 0 && x < p && y < p) {
            *a = (int)x, *b = (int)y;
            return 0;
        }
    }
    return cli_fail(e, "--route takes SRC,DST, two ranks from 0 to %d", p - 1);
}

static int write_file(const Machine *m)
{
    size_t need;
    if (machine_file_write(m, NULL, 0, &need)) {
        fprintf(stderr, "collviz: %s has no machine file: ASTRA-sim's format "
                "describes a link per port, not a medium\n",
                m->kind == MACHINE_BUS ? "a bus" : "this machine");
        return CLI_EXIT_USAGE;
    }
    char *buf = malloc(need + 1);
    if (!buf) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        return CLI_EXIT_FAIL;
    }
    machine_file_write(m, buf, need + 1, &need);
    fputs(buf, stdout);
    free(buf);
    return CLI_EXIT_OK;
}

static int topo_run(const Machine *m, const CliArgs *a, CliErr *e)
{
    int src = 0, dst = 0;
    if (cli_has(a, TP_ROUTE) && parse_pair(a->val[TP_ROUTE], m->nranks, &src,
                                           &dst, e))
        return cli_error(e);
    if (cli_has(a, TP_ROUTES) &&
        (double)m->nranks * (m->nranks - 1) > TOPO_MAX_ROUTES)
        return cli_fail(e, "--routes prints every pair: %d ranks make more "
                        "than %d; ask for one with --route", m->nranks,
                        TOPO_MAX_ROUTES), cli_error(e);
    if (cli_has(a, TP_FILE) && (cli_has(a, TP_LINKS) || cli_has(a, TP_ROUTE) ||
                                cli_has(a, TP_ROUTES)))
        return cli_fail(e, "--file writes the machine alone: give it without "
                        "--links, --route or --routes"), cli_error(e);
    if (cli_has(a, TP_FILE))
        return write_file(m);
    int *links = malloc((size_t)(machine_max_hops(m) + 1) * sizeof *links);
    if (!links) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        return CLI_EXIT_FAIL;
    }
    print_machine(m);
    if (cli_has(a, TP_LINKS)) {
        printf("# link from to class\n");
        for (int l = 0; l < m->nlinks; l++)
            print_link(m, l);
    }
    if (cli_has(a, TP_ROUTE) || cli_has(a, TP_ROUTES))
        printf("# routes\n");
    if (cli_has(a, TP_ROUTE))
        print_route(m, src, dst, links);
    for (int s = 0; cli_has(a, TP_ROUTES) && s < m->nranks; s++)
        for (int d = 0; d < m->nranks; d++)
            if (s != d)
                print_route(m, s, d, links);
    free(links);
    return CLI_EXIT_OK;
}

int cmd_topo(int argc, char **argv)
{
    CliArgs a;
    CliErr e;
    SpecModel cm;
    Machine m;
    long p = 0;
    int rc = cli_start(&topo_cmd, TP_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.npos && cli_has(&a, TP_TOPO))
        return cli_fail(&e, "give the machine once: as MACHINE or -T"),
               cli_error(&e);
    const char *spec = a.npos ? a.pos[0] : cli_has(&a, TP_TOPO) ? a.val[TP_TOPO]
                                                               : "full";
    if ((cli_has(&a, TP_RANKS) &&
         cli_parse_int("-p", a.val[TP_RANKS], 1, MACHINE_MAX_RANKS, &p, &e)) ||
        spec_parse_model(a.val[TP_ALPHA], a.val[TP_BETA], a.val[TP_GAMMA], NULL,
                        &cm, &e) ||
        spec_parse(spec, (int)p, &cm, &m, &e))
        return cli_error(&e);
    rc = topo_run(&m, &a, &e);
    if (fflush(stdout) || ferror(stdout))
        rc = CLI_EXIT_FAIL;
    return rc;
}
