/* test_ui_keys.c - the key table: names round-trip, no key is bound twice,
 * every action a user needs has a key, and the help panel lists exactly
 * the bindings (generated from the same table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/view.h"

static void test_names_round_trip(void **state)
{
    assert_true(keys_count() > 20);
    for (size_t i = 0; i < keys_count(); i++) {
        const KeyBinding *b = keys_at(i);
        assert_int_equal(keys_parse(b->name), b->key);
        assert_int_equal(keys_action(b->key), b->act);
        assert_true(b->act > ACT_NONE && b->act < ACT_COUNT);
        for (size_t j = i + 1; j < keys_count(); j++) {
            assert_int_not_equal(b->key, keys_at(j)->key);
            assert_string_not_equal(b->name, keys_at(j)->name);
        }
    }
    assert_null(keys_at(keys_count()));
    assert_int_equal(keys_parse("NoSuchKey"), -1);
    assert_int_equal(keys_parse(""), -1);
    assert_int_equal(keys_parse("%"), '%');
    assert_int_equal(keys_action('%'), ACT_NONE);
}

/* What the issue asks for is reachable from the keyboard, and the
 * presentation clicker's PgDn/PgUp step. */
static void test_required_actions(void **state)
{
    static const Action need[] = {
        ACT_NEXT,        ACT_PREV,       ACT_FIRST,      ACT_LAST,
        ACT_PLAY,        ACT_FASTER,     ACT_SLOWER,     ACT_MENU_COLL,
        ACT_MENU_ALGO,   ACT_MENU_RANKS, ACT_MENU_SIZE,  ACT_MENU_DTYPE,
        ACT_MENU_OP,     ACT_MENU_ROOT,  ACT_MENU_BACKEND, ACT_BENCH,
        ACT_TOGGLE_TOPO, ACT_TOGGLE_TIMELINE, ACT_TOGGLE_CHART, ACT_HELP,
        ACT_QUIT,        ACT_CANCEL,     ACT_SWEEP,      ACT_COMPARE,
    };
    char names[128];
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        keys_names(need[i], " ", names, sizeof names);
        assert_true(strlen(names) > 0);
        assert_true(strlen(action_help(need[i])) > 0);
    }
    assert_string_equal(keys_names(ACT_NEXT, "/", names, sizeof names),
                        "Right/PgDn/n");
    assert_int_equal(keys_action(keys_parse("PgUp")), ACT_PREV);
    /* a tiny buffer is never overrun */
    keys_names(ACT_NEXT, " ", names, 3);
    assert_true(strlen(names) < 3);
}

static void test_action_names(void **state)
{
    for (int a = 0; a < ACT_COUNT; a++) {
        assert_int_equal(action_parse(action_name((Action)a)), a);
        for (int b = a + 1; b < ACT_COUNT; b++)
            assert_string_not_equal(action_name((Action)a),
                                    action_name((Action)b));
    }
    assert_int_equal(action_parse("bogus"), -1);
}

/* The help panel shows every bound action's help text and keys. */
static void test_help_from_table(void **state)
{
    App app;
    memset(&app, 0, sizeof app);
    Grid g;
    grid_init(&g, 160, 40, false);
    view_help.draw(&app, &g, grid_rect(&g));
    char *text = grid_dump(&g, false);
    char names[128];
    for (size_t i = 0; i < keys_count(); i++) {
        Action a = keys_at(i)->act;
        assert_non_null(strstr(text, action_help(a)));
        keys_names(a, " ", names, sizeof names);
        assert_non_null(strstr(text, names));
    }
    /* and nothing that is not bound */
    for (int a = 1; a < ACT_COUNT; a++) {
        keys_names((Action)a, " ", names, sizeof names);
        if (!names[0])
            assert_null(strstr(text, action_help((Action)a)));
    }
    free(text);
    grid_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_round_trip),
        cmocka_unit_test(test_required_actions),
        cmocka_unit_test(test_action_names),
        cmocka_unit_test(test_help_from_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
