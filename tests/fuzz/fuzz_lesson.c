/* fuzz_lesson.c - the lesson parser (lesson.h) and the checkpoint query
 * language (query.h) on any bytes: the parser must return CV_OK or its
 * problems, each with a sentence; every query of a lesson that parses is
 * evaluated over a small scene (those that name their own with 'on' are
 * parsed only up to it, so that one input cannot ask for a schedule of a
 * thousand ranks) and its value compared with the lesson's answers.
 * Never a crash, an out-of-bounds read, a leak or unbounded time.
 *
 * Built and run by `make fuzz`; seeds in tests/fuzz/seeds/lesson/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson.h"
#include "lesson/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void queries(const Lesson *l)
{
    static SceneSpec scene;
    static int ready;
    CliErr e;
    if (!ready)
        ready = scene_opts_parse_line("allreduce -a ring -p 4 -s 64",
                                      &scene_limits_trace, &scene, &e) == 0;
    for (size_t i = 0; ready && i < l->nitems; i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind != LI_CHECK || !it->query || strstr(it->query, "on"))
            continue;
        QueryValue v;
        char why[512] = "";
        if (query_eval(it->query, &scene, "x", &v, why, sizeof why)) {
            if (!why[0])
                abort(); /* every refusal says why */
            continue;
        }
        for (size_t k = 0; k < it->nanswers; k++)
            (void)query_match(&v, it->answers[k]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Lesson l;
    LessonDiags d = {0};
    CvError e = lesson_parse((const char *)data, size, &l, &d);
    if (e == CV_ERR_ARG && !d.n)
        abort(); /* every problem is reported */
    for (size_t i = 0; i < d.n; i++)
        if (!d.d[i].msg[0])
            abort();
    if (e == CV_OK)
        queries(&l);
    lesson_fini(&l);
    lesson_diags_fini(&d);
    return 0;
}
