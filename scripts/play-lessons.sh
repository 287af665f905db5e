#!/bin/sh
# play-lessons.sh - play every lesson through in the real lesson player, in
# tmux at 100x30, in English and Chinese: Space until a checkpoint opens,
# the lesson's own first @answer typed and Enter, the player must say it
# is right; at the end of the lesson every checkpoint must have been asked.
# A lesson that stops going on, asks a checkpoint the file does not have or
# rejects its answer fails with the screen it was on.
#
# Plays run PLAY_JOBS at a time (default 4: a play mostly waits for its
# screen), each on a tmux server and in a scratch folder of its own; their
# lines come in the lessons' order.
#
# usage: sh scripts/play-lessons.sh PATH/TO/collviz [LESSON-FILE-NAME...]
# exit: 0 every lesson played, 1 a lesson failed, 77 skipped (no tmux).
set -u
one=
if [ "${1:-}" = --one ]; then # one play, for the pool: --one BIN NAME LANG
    one=1
    shift
fi
bin=${1:?usage: play-lessons.sh PATH/TO/collviz [NAME...]}
shift
if ! command -v tmux >/dev/null 2>&1; then
    echo "play: SKIP: tmux is not installed"
    exit 77
fi
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/tmux-fresh.sh"
work=$(mktemp -d)
sock="collviz-play-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
# (the last player may still be saving its progress as the server goes)
cleanup() {
    tm kill-server >/dev/null 2>&1
    rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT INT TERM
utf8=
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' && utf8="LC_ALL=C.UTF-8"
export XDG_CACHE_HOME="$work/cache" COLLVIZ_LESSONS="$root/lessons"

# Lesson file NAME in LANG played through; its line, and the screen where
# it failed; status 1 where it failed.
play() { # NAME LANG
    name=$1 lang=$2
    num=${name%%-*}
    file="$root/lessons/$lang/$name"
    # the first @answer of every checkpoint, one a line
    awk '/^@check/ { want = 1; next }
         /^@answer/ && want { sub(/^@answer[ \t]*/, ""); print; want = 0 }' \
        "$file" > "$work/answers"
    total=$(wc -l < "$work/answers")
    # progress in a folder of this play's own
    tmux_fresh play \
        "env XDG_STATE_HOME=$work/state-$num-$lang $utf8 '$bin' learn $num --lang $lang; sleep 60" ||
        { echo "play: FAIL: $lang/$name: no tmux session"; return 1; }
    asked=0 presses=0 status=
    while :; do
        sleep 0.05
        tm capture-pane -p -t play > "$work/screen"
        if grep -q "The end of the lesson\|本课结束" "$work/screen"; then
            status=end; break
        fi
        if grep -q "Your answer:\|你的答案：\|Your scene:\|你的场景：" "$work/screen"; then
            asked=$((asked + 1))
            ans=$(sed -n "${asked}p" "$work/answers")
            [ -n "$ans" ] || { status="a checkpoint the file does not have"; break; }
            tm send-keys -t play C-u # a goal's box holds the scene
            tm send-keys -t play -l -- "$ans"
            tm send-keys -t play Enter
            n=0
            until grep -q "Right: \|正确：\|Goal reached\|达到目标" "$work/screen"; do
                [ $n -lt 40 ] || break
                sleep 0.05
                tm capture-pane -p -t play > "$work/screen"
                n=$((n + 1))
            done
            grep -q "Right: \|正确：\|Goal reached\|达到目标" "$work/screen" ||
                { status="answer '$ans' not accepted"; break; }
        fi
        presses=$((presses + 1))
        [ $presses -lt 600 ] || { status="no end after 600 presses"; break; }
        tm send-keys -t play Space
    done
    tm send-keys -t play q
    if [ "$status" = end ] && [ "$asked" -eq "$total" ]; then
        echo "play: ok: $lang/$name: $asked of $total checkpoints right"
        return 0
    fi
    [ "$status" = end ] && status="$asked of $total checkpoints asked"
    echo "play: FAIL: $lang/$name: $status"
    cat "$work/screen"
    return 1
}

if [ -n "$one" ]; then
    play "$1" "$2"
    exit
fi

# Every play in the pool (each its own process: its own server and
# folder), then their lines in order.
[ $# -gt 0 ] || set -- $(ls "$root/lessons/en" | grep -E '^[0-9]{2}-.*\.txt$')
for name in "$@"; do
    printf '%s en\n%s zh\n' "$name" "$name"
done | xargs -P "${PLAY_JOBS:-4}" -L 1 sh -c \
    'sh "$0" --one "$1" "$3" "$4" > "$2/$3.$4.log" 2>&1; echo $? > "$2/$3.$4.rc"' \
    "$0" "$bin" "$work"
failed=0
for name in "$@"; do
    for lang in en zh; do
        cat "$work/$name.$lang.log" 2>/dev/null
        [ "$(cat "$work/$name.$lang.rc" 2>/dev/null)" = 0 ] || failed=1
    done
done
exit $failed
