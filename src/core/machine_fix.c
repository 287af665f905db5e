/* machine_fix.c - links and ranks unlike the rest of their machine: slow
 * ones, and links that are down (machine.h's MachineFix). */
#include "core/machine.h"

#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fix of link l (or, l < 0, of rank r, or with to >= 0 of the path
 * from r to `to`), appended when new; NULL when the machine holds
 * MACHINE_MAX_FIXES already. */
static MachineFix *fix_of(Machine *m, int l, int r, int to)
{
    for (int f = 0; f < m->nfix; f++)
        if (m->fix[f].link == l &&
            (l >= 0 || (m->fix[f].rank == r && m->fix[f].to == to)))
            return &m->fix[f];
    if (m->nfix == MACHINE_MAX_FIXES)
        return NULL;
    MachineFix *x = &m->fix[m->nfix++];
    *x = (MachineFix){.link = l, .rank = l < 0 ? r : -1,
                      .to = l < 0 ? to : -1, .slow = 1, .cls = -1};
    return x;
}

/* The path from rank a to rank b slow: every message between them. */
static CvError fix_path(Machine *m, int a, int b, double slow)
{
    if (a < 0 || b < 0 || a == b)
        return CV_ERR_ARG;
    MachineFix *x = fix_of(m, -1, a, b);
    if (!x)
        return CV_ERR_LIMIT;
    x->slow = slow;
    return CV_OK;
}

/* Give a slow link fix its own class: its dimension's, slowed. */
static void fix_class(Machine *m, MachineFix *x)
{
    if (x->cls < 0)
        x->cls = m->ncls + (int)(x - m->fix);
    LinkClass *k = &m->cls[x->cls];
    *k = m->cls[machine_link(m, x->link).cls];
    k->alpha *= x->slow, k->beta *= x->slow;
}

static void count_down(Machine *m)
{
    m->ndown = 0;
    for (int f = 0; f < m->nfix; f++)
        m->ndown += m->fix[f].down;
}

CvError machine_fix_link(Machine *m, int from, int to, double slow,
                         bool down)
{
    int l[4];
    if (machine_is_memory(m) || !(slow >= 1) || isinf(slow))
        return CV_ERR_ARG;
    int n = machine_links_between(m, from, to, l, 4); /* a bus: none */
    if (n == 0 && !down)
        return fix_path(m, from, to, slow);
    if (n == 0)
        return CV_ERR_ARG;
    for (int i = 0; i < n; i++) {
        MachineFix *x = fix_of(m, l[i], -1, -1);
        if (!x)
            return CV_ERR_LIMIT;
        x->slow = down ? 1 : slow, x->down = down;
        fix_class(m, x);
    }
    count_down(m);
    return CV_OK;
}

CvError machine_fix_rank(Machine *m, int r, double slow)
{
    if (machine_is_memory(m) || r < 0 || r >= m->nranks || !(slow >= 1) ||
        isinf(slow))
        return CV_ERR_ARG;
    MachineFix *x = fix_of(m, -1, r, -1);
    if (!x)
        return CV_ERR_LIMIT;
    x->slow = slow;
    return CV_OK;
}

CvError machine_slow_apply(Machine *m, const MachineSlow *s)
{
    CvError e = CV_OK;
    if (s->slow > 1)
        e = machine_fix_rank(m, s->rank, s->slow);
    if (!e && s->link > 1)
        e = machine_fix_link(m, s->from, s->to, s->link, false);
    return e;
}

/* Place q0 of link l's line (l's rank end; a shared port's coordinate
 * at place c * stride), or -1. */
static int line_home(const Machine *m, MachineLink ml)
{
    if (ml.from >= 0 || ml.to >= 0)
        return machine_place(m, ml.from >= 0 ? ml.from : ml.to);
    return ml.port >= 0 ? ml.port * m->stride[ml.dim] : -1;
}

/* Whether a route between two members of link l's line crosses a down
 * link, every ordered pair tried: the first such pair in *a, *b. */
static CvError line_cut(const Machine *m, int l, int *a, int *b)
{
    MachineLink ml = machine_link(m, l);
    if (ml.dim < 0) { /* a fat tree's core: every pair of leaves cut */
        *a = 0, *b = machine_rank_at(m, m->stride[1]);
        return m->dim[1].size > 1 ? CV_ERR_ARG : CV_OK;
    }
    int i = ml.dim, d = m->dim[i].size, q0 = line_home(m, ml);
    int route[MACHINE_FIX_LINE + 4];
    if (d < 2 || q0 < 0)
        return CV_OK;
    if (d > MACHINE_FIX_LINE)
        return CV_ERR_LIMIT;
    int s = m->stride[i], c0 = q0 / s % d;
    for (int c = 0; c < d; c++)
        for (int t = 0; t < d; t++) {
            int src = machine_rank_at(m, q0 + (c - c0) * s);
            int dst = machine_rank_at(m, q0 + (t - c0) * s);
            int n = machine_route(m, src, dst, route, MACHINE_FIX_LINE + 4);
            for (int h = 0; h < n && h < MACHINE_FIX_LINE + 4; h++)
                if (machine_link_down(m, route[h])) {
                    *a = src, *b = dst;
                    return CV_ERR_ARG;
                }
        }
    return CV_OK;
}

CvError machine_fix_check(const Machine *m, int *a, int *b)
{
    for (int f = 0; f < m->nfix; f++) {
        if (!m->fix[f].down)
            continue;
        CvError e = line_cut(m, m->fix[f].link, a, b);
        if (e == CV_ERR_LIMIT)
            *a = m->fix[f].link, *b = -1;
        if (e)
            return e;
    }
    return CV_OK;
}

/* ------------------------------------------------------------ as text */

#define FIX_MOST 1e6 /* the largest slowdown a fix takes */

/* "slow=F" or "down" (down only where a link allows it) into *slow and
 * *down; false with the sentence in why. */
static bool fix_how(const char *how, bool link, double *slow, bool *down,
                    char *why, size_t len)
{
    char *end;
    *down = link && !strcmp(how, "down");
    if (*down)
        return true;
    if (!strncmp(how, "slow=", 5)) {
        *slow = strtod(how + 5, &end);
        if (how[5] && !*end && *slow >= 1 && *slow <= FIX_MOST)
            return true;
        snprintf(why, len, "slow= takes how many times as long, a number "
                 "from 1 to %g, not '%s'", FIX_MOST, how + 5);
        return false;
    }
    snprintf(why, len, "%s takes %s after its colon, not '%s'",
             link ? "a link" : "a rank", link ? "slow=F or down" : "slow=F",
             how);
    return false;
}

/* "rank=R:slow=F". */
static CvError parse_rank(Machine *m, const char *v, char *why, size_t len)
{
    char *end;
    double slow = 1;
    bool down;
    long r = strtol(v, &end, 10);
    if (end == v || *end != ':' || r < 0 || r >= m->nranks) {
        snprintf(why, len, "rank= takes R:slow=F with R a rank from 0 to %d, "
                 "not '%s'", m->nranks - 1, v);
        return CV_ERR_ARG;
    }
    if (!fix_how(end + 1, false, &slow, &down, why, len))
        return CV_ERR_ARG;
    CvError e = machine_fix_rank(m, (int)r, slow);
    if (e == CV_ERR_ARG)
        snprintf(why, len, "a memory machine's ranks share one memory: "
                 "rank= goes with a network");
    return e;
}

/* The two ends of "A>B" or "A-B" (both ways) into e[0], e[1]. */
static bool link_ends(const Machine *m, const char *v, size_t n, int e[2],
                      bool *both, char *why, size_t len)
{
    char a[32], b[32];
    size_t k = strcspn(v, ">-");
    if (k == n || k >= sizeof a || n - k - 1 >= sizeof b) {
        snprintf(why, len, "link= takes A>B (or A-B, both ways) such as "
                 "r5>r6 or r3>sw.x0, then :slow=F or :down, not '%.*s'",
                 (int)n, v);
        return false;
    }
    *both = v[k] == '-';
    memcpy(a, v, k), a[k] = 0;
    memcpy(b, v + k + 1, n - k - 1), b[n - k - 1] = 0;
    e[0] = machine_endpoint_parse(m, a), e[1] = machine_endpoint_parse(m, b);
    for (int i = 0; i < 2; i++)
        if (e[i] == INT_MIN) {
            snprintf(why, len, "'%s' is not a rank or switch of this "
                     "machine (ranks r0 to r%d; 'collviz topo --links' "
                     "names every link)", i ? b : a, m->nranks - 1);
            return false;
        }
    return true;
}

/* "link=A>B:slow=F", "link=A-B:down". */
static CvError parse_link(Machine *m, const char *v, char *why, size_t len)
{
    const char *colon = strrchr(v, ':');
    int e[2];
    bool both, down;
    double slow = 1;
    if (!link_ends(m, v, colon ? (size_t)(colon - v) : strlen(v), e, &both,
                   why, len) ||
        !colon || !fix_how(colon + 1, true, &slow, &down, why, len)) {
        if (!colon)
            snprintf(why, len, "link= needs :slow=F or :down after its "
                     "ends, as in link=r5>r6:down");
        return CV_ERR_ARG;
    }
    for (int i = 0; i < 1 + both; i++) {
        CvError err = machine_fix_link(m, e[i], e[1 - i], slow, down);
        char a[32], b[32];
        machine_endpoint_name(m, e[i], a, sizeof a);
        machine_endpoint_name(m, e[1 - i], b, sizeof b);
        if (err == CV_ERR_ARG)
            snprintf(why, len, "no link goes from %s to %s ('collviz topo "
                     "--links' names every link; two ranks no link joins "
                     "take slow=, their path's)", a, b);
        if (err == CV_ERR_ARG && machine_has_medium(m))
            snprintf(why, len, "the ranks of a bus or a memory machine "
                     "share one medium: link= takes two ranks of a bus "
                     "(their messages), and goes with a network");
        if (err)
            return err;
    }
    return CV_OK;
}

CvError machine_fix_parse(Machine *m, const char *opt, char *why,
                          size_t len)
{
    CvError e;
    if (!strncmp(opt, "rank=", 5))
        e = parse_rank(m, opt + 5, why, len);
    else if (!strncmp(opt, "link=", 5))
        e = parse_link(m, opt + 5, why, len);
    else {
        snprintf(why, len, "'%s' is not a fix: link=A>B:slow=F, "
                 "link=A>B:down or rank=R:slow=F", opt);
        return CV_ERR_ARG;
    }
    if (e == CV_ERR_LIMIT)
        snprintf(why, len, "a machine takes %d fixed links and ranks at "
                 "most", MACHINE_MAX_FIXES);
    return e;
}

size_t machine_fix_text(const Machine *m, int f, char *buf, size_t len)
{
    const MachineFix *x = &m->fix[f];
    char name[48];
    int n;
    if (x->link < 0 && x->to >= 0)
        n = snprintf(buf, len, "link=r%d>r%d:slow=%.17g", x->rank, x->to,
                     x->slow);
    else if (x->link < 0)
        n = snprintf(buf, len, "rank=%d:slow=%.17g", x->rank, x->slow);
    else {
        machine_link_name(m, x->link, name, sizeof name);
        n = x->down ? snprintf(buf, len, "link=%s:down", name)
                    : snprintf(buf, len, "link=%s:slow=%.17g", name, x->slow);
    }
    return n > 0 ? (size_t)n : 0;
}

CvError machine_fix_why(const Machine *m, char *why, size_t len)
{
    int a, b;
    char name[48];
    CvError e = machine_fix_check(m, &a, &b);
    if (e == CV_ERR_LIMIT) {
        machine_link_name(m, a, name, sizeof name);
        snprintf(why, len, "link %s is down in a line of more than %d "
                 "members: collviz reroutes in lines of up to %d", name,
                 MACHINE_FIX_LINE, MACHINE_FIX_LINE);
    } else if (e)
        snprintf(why, len, "with its down links the machine has no route "
                 "from r%d to r%d (collviz goes round a ring the other way "
                 "and through another member of a fully connected line, not "
                 "past a switch's port or along a mesh)", a, b);
    return e;
}
