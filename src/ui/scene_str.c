/* scene_str.c - a scene as one line of the TUI's options, and back. */
#include "ui/scene_str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The words one scene string may have. */
#define SSTR_MAX_WORDS 40

static const CliOpt sstr_opts[SSTR_OPT_COUNT] = {
    SCENE_STR_OPTS("number of ranks, 1 to 64", "measured size"),
};

void scene_str_of(const Scene *sc, bool present, SceneStr *out)
{
    *out = (SceneStr){.step = (int)sc->step, .cells = sc->cells,
                      .chunks = sc->chunks, .pricing = sc->model.pricing,
                      .present = present};
    out->spec.call = sc->call;
    out->spec.call.count = 0;
    out->spec.algo = sc->algo;
    out->spec.bytes = sc->bytes;
    out->spec.machine = sc->machine;
    strcpy(out->spec.machine.given, sc->machine.spec);
}

/* A size as option opt reads it: the largest of G, M, K that divides
 * it. */
static void put_size(CliText *o, const char *opt, unsigned long long b)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        int shift = 30 - 10 * i;
        if (b && b % (1ull << shift) == 0) {
            cli_text_add(o, " %s %llu%c", opt, b >> shift, suffix[i]);
            return;
        }
    }
    cli_text_add(o, " %s %llu", opt, b);
}

size_t scene_str_format(const SceneStr *s, char *out, size_t len)
{
    const CollCall *c = &s->spec.call;
    CliText o = {.buf = out, .n = len};
    if (len)
        out[0] = '\0';
    const char *q = scene_opts_quote(s->spec.algo->name);
    cli_text_add(&o, "%s -a %s%s%s -p %d", coll_name(c->kind), q,
                 s->spec.algo->name, q, c->nranks);
    if (s->spec.bytes != scene_limits_tui.def_bytes)
        put_size(&o, "-s", s->spec.bytes);
    if (c->dtype != DT_FLOAT)
        cli_text_add(&o, " -d %s", dtype_name(c->dtype));
    if (coll_is_reducing(c->kind) && c->op != OP_SUM)
        cli_text_add(&o, " -o %s", redop_name(c->op));
    if (coll_is_rooted(c->kind) && c->root)
        cli_text_add(&o, " -r %d", c->root);
    if (c->in_place)
        cli_text_add(&o, " --in-place");
    if (c->segment && s->spec.algo->segments) /* what --segment takes */
        put_size(&o, "--segment", c->segment);
    const char *m = s->spec.machine.given;
    if (m[0]) /* a file's path with a blank in double quotes (X8) */
        cli_text_add(&o, m[strcspn(m, " \t")] ? " -T \"%s\"" : " -T %s", m);
    if (s->cells != 1)
        cli_text_add(&o, " --cells %d", s->cells);
    if (s->chunks)
        cli_text_add(&o, " --chunks %d", s->chunks);
    if (s->pricing != PRICING_LOCKSTEP)
        cli_text_add(&o, " --pricing %s", model_pricing_name(s->pricing));
    if (s->present)
        cli_text_add(&o, " --present");
    if (s->step)
        cli_text_add(&o, " --step %d", s->step);
    return o.len;
}

int scene_str_from_args(const CliArgs *a, SceneStr *out, CliErr *e)
{
    long v;
    *out = (SceneStr){.cells = 1, .present = cli_has(a, SSTR_OPT_PRESENT)};
    if (scene_opts_parse(a, &scene_limits_tui, &out->spec, e))
        return -1;
    if (a->val[SSTR_OPT_CELLS]) {
        if (cli_parse_int("--cells", a->val[SSTR_OPT_CELLS], 1,
                          SCENE_MAX_CELLS, &v, e))
            return -1;
        out->cells = (int)v;
    }
    if (a->val[SSTR_OPT_CHUNKS]) {
        if (cli_parse_int("--chunks", a->val[SSTR_OPT_CHUNKS], 1,
                          SCENE_MAX_CHUNKS, &v, e))
            return -1;
        out->chunks = (int)v;
    }
    if (a->val[SSTR_OPT_PRICING] &&
        cli_parse_pricing(a->val[SSTR_OPT_PRICING], &out->pricing, e))
        return -1;
    if (a->val[SSTR_OPT_STEP]) {
        if (cli_parse_int("--step", a->val[SSTR_OPT_STEP], 0, 1000000, &v, e))
            return -1;
        out->step = (int)v;
    }
    return 0;
}

/* The scene's next word (strtok_r's way: s the text at the first call,
 * NULL after; *save where to go on): words are split at blanks, and a
 * word in double quotes keeps its blanks (a machine file's path, X8).
 * A quote that is not closed returns *save itself. */
static char *next_word(char *s, char **save)
{
    char *p = s ? s : *save;
    if (!p)
        return NULL;
    p += strspn(p, " \t\r\n");
    if (!*p)
        return *save = NULL;
    if (*p == '"') {
        char *end = strchr(p + 1, '"');
        if (!end)
            return *save = p;
        *end = '\0';
        *save = end + 1;
        return p + 1;
    }
    size_t n = strcspn(p, " \t\r\n");
    *save = p[n] ? p + n + 1 : p + n;
    p[n] = '\0';
    return p;
}

int scene_str_parse(const char *text, SceneStr *out, CliErr *e)
{
    const CliCmd cmd = {.name = "--scene", .opts = sstr_opts,
                        .nopts = SSTR_OPT_COUNT, .max_pos = 1,
                        .help_of = "tui"};
    char *copy = strdup(text ? text : ""), *argv[SSTR_MAX_WORDS + 1];
    char *save = NULL;
    int argc = 0, rc = 0;
    if (!copy)
        return cli_fail(e, "there is not enough memory to read the scene");
    argv[argc++] = (char *)"--scene";
    for (char *w = next_word(copy, &save); w && !rc; w = next_word(NULL, &save)) {
        if (w == save) /* (next_word's mark of an unclosed quote) */
            rc = cli_fail(e, "the scene has a double quote that is not closed");
        else if (argc > SSTR_MAX_WORDS)
            rc = cli_fail(e, "the scene has more than %d words",
                          SSTR_MAX_WORDS);
        else
            argv[argc++] = w;
    }
    CliArgs a;
    if (!rc && argc == 1)
        rc = cli_fail(e, "the scene is empty; give it as the TUI's options, "
                      "e.g. --scene 'allreduce -a ring -p 8 --step 3'");
    if (!rc)
        rc = cli_parse_args(&cmd, argc, argv, &a, e) ? -1
             : scene_str_from_args(&a, out, e);
    free(copy);
    return rc;
}

/* s as a piece of a file name into out: a path's last part (without its
 * extension), every character but letters, digits, '.', '_' and '-' as
 * '-' ("torus:4x4" -> "torus-4x4"). */
static void name_part(const char *s, bool path, char *out, size_t len)
{
    const char *b = path && strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
    size_t n = 0, end = strlen(b);
    const char *dot = path ? strrchr(b, '.') : NULL;
    if (dot && dot > b)
        end = (size_t)(dot - b);
    for (size_t i = 0; i < end && n + 1 < len; i++) {
        char c = b[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out[n++] = ok ? c : '-';
    }
    out[n] = '\0';
}

void scene_str_file_name(const Scene *sc, const char *ext, char *out,
                         size_t len)
{
    char base[200], algo[64], mach[48] = "";
    name_part(sc->algo->name, algo_file_text(sc->algo) != NULL, algo,
              sizeof algo);
    if (sc->machine.spec[0]) { /* the machine it is drawn on */
        mach[0] = '-';
        name_part(sc->machine.spec, false, mach + 1, sizeof mach - 1);
    }
    snprintf(base, sizeof base, "collviz-%s-%s%s-p%d-step%zu",
             coll_name(sc->call.kind), algo, mach, sc->call.nranks,
             sc->step);
    struct stat st; /* taken: anything at the name, a link too (lstat) */
    snprintf(out, len, "%s.%s", base, ext);
    for (int i = 2; i < 1000 && lstat(out, &st) == 0; i++)
        snprintf(out, len, "%s-%d.%s", base, i, ext);
}
