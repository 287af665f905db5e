/* fuzz_machine.c - the machine file parser (machine_file_parse, which -T
 * reads every machine file with) on any bytes: it must give a machine
 * whose every value is in range, or refuse it with a sentence and a line
 * within the file, never crash, read out of bounds or leak; a machine it
 * gives must route every pair it is asked for within machine_max_hops,
 * past its down links, and write back as a file that parses to the same
 * machine, its fixes too.
 *
 * Built and run by `make fuzz` (libFuzzer, with AddressSanitizer and
 * UndefinedBehaviorSanitizer); seeds in tests/fuzz/seeds/machine/. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lines_in(const uint8_t *data, size_t size)
{
    int n = 1;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n;
}

static void check(const Machine *m)
{
    if (m->nranks < 1 || m->nranks > MACHINE_MAX_RANKS || m->ndims < 1 ||
        m->ndims > MACHINE_MAX_DIMS || !(m->gamma >= 0))
        abort();
    int rated = 0; /* a bus's ports carry no bytes: some class does */
    for (int c = 0; c < m->ncls; c++) {
        if (!(m->cls[c].beta >= 0) || !isfinite(m->cls[c].beta) ||
            !(m->cls[c].lat >= 0) || !(m->cls[c].alpha >= 0))
            abort();
        rated += m->cls[c].beta > 0;
    }
    if (!rated || m->nfix < 0 || m->nfix > MACHINE_MAX_FIXES)
        abort();
    int links[512], cap = machine_max_hops(m) + 1;
    if (cap > 512)
        return;
    for (int k = 0; k < 64; k++) { /* some pairs, spread over the ranks */
        int s = (int)((unsigned)k * 2654435761u % (unsigned)m->nranks);
        int d = (int)((unsigned)k * 40503u % (unsigned)m->nranks);
        int n = machine_route(m, s, d, links, cap);
        if (n > cap - 1 || (s != d && n == 0))
            abort();
        for (int i = 0; i < n; i++)
            if (links[i] < 0 || links[i] >= m->nlinks ||
                machine_link_down(m, links[i]))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Machine m, back;
    MachineFileErr e;
    if (machine_file_parse((const char *)data, size, 5e-11, &m, &e)) {
        if (!e.msg[0] || e.line < 0 || e.line > lines_in(data, size))
            abort();
        return 0;
    }
    check(&m);
    char buf[2048];
    size_t need;
    if (machine_file_write(&m, buf, sizeof buf, &need) || need >= sizeof buf ||
        machine_file_parse(buf, need, 0, &back, &e) || back.nranks != m.nranks ||
        back.nfix != m.nfix || back.ndown != m.ndown || back.kind != m.kind)
        abort();
    for (int i = 0; i < m.ndims; i++)
        if (back.dim[i].kind != m.dim[i].kind ||
            back.dim[i].size != m.dim[i].size ||
            back.dim[i].reduce != m.dim[i].reduce)
            abort();
    return 0;
}
