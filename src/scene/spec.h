/* spec.h - `-T`/`--topo`: the machine a command prices on, as a
 * shorthand or a machine file (core/machine_file.h), with the one
 * sentence a user sees when it is wrong.
 *
 *   SPEC   = FILE | KIND[:SHAPE][,OPTION]...
 *   KIND   = full | bus | switch | ring | torus | mesh | nodes
 *   SHAPE  = NxN...: a torus's or mesh's dimensions (1 to 4, the first
 *            varying fastest), the ranks of full, bus, switch or ring
 *            (default -p), GxL for G nodes of L GPUs
 *   OPTION = reduce                   NVLS's switch: it sums the copies
 *                                     marked for it and multicasts
 *          | nic=rail|shared          nodes: a NIC per GPU (default) or
 *                                     per node
 *          | intra=nvlink|pcie        nodes: the link inside a node
 *          | place=block|cyclic       rank r at place r (default), or ranks
 *                                     dealt round the last dimension first
 *                                     (mpirun --map-by node)
 *          | [CLASS.]alpha=TIME       per message (us, or s/ms/us/ns)
 *          | [CLASS.]bw=GB/s          per link per direction
 *          | [CLASS.]lat=TIME         per hop
 *          | gamma=GB/s               reduce speed of a rank
 *   FILE   = a path with a '/' or ending in .yml or .yaml
 * CLASS names a class of links ("x", "y", "nvlink", "net", ...; without
 * it, every class). Unless given, links take the command's --alpha and
 * --beta (nodes: public figures of their class) and ranks its --gamma. */
#ifndef COLLVIZ_SCENE_SPEC_H
#define COLLVIZ_SCENE_SPEC_H

#include "cli/cli.h"
#include "core/machine.h"
#include "core/model.h"

/* Model parameters and where each came from. */
typedef struct {
    ModelParams m;       /* alpha (s), beta (s/B), gamma (s/B) */
    MachineKind link;    /* the flat machine: MACHINE_FULL or MACHINE_BUS */
    bool given[3];       /* alpha, beta, gamma set on the command line */
} SpecModel;

/* The documented defaults: alpha 1 us, beta 10 GB/s, gamma 20 GB/s. */
#define SPEC_DEFAULT_ALPHA 1e-6
#define SPEC_DEFAULT_BW 10e9
#define SPEC_DEFAULT_GAMMA_BW 20e9

/* Parse --alpha, --beta, --gamma, --link (each may be NULL). */
int spec_parse_model(const char *alpha, const char *beta, const char *gamma,
                    const char *link, SpecModel *out, CliErr *e);
/* One line describing the parameters and their sources, e.g.
 * "machine full, alpha 1 us (default), beta 10 GB/s (--beta), ...". */
size_t spec_model_text(const SpecModel *cm, char *buf, size_t n);

/* The help line of -T, for every command's table. */
#define SPEC_OPT_TOPO {'T', "topo", "MACHINE", "price on MACHINE: full (default), bus, switch[,reduce], ring, torus:AxB[xC], mesh:AxB, nodes:GxL[,nic=shared], fattree:GxL[,over=R], gpu, host, or a machine file; link=A>B:slow=F|down and rank=R:slow=F fix a link or rank (see 'collviz topo --help')"}

/* Parse spec into *out for p ranks (p <= 0: the shape's own count; a
 * shape without one then needs p). cm gives the default parameters. A
 * machine of another rank count than p is refused with both numbers. */
int spec_parse(const char *spec, int p, const SpecModel *cm,
                      Machine *out, CliErr *e);

/* spec made to hold p ranks into out: a shape that multiplies to another
 * count is replaced by the kind's squarest of p (torus, mesh: as many
 * dimensions; nodes: nodes of 8, 4 or 2 GPUs; full, bus, switch, ring:
 * none, -p's), its options kept; a file or a fitting spec is copied. */
void spec_for(const char *spec, int p, char *out, size_t len);

/* Whether spec names a machine file (a path) rather than a shorthand. */
bool spec_is_file(const char *spec);

/* The machine of --link without -T: full or bus under cm. */
int spec_flat(const SpecModel *cm, int p, Machine *out, CliErr *e);

/* How many times this process has parsed a -T spec (spec_parse): a scene
 * parses its machine once, and again only when its ranks change. */
unsigned long spec_parse_count(void);

/* ------------------------------------------------------ a scene's machine */

/* Bytes of a machine's name in -T's syntax. */
#define SPEC_LEN 96

/* The machine of a scene: -T's spec as given, the spec that holds the
 * scene's ranks, and the machine it gives, parsed once for those ranks
 * and again only when they (or the parameters) change. */
typedef struct {
    char given[SPEC_LEN]; /* -T's value ("": none, the flat machine) */
    char spec[SPEC_LEN];  /* given, or its shape made to hold mach.nranks
                             (spec_for) when `reshape` allowed it */
    SpecModel model;      /* the parameters mach was built under */
    Machine mach;         /* the machine; mach.nranks 0: not built yet */
} SpecMachine;

/* sm names `given` ("" or NULL: the flat machine), not built yet. Returns
 * -1 with the sentence when given is longer than SPEC_LEN - 1 bytes. */
int spec_machine_name(SpecMachine *sm, const char *given, CliErr *e);

/* Build sm's machine for p ranks under cm, unless it holds p ranks built
 * under cm already (then nothing is parsed). With reshape, a shape of
 * another rank count is made to hold p (spec_for); without, it is refused
 * as spec_parse refuses it. */
int spec_machine_build(SpecMachine *sm, int p, bool reshape,
                       const SpecModel *cm, CliErr *e);

#endif
