/* calib_file.c - calibrations kept in the XDG cache directory (store.h),
 * one file per backend, machine and rank count, and read back (calib.h). */
#include "measure/calib.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"

#define CALIB_VERSION 4 /* format of the saved file: 4 records the machine */

/* A short stable hash of a machine's fingerprint for file names:
 * FNV-1a, 32 bits. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

CvError calib_path(const char *backend, const char *host, int nranks,
                   char *out, size_t len, char *why, size_t whylen)
{
    char name[CALIB_NAME_LEN + 40];
    snprintf(name, sizeof name, "calib-%s-%08x-p%d.txt", backend,
             (unsigned)fnv1a(host ? host : ""), nranks);
    return store_path(STORE_CACHE, name, out, len, why, whylen);
}

/* The file's contents (a StoreWriteFn): nonzero when writing failed. */
static int write_calib(FILE *f, void *ctx)
{
    const Calib *c = ctx;
    fprintf(f, "# collviz calibration (alpha s, beta and gamma s/B)\n");
    fprintf(f, "version %d\nbackend %s\nhost %s\nnranks %d\ncores %d\n"
            "when %lld\nquick %d\n", CALIB_VERSION, c->backend, c->host,
            c->nranks, c->cores, c->when, c->quick);
    fprintf(f, "alpha %.9g\nmsg %.9g\nlat %.9g %.9g\nlink %s\nfit %.6g %.6g\n",
            c->alpha, c->alpha_msg, c->lat_step, c->lat_iter,
            link_name(c->link), c->fit_err[LINK_P2P], c->fit_err[LINK_SHARED]);
    fprintf(f, "unsteady %.6g\nprobe %.6g %.6g %.6g %.6g\n", c->unsteady,
            c->probe[0], c->probe[1], c->probe_clean[0], c->probe_clean[1]);
    fprintf(f, "state %.6g %.6g %d\n", c->state_ratio, c->state_clean,
            c->state_probes);
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        fprintf(f, "point %.9g %.9g %.9g %.9g %.9g %.9g\n", p->footprint,
                p->beta_shared, p->beta_p2p, p->gamma_shared, p->gamma_p2p,
                p->beta_cross);
    }
    return ferror(f);
}

CvError calib_save(const Calib *c, char *why, size_t whylen)
{
    char path[4096];
    CvError e = calib_path(c->backend, c->host, c->nranks, path, sizeof path,
                           why, whylen);
    if (e)
        return e;
    store_clean_stale(path);
    return store_write(path, write_calib, (void *)c, why, whylen);
}

/* A "probe" line: the ratios at the start and the end, then their clean
 * times (files before those have only the ratios). */
static int probe_line(Calib *c, const char *line)
{
    char end;
    double v[4] = {0};
    int n = sscanf(line, "probe %lf %lf %lf %lf %c", &v[0], &v[1], &v[2],
                   &v[3], &end);
    if (n != 2 && n != 4)
        return 0;
    c->probe[0] = v[0], c->probe[1] = v[1];
    c->probe_clean[0] = v[2], c->probe_clean[1] = v[3];
    return 1;
}

/* A "host" line: the rest of the line, the machine's fingerprint. */
static int host_line(Calib *c, const char *line)
{
    if (strncmp(line, "host ", 5))
        return 0;
    snprintf(c->host, sizeof c->host, "%.*s", (int)strcspn(line + 5, "\n"),
             line + 5);
    return 1;
}

/* Parse one "key values" line into c (the format's version into
 * *version); -1 on a malformed line. */
static int parse_line(Calib *c, const char *line, int *version)
{
    char word[64];
    if (line[0] == '#' || line[0] == '\n')
        return 0;
    if (sscanf(line, "version %d", version) == 1)
        return *version > 0 ? 0 : -1;
    if (host_line(c, line) ||
        sscanf(line, "backend %31s", c->backend) == 1 ||
        sscanf(line, "nranks %d", &c->nranks) == 1 ||
        sscanf(line, "cores %d", &c->cores) == 1 ||
        sscanf(line, "when %lld", &c->when) == 1 ||
        sscanf(line, "quick %d", &c->quick) == 1 ||
        sscanf(line, "alpha %lf", &c->alpha) == 1 ||
        sscanf(line, "msg %lf", &c->alpha_msg) == 1 ||
        sscanf(line, "lat %lf %lf", &c->lat_step, &c->lat_iter) == 2 ||
        sscanf(line, "unsteady %lf", &c->unsteady) == 1 ||
        probe_line(c, line) ||
        sscanf(line, "state %lf %lf %d", &c->state_ratio, &c->state_clean,
               &c->state_probes) == 3 ||
        sscanf(line, "fit %lf %lf", &c->fit_err[LINK_P2P],
               &c->fit_err[LINK_SHARED]) == 2)
        return 0;
    if (sscanf(line, "link %63s", word) == 1) {
        int l = link_parse(word);
        c->link = l < 0 ? LINK_SHARED : (LinkModel)l;
        return l < 0 ? -1 : 0;
    }
    if (c->npoints < CALIB_MAX_POINTS) {
        CalibPoint *p = &c->pt[c->npoints];
        if (sscanf(line, "point %lf %lf %lf %lf %lf %lf", &p->footprint,
                   &p->beta_shared, &p->beta_p2p, &p->gamma_shared,
                   &p->gamma_p2p, &p->beta_cross) == 6)
            return c->npoints++, 0;
    }
    return -1;
}

static int nonneg(double x) { return x >= 0 && isfinite(x); }

/* Whether the values of a calibration read from a file can be used. */
static int calib_sane(const Calib *c)
{
    if (!c->backend[0] || c->nranks < 1 || c->cores < 0 ||
        c->npoints < 1 || !nonneg(c->alpha) || !nonneg(c->alpha_msg) ||
        !nonneg(c->lat_step) || !nonneg(c->lat_iter) ||
        !nonneg(c->unsteady) || !nonneg(c->probe[0]) ||
        !nonneg(c->probe[1]) || !nonneg(c->probe_clean[0]) ||
        !nonneg(c->probe_clean[1]) || !nonneg(c->state_ratio) ||
        !nonneg(c->state_clean) || c->state_probes < 0)
        return 0;
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        if (!(p->footprint > 0) || !(p->beta_shared > 0) || !(p->beta_p2p > 0) ||
            !(p->gamma_shared >= 0) || !(p->gamma_p2p >= 0) ||
            !(p->beta_cross >= 0) ||
            (i && p->footprint <= p[-1].footprint))
            return 0;
    }
    return 1;
}

/* Parse the open file f into out; the format's version into *version (0:
 * none given; a newer one than this stops the reading). -1 when a line is
 * malformed or it cannot be read. */
static int read_lines(FILE *f, Calib *out, int *version)
{
    char line[256];
    int bad = 0, msg = 0;
    *out = (Calib){.link = LINK_SHARED};
    *version = 0;
    while (!bad && *version <= CALIB_VERSION && fgets(line, sizeof line, f)) {
        bad = parse_line(out, line, version);
        msg |= !strncmp(line, "msg ", 4);
    }
    if (!msg) /* saved before it was measured: a latency per message */
        out->alpha_msg = out->alpha;
    return bad || ferror(f) ? -1 : 0;
}

/* Read the file at path into out (calib_read); *missing: there is none. */
static CvError read_file(const char *path, Calib *out, int *version,
                         int *missing, char *why, size_t whylen)
{
    FILE *f;
    CvError e = store_open(path, &f, missing, why, whylen);
    if (e)
        return e;
    int bad = read_lines(f, out, version);
    fclose(f);
    if (*version > CALIB_VERSION)
        snprintf(why, whylen, "the calibration in %s was saved by a newer "
                 "collviz", path);
    else if (!bad && *version >= 3 && calib_sane(out))
        return CV_OK;
    else
        snprintf(why, whylen, "the calibration in %s cannot be read", path);
    return CV_ERR_ARG;
}

CvError calib_read(const char *path, Calib *out, int *version, char *why,
                   size_t whylen)
{
    int missing;
    return read_file(path, out, version, &missing, why, whylen);
}

/* No file at path: is there one of collviz's before version 4, which kept
 * one file per backend and rank count whatever the machine? CV_ERR_ARG and
 * a sentence when there is; else CV_ERR_IO and why empty. */
static CvError older_file(const char *backend, int nranks, char *why,
                          size_t whylen)
{
    char name[CALIB_NAME_LEN + 32], old[4096], unused[8];
    snprintf(name, sizeof name, "calib-%s-p%d.txt", backend, nranks);
    why[0] = '\0';
    if (store_path(STORE_CACHE, name, old, sizeof old, unused, sizeof unused) ||
        access(old, F_OK))
        return CV_ERR_IO;
    snprintf(why, whylen, "the calibration in %s was saved by an older "
             "collviz", old);
    return CV_ERR_ARG;
}

/* A file that reads but is not for (backend, host, nranks) in this
 * format: CV_ERR_ARG and a sentence saying why. */
static CvError check_key(const Calib *c, int version, const char *backend,
                         const char *host, int nranks, const char *path,
                         char *why, size_t whylen)
{
    if (version != CALIB_VERSION)
        snprintf(why, whylen, "the calibration in %s was saved by an older "
                 "collviz", path);
    else if (strcmp(c->host, host))
        snprintf(why, whylen, "the calibration in %s was measured on another "
                 "machine (%s)", path, c->host);
    else if (strcmp(c->backend, backend) || c->nranks != nranks)
        snprintf(why, whylen, "the calibration in %s is of %s at %d ranks",
                 path, c->backend, c->nranks);
    else
        return CV_OK;
    return CV_ERR_ARG;
}

CvError calib_load(const char *backend, const char *host, int nranks,
                   Calib *out, char *why, size_t whylen)
{
    char path[4096], aside[4200];
    int missing = 0, version;
    host = host ? host : "";
    CvError e = calib_path(backend, host, nranks, path, sizeof path, why,
                           whylen);
    if (!e)
        e = read_file(path, out, &version, &missing, why, whylen);
    if (e && missing)
        return older_file(backend, nranks, why, whylen);
    if (e == CV_ERR_ARG && version <= CALIB_VERSION && /* damaged */
        store_set_aside(path, aside, sizeof aside) == CV_OK)
        snprintf(why, whylen, "the calibration in %s could not be read (it is "
                 "kept as %s)", path, aside);
    if (e)
        return e;
    return check_key(out, version, backend, host, nranks, path, why, whylen);
}
