# best.sh - sourced by bench scripts (scale.sh, machines.sh): GNU time
# checked for, the host's short name in $host, a temporary folder in $tmp
# (removed on exit), and the best of $rounds timed runs of a command, its
# output kept in $tmp/out.
#
# keep FILE: $tmp/report (what the script printed) written to FILE in
# bench/results at once (a temporary beside it, renamed), and said.
#
# best CMD ARGS... prints WALL_S CPU_S MAX_KB NA: the fastest wall time
# with its CPU time (user and system), the most memory of any round, and
# how many times the last round's output says n/a. Needs the caller's
# $rounds; a command that fails ends the script with its last line of
# stderr.
[ -x /usr/bin/time ] ||
    { echo "${0##*/}: needs GNU time (/usr/bin/time, Debian's 'time')" >&2; exit 2; }
host=$(hostname -s 2>/dev/null || echo host)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

best() {
    b_s=""; b_u=0; b_kb=0
    i=0
    while [ "$i" -lt "$rounds" ]; do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" > "$tmp/out" 2> "$tmp/err" ||
            { echo "${0##*/}: '$*' failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
        read -r s u sy kb < "$tmp/t"
        if [ -z "$b_s" ] || awk "BEGIN{exit !($s < $b_s)}"; then
            b_s=$s; b_u=$(awk "BEGIN{print $u + $sy}")
        fi
        [ "$kb" -gt "$b_kb" ] && b_kb=$kb
        i=$((i + 1))
    done
    echo "$b_s $b_u $b_kb $(grep -o 'n/a' "$tmp/out" | wc -l)"
}

keep() {
    mkdir -p bench/results
    cp "$tmp/report" "$1.tmp" && mv "$1.tmp" "$1"
    echo "# written to $1"
}
