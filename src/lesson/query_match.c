/* query_match.c - comparing a learner's answer with a checkpoint's
 * computed value (query.h): numbers as numbers in the forms a learner
 * writes them (plain, grouped, sizes, fractions) held to the decimals
 * the value asks, algorithm names by the tool's names and aliases, and
 * lists as sets. Evaluating the query is query.c's. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "lesson/query.h"

/* s without surrounding blanks, lower case, into buf. */
static void norm(const char *s, char *buf, size_t n)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = 0;
    for (; *s && len + 1 < n; s++)
        buf[len++] = (char)tolower((unsigned char)*s);
    while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        len--;
    buf[len] = '\0';
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
    if (!lead)
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

/* The learner's number at a (lower case, blanks trimmed): a plain
 * decimal, a size with the suffix -s takes (k, m, g, and kib, mib, gib:
 * powers of 1024, as "1.75m" = 1835008), or a simple fraction ("7/8").
 * *exact is set where the form gives its value exactly (a size or a
 * fraction), so that no decimals are asked of it; false when it is none
 * of them. */
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
    static const struct {
        const char *suf;
        double mul;
    } sizes[] = {{"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0},
                 {"k", 1024.0}, {"m", 1048576.0}, {"g", 1073741824.0}};
    size_t n = strlen(a);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t k = strlen(sizes[i].suf);
        char num[64];
        if (n <= k || n - k >= sizeof num || strcmp(a + n - k, sizes[i].suf))
            continue;
        snprintf(num, sizeof num, "%.*s", (int)(n - k), a);
        if (!plain_number(num, x, dec))
            return false;
        *x *= sizes[i].mul, *exact = true;
        return isfinite(*x);
    }
    return false;
}

/* How the learner's number a matches v: 1 right; 0 wrong; -1 right as
 * far as it goes but with fewer decimals than v asks (*given: how many
 * it gave). */
static int match_number(const QueryValue *v, const char *a, int *given)
{
    double x;
    int dec;
    bool exact;
    if (!answer_number(a, &x, &dec, &exact))
        return 0;
    double scale = fabs(v->num) > 1 ? fabs(v->num) : 1;
    if (fabs(x - v->num) <= 1e-9 * scale)
        return 1;
    if (exact) /* a size or a fraction: to the decimals v asks */
        return v->decimals > 0 &&
               fabs(x - v->num) <= 0.5 * pow(10, -v->decimals) + 1e-12 * scale;
    bool close = fabs(x - v->num) <= 0.5 * pow(10, -dec) + 1e-12 * scale;
    if (close && v->decimals > 0 && dec >= v->decimals)
        return 1;
    *given = dec;
    return close && v->decimals > dec ? -1 : 0;
}

/* The learner's list into in[0 .. nlist); false when it is no list. */
static bool parse_list(const char *a, int nlist, unsigned char *in)
{
    memset(in, 0, (size_t)nlist);
    if (!strcmp(a, "none") || !strcmp(a, "-") || !strcmp(a, "{}"))
        return true;
    const char *s = a;
    while (*s) {
        while (*s == ' ' || *s == ',' || *s == '{' || *s == '}')
            s++;
        if (!*s)
            break;
        if (*s == 'r')
            s++;
        char *end;
        if (!isdigit((unsigned char)*s))
            return false;
        long lo = strtol(s, &end, 10), hi = lo;
        s = end;
        if (*s == '-' && isdigit((unsigned char)s[1]))
            hi = strtol(s + 1, &end, 10), s = end;
        if (lo < 0 || hi < lo || hi >= nlist)
            return false;
        for (long i = lo; i <= hi; i++)
            in[i] = 1;
        if (*s && *s != ' ' && *s != ',' && *s != '}')
            return false;
    }
    return true;
}

int query_coarse(const QueryValue *v, const char *answer)
{
    char a[256];
    int given = 0;
    norm(answer, a, sizeof a);
    return v->type == QV_NUMBER && match_number(v, a, &given) < 0 ? given
                                                                 : -1;
}

bool query_match_within(const QueryValue *v, const char *answer,
                        double within)
{
    char a[256];
    double x;
    int dec;
    bool exact;
    norm(answer, a, sizeof a);
    if (v->type != QV_NUMBER || !(within > 0))
        return query_match(v, answer);
    return answer_number(a, &x, &dec, &exact) &&
           fabs(x - v->num) <= within * fabs(v->num) + 1e-12;
}

bool query_match(const QueryValue *v, const char *answer)
{
    char a[256];
    int given;
    norm(answer, a, sizeof a);
    if (v->type == QV_NUMBER)
        return match_number(v, a, &given) > 0;
    if (v->type == QV_NAME) {
        const AlgoInfo *x = algo_find(v->coll, a);
        return x && !strcmp(x->name, v->name);
    }
    unsigned char in[QUERY_MAX_LIST];
    return v->type == QV_LIST && parse_list(a, v->nlist, in) &&
           !memcmp(in, v->in, (size_t)v->nlist);
}
