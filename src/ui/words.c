/* words.c - see words.h. */
#include "ui/words.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#include "ui/i18n.h"

/* The algorithms' summaries and needs, and every phase name a schedule
 * uses, as the core spells them (test_ui_zh checks the list is whole). */
static const char *const core_words[] = {
/* summaries */
    N_("NCCL's double binary tree: two binary trees (the second mirrored, "
       "or shifted for odd p), each rank a leaf in one; each tree reduces "
       "then broadcasts half of the vector"),
    N_("NCCL's tree: a chain in each node, a double binary tree of the "
       "nodes' heads, each tree on half the vector, reduce up and "
       "broadcast down pipelined in chunks (NCCL NCCL_ALGO_TREE; Sanders "
       "et al. 2009)"),
    N_("a whole ring all-reduce along each dimension in turn: the contrast "
       "to torus, the whole vector in every dimension (ASTRA-sim's "
       "baseline)"),
    N_("binomial reduce to rank 0, then binomial broadcast from it"),
    N_("binomial scatter of the vector's p blocks from the root, then ring "
       "all-gather"),
    N_("binomial tree: each rank collects its subtree's blocks and sends "
       "them up in one message"),
    N_("binomial tree: each rank receives its subtree's blocks and passes "
       "on the half that belongs to the next subtree"),
    N_("binomial tree: each step the ranks still holding a partial result "
       "pair up; one sends it, the other folds it in"),
    N_("binomial tree: whoever holds the vector sends it on; the holders "
       "double each step"),
    N_("ceil(log2 p) steps for any p, then a local rotation"),
    N_("each rank passes the block it got last to its right neighbour, p-1 "
       "steps"),
    N_("every rank sends its block to its right neighbour and receives its "
       "left one's, one step (nccl-tests' sendrecv)"),
    N_("every rank sends its block to the root in one step"),
    N_("in step k rank r sends block r+k to rank r+k and receives from "
       "rank r-k"),
    N_("in step k rank r sends block r+k to rank r+k, which adds it to its "
       "result"),
    N_("one step: every rank takes every block from its owner at once"),
    N_("one step: every rank takes its block from every other rank at once"),
    N_("partial sums of each block travel once around the ring, p-1 steps"),
    N_("partners at distance 1, 2, 4, ... swap all they have"),
    N_("partners at distance 1, 2, 4, ... swap all they have (nccl-tests' "
       "hypercube)"),
    N_("partners at distance 1, 2, 4, ... swap and reduce it all"),
    N_("partners at distance p/2, p/4, ... swap and reduce halves"),
    N_("rank 0 reduces the vectors one per step, then sends the sum to "
       "everybody at once"),
    N_("recursive-halving reduce-scatter, binomial gather to the root"),
    N_("recursive-halving reduce-scatter, recursive-doubling all-gather"),
    N_("reduce to one GPU per node (binomial), ring all-reduce across the "
       "nodes among those, broadcast back (binomial): Horovod's "
       "hierarchical all-reduce before horovod#411 (2018)"),
    N_("reduce-scatter in each node, all-reduce across nodes of each GPU's "
       "share, all-gather in the node (BlueConnect, Cho et al. 2019)"),
    N_("ring all-gather along each dimension in reverse, the blocks "
       "growing (the second half of the torus all-reduce: Mikami et al. "
       "2018; ASTRA-sim localBWAware); folded rings on a mesh"),
    N_("ring reduce-scatter along each dimension in turn on the blocks "
       "still live (the first half of the torus all-reduce: Mikami et al. "
       "2018; ASTRA-sim localBWAware); folded rings on a mesh"),
    N_("ring reduce-scatter along each dimension in turn on what is still "
       "live, then all-gather back (Mikami et al. 2018; ASTRA-sim "
       "localBWAware); folded rings on a mesh"),
    N_("ring reduce-scatter of the vector's p blocks, then ring all-gather "
       "of the reduced blocks"),
    N_("rotate, ceil(log2 p) steps of the blocks with bit k set, rotate "
       "back"),
    N_("the root receives and reduces the other ranks' vectors, one per "
       "step"),
    N_("the root sends every rank its block in one step"),
    N_("the root sends the whole vector to every other rank in one step"),
    N_("the switch sums each rank's slices and multicasts the sums (NVLink "
       "SHARP: NCCL's NVLS), chunks pipelined; the ranks do the switch's "
       "sums where there is none"),
    N_("the vector cut into S segments flows down the chain root, root+1, "
       "... one rank per step"),
    N_("torus with the vector's two halves round every ring in opposite "
       "directions at once: both ways of each link busy (the bidirectional "
       "rings of TPU pods: Ying et al. 2018)"),
/* needs */
    N_("a switch that reduces (-T switch,reduce)"),
    N_("a torus or ring (-T)"),
    N_("a torus, mesh or ring (-T)"),
    N_("any p (2(p-p') extra ranks fold in and out: 2 more steps, p' the "
       "largest power of two <= p), any count"),
    N_("any p (not a power of two: the ranks that got a cut subtree pass "
       "it on, more steps), any count"),
    N_("any p (the first 2(p-p') ranks fold in pairs: 1 more step, 2 with "
       "the root folded out; p' the largest power of two <= p), any count, "
       "any root"),
    N_("any p, any count"),
    N_("any p, any count (blocks of ceil(count/p) set the pace)"),
    N_("any p, any count (closed form exact when p divides count)"),
    N_("any p, any count, any root"),
    N_("any p, any count, any root; commutative op"),
    N_("any p, any count, out of place only"),
    N_("any p, any count; commutative op"),
    N_("any p, any count; in place keeps up to p/2 blocks in tmp"),
    N_("any p, any count; in place, every block is read and overwritten in "
       "the same step"),
    N_("any p, any count; tmp of p blocks"),
    N_("nodes GxL (-T), or one switch (full, the default: every rank a "
       "node, the double binary tree pipelined)"),
    N_("nodes GxL or another machine of levels (-T)"),
    N_("nodes GxL or another machine of two levels (-T)"),
    N_("p a power of two, any count"),
/* phases */
    N_("copy-in"), N_("copy-out"), N_("copy"), N_("save"),
    N_("reduce-scatter"), N_("all-gather"), N_("broadcast"), N_("reduce"),
    N_("scatter"), N_("gather"), N_("gather-all"), N_("exchange"),
    N_("fold-in"), N_("fold-out"), N_("pass-on"), N_("to-root"),
    N_("pipeline"), N_("rotate"),
    N_("rotate back"), N_("shift"), N_("reduce up"), N_("broadcast down"),
    N_("reduce up, broadcast down"), N_("load-reduce"), N_("multicast"),
    N_("reduce-scatter x"), N_("reduce-scatter y"), N_("reduce-scatter z"),
    N_("reduce-scatter w"), N_("all-gather x"), N_("all-gather y"),
    N_("all-gather z"), N_("all-gather w"), N_("reduce in node"),
    N_("reduce-scatter across"), N_("all-gather across"),
    N_("broadcast in node"),
};

/* Machine kinds, with a context: "full" is also a full calibration. */
static const char *const machine_words[MACHINE_KIND_COUNT] = {
    [MACHINE_FULL] = NC_("machine", "full"),
    [MACHINE_BUS] = NC_("machine", "bus"),
    [MACHINE_SWITCH] = NC_("machine", "switch"),
    [MACHINE_RING] = NC_("machine", "ring"),
    [MACHINE_TORUS] = NC_("machine", "torus"),
    [MACHINE_MESH] = NC_("machine", "mesh"),
    [MACHINE_NODES] = NC_("machine", "nodes"),
    [MACHINE_FATTREE] = NC_("machine", "fattree"),
    [MACHINE_GPU] = NC_("machine", "gpu"),
    [MACHINE_HOST] = NC_("machine", "host"),
    [MACHINE_DIMS] = NC_("machine", "dims"),
};

bool words_listed(const char *s)
{
    for (size_t i = 0; s && i < sizeof core_words / sizeof *core_words; i++)
        if (!strcmp(core_words[i], s))
            return true;
    return false;
}

/* s through the catalogue where it is listed, else s. */
static const char *word(const char *s)
{
    return s && *s && words_listed(s) ? _(s) : s;
}

const char *words_summary(const AlgoInfo *a)
{
    return word(a->summary);
}

const char *words_needs(const AlgoInfo *a)
{
    return word(a->constraints);
}

const char *words_phase(const char *phase)
{
    return phase ? word(phase) : ""; /* a schedule file's step: no label */
}

/* cv_strerror's fragments, as core/error.h spells them (test_ui_zh
 * checks each against cv_strerror and that it has its Chinese). */
static const char *const error_words[CV_ERR_COUNT] = {
    [CV_OK] = N_("no error"),
    [CV_ERR_NOMEM] = N_("out of memory"),
    [CV_ERR_ARG] = N_("invalid argument"),
    [CV_ERR_RANKS] = N_("rank count out of range"),
    [CV_ERR_ROOT] = N_("root rank out of range"),
    [CV_ERR_IN_PLACE] = N_("the collective has no in-place form"),
    [CV_ERR_ALGO] = N_("algorithm does not fit the collective"),
    [CV_ERR_STEP] = N_("transfer added outside a step"),
    [CV_ERR_BOUNDS] = N_("transfer outside its buffer"),
    [CV_ERR_SENDWRITE] = N_("transfer writes a send buffer"),
    [CV_ERR_MISSING] = N_("result element never written"),
    [CV_ERR_UNINIT] = N_("reduction into an element holding no data"),
    [CV_ERR_MIXED] = N_("reduction of elements from different positions"),
    [CV_ERR_TWICE] = N_("a rank's input reduced twice into one element"),
    [CV_ERR_WRONG] = N_("final state differs from the collective's definition"),
    [CV_ERR_BACKEND] = N_("backend failure"),
    [CV_ERR_UNAVAILABLE] = N_("backend not available"),
    [CV_ERR_CANCELLED] = N_("cancelled"),
    [CV_ERR_IO] = N_("input/output error"),
    [CV_ERR_LIMIT] = N_("beyond the largest input collviz takes"),
};

const char *words_error(CvError e)
{
    if ((unsigned)e >= CV_ERR_COUNT || !error_words[e] ||
        strcmp(error_words[e], cv_strerror(e))) /* not as listed: as is */
        return cv_strerror(e);
    return _(error_words[e]);
}

/* The scene layer's sentences, as printf formats: scene_opts_call_why's
 * (test_ui_zh checks each against what it says and that it has its
 * Chinese). */
static const char *const sentences[] = {
    N_("%s runs out of place only: it sends one buffer into another"),
    N_("%s needs a power of two ranks; %d is not one: choose %d or %d"),
};

const char *words_sentence(const char *fmt)
{
    for (size_t i = 0; i < sizeof sentences / sizeof *sentences; i++)
        if (!strcmp(fmt, sentences[i]))
            return _(sentences[i]);
    return fmt;
}

/* The core's reasons, as the scene layer and the algorithms write them
 * (an algorithm's `fits`, -T's parse): printf formats of %s and %d only,
 * their words in the order the Chinese keeps (test_ui_zh makes each and
 * checks its Chinese). */
static const char *const reasons[] = {
    N_("nccl_tree is made for machines of nodes or one switch: give one "
       "with -T, such as nodes:GxL, or full"),
    N_("nvls is made for a switch that reduces and multicasts: give -T "
       "switch,reduce"),
    N_("the machine has %d ranks, the call %d"),
    N_("%s is made for tori, meshes and rings: give one with -T "
       "(torus:AxB, mesh:AxB); on nodes, hier"),
    N_("torus_bidir needs wrap-around links: on a mesh its two directions "
       "would share every link (torus is made for meshes)"),
    N_("%s is made for machines of levels: give one with -T, such as "
       "nodes:GxL"),
    N_("hier_master is made for machines of two levels: give one with -T, "
       "such as nodes:GxL"),
    N_("'%s' is not a shape: give 1 to %d sizes from 1 to %d joined by x, "
       "e.g. 4x4"),
    /* a scene's options (src/cli, src/scene), as a lesson's sandbox and
       goal checkpoints meet them */
    N_("unknown %s '%s'; valid: %s"),
    N_("unknown algorithm '%s' for %s; valid: %s%s"),
    N_("algorithm '%s' is for %s, not %s; valid for %s: %s%s"),
    N_("'%s' is not a machine: full, bus, switch, ring, torus, mesh, nodes, "
       "fattree, gpu, host, or a machine file's path"),
    N_("missing size; give -s SIZE in bytes, e.g. -s 1K"),
    N_("missing rank count; give -p RANKS (1 to %d)"),
    N_("rank count %ld is out of range; valid: 1 to %d"),
    N_("%s '%s' is not a size; give bytes with an optional K, M or G suffix "
       "(powers of 1024), e.g. 64K"),
    N_("size %llu bytes is not a multiple of the datatype %s (%zu bytes)"),
};

#define REASON_MAX_ARGS 6
#define REASON_ARG_LEN 128

/* The length of the conversion at f (%s, %d, %ld, %llu, %zu, ...), 0
 * where f holds none; *digits: a number's. */
static size_t conversion(const char *f, bool *digits)
{
    if (f[0] != '%')
        return 0;
    size_t k = 1 + strspn(f + 1, "lz");
    *digits = f[k] == 'd' || f[k] == 'u';
    return f[k] == 's' || *digits ? k + 1 : 0;
}

/* Whether s is format f made with words of its own for its conversions
 * (a %s any characters, a number digits), those into arg[*n ...]. */
static bool fmt_match(const char *f, const char *s,
                      char arg[][REASON_ARG_LEN], int *n)
{
    for (; *f; f++, s++) {
        bool digits;
        size_t c = conversion(f, &digits);
        if (c) {
            for (size_t len = digits; len < REASON_ARG_LEN &&
                                      *n < REASON_MAX_ARGS; len++) {
                if (len && (!s[len - 1] ||
                            (digits && !isdigit((unsigned char)s[len - 1]))))
                    break;
                memcpy(arg[*n], s, len);
                arg[*n][len] = '\0';
                (*n)++;
                if (fmt_match(f + c, s + len, arg, n))
                    return true;
                (*n)--;
            }
            return false;
        }
        if (*f != *s)
            return false;
    }
    return *s == '\0';
}

void words_reason(const char *why, char *out, size_t len)
{
    char arg[REASON_MAX_ARGS][REASON_ARG_LEN];
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++) {
        int n = 0;
        if (!fmt_match(reasons[i], why, arg, &n))
            continue;
        CliText o = {.buf = out, .n = len};
        if (len)
            out[0] = '\0';
        int k = 0;
        for (const char *f = _(reasons[i]); *f; f++) {
            bool digits;
            size_t c = conversion(f, &digits);
            if (c && k < n)
                cli_text_add(&o, "%s", arg[k++]), f += c - 1;
            else
                cli_text_add(&o, "%c", *f);
        }
        return;
    }
    snprintf(out, len, "%s", why);
}

/* The backends' reasons for not running, as the backend menu shows them
 * (cut at the first ';' or " ("): the sentences of fixed words. */
static const char *const backend_why[] = {
    N_("the cuda backend needs the NVIDIA driver's library libcuda.so.1, "
       "which this machine does not have"),
    N_("the libcuda.so.1 found here is the CUDA toolkit's stub, not a driver"),
    N_("the NVIDIA driver found no CUDA device on this machine"),
    N_("this collviz was built without its CUDA kernels"),
    N_("this collviz was built without the cuda backend"),
    N_("this collviz was built without MPI"),
    N_("-B mpi runs one process per rank, started by mpirun: mpirun -np N "
       "collviz-mpi COMMAND ... -B mpi -p N"),
};

const char *words_backend_why(const char *why)
{
    for (size_t i = 0; i < sizeof backend_why / sizeof *backend_why; i++)
        if (!strcmp(why, backend_why[i]))
            return _(backend_why[i]);
    return why;
}

void words_machine_shape(const Machine *m, bool notes, char *buf,
                         size_t len)
{
    char dims[48];
    machine_dims_text(m, dims, sizeof dims);
    bool multicast = false;
    for (int i = 0; i < m->ndims; i++)
        multicast = multicast || m->dim[i].reduce;
    notes = notes && len;
    int n = snprintf(buf, len, "%s %s%s%s%s", words_machine(m->kind), dims,
                     notes && m->kind == MACHINE_NODES && m->dim[1].shared
                         ? _(", a NIC per node") : "",
                     notes && m->cyclic ? _(", ranks dealt cyclically") : "",
                     notes && multicast ? _(", multicasting") : "");
    if (notes && m->ndown && n >= 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, _(", %d links down"),
                      m->ndown);
    if (notes && m->nfix > m->ndown && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, _(", %d slowed"),
                 m->nfix - m->ndown);
}

const char *words_machine(MachineKind k)
{
    if (k >= MACHINE_KIND_COUNT || !machine_words[k])
        return machine_kind_name(k);
    /* the translation, or the name after the context's separator */
    const char *t = _(machine_words[k]);
    return t != machine_words[k] ? t : strchr(t, '\004') + 1;
}
