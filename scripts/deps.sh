#!/bin/sh
# deps.sh - make sure the system packages collviz builds with are present
# (deps.sh test: and those its tests use). Installs the missing ones with
# apt-get (through sudo when not root), or stops with the exact command to
# type.
set -u

missing=
have_header() { # $1 = header, $2 = extra flags
    printf '#include <%s>\nint main(void){return 0;}\n' "$1" |
        ${CC:-cc} -x c - -fsyntax-only $2 >/dev/null 2>&1
}
have_header curses.h "$(pkg-config --cflags ncursesw 2>/dev/null)" ||
    missing="$missing libncurses-dev"
printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void){return 0;}\n' |
    ${CC:-cc} -x c - -fsyntax-only >/dev/null 2>&1 || missing="$missing libcmocka-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v msgfmt >/dev/null 2>&1 || missing="$missing gettext"
# the tests make the zh_CN.UTF-8 locale a Chinese user's machine has
command -v locale-gen >/dev/null 2>&1 || missing="$missing locales"
command -v ${CC:-cc} >/dev/null 2>&1 || missing="$missing build-essential"
# Open MPI: collviz-mpi and -B mpi (MPI=0 builds without it).
command -v mpicc >/dev/null 2>&1 || missing="$missing libopenmpi-dev"
command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
if [ "${1:-}" = test ]; then
    # the real binary in a terminal (tests/e2e_tmux.sh, the lessons played
    # through), processes of an mpirun job found and signalled, and two
    # hosts made of network namespaces (tests/mpi/two_hosts.sh)
    command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
    command -v pkill >/dev/null 2>&1 || missing="$missing procps"
    command -v ip >/dev/null 2>&1 || missing="$missing iproute2"
fi

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    sudo=
elif command -v sudo >/dev/null 2>&1; then
    sudo=sudo
else
    echo "collviz needs:$missing. Type as root: apt-get install -y$missing" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "collviz needs the development files of:$missing (Debian names); install them with your package manager." >&2
    exit 1
fi
echo "installing:$missing"
if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing; then
    $sudo apt-get update -q && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing || {
        echo "could not install:$missing. Type: sudo apt-get update && sudo apt-get install -y$missing" >&2
        exit 1
    }
fi
