/* query_match.c - comparing a learner's answer with a checkpoint's
 * computed value (query.h): numbers as numbers in the forms a learner
 * writes them (plain, grouped, sizes, fractions, percent, a unit that
 * fits the question, full-width) held to the decimals the value asks,
 * algorithm names by the tool's names and aliases, and lists as sets.
 * Evaluating the query is query.c's. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "lesson/query.h"

/* The forms a keyboard in another script types for ASCII: full-width
 * forms (U+FF01 to U+FF5E) and the ideographic space as their ASCII
 * (what NFKC makes of them), the ideographic comma as ',', an ellipsis
 * as "...", and the micro sign and mu as 'u' (us). The length of the
 * UTF-8 sequence at s (NUL-ended: no byte past its end is read) taken
 * into out (a NUL-ended ASCII text), or 0 when s does not start with
 * one of them. */
static size_t ascii_form(const unsigned char *s, char out[4])
{
    unsigned cp = 0;
    size_t len = 0;
    if (s[0] == 0xC2 && s[1] == 0xB5)
        cp = 0xB5, len = 2;
    else if (s[0] == 0xCE && s[1] == 0xBC)
        cp = 0x3BC, len = 2;
    else if ((s[0] & 0xF0) == 0xE0 && (s[1] & 0xC0) == 0x80 &&
             (s[2] & 0xC0) == 0x80)
        cp = ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu),
        len = 3;
    out[0] = out[1] = out[2] = out[3] = '\0';
    if (cp >= 0xFF01 && cp <= 0xFF5E)
        out[0] = (char)(cp - 0xFEE0);
    else if (cp == 0x3000)
        out[0] = ' ';
    else if (cp == 0x3001)
        out[0] = ',';
    else if (cp == 0x2026 || cp == 0x22EF)
        memcpy(out, "...", 3);
    else if (cp == 0xB5 || cp == 0x3BC)
        out[0] = 'u';
    else
        return 0;
    return len;
}

/* s in the forms the matching reads: without surrounding blanks, lower
 * case, full-width and other keyboards' forms as ASCII (ascii_form), into
 * buf. */
static void norm(const char *s, char *buf, size_t n)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = 0;
    while (*s && len + 4 < n) {
        char a[4];
        size_t k = ascii_form((const unsigned char *)s, a);
        if (k) {
            for (size_t i = 0; a[i]; i++)
                buf[len++] = (char)tolower((unsigned char)a[i]);
            s += k;
        } else {
            buf[len++] = (char)tolower((unsigned char)*s++);
        }
    }
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    buf[len] = '\0';
    size_t lead = strspn(buf, " "); /* an ideographic space first */
    memmove(buf, buf + lead, len - lead + 1);
}

/* A plain decimal at a (digits, one '.', a leading '-'; "1,835,008"
 * grouped by threes): its value and decimals given; false otherwise. */
static bool plain_number(const char *a, double *x, int *dec)
{
    char buf[128];
    size_t n = 0;
    const char *s = a;
    if (*s == '-')
        buf[n++] = *s++;
    size_t lead = strspn(s, "0123456789");
    if (!lead && s[0] == '.' && isdigit((unsigned char)s[1]))
        buf[n++] = '0'; /* ".875" */
    else if (!lead)
        return false;
    bool grouped = s[lead] == ',' && lead <= 3;
    for (size_t i = 0; i < lead && n + 1 < sizeof buf; i++)
        buf[n++] = s[i];
    s += lead;
    while (grouped && *s == ',') { /* ",ddd" groups, exactly three */
        if (strspn(s + 1, "0123456789") != 3)
            return false;
        for (int i = 1; i <= 3 && n + 1 < sizeof buf; i++)
            buf[n++] = s[i];
        s += 4;
    }
    *dec = 0;
    if (*s == '.') {
        size_t f = strspn(s + 1, "0123456789");
        if (!f)
            return false;
        for (size_t i = 0; i <= f && n + 1 < sizeof buf; i++)
            buf[n++] = s[i];
        *dec = (int)f;
        s += f + 1;
    }
    if (*s || n + 1 >= sizeof buf)
        return false;
    buf[n] = '\0';
    char *end;
    *x = strtod(buf, &end);
    return !*end && isfinite(*x);
}

/* A number with a size's suffix as -s takes it (k, m, g, kb, mb, gb,
 * kib, mib, gib: powers of 1024, as "1.75m" = 1835008), a blank before
 * it or not: true and *x; false when a is none. */
static bool size_number(const char *a, double *x, int *dec)
{
    static const struct {
        const char *suf;
        double mul;
    } sizes[] = {{"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0},
                 {"kb", 1024.0}, {"mb", 1048576.0}, {"gb", 1073741824.0},
                 {"k", 1024.0}, {"m", 1048576.0}, {"g", 1073741824.0}};
    size_t n = strlen(a);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t k = strlen(sizes[i].suf);
        char num[64];
        if (n <= k || n - k >= sizeof num || strcmp(a + n - k, sizes[i].suf))
            continue;
        snprintf(num, sizeof num, "%.*s", (int)(n - k), a);
        size_t e = strlen(num);
        while (e && num[e - 1] == ' ')
            num[--e] = '\0';
        if (!plain_number(num, x, dec))
            return false;
        *x *= sizes[i].mul;
        return isfinite(*x);
    }
    return false;
}

/* The learner's number at a (normalised, no unit): a plain decimal, a
 * size (size_number) or a simple fraction ("7/8"). *exact is set where
 * the form gives its value exactly (a size or a fraction), so that no
 * decimals are asked of it; false when it is none of them. */
static bool answer_number(const char *a, double *x, int *dec, bool *exact)
{
    *exact = false;
    if (plain_number(a, x, dec))
        return true;
    const char *slash = strchr(a, '/');
    if (slash && slash != a && slash[1]) {
        char num[64];
        double d;
        int dd;
        if ((size_t)(slash - a) >= sizeof num)
            return false;
        snprintf(num, sizeof num, "%.*s", (int)(slash - a), a);
        if (!plain_number(num, x, dec) || !plain_number(slash + 1, &d, &dd) ||
            !(d > 0))
            return false;
        *x /= d, *exact = true;
        return isfinite(*x);
    }
    return (*exact = size_number(a, x, dec));
}

QueryUnit query_unit(QueryKind k)
{
    switch (k) {
    case Q_SENT: case Q_RECVD: case Q_CROSSOVER: return QU_BYTES;
    case Q_TIME: case Q_STEPTIME: return QU_TIME;
    case Q_STEPS: case Q_MSGSTEPS: return QU_STEPS;
    case Q_BUSBW: return QU_PERCENT;
    case Q_SENDERS: case Q_RECEIVERS: case Q_HOLDS: case Q_DONE:
    case Q_BLOCKS: case Q_BEST: case Q_COUNT: return QU_NONE;
    }
    return QU_NONE;
}

/* Take a unit off the end of a (normalised; a blank before it or not):
 * what it measures, and *mul, what a number in it is in the value's own
 * unit (bytes, us, steps, a fraction); QU_NONE when a ends in none. The
 * byte sizes (MiB, ...) stay on a: size_number reads them. */
static QueryUnit take_unit(char *a, double *mul)
{
    static const struct {
        const char *name;
        QueryUnit unit;
        double mul;
    } units[] = {
        {"\xe5\xad\x97\xe8\x8a\x82", QU_BYTES, 1},        /* 字节 */
        {"bytes", QU_BYTES, 1}, {"byte", QU_BYTES, 1},
        {"\xe5\xbe\xae\xe7\xa7\x92", QU_TIME, 1},          /* 微秒 */
        {"\xe6\xaf\xab\xe7\xa7\x92", QU_TIME, 1e3},        /* 毫秒 */
        {"\xe7\xba\xb3\xe7\xa7\x92", QU_TIME, 1e-3},       /* 纳秒 */
        {"\xe7\xa7\x92", QU_TIME, 1e6},                    /* 秒 */
        {"\xe6\xad\xa5", QU_STEPS, 1},                     /* 步 */
        {"steps", QU_STEPS, 1}, {"step", QU_STEPS, 1},
        {"us", QU_TIME, 1}, {"ms", QU_TIME, 1e3}, {"ns", QU_TIME, 1e-3},
        {"s", QU_TIME, 1e6}, {"%", QU_PERCENT, 0.01},
        {"kib", QU_BYTES, 0}, {"mib", QU_BYTES, 0}, {"gib", QU_BYTES, 0},
        {"kb", QU_BYTES, 0}, {"mb", QU_BYTES, 0}, {"gb", QU_BYTES, 0},
        {"b", QU_BYTES, 1},
    };
    size_t n = strlen(a);
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        size_t k = strlen(units[i].name);
        if (n <= k || strcmp(a + n - k, units[i].name) ||
            !(isdigit((unsigned char)a[n - k - 1]) || a[n - k - 1] == ' ' ||
              a[n - k - 1] == '.'))
            continue;
        *mul = units[i].mul;
        if (units[i].mul > 0) { /* off, with the blanks before it */
            a[n - k] = '\0';
            for (n -= k; n && a[n - 1] == ' ';)
                a[--n] = '\0';
        }
        return units[i].unit;
    }
    *mul = 1;
    return QU_NONE;
}

/* The decimals a number given in a unit mul times the value's has in the
 * value's unit (0.01411 ms: 5 decimals in ms, 2 in us). */
static int decimals_in(int dec, double mul)
{
    int shift = (int)lround(log10(mul));
    return dec - shift > 0 ? dec - shift : 0;
}

/* How the learner's answer a (normalised) stands against v's number. */
static QueryVerdict judge_number(const QueryValue *v, char *a, double within,
                                 int *given)
{
    double mul, x;
    int dec;
    bool exact;
    QueryUnit u = take_unit(a, &mul), want = query_unit(v->kind);
    if (u != QU_NONE && u != want)
        return QJ_OTHER_UNIT;
    if (!answer_number(a, &x, &dec, &exact))
        return QJ_WRONG;
    if (mul > 0 && mul != 1)
        x *= mul, dec = decimals_in(dec, mul);
    double scale = fabs(v->num) > 1 ? fabs(v->num) : 1;
    if (fabs(x - v->num) <= 1e-9 * scale ||
        (within > 0 && fabs(x - v->num) <= within * fabs(v->num) + 1e-12))
        return QJ_RIGHT;
    if (exact) /* a size or a fraction: to the decimals v asks */
        return v->decimals > 0 && fabs(x - v->num) <=
                                      0.5 * pow(10, -v->decimals) + 1e-12 * scale
                   ? QJ_RIGHT : QJ_WRONG;
    bool close = fabs(x - v->num) <= 0.5 * pow(10, -dec) + 1e-12 * scale;
    if (close && v->decimals > 0 && dec >= v->decimals)
        return QJ_RIGHT;
    if (!close || v->decimals <= dec)
        return QJ_WRONG;
    *given = dec;
    /* fewer decimals than asked: a time rounded is right as far as it
       goes; a factor rounded is a different factor (0.875 is not 1) */
    return want == QU_TIME ? QJ_COARSE : QJ_ROUNDED;
}

/* A list's number at *s: an optional 'r', digits; moves *s past it. */
static bool list_number(const char **s, long *v)
{
    const char *p = *s + (**s == 'r');
    char *end;
    if (!isdigit((unsigned char)*p))
        return false;
    *v = strtol(p, &end, 10);
    *s = end;
    return true;
}

/* A range's mark at s ("-", "~", ".." but not "..."): its length, or 0. */
static size_t range_mark(const char *s)
{
    if (*s == '-' || *s == '~')
        return 1;
    return s[0] == '.' && s[1] == '.' && s[2] != '.' ? 2 : 0;
}

/* The learner's list into in[0 .. nlist); false when it is no list.
 * Ranks or blocks are numbers (r0 or 0), ranges (0-3, r0-r3, 0~3, 0..3)
 * and "a, b, ..., c": from b on in steps of b - a (1 after a single
 * number) up to c. */
static bool parse_list(const char *a, int nlist, unsigned char *in)
{
    memset(in, 0, (size_t)nlist);
    if (!strcmp(a, "none") || !strcmp(a, "-") || !strcmp(a, "{}"))
        return true;
    const char *s = a;
    long last = -1, before = -1;
    bool fill = false;
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == '{' || *s == '}')
            s++;
        if (!*s)
            break;
        if (!strncmp(s, "...", 3)) {
            if (last < 0 || fill)
                return false;
            fill = true, s += 3;
            continue;
        }
        long lo, hi;
        if (!list_number(&s, &lo))
            return false;
        hi = lo;
        size_t m = range_mark(s);
        if (m && (s += m, !list_number(&s, &hi)))
            return false;
        if (lo < 0 || hi < lo || hi >= nlist)
            return false;
        if (fill) {
            long step = before >= 0 && last > before ? last - before : 1;
            if (lo <= last)
                return false;
            for (long i = last + step; i < lo; i += step)
                in[i] = 1;
            fill = false;
        }
        for (long i = lo; i <= hi; i++)
            in[i] = 1;
        before = lo == hi ? last : -1, last = hi;
        if (*s && *s != ' ' && *s != ',' && *s != '}' && *s != '.')
            return false;
    }
    return !fill;
}

QueryVerdict query_judge(const QueryValue *v, const char *answer,
                         double within, int *given)
{
    char a[256];
    int g = 0;
    norm(answer, a, sizeof a);
    if (given)
        *given = 0;
    if (v->type == QV_NUMBER) {
        QueryVerdict r = judge_number(v, a, within, &g);
        if (given)
            *given = g;
        return r;
    }
    if (v->type == QV_NAME) {
        const AlgoInfo *x = algo_find(v->coll, a);
        return x && !strcmp(x->name, v->name) ? QJ_RIGHT : QJ_WRONG;
    }
    unsigned char in[QUERY_MAX_LIST];
    return v->type == QV_LIST && parse_list(a, v->nlist, in) &&
                   !memcmp(in, v->in, (size_t)v->nlist)
               ? QJ_RIGHT : QJ_WRONG;
}

int query_coarse(const QueryValue *v, const char *answer)
{
    int given;
    return query_judge(v, answer, 0, &given) == QJ_COARSE ? given : -1;
}

bool query_match_within(const QueryValue *v, const char *answer,
                        double within)
{
    return query_judge(v, answer, within > 0 ? within : 0, NULL) == QJ_RIGHT;
}

bool query_match(const QueryValue *v, const char *answer)
{
    return query_judge(v, answer, 0, NULL) == QJ_RIGHT;
}
