/* test_scene_opts.c - the options that choose a scene, parsed from one line
 * as a lesson gives them: good lines give the call, algorithm and size the
 * words say, with each command's defaults and limits; every bad line gives
 * exactly the sentence the command line gives for the same words (the
 * binary is run: $COLLVIZ, default build/collviz). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scene/scene_opts.h"
#include "cli_fixture.h"

/* ------------------------------------------------------------ good lines */

static SceneSpec parse_ok(const char *line, const SceneLimits *lim)
{
    SceneSpec sc;
    CliErr e = {{0}};
    if (scene_opts_parse_line(line, lim, &sc, &e))
        fail_msg("'%s': %s", line, e.msg);
    return sc;
}

static void test_good_lines(void **state)
{
    SceneSpec sc = parse_ok("allreduce -a ring -p 8 -s 64",
                            &scene_limits_trace);
    assert_int_equal(sc.call.kind, COLL_ALLREDUCE);
    assert_string_equal(sc.algo->name, "ring");
    assert_int_equal(sc.call.nranks, 8);
    assert_int_equal(sc.call.count, 16);
    assert_int_equal(sc.bytes, 64);
    assert_true(sc.bytes_given);
    assert_int_equal(sc.call.dtype, DT_FLOAT);
    assert_int_equal(sc.call.op, OP_SUM);

    sc = parse_ok("  broadcast\t-p 4 --size=1K -r 3 -d double --in-place ",
                  &scene_limits_trace);
    assert_int_equal(sc.call.kind, COLL_BROADCAST);
    assert_ptr_equal(sc.algo, algo_default(COLL_BROADCAST));
    assert_int_equal(sc.call.root, 3);
    assert_int_equal(sc.call.dtype, DT_DOUBLE);
    assert_int_equal(sc.call.count, 128);
    assert_true(sc.call.in_place);

    sc = parse_ok("reducescatter -p5 -s 60 -o max -d int32",
                  &scene_limits_trace);
    assert_int_equal(sc.call.count, 3); /* 60 bytes = 5 blocks of 3 int32 */
    assert_int_equal(sc.call.op, OP_MAX);

    sc = parse_ok("broadcast -a chain -p 4 -s 64 --segment 8",
                  &scene_limits_trace);
    assert_int_equal(sc.call.segment, 8);
}

/* The TUI's defaults: allreduce on 8 ranks at 64M; a default size that is
 * not whole blocks is rounded down, a given one must be whole. */
static void test_tui_defaults(void **state)
{
    SceneSpec sc = parse_ok("", &scene_limits_tui);
    assert_int_equal(sc.call.kind, COLL_ALLREDUCE);
    assert_int_equal(sc.call.nranks, 8);
    assert_int_equal(sc.bytes, 64ull << 20);
    assert_false(sc.bytes_given);
    assert_int_equal(sc.call.count, (64u << 20) / 4);

    sc = parse_ok("allgather -p 3", &scene_limits_tui);
    assert_int_equal(sc.call.count, (64u << 20) / 12);
    assert_int_equal(sc.bytes, 64ull << 20);

    sc = parse_ok("alltoall -p 64 -s 64K", &scene_limits_tui);
    assert_int_equal(sc.call.nranks, 64);
    assert_true(sc.bytes_given);
}

/* A lesson's scene keeps to what its questions execute symbolically, 1024
 * ranks, where trace prices up to 65536. */
static void test_lesson_ranks(void **state)
{
    (void)state;
    SceneSpec sc;
    CliErr e = {{0}};
    assert_int_equal(scene_opts_parse_line("allreduce -p 1025 -s 64K",
                                           &scene_limits_lesson, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "valid: 1 to 1024"));
    assert_int_equal(scene_opts_parse_line("allreduce -p 1024 -s 64K",
                                           &scene_limits_lesson, &sc, &e), 0);
    assert_int_equal(scene_opts_parse_line("allreduce -p 65536 -s 64K",
                                           &scene_limits_trace, &sc, &e), 0);
    assert_int_equal(scene_opts_parse_line("allreduce -p 65537 -s 64K",
                                           &scene_limits_trace, &sc, &e), -1);
}

/* Quotes keep a word's blanks (a path with a blank: the learner's copy
 * of a lesson's file under a state folder such as "my state"): '...' as
 * it is, "..." and a backslash outside quotes keep the next character;
 * a quote not closed is one sentence. */
static void test_quoted_words(void **state)
{
    (void)state;
    SceneSpec sc = parse_ok("'allreduce' -a \"halving-doubling\" -p 4 "
                            "-s '6'4", &scene_limits_trace);
    assert_int_equal(sc.call.kind, COLL_ALLREDUCE);
    assert_string_equal(sc.algo->name, "halving-doubling");
    assert_int_equal(sc.bytes, 64);
    sc = parse_ok("allreduce -a ri\\ng -p 4 -s 6\"4\"",
                  &scene_limits_trace);
    assert_string_equal(sc.algo->name, "ring");
    assert_int_equal(sc.bytes, 64);
    static const char *const bad[] = {
        "allreduce -a 'ring -p 4", "allreduce -a \"ring\\\" -p 4",
        "allreduce -a ring -p 4 -s '64"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CliErr e = {{0}};
        assert_int_equal(scene_opts_parse_line(bad[i], &scene_limits_trace,
                                               &sc, &e), -1);
        if (!strstr(e.msg, "a quote in the scene is not closed"))
            fail_msg("'%s': %s", bad[i], e.msg);
    }
    CliErr e = {{0}};
    assert_int_equal(scene_opts_parse_line("allreduce -a 'my ring' -p 4",
                                           &scene_limits_trace, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "my ring")); /* one word, blank kept */
    /* scene_opts_quote's quote keeps any word one word, as written */
    static const char *const words[] = {"my ring", "it's", "a\\b \"c\"",
                                        "tab\there"};
    assert_string_equal(scene_opts_quote("ring"), "");
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        const char *q = scene_opts_quote(words[i]);
        char line[200];
        snprintf(line, sizeof line, "allreduce -a %s%s%s -p 4", q, words[i], q);
        e = (CliErr){{0}};
        assert_int_equal(scene_opts_parse_line(line, &scene_limits_trace,
                                               &sc, &e), -1);
        if (!strstr(e.msg, words[i]))
            fail_msg("%s: %s", line, e.msg);
    }
}

/* ------------------------------------------------------------ bad lines */

/* What `collviz CMD LINE` writes on stderr (its status must be 2). */
static char *command_line_error(const char *cmd, const char *line)
{
    Out o;
    runf(&o, "%s %s", cmd, line);
    assert_int_equal(o.rc, 2);
    char *err = strdup(o.err);
    assert_non_null(err);
    out_free(&o);
    return err;
}

/* The line is refused with the command line's sentence. */
static void check_same_sentence(const char *line, const SceneLimits *lim)
{
    SceneSpec sc;
    CliErr e = {{0}};
    assert_int_equal(scene_opts_parse_line(line, lim, &sc, &e), -1);
    char want[600];
    char *got = command_line_error(lim->cmd, line);
    snprintf(want, sizeof want, "collviz: %s\n", e.msg);
    if (strcmp(got, want)) {
        got[strcspn(got, "\n")] = '\0';
        fail_msg("'%s': the line says 'collviz: %s', the command line '%s'",
                 line, e.msg, got);
    }
    free(got);
}

static void test_bad_lines_as_trace(void **state)
{
    static const char *const bad[] = {
        "",                                  /* missing collective */
        "allreduc -p 4 -s 64",               /* unknown collective */
        "allreduce -a nosuch -p 4 -s 64",    /* unknown algorithm */
        "allreduce -a bruck -p 4 -s 64",     /* another collective's */
        "allreduce -s 64",                   /* missing rank count */
        "allreduce -p 0 -s 64",              /* ranks out of range */
        "allreduce -p 65537 -s 64",
        "allreduce -p four -s 64",
        "allreduce -p 4",                    /* missing size */
        "allreduce -p 4 -s 64X",             /* not a size */
        "allreduce -p 4 -s -64",             /* negative */
        "allreduce -p 4 -s 2048G",           /* too large */
        "allreduce -p 4 -s 7 -d int32",      /* not whole elements */
        "allgather -p 3 -s 64",              /* not whole blocks */
        "allreduce -p 4 -s 64 -d int128",    /* unknown datatype */
        "allreduce -p 4 -s 64 -o xor",       /* unknown op */
        "reduce -p 4 -s 64 -r 4",            /* root out of range */
        "allreduce -p 4 -s 64 -r 1",         /* no root */
        "allreduce -p 4 -s 64 -x",           /* unknown option */
        "allreduce -p 4 -s 64 --in-place=1", /* a flag with a value */
        "allreduce -p 4 -s",                 /* a value missing */
        "allreduce ring -p 4 -s 64",         /* an extra word */
        "allreduce -p 4 -s 64 -T torus:4x4", /* a machine of 16 */
        "allreduce -p 4 -s 64 -T cube",      /* no such machine */
        "allreduce -p 4 -s 64 -T ring,x.bw=1", /* no class x */
        "allreduce -p 4 -s 64 --segment 8",  /* ring cuts no segments */
        "broadcast -a binomial -p 4 -s 64 --segment 8",
        "broadcast -a chain -p 4 -s 64 --segment 2", /* not a float */
        "broadcast -a chain -p 4 -s 64 --segment 1Q",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_same_sentence(bad[i], &scene_limits_trace);
}

/* The TUI's limits: 64 ranks, and the sizes it rounded before. */
static void test_bad_lines_as_tui(void **state)
{
    static const char *const bad[] = {
        "allreduce -p 65",
        "allreduce -d int32 -s 7",
        "allgather -p 3 -s 64",
        "allreduce -p 4 --json",
        "nosuch",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_same_sentence(bad[i], &scene_limits_tui);
}

/* -T: the shorthand is the scene's machine, parsed once with the scene
 * and again only for another rank count; a lesson's line names no file
 * (the command line may). */
static void test_machine(void **state)
{
    SceneSpec sc;
    CliErr e = {{0}};
    unsigned long before = spec_parse_count();
    assert_int_equal(scene_opts_parse_line("allreduce -p 8 -s 1K -T torus:4x2",
                                           &scene_limits_trace, &sc, &e), 0);
    assert_int_equal(spec_parse_count(), before + 1);
    assert_string_equal(sc.machine.given, "torus:4x2");
    assert_string_equal(sc.machine.spec, "torus:4x2");
    assert_int_equal(sc.machine.mach.kind, MACHINE_TORUS);
    assert_int_equal(sc.machine.mach.nranks, 8);
    assert_int_equal(sc.machine.mach.ndims, 2);
    assert_int_equal(sc.machine.mach.dim[0].size, 4);
    assert_int_equal(sc.machine.mach.dim[1].size, 2);
    /* the same ranks under the same parameters: nothing parsed */
    SpecModel cm;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    assert_int_equal(spec_machine_build(&sc.machine, 8, true, &cm, &e), 0);
    assert_int_equal(spec_parse_count(), before + 1);
    /* 16 ranks: the squarest torus of two dimensions, 4x4, parsed once */
    assert_int_equal(spec_machine_build(&sc.machine, 16, true, &cm, &e), 0);
    assert_int_equal(spec_parse_count(), before + 2);
    assert_string_equal(sc.machine.given, "torus:4x2");
    assert_string_equal(sc.machine.spec, "torus:4x4");
    assert_int_equal(sc.machine.mach.nranks, 16);
    /* without reshaping, a shape of 8 ranks does not hold 16 */
    SpecMachine fixed;
    assert_int_equal(spec_machine_name(&fixed, "torus:4x2", &e), 0);
    assert_int_equal(spec_machine_build(&fixed, 16, false, &cm, &e), -1);
    assert_non_null(strstr(e.msg, "has 8 ranks but the call has 16"));
    /* other parameters: built again */
    cm.m.alpha *= 2;
    assert_int_equal(spec_machine_build(&sc.machine, 16, true, &cm, &e), 0);
    assert_int_equal(spec_parse_count(), before + 4);
    assert_int_equal(scene_opts_parse_line("allreduce -p 8 -s 1K",
                                           &scene_limits_trace, &sc, &e), 0);
    assert_string_equal(sc.machine.given, "");
    assert_int_equal(sc.machine.mach.nranks, 0); /* the flat one: not built */
    assert_int_equal(scene_opts_parse_line("allreduce -p 8 -s 1K -T ./m.yml",
                                           &scene_limits_trace, &sc, &e), -1);
    assert_non_null(strstr(e.msg, "not by a file"));
}

static void test_too_many_words(void **state)
{
    char line[512] = "allreduce";
    for (int i = 0; i < 40; i++)
        strcat(line, " -p 4");
    SceneSpec sc;
    CliErr e = {{0}};
    assert_int_equal(scene_opts_parse_line(line, &scene_limits_trace, &sc, &e),
                     -1);
    assert_non_null(strstr(e.msg, "more than 63 words"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_lines),
        cmocka_unit_test(test_quoted_words),
        cmocka_unit_test(test_tui_defaults),
        cmocka_unit_test(test_lesson_ranks),
        cmocka_unit_test(test_bad_lines_as_trace),
        cmocka_unit_test(test_bad_lines_as_tui),
        cmocka_unit_test(test_too_many_words),
        cmocka_unit_test(test_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
