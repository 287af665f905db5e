#!/bin/sh
# include_cycles.sh - no circle of includes among the files of one folder.
#
# usage: sh scripts/include_cycles.sh [ROOT]   (ROOT: the tree, default .)
# Within each folder of src/, a module is a file name without .c or .h
# (app.c and app.h are module app); module a uses module b when a.c or a.h
# includes b.h. The uses must form no circle (app -> menu -> app), so that
# each module can be read, tested and replaced with only the ones below
# it. Prints each circle found, with the includes that close it, as
# "src/DIR: include cycle: a -> b -> a (FILE:LINE includes b.h, ...)",
# and exits 1 when there is one. layers.sh runs it.
set -u
root=${1:-.}
cd "$root" || exit 2

bad=0
for dir in $(find src -mindepth 1 -type d | sort); do
    files=$(find "$dir" -maxdepth 1 -name '*.[ch]' | sort)
    [ -n "$files" ] || continue
    # shellcheck disable=SC2086 # the file names have no blanks
    awk -v folder="${dir#src/}" -v dir="$dir" '
    function base(path) { sub(/.*\//, "", path); sub(/\.[ch]$/, "", path); return path }
    FNR == 1 { mod = base(FILENAME); if (!(mod in seen)) { seen[mod] = 1; order[++nmods] = mod } }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
        match($0, /"[^"]*"/)
        h = substr($0, RSTART + 1, RLENGTH - 2)
        f = h; sub(/\/[^\/]*$/, "", f)
        if (h ~ /\// && f != folder)
            next                          # another folder: layers.sh checks it
        to = base(h)
        if (to == mod || ((mod, to) in where))
            next
        where[mod, to] = FILENAME ":" FNR " includes " substr(h, length(h) - length(to) - 1)
        adj[mod] = adj[mod] " " to
    }
    # Depth first; an include back to a module on the stack closes a circle.
    function visit(u,    vs, n, i, v, j, nx, path, why) {
        state[u] = 1
        stack[++sp] = u
        n = split(adj[u], vs, " ")
        for (i = 1; i <= n; i++) {
            v = vs[i]
            if (!(v in seen))
                continue                  # a header of no file here
            if (state[v] == 1) {
                for (j = sp; stack[j] != v; j--)
                    ;
                path = v; why = ""
                for (; j <= sp; j++) {
                    nx = j < sp ? stack[j + 1] : v
                    path = path " -> " nx
                    why = why (why == "" ? "" : ", ") where[stack[j], nx]
                }
                printf "%s: include cycle: %s (%s)\n", dir, path, why
                found = 1
            } else if (!state[v]) {
                visit(v)
            }
        }
        sp--
        state[u] = 2
    }
    END {
        for (k = 1; k <= nmods; k++)
            if (!state[order[k]])
                visit(order[k])
        exit found
    }' $files || bad=1
done
[ $bad -eq 0 ] || echo "include_cycles: the modules of a folder must include one another one way (see docs/ARCHITECTURE.md)" >&2
exit $bad
