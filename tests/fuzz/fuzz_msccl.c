/* fuzz_msccl.c - the MSCCL XML reader (msccl_parse, which -a FILE reads
 * an <algo> file with) on any bytes: it must give a schedule whose every
 * transfer lies in its buffers, or refuse it with a sentence, never
 * crash, hang, read out of bounds or leak; the element-by-element check
 * must give a verdict with a sentence when it refuses; a schedule it
 * gives must write back as MSCCL XML that reads to the same schedule.
 *
 * Built and run by `make fuzz` (libFuzzer, with AddressSanitizer and
 * UndefinedBehaviorSanitizer); seeds in tests/fuzz/seeds/msccl/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/msccl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SchedText t, back;
    char why[512];
    if (msccl_parse((const char *)data, size, "f", &t, why, sizeof why)) {
        if (!why[0])
            abort();
        return 0;
    }
    const Schedule *s = &t.unit;
    for (size_t i = 0; i < s->nxfers; i++) {
        const Transfer *x = &s->xfers[i];
        if (x->src_off + x->count > sched_bufsize(s, x->src, x->src_buf) ||
            x->dst_off + x->count > sched_bufsize(s, x->dst, x->dst_buf) ||
            x->dst_buf == BUF_SEND || !x->count)
            abort();
    }
    if (sched_text_check(&t, NULL, why, sizeof why) && !why[0])
        abort();
    char *xml;
    size_t len;
    bool same = false;
    Schedule b; /* at the first one's count: the writer may cut coarser */
    if (msccl_write(s, &xml, &len) ||
        msccl_parse(xml, len, "f", &back, why, sizeof why) ||
        sched_text_build(&back, &s->call, false, &b) ||
        sched_same(s, &b, &same) || !same)
        abort();
    free(xml);
    sched_fini(&b);
    sched_text_fini(&back);
    sched_text_fini(&t);
    return 0;
}
