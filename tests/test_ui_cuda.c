/* test_ui_cuda.c - the TUI stepping on -B cuda (the tests' driver,
 * tests/fake_cuda/): every algorithm stepped forward and back with the
 * device buffers (read through the backend's host mirror) checked
 * against the symbolic state after every step, on one device and on
 * several; the scripted binary's header names the backend. Skipped in a
 * build without the backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "ui/app.h"
#include "ui/menu.h"
#include "ui/scene.h"

#include "call_fixture.h"

static int setup(void **state)
{
    (void)state;
    setenv("XDG_CACHE_HOME", "/nonexistent/collviz-test-cache", 1);
    const char *real = getenv("COLLVIZ_TEST_REAL_GPU"); /* make test-gpu */
    if (real && !strcmp(real, "1"))
        return 0;
    setenv("COLLVIZ_LIBCUDA", FAKE_CUDA_LIB, 1);
    setenv("COLLVIZ_LIBNCCL", "/nonexistent/libnccl.so.2", 1);
    setenv("FAKE_CUDA_DEVICES", "1", 1);
    return 0;
}

static void need_cuda(void)
{
    char why[300];
    if (!exec_find("cuda", why, sizeof why)) {
        print_message("skipped: %s\n", why);
        skip();
    }
}

static void act(App *app, Action a)
{
    Request r = {.act = a};
    app_apply(app, &r);
}

/* Forward through every step, every state right; then back to the
 * start, each state as it was on the way forward (the step counter and
 * no wrong element). */
static void step_there_and_back(const AlgoInfo *a, int p, bool in_place)
{
    if (!call_defined(a->coll, p, in_place))
        return; /* no such call (call_fixture.h) */
    App app;
    AppOptions o = app_options(a->coll, a->name, p, true);
    char why[300] = "";
    o.in_place = in_place;
    o.root = coll_is_rooted(a->coll) ? p - 1 : 0;
    o.backend = "cuda";
    CvError e = app_init(&app, &o, why, sizeof why);
    if (e)
        fail_msg("%s %s p=%d: %s", coll_name(a->coll), a->name, p, why);
    assert_string_equal(app.scene->backend->name, "cuda");
    size_t n = app.scene->sched.nsteps;
    for (size_t k = 0; k <= n; k++) {
        if (k)
            act(&app, ACT_NEXT);
        assert_int_equal(app.scene->step, k);
        assert_true(app.scene->check.real_ok);
        if (app.scene->check.nwrong)
            fail_msg("%s %s p=%d step %zu: %zu wrong", coll_name(a->coll),
                     a->name, p, k, app.scene->check.nwrong);
    }
    for (size_t k = n + 1; k-- > 0;) {
        if (k < n)
            act(&app, ACT_PREV);
        assert_int_equal(app.scene->step, k);
        assert_true(app.scene->check.real_ok);
        assert_int_equal(app.scene->check.nwrong, 0);
    }
    app_fini(&app);
}

static void test_every_algorithm_steps(void **state)
{
    (void)state;
    need_cuda();
    static const int ps[] = {1, 3, 4};
    for (int devs = 1; devs <= 2; devs++) {
        setenv("FAKE_CUDA_DEVICES", devs == 1 ? "1" : "2", 1);
        for (size_t i = 0; i < algo_count(); i++)
            for (size_t pi = 0; pi < sizeof ps / sizeof ps[0] &&
                                !algo_at(i)->fits; pi++) /* fits: elsewhere */
                step_there_and_back(algo_at(i), ps[pi], (i + pi + (size_t)devs) % 2);
    }
    setenv("FAKE_CUDA_DEVICES", "1", 1);
}

/* The binary, scripted: stepping to the end on -B cuda, the last frame
 * dumped; its header says which backend runs the steps. */
static void test_scripted(void **state)
{
    (void)state;
    need_cuda();
    const char *bin = getenv("COLLVIZ");
    if (!bin) {
        print_message("skipped: COLLVIZ (the binary) is not set\n");
        skip();
    }
    char script[] = "/tmp/collviz-cuda-script-XXXXXX";
    int fd = mkstemp(script);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("Right\nRight\nRight\nEnd\nwait\n", f);
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s tui allreduce -a ring -p 4 -B cuda --script %s "
             "--screen 120x40 --dump 2>&1", bin, script);
    FILE *out = popen(cmd, "r");
    assert_non_null(out);
    char buf[65536];
    size_t got = fread(buf, 1, sizeof buf - 1, out);
    buf[got] = '\0';
    int rc = pclose(out);
    remove(script);
    if (rc != 0 || !strstr(buf, "cuda"))
        fail_msg("status %d, screen:\n%s", rc, buf);
}

/* The index of the cuda item of a backend menu. */
static int cuda_item(void)
{
    for (int i = 0; exec_name_at((size_t)i); i++)
        if (!strcmp(exec_name_at((size_t)i), "cuda"))
            return i;
    fail_msg("no cuda among the backends");
    return -1;
}

/* The backend menu of a threads scene asks cuda once per session: with
 * the tests' driver it is offered; with no driver at COLLVIZ_LIBCUDA it is
 * greyed with the reason its open gives, and the answer is kept (a
 * second menu of the same session does not ask again). */
static void test_backend_menu_asks_once(void **state)
{
    need_cuda();
    const char *real = getenv("COLLVIZ_TEST_REAL_GPU");
    if (real && !strcmp(real, "1"))
        skip(); /* the driver paths below are the tests' own */
    App app;
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 4, true);
    char why[300] = "";
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    int c = cuda_item();
    Menu m;
    for (int run = 0; run < 2; run++) {
        /* the tests' driver, then a driver that is not there: a fresh
         * cache answers each; the session's cache keeps its first answer */
        setenv("COLLVIZ_LIBCUDA", run ? "/nonexistent/libcuda.so.1"
                                      : FAKE_CUDA_LIB, 1);
        MenuBackends fresh = {0};
        assert_true(menu_open(&m, MENU_BACKEND, app.scene, &fresh));
        assert_true(fresh.asked[c]);
        assert_int_equal(m.greyed[c], run == 1);
        assert_false(m.greyed[0]); /* threads, the scene's own */
        if (run) {
            assert_non_null(strstr(m.label[c], "cuda"));
            assert_non_null(strstr(m.label[c], "libcuda"));
            assert_non_null(strstr(fresh.why[c], "libcuda"));
        } else {
            assert_string_equal(m.label[c], "cuda");
        }
        assert_true(menu_open(&m, MENU_BACKEND, app.scene,
                              &app.mode.backends));
        assert_false(m.greyed[c]); /* asked first with the tests' driver */
    }
    /* the menu through the App's key greys nothing it asked already */
    Request r = {.act = ACT_MENU_BACKEND};
    app_apply(&app, &r);
    assert_int_equal(app.mode.kind, MODE_MENU);
    assert_false(app.mode.menu.greyed[c]);
    app_fini(&app);
    setenv("COLLVIZ_LIBCUDA", FAKE_CUDA_LIB, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm_steps),
        cmocka_unit_test(test_scripted),
        cmocka_unit_test(test_backend_menu_asks_once),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
