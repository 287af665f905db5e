#!/bin/sh
# doc-idents.sh - every identifier and path a document names in back
# quotes is there: a map that names what the code no longer has is wrong.
#
# usage: sh scripts/doc-idents.sh [ROOT] [DOC...]
#   ROOT: the tree, default .; DOC: a document, relative to ROOT (or
#   absolute), default docs/ARCHITECTURE.md. Several are checked in one
#   pass over the sources.
# Reads every back-quoted span of each DOC (`like_this`; not inside a
# ``` fence) and keeps two kinds:
#   a C identifier, [A-Za-z_][A-Za-z0-9_]*, optionally followed by ():
#     it must occur as a whole word in a source file of ROOT/src
#     (*.c, *.h, *.cu);
#   a path, a span with a '/' or ending in .c, .h, .sh or .md, made of
#     letters, digits and . _ - / * + only, not starting with '/' (a
#     path of the system, not of the tree): it must exist relative to
#     ROOT, to ROOT/src or to DOC's own folder (a folder's README names
#     its files by their names; a '*' matches as in the shell).
# Other spans (commands such as `make test`, options such as `-T`) are
# skipped. Prints "DOC:LINE: `NAME` is not in src/" or "DOC:LINE:
# `PATH`: no such file" for each miss and exits 1 when there is one; 2
# when a DOC cannot be read (a DOC's name has no blanks).
set -u
root=${1:-.}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- docs/ARCHITECTURE.md
cd "$root" || exit 2
for doc in "$@"; do
    if [ ! -r "$doc" ]; then
        echo "doc-idents: cannot read $doc (in $root)" >&2
        exit 2
    fi
done

# The spans to check, one a line: "I DOC LINE NAME" or "P DOC LINE PATH".
# A span opens with a run of back quotes and closes with a run as long;
# it may go on over a line break (as a space), never over a blank line.
spans=$(awk '
function keep(s, line) {
    sub(/\(\)$/, "", s)
    if (s ~ /^[A-Za-z_][A-Za-z0-9_]*$/)
        print "I", FILENAME, line, s
    else if (s ~ /^[A-Za-z0-9_.*+-][A-Za-z0-9_.\/*+-]*$/ &&
             (index(s, "/") || s ~ /\.(c|h|sh|md)$/))
        print "P", FILENAME, line, s
}
FNR == 1 { fence = 0; open = 0 }
/^[ \t]*```/ { fence = !fence; open = 0; next }
fence { next }
/^[ \t]*$/ { open = 0; next }
{
    s = $0
    while (match(s, /`+/)) {
        before = substr(s, 1, RSTART - 1)
        run = RLENGTH
        s = substr(s, RSTART + RLENGTH)
        if (!open) {
            open = run; buf = ""; at = FNR
        } else if (run == open) {
            keep(buf before, at)
            open = 0
        } else {
            buf = buf before substr("``````````````````", 1, run)
        }
    }
    if (open)
        buf = buf s " "
}' "$@")

# Identifiers: every word of the sources once, then each name looked up.
ids=$(printf '%s\n' "$spans" | grep '^I ' | {
    find src \( -name '*.[ch]' -o -name '*.cu' \) -exec \
        grep -hoE '[A-Za-z0-9_]+' {} + 2>/dev/null
    echo '#--'
    cat
} | awk '
!names && $0 == "#--" { names = 1; next }
!names { word[$0] = 1; next }
!($4 in word) { printf "%s %s `%s` is not in src/\n", $2, $3, $4 }')

# Paths: relative to ROOT, to ROOT/src or to DOC's folder; a '*' globs.
paths=$(printf '%s\n' "$spans" | grep '^P ' | while read -r _ doc line p; do
    case $doc in */*) here=${doc%/*} ;; *) here=. ;; esac
    for base in . src "$here"; do
        # shellcheck disable=SC2086 # the glob is meant
        set -- $base/$p
        for f in "$@"; do
            [ -e "$f" ] && continue 3
        done
    done
    printf '%s %s `%s`: no such file\n' "$doc" "$line" "$p"
done)

# Every miss, by document and line.
miss=$(printf '%s\n%s\n' "$ids" "$paths" | grep . | sort -k1,1 -k2,2n |
    awk '{ d = $1; n = $2; sub(/^[^ ]+ [0-9]+ /, ""); print d ":" n ": " $0 }')
[ -z "$miss" ] && exit 0
printf '%s\n' "$miss"
echo "doc-idents: the documents name what the tree does not have" >&2
exit 1
