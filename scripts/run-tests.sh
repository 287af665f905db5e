#!/bin/sh
# run-tests.sh - run cmocka test programs, several at a time, and sum up
# their tests.
#
# usage: sh scripts/run-tests.sh PROGRAM...
# The programs run TEST_JOBS at a time (default: the CPUs plus one; many
# wait on processes, sockets or a terminal), the first named first. Those
# named in TESTS_ALONE (program names: MPI jobs of more ranks than cores,
# whose ranks spin or yield while they wait, and take many times as long
# beside other work; programs that compare times of real runs) run last,
# one at a time with nothing beside them.
# Every program runs even when one fails. Each
# gets one line as it ends (its tests as cmocka counts them, and its time
# where it took 10 s or more). At the end come the failed programs' whole
# output (every program's with V=1), their reasons (cmocka's error and
# failed-test lines, a sanitizer's report line, up to 8 a program, where a
# log's tail is all one sees), then the total, "N passed, N failed, N
# skipped"; the exit status is 1 when a test failed or a program ended
# without cmocka's summary (a crash).
set -u

# One program, run by the pool below: its output, its line, and its
# figures ("passed failed skipped") and reasons in files of the folder.
if [ "${1:-}" = --one ]; then
    dir=$2 t=$3
    name=${t##*/}
    out="$dir/$name.out"
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
    if [ "$f" -ne 0 ]; then
        # cmocka's messages and failing tests, a sanitizer's report
        { grep -E '^(ERROR: |\[  (ERROR|FAILED) +\] [^0-9]|\[   LINE   \] )|==[0-9]+==ERROR: |runtime error: |^WARNING: ThreadSanitizer' "$out" |
              awk '!seen[$0]++' | head -n 8 | while IFS= read -r l; do printf '%s: %s\n' "$name" "$l"; done
          [ -n "$ran" ] || echo "$name: ended without cmocka's summary (exit $rc)"
          [ -z "$ran" ] || [ "$rc" -eq 0 ] || [ -n "$said" ] ||
              echo "$name: exit $rc after its summary, no test failed"
        } > "$dir/$name.why"
    fi
    line=$(printf '%-22s %4d passed' "$name" "$p")
    [ "$f" -eq 0 ] || line="$line, $f failed"
    [ "$s" -eq 0 ] || line="$line, $s skipped"
    [ "$rc" -eq 0 ] || line="$line (exit $rc)"
    [ "$secs" -lt 10 ] || line="$line [$secs s]"
    echo "$p $f $s" > "$dir/$name.sum"
    echo "$line" # one short write: lines of programs ending together stay whole
    exit 0
fi

dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
self=$0
jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
pool= alone=
for t in "$@"; do
    case " ${TESTS_ALONE:-} " in
    *" ${t##*/} "*) alone="$alone $t" ;;
    *) pool="$pool $t" ;;
    esac
done
[ -z "$pool" ] ||
    printf '%s\n' $pool | xargs -P "$jobs" -I '{}' sh "$self" --one "$dir" '{}'
for t in $alone; do
    sh "$self" --one "$dir" "$t"
done

pass=0 fail=0 skip=0 bad=
for t in "$@"; do
    name=${t##*/}
    read -r p f s < "$dir/$name.sum" 2>/dev/null || { p=0 f=1 s=0; }
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
    if [ "$f" -ne 0 ] || [ "${V:-0}" = 1 ]; then
        echo "---- $name"
        sed 's/^/    /' "$dir/$name.out" 2>/dev/null
        [ "$f" -eq 0 ] || bad="$bad $name"
    fi
done
if [ -n "$bad" ]; then
    echo "failed:$bad"
    for name in $bad; do cat "$dir/$name.why" 2>/dev/null; done
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
