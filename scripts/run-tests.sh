#!/bin/sh
# run-tests.sh - run cmocka test programs and sum up their tests.
#
# usage: sh scripts/run-tests.sh PROGRAM...
# Every program runs even when one fails. Each gets one line (its tests as
# cmocka counts them); a failing program's whole output follows its line,
# and V=1 shows every program's output. At the end the failures' reasons
# are said again (cmocka's error lines, up to 8 a program, where a log's
# tail is all one sees), then the last line is the total,
# "N passed, N failed, N skipped", and the exit status is 1 when a test
# failed or a program ended without cmocka's summary (a crash).
set -u
out=$(mktemp) || exit 1
why=$(mktemp) || exit 1
trap 'rm -f "$out" "$why"' EXIT INT TERM
pass=0 fail=0 skip=0 bad=
for t in "$@"; do
    name=${t##*/}
    "$t" >"$out" 2>&1
    rc=$?
    # cmocka's summary: "[  PASSED  ] 5 test(s)." and so on.
    count() { sed -n "s/^\[  *$1 *\] \([0-9][0-9]*\) test.*/\1/p" "$out" | tail -n 1; }
    p=$(count PASSED); f=$(count FAILED); s=$(count SKIPPED)
    p=${p:-0} f=${f:-0} s=${s:-0}
    ran=$(sed -n 's/^\[=*\] \([0-9][0-9]*\) test(s) run\..*/\1/p' "$out" | tail -n 1)
    # A program that ended without its summary, or failed without saying
    # which test, counts one failed test.
    if [ -z "$ran" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
        f=$((f + 1))
    fi
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
    line=$(printf '%-22s %4d passed' "$name" "$p")
    [ "$f" -eq 0 ] || line="$line, $f failed"
    [ "$s" -eq 0 ] || line="$line, $s skipped"
    [ "$rc" -eq 0 ] || line="$line (exit $rc)"
    echo "$line"
    if [ "$f" -ne 0 ] || [ "${V:-0}" = 1 ]; then
        sed 's/^/    /' "$out"
        [ "$f" -eq 0 ] || bad="$bad $name"
    fi
    if [ "$f" -ne 0 ]; then
        grep -E '^(ERROR: |\[  ERROR   \] --- )' "$out" | head -n 8 |
            sed "s/^/$name: /" >> "$why"
        [ -n "$ran" ] || echo "$name: ended without cmocka's summary (exit $rc)" >> "$why"
    fi
done
[ -z "$bad" ] || { echo "failed:$bad"; cat "$why"; }
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
