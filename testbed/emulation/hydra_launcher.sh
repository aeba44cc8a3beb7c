#!/bin/sh
# Hydra's remote launcher inside the testbed: hydra calls "<this> [-x] <host> <command...>"
# (as it would call ssh). Look the Mininet host's shell PID up in $MCASTLAB_HOSTMAP and run
# the command inside that host's network, mount and UTS namespaces (and in its cgroup
# when the map names one: Mininet's CPU-limited hosts; cgexec runs in the testbed's own
# mount namespace, $MCASTLAB_ROOT_PID's, as a host's /sys hides the cgroup tree).
[ "$1" = "-x" ] && shift
host=$1
shift
pid=$(awk -v h="$host" '$1 == h { print $2 }' "${MCASTLAB_HOSTMAP:?}")
cgroup=$(awk -v h="$host" '$1 == h { print $3 }' "$MCASTLAB_HOSTMAP")
if [ -z "$pid" ]; then
    echo "mcastlab launcher: unknown host '$host'" >&2
    exit 1
fi
if [ -n "$cgroup" ]; then
    exec nsenter -t "${MCASTLAB_ROOT_PID:?}" -m -- cgexec -g "$cgroup" nsenter -t "$pid" -n -m -u -- sh -c "$*"
fi
exec nsenter -t "$pid" -n -m -u -- sh -c "$*"
