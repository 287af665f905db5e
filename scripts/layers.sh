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

allowed() { # $1 = folder -> the folders it may include
    case $1 in
    core) echo "" ;;
    algos) echo "core" ;;
    exec | store) echo "core" ;;
    threads | gpu | mpi) echo "exec core" ;; # backends
    measure) echo "exec store algos core" ;;
    cli) echo "algos core" ;; # option tables and the words of values
    scene) echo "cli measure exec store algos core" ;;
    cmd) echo "scene cli measure exec store algos core" ;;
    lesson) echo "scene cli measure exec store algos core" ;;
    ui) echo "lesson cmd scene cli measure exec store algos core" ;;
    main) echo "ui lesson cmd scene cli measure exec store algos core" ;;
    *) echo "?" ;;
    esac
}

# System headers that belong to one folder alone, or to one file (curses:
# the terminal module; the rest of src/ui/ names keys by TERM_KEY_*).
owner_of_system() { # $1 = header name -> the only folder that may use it
    case $1 in
    curses.h | ncurses.h | ncursesw/* | term.h | panel.h) echo ui/term.c ;;
    cuda.h | cuda_runtime*.h | cudaTypedefs.h | nccl.h) echo gpu ;;
    mpi.h) echo mpi ;;
    *) echo "" ;;
    esac
}

bad=0
for f in $(find src -name '*.[ch]' | sort); do
    rel=${f#src/}
    case $rel in */*) dir=${rel%%/*} ;; *) dir=main ;; esac
    ok=$(allowed "$dir")
    if [ "$ok" = "?" ]; then
        echo "$f: folder src/$dir/ is not in scripts/layers.sh's table"
        bad=1
        continue
    fi
    # "file:line:header" and "file:line:<header>" for every include.
    out=$(awk '/^[ \t]*#[ \t]*include[ \t]*["<]/ {
                 match($0, /["<][^">]*[">]/);
                 print FNR ":" substr($0, RSTART, RLENGTH) }' "$f")
    for inc in $out; do
        line=${inc%%:*}
        h=${inc#*:}
        case $h in
        \"*)
            h=${h#\"}; h=${h%\"}
            case $h in */*) to=${h%%/*} ;; *) to=$dir ;; esac
            [ "$to" = "$dir" ] && continue
            case " $ok " in *" $to "*) continue ;; esac
            case $to in
            threads | gpu | mpi) why="only src/$to/ includes the $to backend's headers" ;;
            *) why="src/$dir/ may not include src/$to/ (a layer above it, or beside it)" ;;
            esac
            echo "$f:$line: #include \"$h\": $why"
            bad=1
            ;;
        \<*)
            h=${h#<}; h=${h%>}
            own=$(owner_of_system "$h") # a folder, or one file of one
            if [ -n "$own" ] && [ "$own" != "$dir" ] && [ "$own" != "$rel" ]; then
                case $own in *.c) where=src/$own ;; *) where=src/$own/ ;; esac
                echo "$f:$line: #include <$h>: only $where includes it"
                bad=1
            fi
            ;;
        esac
    done
done
[ $bad -eq 0 ] || echo "layers: includes must run one way (see docs/ARCHITECTURE.md)" >&2
sh "$here/include_cycles.sh" . || bad=1
exit $bad
