#!/bin/sh
# Hydra's remote launcher inside the testbed: hydra calls "<this> [-x] <host> <command...>"
# (as it would call ssh). Look the Mininet host's shell PID up in $MCASTLAB_HOSTMAP and run
# the command inside that host's network, mount and UTS namespaces.
[ "$1" = "-x" ] && shift
host=$1
shift
pid=$(awk -v h="$host" '$1 == h { print $2 }' "${MCASTLAB_HOSTMAP:?}")
if [ -z "$pid" ]; then
    echo "mcastlab launcher: unknown host '$host'" >&2
    exit 1
fi
exec nsenter -t "$pid" -n -m -u -- sh -c "$*"
