#!/bin/sh
# e2e_tmux.sh - the real collviz binary in a real terminal (tmux): start,
# step (arrow and PgDn), change the algorithm from its menu, resize below
# the minimum and back, type a size in the size menu, quit; quit during a
# long timed run (the process must be gone within 2 seconds); then Ctrl-C,
# SIGTERM and a fatal signal; the lesson player (a checkpoint answered
# wrong then right, resumed after quitting, Ctrl-C); the teacher's script
# of issue 22 and the machine half of the lecture (a torus and two nodes
# drawn big, NVLS in chunks, the chart, the frames). After each run the
# terminal must be sane again (stty: icanon and echo back on).
#
# usage: sh tests/e2e_tmux.sh PATH/TO/collviz
# exit: 0 passed, 1 failed, 77 skipped (no tmux).
set -u
bin=${1:?usage: e2e_tmux.sh PATH/TO/collviz}
if ! command -v tmux >/dev/null 2>&1; then
    echo "e2e: SKIP: tmux is not installed (apt-get install tmux)"
    exit 77
fi
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
. "$(dirname "$0")/../scripts/tmux-fresh.sh"
work=$(mktemp -d)
sock="collviz-e2e-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT INT TERM
export XDG_CACHE_HOME="$work/cache"

# The screen first, the reason last (where a log's tail is all one sees).
# The reason also quotes the screen's first two lines, or says it was empty.
fail() {
    echo "---- screen ----"
    cat "$work/screen" 2>/dev/null
    seen=$(grep -v '^[[:space:]]*$' "$work/screen" 2>/dev/null | head -n 2 |
           sed 's/[[:space:]][[:space:]]*/ /g' | tr '\n' '/' | sed 's|/$||')
    echo "e2e: FAIL: $1 (the screen: ${seen:-empty})"
    exit 1
}

# This script's own patterns hold UTF-8 text ('─+'): its greps run in a
# UTF-8 locale whatever the caller's (collviz's own locale is each test's).
gl=
for l in C.UTF-8 C.utf8 en_US.UTF-8; do
    [ "$(LC_ALL=$l locale charmap 2>/dev/null)" = UTF-8 ] && { gl=$l; break; }
done
grep() { if [ -n "$gl" ]; then LC_ALL=$gl command grep "$@"; else command grep "$@"; fi; }

# Capture the pane (with -e its colours) into $1 once two captures 0.2 s
# apart agree, up to 5 seconds: a screen still being drawn is not read.
settle() {
    s_n=0
    tm capture-pane $2 -p -t "${tgt:-e2e}" > "$1.a"
    while [ $s_n -lt 25 ]; do
        sleep 0.2
        tm capture-pane $2 -p -t "${tgt:-e2e}" > "$1"
        cmp -s "$1" "$1.a" && return 0
        cp "$1" "$1.a"
        s_n=$((s_n + 1))
    done
    fail "the screen never settled ($1)"
}

# Wait until the pane shows text (grep -E pattern), up to 15 seconds (or
# $3 tenths of a second). (settle and wait_for read session $tgt, e2e
# when it is empty.)
wait_for() {
    i=0
    while [ $i -lt "${3:-150}" ]; do
        tm capture-pane -p -t "${tgt:-e2e}" > "$work/screen" 2>/dev/null
        grep -Eq -- "$1" "$work/screen" && return 0
        sleep 0.1
        i=$((i + 1))
    done
    fail "'$1' never appeared ($2)"
}

# A new session e2e running $1 (the old server waited out); where none
# starts, the reason is tmux's, not the last screen.
new_session() {
    tmux_fresh e2e "$1" 2> "$work/fresh.err" ||
        { rm -f "$work/screen"; fail "$(cat "$work/fresh.err")"; }
}

# Start collviz in a new session; after it exits the shell prints its
# status and the terminal settings, and stays for capture.
start() {
    cat > "$work/run.sh" <<EOF
trap : INT
${2:-} sh -c 'echo \$\$ > "$work/pid"; exec "$bin" $1'
echo "exit=\$?"
stty -a | tr ';' '\n' | tr ' ' '\n' | grep -E '^-?(icanon|echo)\$' | tr '\n' ' '
echo "<stty"
sleep 60
EOF
    new_session "sh $work/run.sh"
}

# After collviz exits: its status and a sane terminal (the normal screen,
# canonical input with echo).
check_exit() {
    wait_for "exit=$1" "$2"
    wait_for "<stty" "stty output"
    [ "$(tm display-message -p -t e2e '#{alternate_on}')" = 0 ] ||
        fail "terminal left in the alternate screen ($2)"
    grep -q -- "-icanon" "$work/screen" && fail "terminal left without icanon ($2)"
    grep -q -- "-echo " "$work/screen" && fail "terminal left without echo ($2)"
    grep -Eq "(^| )icanon( |$)" "$work/screen" || fail "no icanon in stty ($2)"
    echo "e2e: ok: $2"
}

# 1. start, step, change the algorithm, resize, quit
utf8=
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' && utf8="LC_ALL=C.UTF-8"
start "allreduce -p 8 -a ring" "$utf8"
wait_for "step 0 of 15" "start"
[ -z "$utf8" ] || wait_for "┌ Buffers ─+┐" "Unicode line drawing (UTF-8)"
wait_for "allreduce \| ring \| 8 ranks" "header"
tm send-keys -t e2e Right
wait_for "step 1 of 15" "Right steps"
tm send-keys -t e2e NPage
wait_for "step 2 of 15" "PgDn steps"
tm send-keys -t e2e Left
wait_for "step 1 of 15" "Left steps back"
tm send-keys -t e2e a
wait_for "Algorithm" "the algorithm menu"
tm send-keys -t e2e Down Enter
wait_for "step 0 of" "a new algorithm starts at step 0"
grep -q "| ring |" "$work/screen" && fail "the algorithm did not change"
tm resize-window -t e2e -x 70 -y 20
wait_for "needs at least 80x24" "too small"
tm resize-window -t e2e -x 120 -y 40
wait_for "step 0 of" "resized back"
grep -q "needs at least" "$work/screen" && fail "the too-small message stayed"
tm send-keys -t e2e s 3 X BSpace M Enter
wait_for "\| 3 MiB \|" "a size typed in the size menu, Backspace erasing"
tm send-keys -t e2e q
check_exit 0 "start, step, algorithm, resize, size, quit"

# 1b. quit during a timed run that would last half a minute (2 GiB of
#     buffers: loading, a checked run of 126 steps, timed iterations): the
#     background work stops and the process is gone within 2 seconds
#     (E2E_QUIT_SIZE and E2E_QUIT_LIMIT_S: test_ui_e2e's, smaller and
#     longer under a sanitizer)
start "allreduce -p 64 -s ${E2E_QUIT_SIZE:-16M}"
wait_for "step 0 of" "start for m then q"
tm send-keys -t e2e m
# no calibration in the fresh cache: a quick one runs first, as perf does
wait_for "running +(timed run|calibrating)" "m starts a timed run"
sleep 1
pid=$(cat "$work/pid")
tm send-keys -t e2e q
i=0
while kill -0 "$pid" 2>/dev/null; do
    [ $i -lt $((${E2E_QUIT_LIMIT_S:-2} * 10)) ] ||
        fail "still running ${E2E_QUIT_LIMIT_S:-2} seconds after q during a timed run"
    sleep 0.1
    i=$((i + 1))
done
check_exit 0 "quit during a timed run ($i/10 s)"

# 2. no UTF-8 locale and NO_COLOR: ASCII frames, monochrome; Ctrl-C
#    restores the terminal and says so
start "broadcast -p 4" "LC_ALL=C NO_COLOR=1"
wait_for "step 0 of" "start for Ctrl-C"
wait_for "\+ Buffers -+\+" "ASCII line drawing without a UTF-8 locale"
tm send-keys -t e2e C-c
check_exit 130 "Ctrl-C"
grep -q "stopped by Interrupt" "$work/screen" || fail "no sentence after Ctrl-C"

# 3. SIGTERM likewise
start "alltoall -p 5"
wait_for "step 0 of" "start for SIGTERM"
kill -TERM "$(cat "$work/pid")"
check_exit 143 "SIGTERM"
grep -q "stopped by Terminated" "$work/screen" || fail "no sentence after SIGTERM"

# 4. a fatal signal: the handler restores the tty, then the default action
start "reduce -p 3"
wait_for "step 0 of" "start for SIGSEGV"
kill -SEGV "$(cat "$work/pid")"
check_exit 139 "fatal signal (SIGSEGV)"

# 5. every other signal whose default action ends the process: the tty
#    comes back first (status 128 + the signal's number)
for sig in QUIT:131 USR1:138 USR2:140 ALRM:142 PIPE:141; do
    start "allgather -p 3"
    wait_for "step 0 of" "start for SIG${sig%%:*}"
    kill -"${sig%%:*}" "$(cat "$work/pid")"
    check_exit "${sig#*:}" "SIG${sig%%:*}"
done

# 6. the teacher's script: ring allreduce on 8 ranks stepped to the end
#    and back, butterfly and halving-doubling, 5 ranks, the timed run
#    (calibrating quickly first: the counters then name the calibration
#    and split the cost into its terms), the sweep of every algorithm
#    (the chart marks a crossover), presenter mode at 100x30, quit
start "allreduce -a ring -p 8 -s 1M" "$utf8"
wait_for "step 0 of 15" "teacher: start"
wait_for "model +defaults" "teacher: the counters say the defaults price the run"
wait_for "K: calibrate" "teacher: the key that calibrates"
tm send-keys -t e2e End
wait_for "step 15 of 15" "teacher: to the end"
tm send-keys -t e2e Home
wait_for "step 0 of 15" "teacher: back to the start"
tm send-keys -t e2e a Down Down Down Enter
wait_for "\| butterfly \|" "teacher: butterfly"
tm send-keys -t e2e a Down Enter
wait_for "\| halving-doubling \|" "teacher: halving-doubling"
tm send-keys -t e2e r Up Up Up Enter
wait_for "\| 5 ranks \|" "teacher: 5 ranks"
tm send-keys -t e2e Right m
wait_for "Timed run, results verified" "teacher: the timed run (after a quick calibration)" 1200
wait_for "model +calibrated" "teacher: the counters name the calibration"
wait_for " a \+ [0-9.]+[KMG]? b \+ [0-9.]+[KMG]? g" "teacher: the cost split into terms"
wait_for "= [0-9.]+ \+ [0-9.]+ \+ [0-9.]+ (ns|us|ms|s)" "teacher: each term's time"
tm send-keys -t e2e 1 C
wait_for "Sweep done" "teacher: the sweep of every algorithm" 1200
grep -Eq "[─┴-]X[─┴-]|X[─┴-]+│" "$work/screen" ||
    fail "teacher: no crossover marked on the chart's size axis"
tm send-keys -t e2e P
wait_for "Transfers" "teacher: presenter mode"
wait_for "step +measured" "teacher: presenter mode's counter line"
tm send-keys -t e2e Right
wait_for "Every rank|Ranks .* apart|Ranks? [0-9]" "teacher: the step's sentence"
tm send-keys -t e2e F
wait_for "^┌ Chart|^\+ Chart" "teacher: the chart over the whole screen"
wait_for "3 of [0-9]+: the best; V: others" "teacher: the chart shows three algorithms"
grep -q "Buffers" "$work/screen" && fail "teacher: the full-screen chart left the buffers"
tm send-keys -t e2e F
wait_for "Buffers" "teacher: back from the full-screen chart"
tm send-keys -t e2e L
wait_for "collviz learn: lessons" "teacher: L opens the lessons"
tm send-keys -t e2e q
wait_for "step 2 of" "teacher: quitting the lessons comes back to the same step"
tm send-keys -t e2e u
wait_for "Scene: allreduce -a halving-doubling -p 5 -s 1M --present --step 2" \
    "teacher: the scene string"
tm send-keys -t e2e w
wait_for "halving-doubling-p5-step2\.svg" "teacher: w's file name (its end)"
for i in $(seq 63); do tm send-keys -t e2e BSpace; done
tm send-keys -t e2e "$work/lecture.svg" Enter
wait_for "Wrote the screen \(100x30\) as SVG" "teacher: the screen as SVG"
grep -q "<svg" "$work/lecture.svg" || fail "teacher: no SVG written"
tm send-keys -t e2e q
check_exit 0 "the teacher's script"
"$bin" --scene "allreduce -a halving-doubling -p 5 -s 1M --present --step 2" \
    --export-cast "$work/lecture.cast" --last-step 4 > "$work/out" 2>&1 ||
    { cat "$work/out"; fail "the scene string's steps as a cast"; }
[ "$(wc -l < "$work/lecture.cast")" -eq 4 ] || fail "a cast of steps 2-4 is not 3 screens"
echo "e2e: ok: the scene string reopens the scene, its steps as a cast"
# 6b. the machine half of the lecture: torus all-reduce on a 4x4 torus
#    forward, drawn big (Z: its wrap links marked, the x step's busiest
#    link), back a step and forward again, its steps as SVG frames (w in
#    Z); hier on nodes:2x8 drawn big (the nodes' nvlink and the network);
#    NVLS on a reducing switch, whose picture is drawn at a small size
#    and priced at 64 MiB in other steps, which the stepping line says
start "allreduce -a torus -p 16 -T torus:4x4 -s 1M" "$utf8"
wait_for "step 0 of 13" "machine: torus 4x4"
tm send-keys -t e2e Right Right
wait_for "step 2 of 13 +reduce-scatter x" "machine: the x reduce-scatter"
tm send-keys -t e2e Z
wait_for "↺12" "machine: Z draws the torus big, its wraps marked"
wait_for "busiest r0>r1" "machine: the x step's busiest link"
tm send-keys -t e2e Left
wait_for "step 1 of 13" "machine: back a step in Z"
tm send-keys -t e2e Right
wait_for "step 2 of 13" "machine: forward again in Z"
tm send-keys -t e2e w
wait_for "SVG frames of the topology to" "machine: w in Z asks where the frames go"
for i in $(seq 80); do tm send-keys -t e2e BSpace; done
tm send-keys -t e2e "$work/frames.svg" Enter
wait_for "Wrote the topology of steps 2 to" "machine: the frames written"
grep -q "step 2 of 13: reduce-scatter x" "$work/frames.svg" ||
    fail "machine: the frames' SVG has no frame of step 2"
tm send-keys -t e2e Z
wait_for "Buffers" "machine: Z again: back to the panels"
tm send-keys -t e2e q
check_exit 0 "the torus drawn big, stepped, its frames"
start "allreduce -a hier -p 16 -T nodes:2x8 -s 1M" "$utf8"
wait_for "step 0 of" "machine: hier on nodes 2x8"
tm send-keys -t e2e Right Right Z
wait_for "nvlink" "machine: Z draws the nodes' nvlink"
wait_for " net" "machine: ... and the network between them"
tm send-keys -t e2e q
check_exit 0 "hier on two nodes of 8 drawn big"
start "allreduce -a nvls -p 8 -T switch,reduce -s 64M" "$utf8"
wait_for "step 0 of 5" "machine: NVLS on a reducing switch"
tm send-keys -t e2e Right
wait_for "step 1 of 5 +load-reduce" "machine: NVLS's load-reduce"
wait_for "picture at 32 B; 64 MiB is priced in 36 steps" \
    "machine: NVLS says its picture is not the priced size's steps"
tm send-keys -t e2e p p
wait_for "of 6 .*chunks 2: drawn != priced, 64 MiB is priced in 36 steps" \
    "machine: p draws NVLS in 2 chunks (2 + log2 8 + 1 steps)"
tm send-keys -t e2e q
check_exit 0 "NVLS on a reducing switch"
# the themes (the teacher's P11): T three times goes through every theme
# and back; one of them draws no colour at all (mono: no fixed foreground
# or background, so nothing can be black on black), and back at the first
# every cell has its first colours again (the cells are repainted)
start "allreduce -a ring -p 8" "$utf8"
wait_for "step 0 of 15" "themes: the scene"
settle "$work/theme0" -e
mono=0
for i in 1 2 3; do
    tm send-keys -t e2e T
    # each T changes the screen's colours: wait for the change, then for
    # the screen to settle
    n=0
    while tm capture-pane -e -p -t e2e | cmp -s - "$work/theme$((i - 1))"; do
        [ $n -lt 50 ] || fail "themes: T number $i changed nothing in 5 s"
        sleep 0.1
        n=$((n + 1))
    done
    settle "$work/theme$i" -e
    grep -Eq '\[([34][0-7]|[34]8;5;[0-9]+)(;[0-9;]*)?m|;([34][0-7])m' "$work/theme$i" || mono=1
done
[ "$mono" = 1 ] || fail "themes: no theme without colours among the three"
cmp -s "$work/theme0" "$work/theme3" ||
    fail "themes: back at the first theme the screen's colours differ"
tm send-keys -t e2e q
check_exit 0 "the themes"
# the same round trip through the lessons in Chinese (LANG names it; the
# messages are Chinese even where this machine lacks the locale)
start "allreduce -a ring -p 8 -s 1M" "env -u LC_ALL -u LC_MESSAGES -u LC_CTYPE -u LANGUAGE LANG=zh_CN.UTF-8"
wait_for "第 0 步" "zh: the scene in Chinese"
tm send-keys -t e2e Right Right
wait_for "第 2 步" "zh: two steps"
tm send-keys -t e2e L
wait_for "collviz learn：课程" "zh: L opens the lessons in Chinese"
tm send-keys -t e2e q
wait_for "第 2 步" "zh: quitting the lessons comes back to the same step"
tm send-keys -t e2e q
check_exit 0 "the lessons' round trip in Chinese"

# 7. not a terminal: one sentence pointing to trace, status 2
"$bin" allgather < /dev/null > "$work/out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$work/out"; fail "status $rc without a terminal"; }
grep -q "collviz trace allgather" "$work/out" || fail "no pointer to trace"
echo "e2e: ok: not a terminal"
# 7. the lesson player: lesson 1's first checkpoint answered wrong, then
#    right; quit; started again it resumes at the paragraph after the
#    checkpoint; Ctrl-C restores the terminal; bad input is one sentence
export XDG_STATE_HOME="$work/state"
start "learn 1 --lang en" "$utf8"
wait_for "Lesson 1: The eight collectives" "learn 1 starts"
# one Space at a time, each after the screen has settled (a Space sent
# before the prompt is drawn would be typed into the answer)
n=0
settle "$work/screen" ""
until grep -q "Your answer:" "$work/screen"; do
    [ $n -lt 30 ] || fail "no checkpoint after 30 presses of Space"
    tm send-keys -t e2e Space
    settle "$work/screen" ""
    n=$((n + 1))
done
wait_for "how many bytes does" "the first checkpoint asks"
tm send-keys -t e2e 1 0 Enter
wait_for "Not right \(try 1 of 3\)" "a wrong answer"
tm send-keys -t e2e 1 2 Enter
wait_for "Right: 12" "the right answer"
wait_for "Gather is scatter run backwards" "goes on to the next paragraph"
tm send-keys -t e2e q
check_exit 0 "learn: wrong, right, quit"
grep -q "^01-collectives [0-9]* [0-9]* +" "$XDG_STATE_HOME/collviz/lessons" ||
    fail "the progress file does not record the checkpoint"
start "learn --lang en" "$utf8"
wait_for "in progress: 1/4 right" "the list shows the progress"
wait_for "right 1 of " "the list shows the course's score"
tm send-keys -t e2e Enter
wait_for "Gather is scatter run backwards" "resumes at the next paragraph"
grep -q "Your answer:" "$work/screen" && fail "the answered checkpoint is asked again"
tm send-keys -t e2e C-c
check_exit 130 "learn: Ctrl-C"
grep -q "stopped by Interrupt" "$work/screen" || fail "no sentence after Ctrl-C"
start "allreduce -p 4" "$utf8"
wait_for "step 0 of" "the TUI, for L"
tm send-keys -t e2e L
wait_for "collviz learn: lessons" "L opens the list of lessons"
tm send-keys -t e2e q
wait_for "step 0 of" "q in the lessons comes back to the TUI"
tm send-keys -t e2e q
check_exit 0 "learn: L from the TUI, q back, q to quit"
# P12: --reset all forgets every lesson's record
start "learn --reset all --lang en" "$utf8"
wait_for "right 0 of " "--reset all: the score is back to 0"
tm send-keys -t e2e q
check_exit 0 "learn: --reset all"
grep -q "^01-collectives [0-9]* [0-9]* +" "$XDG_STATE_HOME/collviz/lessons" &&
    fail "--reset all kept lesson 1's record"
"$bin" learn 1 < /dev/null > "$work/out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$work/out"; fail "learn: status $rc without a terminal"; }
grep -q "plain text files in" "$work/out" || fail "learn: no pointer to the files"
"$bin" learn 99 > "$work/out" 2>&1
[ $? -eq 2 ] && grep -q "unknown lesson '99'; lessons: 01-collectives" "$work/out" ||
    { cat "$work/out"; fail "learn 99"; }
"$bin" learn --lang fr > "$work/out" 2>&1
[ $? -eq 2 ] && grep -q "unknown language 'fr'; languages: en, zh" "$work/out" ||
    { cat "$work/out"; fail "learn --lang fr"; }
echo "e2e: ok: learn"

# U4: a terminal that cannot move the cursor (TERM=dumb) is refused with
# one sentence and status 1, not drawn on; LINES or COLUMNS past any
# terminal are named as the cause.
start "allreduce -p 4" "TERM=dumb"
wait_for "exit=1" "TERM=dumb: status 1"
grep -q "cannot move the cursor" "$work/screen" || fail "TERM=dumb: no sentence"
start "learn 1 --lang en" "LINES=99999"
wait_for "exit=1" "LINES=99999: status 1"
grep -q "LINES=99999 is more than a terminal can have" "$work/screen" ||
    fail "LINES=99999: the cause is not named"
echo "e2e: ok: unusable terminals"

mkdir -p "$work/L/en" "$work/L/zh"
for lang in en zh; do
    printf 'Lesson 1: Slow\n\nPress x.\n\n@run\n    collviz perf allreduce -p 2 -b 64M -e 64M -n 100000 -w 0 -c 0\n' \
        > "$work/L/$lang/01-slow.txt"
done

# H4: a lesson's command runs in the background: the pager shows it
# running, q stops the command (the player stays, the output is kept),
# a second q goes back to the lesson, and the player quits normally.
start "learn 1 --lang en" "COLLVIZ_LESSONS='$work/L'"
wait_for "Press x" "the slow lesson opens (H4)"
tm send-keys -t e2e Space
wait_for "1 collviz perf" "the slow lesson shows its command (H4)"
tm send-keys -t e2e x
wait_for "running [0-9]+ s" "the pager says the command runs"
wait_for "q or Esc stop the command" "the pager's keys while it runs"
tm send-keys -t e2e q
wait_for "stopped by you after" "q stops the command, not the player"
tm send-keys -t e2e q
wait_for "Press x" "a second q goes back to the lesson"
tm send-keys -t e2e q
check_exit 0 "learn: a lesson's command stopped, then quit"

# A fatal signal (SIGQUIT, as Ctrl-\ sends) while a lesson's command runs ends the
# player with the terminal restored, and its command with it (the command
# has a process group of its own, which the key never reaches).
start "learn 1 --lang en" "COLLVIZ_LESSONS='$work/L'"
wait_for "Press x" "the slow lesson opens (SIGQUIT)"
tm send-keys -t e2e Space
wait_for "1 collviz perf" "the slow lesson shows its command (SIGQUIT)"
tm send-keys -t e2e x
wait_for "running [0-9]+ s" "its command runs (SIGQUIT)"
player=$(cat "$work/pid")
cmdpid=$(pgrep -P "$player" | head -n 1)
[ -n "$cmdpid" ] || fail "no command under the player (SIGQUIT)"
kill -QUIT "$player"
check_exit 131 "learn: SIGQUIT during a lesson's command"
i=0
while [ $i -lt 30 ] && kill -0 "$cmdpid" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
kill -0 "$cmdpid" 2>/dev/null && { kill -9 "$cmdpid"; fail "the lesson's command outlived SIGQUIT"; }
echo "e2e: ok: SIGQUIT during a lesson's command"

# X2: two players on the same lesson (a second session: a tab left open),
# each answering its own checkpoints, keep every answer whatever order
# they quit in: B answers the first, then A (whose Space brings B's answer
# in) the second and third, while B still holds only its own.
mkdir -p "$work/L2/en" "$work/L2/zh"
for lang in en zh; do
    { printf 'Lesson 1: Two players\n\n@scene allreduce -a ring -p 4 -s 64\n'
      for k in 1 2 3; do
          printf '\nParagraph %s.\n\n@check Question %s: how many steps in all?\n@query steps\n@answer 7\n' $k $k
      done; } > "$work/L2/$lang/01-alpha.txt"
done
# In session $1: Space up to the next checkpoint, type $2 and Enter, and
# wait for $3.
answer_next() {
    tgt=$1 n=0
    settle "$work/screen" ""
    until grep -q "Your answer:" "$work/screen"; do
        [ $n -lt 30 ] || fail "$1: no checkpoint after 30 presses of Space"
        tm send-keys -t "$1" Space
        settle "$work/screen" ""
        n=$((n + 1))
    done
    tm send-keys -t "$1" "$2" Enter
    wait_for "$3" "$1: $2 at a checkpoint"
    tgt=
}
player() {
    echo "$utf8 XDG_STATE_HOME='$work/state2' COLLVIZ_LESSONS='$work/L2' '$bin' learn 1 --lang en; echo exit=\$?; sleep 60"
}
for first in a b; do
    rm -rf "$work/state2"
    new_session "$(player)"
    tm new-session -d -s e2eb -x 100 -y 30 "$(player)" ||
        fail "no second session for the second player"
    tgt=e2e wait_for "Paragraph 1" "player A opens the lesson"
    tgt=e2eb wait_for "Paragraph 1" "player B opens the same lesson"
    answer_next e2eb 7 "Right: 7"
    answer_next e2e 7 "Right: 7"
    tgt=e2e wait_for "Paragraph 2" "A's first checkpoint is the second"
    answer_next e2e 7 "Right: 7"
    tgt=e2e wait_for "Paragraph 3" "A answers the third"
    second=e2eb
    [ $first = a ] || second=e2e
    [ $first = a ] && quit=e2e || quit=e2eb
    tm send-keys -t $quit q
    tgt=$quit wait_for "exit=0" "the first player quits"
    tm send-keys -t $second q
    tgt=$second wait_for "exit=0" "the second player quits"
    tgt=
    grep -q "^01-alpha [0-9]* [0-9]* +++$" "$work/state2/collviz/lessons" ||
        fail "two players on one lesson, $first quitting first: $(cat "$work/state2/collviz/lessons")"
done
echo "e2e: ok: two players on the same lesson"

# H5: the terminal closes (SIGHUP) while a lesson's command runs, with the
# player as the session leader (no shell to pass the signal on): the
# player and its command are both gone within 3 seconds.
new_session \
    "echo \$\$ > '$work/pid'; COLLVIZ_LESSONS='$work/L' exec '$bin' learn 1 --lang en"
wait_for "Press x" "the slow lesson opens"
tm send-keys -t e2e Space
wait_for "1 collviz perf" "the slow lesson shows its command"
tm send-keys -t e2e x
wait_for "running [0-9]+ s" "its command runs"
player=$(cat "$work/pid")
i=0 cmdpid=
while [ $i -lt 50 ] && [ -z "$cmdpid" ]; do
    cmdpid=$(pgrep -P "$player" | head -n 1)
    sleep 0.1
    i=$((i + 1))
done
[ -n "$cmdpid" ] || fail "no command under the player"
tm kill-server >/dev/null 2>&1
i=0
while [ $i -lt 30 ] && { kill -0 "$player" 2>/dev/null || kill -0 "$cmdpid" 2>/dev/null; }; do
    sleep 0.1
    i=$((i + 1))
done
kill -0 "$player" 2>/dev/null && { kill -9 "$cmdpid" "$player"; fail "the player outlived SIGHUP"; }
kill -0 "$cmdpid" 2>/dev/null && { kill -9 "$cmdpid"; fail "the lesson's command outlived SIGHUP"; }
echo "e2e: ok: SIGHUP during a lesson's command"
echo "e2e: all passed"
exit 0
