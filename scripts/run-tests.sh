#!/bin/sh
# run-tests.sh - run cmocka test programs and sum up their tests.
#
# usage: sh scripts/run-tests.sh PROGRAM...
# Every program runs even when one fails. Each gets one line (its tests as
# cmocka counts them, and its time where it took 10 s or more); a failing
# program's whole output follows its line, and V=1 shows every program's
# output. At the end the failures' reasons
# are said again (cmocka's error and failed-test lines, a sanitizer's
# report line, up to 8 a program, where a log's tail is all one sees),
# then the last line is the total,
# "N passed, N failed, N skipped", and the exit status is 1 when a test
# failed or a program ended without cmocka's summary (a crash).
set -u
out=$(mktemp) || exit 1
why=$(mktemp) || exit 1
trap 'rm -f "$out" "$why"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pass=0 fail=0 skip=0 bad=
for t in "$@"; do
    name=${t##*/}
    t0=$(date +%s)
    "$t" >"$out" 2>&1
    rc=$?
    secs=$(($(date +%s) - t0))
    # cmocka's summary: "[  PASSED  ] 5 test(s)." and so on.
    count() { sed -n "s/^\[  *$1 *\] \([0-9][0-9]*\) test.*/\1/p" "$out" | tail -n 1; }
    p=$(count PASSED); said=$(count FAILED); s=$(count SKIPPED)
    p=${p:-0} f=${said:-0} s=${s:-0}
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
    [ "$secs" -lt 10 ] || line="$line [$secs s]"
    echo "$line"
    if [ "$f" -ne 0 ] || [ "${V:-0}" = 1 ]; then
        sed 's/^/    /' "$out"
        [ "$f" -eq 0 ] || bad="$bad $name"
    fi
    if [ "$f" -ne 0 ]; then
        # cmocka's messages and failing tests, a sanitizer's report
        grep -E '^(ERROR: |\[  (ERROR|FAILED) +\] [^0-9]|\[   LINE   \] )|==[0-9]+==ERROR: |runtime error: |^WARNING: ThreadSanitizer' "$out" |
            awk '!seen[$0]++' | head -n 8 | while IFS= read -r l; do printf '%s: %s\n' "$name" "$l"; done >> "$why"
        [ -n "$ran" ] || echo "$name: ended without cmocka's summary (exit $rc)" >> "$why"
        [ -z "$ran" ] || [ "$rc" -eq 0 ] || [ -n "$said" ] ||
            echo "$name: exit $rc after its summary, no test failed" >> "$why"
    fi
done
[ -z "$bad" ] || { echo "failed:$bad"; cat "$why"; }
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
