/* calib_file.c - calibrations saved in the XDG cache directory, and read
 * back (calib.h). */
#include "measure/calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------- persistence */

#define CALIB_VERSION 3 /* format of the saved file */

CvError calib_path(const char *backend, int nranks, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/collviz/calib-%s-p%d.txt", xdg, backend,
                     nranks);
    else if (home && *home)
        n = snprintf(out, len, "%s/.cache/collviz/calib-%s-p%d.txt", home,
                     backend, nranks);
    else
        return CV_ERR_IO;
    return n < 0 || (size_t)n >= len ? CV_ERR_ARG : CV_OK;
}

/* mkdir -p of the directory part of path. */
static CvError make_dirs(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *q = dir + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(dir, 0755) && errno != EEXIST)
            return CV_ERR_IO;
        *q = '/';
    }
    return CV_OK;
}

static void write_calib(FILE *f, const Calib *c)
{
    fprintf(f, "# collviz calibration (alpha s, beta and gamma s/B)\n");
    fprintf(f, "version %d\nbackend %s\nnranks %d\ncores %d\nwhen %lld\n"
            "quick %d\n", CALIB_VERSION, c->backend, c->nranks, c->cores,
            c->when, c->quick);
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
}

CvError calib_save(const Calib *c)
{
    char path[4096], tmp[4200];
    CvError e = calib_path(c->backend, c->nranks, path, sizeof path);
    if (e || (e = make_dirs(path)))
        return e;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return CV_ERR_IO;
    write_calib(f, c);
    int bad = ferror(f);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        remove(tmp);
        return CV_ERR_IO;
    }
    return CV_OK;
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

/* Parse one "key values" line into c; -1 on a malformed line. */
static int parse_line(Calib *c, const char *line)
{
    char word[64];
    int v;
    if (line[0] == '#' || line[0] == '\n')
        return 0;
    if (sscanf(line, "version %d", &v) == 1)
        return v == CALIB_VERSION ? 0 : -1;
    if (sscanf(line, "backend %31s", c->backend) == 1 ||
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

/* Whether a loaded calibration is usable for (backend, nranks). */
static int calib_sane(const Calib *c, const char *backend, int nranks)
{
    if (strcmp(c->backend, backend) || c->nranks != nranks || c->cores < 0 ||
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

CvError calib_load(const char *backend, int nranks, Calib *out)
{
    char path[4096], line[256];
    CvError e = calib_path(backend, nranks, path, sizeof path);
    if (e)
        return e;
    FILE *f = fopen(path, "r");
    if (!f)
        return CV_ERR_IO;
    *out = (Calib){.link = LINK_SHARED};
    int bad = 0, msg = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        bad = parse_line(out, line);
        msg |= !strncmp(line, "msg ", 4);
    }
    if (!msg) /* saved before it was measured: a latency per message */
        out->alpha_msg = out->alpha;
    bad |= ferror(f);
    fclose(f);
    return bad || !calib_sane(out, backend, nranks) ? CV_ERR_ARG : CV_OK;
}
