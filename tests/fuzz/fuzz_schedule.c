/* fuzz_schedule.c - the schedule text parser (sched_text_parse, which
 * -a FILE reads every schedule file with) on any bytes: it must give a
 * schedule whose every transfer lies in its buffers, or refuse it with a
 * sentence (its line within the file), never crash, read out of bounds or
 * leak; the element-by-element check must give a verdict with a sentence
 * when it refuses; a schedule it gives must write back as text that parses
 * to the same schedule.
 *
 * Built and run by `make fuzz` (libFuzzer, with AddressSanitizer and
 * UndefinedBehaviorSanitizer); seeds in tests/fuzz/seeds/schedule/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void in_bounds(const Schedule *s)
{
    for (size_t i = 0; i < s->nxfers; i++) {
        const Transfer *x = &s->xfers[i];
        if (x->src < 0 || x->src >= s->call.nranks || x->dst < 0 ||
            x->dst >= s->call.nranks || x->count == 0 ||
            x->src_off + x->count > sched_bufsize(s, x->src, x->src_buf) ||
            x->dst_off + x->count > sched_bufsize(s, x->dst, x->dst_buf) ||
            x->dst_buf == BUF_SEND)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SchedText t, back;
    char why[512];
    if (sched_text_parse((const char *)data, size, "f", &t, why, sizeof why)) {
        if (!why[0])
            abort();
        return 0;
    }
    in_bounds(&t.unit);
    if (sched_text_check(&t, NULL, why, sizeof why) && !why[0])
        abort();
    char *text;
    size_t len;
    bool same = false;
    Schedule b; /* at the first one's count: the writer may cut coarser */
    if (sched_text_write(&t.unit, &text, &len) ||
        sched_text_parse(text, len, "f", &back, why, sizeof why) ||
        sched_text_build(&back, &t.unit.call, false, &b) ||
        sched_same(&t.unit, &b, &same) || !same)
        abort();
    free(text);
    sched_fini(&b);
    sched_text_fini(&back);
    sched_text_fini(&t);
    return 0;
}
