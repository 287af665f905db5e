#!/bin/sh
# layers.sh - includes run one way: from the commands and the terminal
# interface down to the core, never up, and no one outside a backend's
# folder includes its headers.
#
# usage: sh scripts/layers.sh [ROOT]   (ROOT: the tree to check, default .)
# Reads every #include of src/; prints each include that breaks a rule,
# as FILE:LINE: why, and exits 1 when there is one. Within a folder, the
# files must include one another without a circle (include_cycles.sh).
#
# The layers, each folder with the folders it may include (besides its
# own). tests/ and bench/ may include any layer: they test each one.
set -u
root=${1:-.}
here=$(cd "$(dirname "$0")" && pwd)
cd "$root" || exit 2

# The table, one folder a line: FOLDER: the folders it may include.
table='
core:
algos: core
exec: core
store: core
threads: exec core
gpu: exec core
mpi: exec core
measure: exec store algos core
cli: algos core
scene: cli measure exec store algos core
cmd: scene cli measure exec store algos core
lesson: scene cli measure exec store algos core
ui: lesson cmd scene cli measure exec store algos core
main: ui lesson cmd scene cli measure exec store algos core
'
# (threads, gpu, mpi: the backends; cli: the option tables and the words
# of values)

# System headers that belong to one folder alone, or to one file (curses:
# the terminal module; the rest of src/ui/ names keys by TERM_KEY_*).
owners='
curses.h ncurses.h ncursesw/* term.h panel.h: ui/term.c
cuda.h cuda_runtime*.h cudaTypedefs.h nccl.h: gpu
mpi.h: mpi
'

# Every include of every file in one pass: "FILE:LINE: why" for each that
# breaks a rule.
bad=0
out=$(find src -name '*.[ch]' | sort | xargs awk -v table="$table" \
    -v owners="$owners" '
function glob_re(g) { gsub(/\./, "\\.", g); gsub(/\*/, ".*", g); return "^" g "$" }
BEGIN {
    n = split(table, rows, "\n")
    for (i = 1; i <= n; i++) {
        if (rows[i] == "") continue
        k = index(rows[i], ":")
        may[substr(rows[i], 1, k - 1)] = " " substr(rows[i], k + 1) " "
    }
    n = split(owners, rows, "\n")
    no = 0
    for (i = 1; i <= n; i++) {
        if (rows[i] == "") continue
        k = index(rows[i], ":")
        own = substr(rows[i], k + 2)
        m = split(substr(rows[i], 1, k - 1), pats, " ")
        for (j = 1; j <= m; j++) { no++; pat[no] = glob_re(pats[j]); owner[no] = own }
    }
}
FNR == 1 {
    rel = substr(FILENAME, 5)
    k = index(rel, "/")
    dir = k ? substr(rel, 1, k - 1) : "main"
    skip = !(dir in may)
    if (skip) {
        print FILENAME ": folder src/" dir "/ is not in scripts/layers.sh'"'"'s table"
        bad = 1
    }
}
skip { next }
/^[ \t]*#[ \t]*include[ \t]*["<]/ {
    match($0, /["<][^">]*[">]/)
    h = substr($0, RSTART + 1, RLENGTH - 2)
    if (substr($0, RSTART, 1) == "\"") {
        k = index(h, "/")
        to = k ? substr(h, 1, k - 1) : dir
        if (to == dir || index(may[dir], " " to " ")) next
        if (to == "threads" || to == "gpu" || to == "mpi")
            why = "only src/" to "/ includes the " to " backend'"'"'s headers"
        else
            why = "src/" dir "/ may not include src/" to "/ (a layer above it, or beside it)"
        print FILENAME ":" FNR ": #include \"" h "\": " why
        bad = 1
        next
    }
    for (i = 1; i <= no; i++)
        if (h ~ pat[i]) {
            own = owner[i]
            if (own != dir && own != rel) {
                where = own ~ /\.c$/ ? "src/" own : "src/" own "/"
                print FILENAME ":" FNR ": #include <" h ">: only " where " includes it"
                bad = 1
            }
            break
        }
}
END { exit bad }') || bad=1
[ -z "$out" ] || printf '%s\n' "$out"
[ $bad -eq 0 ] || echo "layers: includes must run one way (see docs/ARCHITECTURE.md)" >&2
sh "$here/include_cycles.sh" . || bad=1
exit $bad
