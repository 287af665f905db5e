#!/bin/sh
# two_hosts.sh - two hosts on one machine for the mpi backend: two network
# namespaces joined by a veth pair, each with a host name of its own, and
# Open MPI started in the first with a launch agent (no ssh) that runs the
# second host's daemon inside the second namespace; TCP only between the
# ranks. Runs the quick correctness sweep (and the full one with
# COLLVIZ_NIGHTLY=1), a perf run and a calibration (the machine it finds:
# nodes 2x2) across them.
#
# usage: sh tests/mpi/two_hosts.sh BUILD_DIR
#        sh tests/mpi/two_hosts.sh BUILD_DIR --mpirun MPIRUN_ARGS...
#   (root; test_mpi_hosts.c runs the first). With --mpirun, only one
#   mpirun across the two hosts with those arguments (-np N PROGRAM ...),
#   its status returned: bench/run.sh -L uses it as its launcher.
# Exit 0: passed; 77: skipped, the reason on stdout ("skip: ..."); else
# failed.
set -u
B=${1:?usage: two_hosts.sh BUILD_DIR [--mpirun ARGS...]}
shift
launch=
if [ "${1:-}" = --mpirun ]; then
    launch=1
    shift
fi
B=$(cd "$B" && pwd)
skip() { # (to stderr with --mpirun, whose stdout is the job's)
    if [ -n "$launch" ]; then echo "skip: $*" >&2; else echo "skip: $*"; fi
    exit 77
}

[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
command -v unshare >/dev/null 2>&1 || skip "no unshare command (util-linux)"
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (Open MPI)"
[ -x "$B/collviz-mpi" ] && { [ -n "$launch" ] || [ -x "$B/tests/mpi_sweep" ]; } ||
    skip "collviz-mpi was not built (MPI=0)"

id=$$
na=cva$id nb=cvb$id va=cvxa$id vb=cvxb$id
dir=$(mktemp -d /tmp/collviz-hosts-XXXXXX)
cleanup() {
    ip netns del "$na" 2>/dev/null
    ip netns del "$nb" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

ip netns add "$na" 2>/dev/null || skip "cannot make a network namespace here"
ip netns add "$nb" 2>/dev/null || skip "cannot make a network namespace here"
ip link add "$va" type veth peer name "$vb" 2>/dev/null ||
    skip "cannot make a veth pair here"
ip link set "$va" netns "$na" && ip link set "$vb" netns "$nb" &&
ip -n "$na" addr add 10.77.0.1/24 dev "$va" &&
ip -n "$nb" addr add 10.77.0.2/24 dev "$vb" &&
ip -n "$na" link set "$va" up && ip -n "$nb" link set "$vb" up &&
ip -n "$na" link set lo up && ip -n "$nb" link set lo up ||
    { echo "could not set up the veth pair"; exit 1; }

# The launch agent, as mpirun calls ssh: HOST COMMAND...; the command runs
# in HOST's namespace under a host name of its own.
cat >"$dir/agent" <<AGENT
#!/bin/sh
host=\$1; shift
case \$host in
10.77.0.1) ns=$na name=cv-host-a ;;
10.77.0.2) ns=$nb name=cv-host-b ;;
*) echo "agent: no host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" unshare --uts sh -c "hostname \$name; \$*"
AGENT
chmod +x "$dir/agent"
printf '10.77.0.1 slots=2\n10.77.0.2 slots=2\n' >"$dir/hosts"
# Calibrations: the caller's XDG_CACHE_HOME (test_mpi_hosts.c puts one of
# these two hosts there, so that perf does not calibrate over links this
# slow), else one of this run.
cache=${XDG_CACHE_HOME:-$dir/cache}

# mpirun itself on host a, the ranks spread over both (rank 0 on a).
mpirun_across() { # MPIRUN_ARGS...
    ip netns exec "$na" unshare --uts sh -c 'hostname cv-host-a; exec "$@"' sh \
        env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
        XDG_CACHE_HOME="$cache" \
        mpirun --hostfile "$dir/hosts" --map-by node --oversubscribe --bind-to none \
        --mca plm_rsh_agent "$dir/agent" \
        --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 \
        --mca oob_tcp_if_include 10.77.0.0/24 "$@"
}
across() { # NP COMMAND...
    np=$1; shift
    mpirun_across -np "$np" "$@"
}
if [ -n "$launch" ]; then
    mpirun_across "$@"
    exit
fi
# More ranks than cores: a rank that waits for a message yields its core
# to the one it waits for instead of spinning (the quick sweep took 36
# times as long spinning).
export OMPI_MCA_mpi_yield_when_idle=1

# The quick sweep with two ranks on each host, four ranks on this
# machine's cores (each waits for a core as often as for the network:
# half a minute); with COLLVIZ_NIGHTLY=1 (make test-nightly) first the
# full sweep with one rank on each (up to nine minutes; test_exec_mpi
# runs it on one host with every change). --bind-to none: each host's
# daemon would bind its first rank to the same core, and the two ranks of
# the two hosts would take turns on it (a message then cost milliseconds
# instead of microseconds).
if [ "${COLLVIZ_NIGHTLY:-0}" = 1 ]; then
    echo "== the sweep, 2 ranks on two hosts over TCP"
    across 2 "$B/tests/mpi_sweep" 2 || exit 1
fi
echo "== the sweep (quick), 4 ranks on two hosts over TCP"
across 4 "$B/tests/mpi_sweep" 4 quick || exit 1
echo "== perf across them: every algorithm and MPI's own, 2 ranks"
across 2 "$B/collviz-mpi" perf allreduce -a all -B mpi -p 2 -b 8 -e 64K \
    -f 64 -n 3 -w 1 >"$dir/perf.txt" 2>"$dir/perf.err" ||
    { cat "$dir/perf.txt" "$dir/perf.err"; exit 1; }
cat "$dir/perf.txt" "$dir/perf.err"
grep -q "^# mpi: the library.s own allreduce" "$dir/perf.txt" && ! grep -q FAILED "$dir/perf.txt" || exit 1
# nccl-tests' rank lines: the two ranks on the two hosts
[ "$(grep '^#  Rank  [01] Group  0 Pid ' "$dir/perf.txt" | sed -n 's/.* on *\(cv-host-[ab]\) .*/\1/p' | sort -u | wc -l)" = 2 ] ||
    { echo "two_hosts.sh: the rank lines do not name both hosts"; exit 1; }
echo "== calibrate across them (quick, working sets up to 4 MiB), 4 ranks dealt round the hosts"
across 4 "$B/collviz-mpi" calibrate -B mpi -p 4 --quick -e 4M >"$dir/cal.txt" 2>&1 ||
    { cat "$dir/cal.txt"; exit 1; }
across 4 "$B/collviz-mpi" calibrate -B mpi -p 4 --show >"$dir/show.txt" 2>&1 ||
    { cat "$dir/show.txt"; exit 1; }
cat "$dir/show.txt"
grep -q "^# hosts: 2 of 2 ranks each, ranks dealt round them" "$dir/show.txt" &&
grep -q "^# machine that fits: nodes" "$dir/show.txt" &&
grep -q "nodes 2x2,.*host:.*net:" "$dir/show.txt" || exit 1
echo "== two hosts: passed"
