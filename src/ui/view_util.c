/* view_util.c - helpers every view shares: level roles, number formats,
 * and the table of views. */
#include <math.h>
#include <stdio.h>

#include "ui/view.h"

static const ViewOps *const views[VIEW_COUNT] = {
    [VIEW_HEADER] = &view_header,
    [VIEW_BUFFERS] = &view_buffers,
    [VIEW_TRANSFERS] = &view_transfers,
    [VIEW_TOPOLOGY] = &view_topology,
    [VIEW_TIMELINE] = &view_timeline,
    [VIEW_COUNTERS] = &view_counters,
    [VIEW_CHART] = &view_chart,
    [VIEW_STATUS] = &view_status,
    [VIEW_HELP] = &view_help,
    [VIEW_MENU] = &view_menu,
    [VIEW_PROMPT] = &view_prompt,
};

const ViewOps *view_get(ViewId id)
{
    return id < VIEW_COUNT ? views[id] : NULL;
}

Role view_level_role(int n, int p, bool final)
{
    if (final)
        return ROLE_FINAL;
    if (n <= 0)
        return ROLE_EMPTY;
    if (n == 1)
        return ROLE_LEVEL1;
    if (2 * n < p)
        return ROLE_LEVEL2;
    if (4 * n < 3 * p)
        return ROLE_LEVEL3;
    return ROLE_LEVEL4;
}

/* Value v scaled by 1024 to the largest unit it reaches. */
static void fmt_scaled(char *out, size_t len, double v, double base,
                       const char *const *units, int nunits)
{
    int u = 0;
    while (fabs(v) >= base && u < nunits - 1) {
        v /= base;
        u++;
    }
    if (u == 0 || fabs(v) >= 100 || v == floor(v))
        snprintf(out, len, "%.0f %s", v, units[u]);
    else
        snprintf(out, len, "%.*f %s", fabs(v) >= 10 ? 1 : 2, v, units[u]);
}

void view_fmt_bytes(char *out, size_t len, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    fmt_scaled(out, len, bytes, 1024, units, 5);
}

void view_fmt_time(char *out, size_t len, double s)
{
    if (!isfinite(s) || s < 0)
        snprintf(out, len, "N/A");
    else if (s < 1e-6)
        snprintf(out, len, "%.0f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(out, len, "%.*f us", s < 1e-5 ? 2 : 1, s * 1e6);
    else if (s < 1)
        snprintf(out, len, "%.*f ms", s < 1e-2 ? 2 : 1, s * 1e3);
    else
        snprintf(out, len, "%.2f s", s);
}

void view_fmt_value(char *out, size_t len, Value v,
                    void (*fmt)(char *, size_t, double))
{
    if (!v.valid)
        snprintf(out, len, "N/A");
    else
        fmt(out, len, v.v);
}
