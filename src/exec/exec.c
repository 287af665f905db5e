/* exec.c - the backends collviz knows, by name.
 *
 * threads is built in; cuda (src/gpu/) where the build has it (CUDA=1,
 * COLLVIZ_WITH_CUDA). mpi lives in a second binary, collviz-mpi, which
 * gives its table (exec_provide) when mpirun started it; elsewhere -B mpi
 * says how to launch it. cuda in a build without it is known by name, so
 * that asking for it gets a sentence saying why it is missing rather than
 * "unknown". */
#include "exec/exec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/syscall.h>
#endif

/* Each backend's table, defined in its own folder (only that folder
 * includes the backend's headers). */
extern const ExecOps exec_threads_ops;
#ifdef COLLVIZ_WITH_CUDA
extern const ExecOps exec_cuda_ops;
#define CUDA_OPS &exec_cuda_ops
#else
#define CUDA_OPS NULL
#endif

/* A backend by name: its table when built in, else why it is missing. */
typedef struct {
    const char *name;     /* what users type */
    const ExecOps *ops;   /* the table, or NULL when not built in */
    const char *missing;  /* the sentence when not built in */
} Backend;

static const Backend backends[] = {
    {"threads", &exec_threads_ops, NULL},
    {"cuda", CUDA_OPS, "this collviz was built without the cuda backend "
                       "(CUDA=0, or no nvcc or clang to compile its "
                       "kernels); -B threads runs on this machine's cores"},
#ifdef COLLVIZ_HAVE_MPI
    {"mpi", NULL, "-B mpi runs one process per rank, started by mpirun: "
                  "mpirun -np N collviz-mpi COMMAND ... -B mpi -p N"},
#else
    {"mpi", NULL, "this collviz was built without MPI (MPI=0, or no mpicc "
                  "when it was built); install Open MPI and build again to "
                  "get collviz-mpi and -B mpi"},
#endif
};

#define NBACKENDS (sizeof backends / sizeof backends[0])

/* Tables given by exec_provide, by the row of their name; set before any
 * command runs, read only afterwards. */
static const ExecOps *provided[NBACKENDS];

void exec_provide(const ExecOps *ops)
{
    for (size_t i = 0; i < NBACKENDS; i++)
        if (!strcmp(backends[i].name, ops->name))
            provided[i] = ops;
}

const char *exec_name_at(size_t i)
{
    return i < NBACKENDS ? backends[i].name : NULL;
}

/* "threads, cuda, mpi" */
static void list_names(char *out, size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (size_t i = 0; i < NBACKENDS && at < len; i++) {
        int n = snprintf(out + at, len - at, "%s%s", i ? ", " : "",
                         backends[i].name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

const ExecOps *exec_find(const char *name, char *why, size_t whylen)
{
    for (size_t i = 0; name && i < NBACKENDS; i++) {
        if (strcasecmp(name, backends[i].name))
            continue;
        const ExecOps *ops = backends[i].ops ? backends[i].ops : provided[i];
        if (!ops && why && whylen)
            snprintf(why, whylen, "%s", backends[i].missing);
        return ops;
    }
    if (why && whylen) {
        char names[64];
        list_names(names, sizeof names);
        snprintf(why, whylen, "there is no backend called '%s'; the backends "
                 "are %s", name ? name : "", names);
    }
    return NULL;
}

/* Whether params, the options after NAME: in -B, are malformed as a
 * whole: none at all (NAME:), an empty one (two commas, or one at an
 * end), or a key given twice; the sentence in why. What each option may
 * be is its backend's to say. */
static int params_bad(const char *name, const char *params, char *why,
                      size_t whylen)
{
    if (!*params) {
        snprintf(why, whylen, "-B %s: has no options after ':'; give %s "
                 "alone or %s:key=value,...", name, name, name);
        return 1;
    }
    for (const char *p = params; *p;) {
        size_t n = strcspn(p, ","), k = strcspn(p, "=,");
        if (!n || (p[n] == ',' && !p[n + 1])) {
            snprintf(why, whylen, "the %s backend's options '%s' hold an "
                     "empty one (two commas in a row, or one at an end)",
                     name, params);
            return 1;
        }
        for (const char *q = params; q < p; q += strcspn(q, ",") + 1)
            if (strcspn(q, "=,") == k && !strncmp(q, p, k)) {
                snprintf(why, whylen, "the %s backend's option %.*s is "
                         "given twice in '%s'", name, (int)k, p, params);
                return 1;
            }
        p += n + (p[n] == ',');
    }
    return 0;
}

const ExecOps *exec_find_spec(const char *spec, const char **params,
                              char *why, size_t whylen)
{
    char name[CALIB_NAME_LEN];
    const char *colon = spec ? strchr(spec, ':') : NULL;
    size_t n = colon ? (size_t)(colon - spec) : spec ? strlen(spec) : 0;
    if (params)
        *params = colon ? colon + 1 : NULL;
    if (!spec || n >= sizeof name) /* longer than any backend's name */
        return exec_find(spec, why, whylen);
    memcpy(name, spec, n);
    name[n] = '\0';
    const ExecOps *ops = exec_find(name, why, whylen);
    return ops && colon && params_bad(name, colon + 1, why, whylen) ? NULL
                                                                    : ops;
}

/* Copy s[0 .. n) into out (len bytes); 0 when it does not fit. */
static int copy_part(char *out, size_t len, const char *s, size_t n)
{
    size_t k = n < len ? n : len - 1;
    memcpy(out, s, k);
    out[k] = '\0';
    return n < len;
}

int exec_param_next(const char **at, char *key, size_t klen, char *val,
                    size_t vlen)
{
    const char *s = *at;
    while (s && *s == ',')
        s++;
    if (!s || !*s)
        return 0;
    size_t n = strcspn(s, ","), k = strcspn(s, "=,");
    *at = s + n;
    val[0] = '\0';
    if (k == n) { /* no '=' */
        copy_part(key, klen, s, n);
        return -1;
    }
    if (copy_part(key, klen, s, k) && copy_part(val, vlen, s + k + 1, n - k - 1))
        return 1;
    copy_part(key, klen, s, n); /* too long: the option as given */
    return -1;
}

/* CPU affinity through the system calls, in masks of up to 4096 CPUs. */
#define CPU_WORDS (4096 / (8 * sizeof(unsigned long)))
#define WORD_BITS (8 * sizeof(unsigned long))

/* The CPUs the calling thread may run on: the mask, and how many (0 where
 * the system does not say). */
static int cpu_mask(unsigned long mask[CPU_WORDS])
{
    memset(mask, 0, CPU_WORDS * sizeof *mask);
#ifdef __linux__
    long got = syscall(SYS_sched_getaffinity, 0, CPU_WORDS * sizeof *mask, mask);
    int n = 0;
    for (size_t c = 0; got > 0 && c < (size_t)got * 8; c++)
        n += (int)(mask[c / WORD_BITS] >> (c % WORD_BITS) & 1);
    return n;
#else
    return 0;
#endif
}

int exec_cpus(void)
{
    unsigned long mask[CPU_WORDS];
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cpu_mask(mask);
    if (n <= 0 || (online > 0 && n > online))
        n = online > 0 ? (int)online : 1;
    return n;
}

bool exec_pin(int k)
{
#ifdef __linux__
    unsigned long mask[CPU_WORDS], one[CPU_WORDS] = {0};
    cpu_mask(mask);
    for (size_t c = 0, seen = 0; c < CPU_WORDS * WORD_BITS; c++)
        if (mask[c / WORD_BITS] >> (c % WORD_BITS) & 1 && seen++ == (size_t)k) {
            one[c / WORD_BITS] = 1UL << (c % WORD_BITS);
            return syscall(SYS_sched_setaffinity, 0, sizeof one, one) == 0;
        }
#else
    (void)k;
#endif
    return false;
}

int exec_cpu_id(int k)
{
#ifdef __linux__
    unsigned long mask[CPU_WORDS];
    cpu_mask(mask);
    for (size_t c = 0, seen = 0; k >= 0 && c < CPU_WORDS * WORD_BITS; c++)
        if (mask[c / WORD_BITS] >> (c % WORD_BITS) & 1 && seen++ == (size_t)k)
            return (int)c;
#else
    (void)k;
#endif
    return -1;
}

void exec_host_name(char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (gethostname(buf, len - 1) || !buf[0])
        snprintf(buf, len, "unknown host");
    buf[len - 1] = '\0';
}

/* Whether element [p, p + len) of a library path is a folder by its own
 * name: absolute, and not under /proc or /dev (/proc/self/cwd is the
 * current folder by another name). */
static bool libpath_element_ok(const char *p, size_t len)
{
    return len && *p == '/' && !(len >= 5 && !strncmp(p, "/proc", 5) &&
                                 (len == 5 || p[5] == '/')) &&
           !(len >= 4 && !strncmp(p, "/dev", 4) && (len == 4 || p[4] == '/'));
}

/* The loader splits the path at ':' and at ';'. */
static size_t libpath_element(const char *p)
{
    return strcspn(p, ":;");
}

bool exec_libpath_unsafe(const char *llp)
{
    for (const char *p = llp;; p++) {
        size_t len = libpath_element(p);
        if (!libpath_element_ok(p, len))
            return true;
        p += len;
        if (!*p)
            return false;
    }
}

void exec_libpath_clean(const char *llp, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = llp; n;) {
        size_t len = libpath_element(p);
        if (libpath_element_ok(p, len) && k + (k > 0) + len < n) {
            if (k)
                out[k++] = ':';
            memcpy(out + k, p, len);
            k += len;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    if (n)
        out[k] = '\0';
}

bool exec_rank_where(Executor *ex, int r, ExecRankWhere *out)
{
    *out = (ExecRankWhere){.pid = 0};
    if (!ex->ops->rank_where || r < 0 || r >= ex->nranks)
        return false;
    ex->ops->rank_where(ex, r, out);
    return true;
}

ExecHost exec_host(Executor *ex)
{
    ExecHost h = {.cores = 0};
    if (ex->ops->host)
        ex->ops->host(ex, &h);
    return h;
}

CvError exec_host_of(const char *spec, int nranks, ExecHost *out, char *why,
                     size_t whylen)
{
    const char *params;
    const ExecOps *ops = exec_find_spec(spec, &params, why, whylen);
    Executor *ex = NULL;
    if (!ops)
        return CV_ERR_UNAVAILABLE;
    why[0] = '\0';
    CvError e = ops->open(&ex, nranks, &(ExecOptions){.params = params}, why,
                          whylen);
    if (e) {
        if (!why[0])
            snprintf(why, whylen, "%s", cv_strerror(e));
        return e;
    }
    *out = exec_host(ex);
    ops->close(ex);
    return CV_OK;
}

void exec_cancel(Executor *ex)
{
    if (ex && ex->ops->cancel)
        ex->ops->cancel(ex);
}

ProbeResult exec_probe(Executor *ex)
{
    ProbeResult r = {0};
    if (!ex->ops->probe || ex->ops->probe(ex, &r) || !(r.ratio > 0) ||
        !(r.clean_s > 0))
        r = (ProbeResult){0};
    return r;
}

size_t exec_bytes_needed(const Schedule *s, size_t extra)
{
    size_t b = sched_bytes(s);
    return b > SIZE_MAX - extra ? SIZE_MAX : b + extra;
}

static size_t phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return SIZE_MAX;
    return (size_t)pages > SIZE_MAX / (size_t)size ? SIZE_MAX
                                                   : (size_t)pages * (size_t)size;
}

/* The memory a new allocation can have without swapping: Linux's
 * MemAvailable (free memory and the caches the kernel would give up);
 * where there is no such line, all of it. */
static size_t avail_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    if (f)
        fclose(f);
    size_t phys = phys_bytes();
    if (!found || kib > SIZE_MAX / 1024)
        return phys;
    return (size_t)kib * 1024 < phys ? (size_t)kib * 1024 : phys;
}

CvError exec_check_fits(const Schedule *s, size_t extra, char *why,
                        size_t whylen)
{
    size_t need = exec_bytes_needed(s, extra), have = avail_bytes();
    if (need <= have)
        return CV_OK;
    if (need == SIZE_MAX)
        snprintf(why, whylen, "the buffers would be larger than this machine "
                 "can address, let alone hold in memory");
    else
        snprintf(why, whylen, "the buffers need %.3g GiB but this machine has "
                 "%.3g GiB of memory free (of %.3g GiB)", need / 1073741824.0,
                 have / 1073741824.0, phys_bytes() / 1073741824.0);
    return CV_ERR_NOMEM;
}
