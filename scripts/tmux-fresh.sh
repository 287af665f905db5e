# tmux-fresh.sh - sourced by the scripts that drive collviz in tmux.
# tmux_fresh NAME COMMAND: a new detached session NAME of 100x30 running the
# shell command COMMAND on a server of its own, started anew. The caller
# defines tm() (tmux on its socket) and $work (a scratch folder).
#
# Killing a server's last session makes the server exit, and a new-session
# sent while it exits fails ("server exited unexpectedly"): the old server
# is killed and waited out first, and a start that still fails is tried
# again, up to 5 times. Returns 1 with tmux's words on standard error where
# no session started.
tmux_fresh() {
    tf_pid=$(tm list-sessions -F '#{pid}' 2>/dev/null | head -n 1)
    tm kill-server >/dev/null 2>&1
    tf_n=0
    # (until it is gone or a zombie, which a container's init may be slow to reap)
    while [ -n "$tf_pid" ] && [ $tf_n -lt 50 ]; do
        tf_st=$(ps -o stat= -p "$tf_pid" 2>/dev/null)
        case $tf_st in '' | Z*) break ;; esac
        sleep 0.1
        tf_n=$((tf_n + 1))
    done
    tf_n=0
    until tm new-session -d -s "$1" -x 100 -y 30 "$2" 2> "$work/tmux.err" &&
          tm has-session -t "$1" 2>/dev/null; do
        tf_n=$((tf_n + 1))
        if [ $tf_n -ge 5 ]; then
            tf_why=$(head -n 1 "$work/tmux.err" 2>/dev/null)
            echo "tmux started no session $1${tf_why:+: $tf_why}" >&2
            return 1
        fi
        sleep 0.2
    done
}
