#!/bin/sh
# Hydra's remote launcher inside the testbed: hydra calls "<this> [-x] <host> <command...>"
# (as it would call ssh). Look the Mininet host up in $MCASTLAB_HOSTMAP (name, shell PID,
# cgroup, server, group slice; "-" for none) and run the command inside that host's network,
# mount and UTS
# namespaces: in its cgroup when the map names one (Mininet's CPU-limited hosts; cgexec runs
# in the testbed's own mount namespace, $MCASTLAB_ROOT_PID's, as a host's /sys hides the
# cgroup tree); on its server when that is another one (cluster): ssh from the testbed's own
# network namespace (this host cannot reach the servers), with the run's and job's marks,
# since ssh passes no environment and that server's cleanup finds processes by them. The
# slice (across servers) goes to hydra's proxy as MCASTLAB_SERVER_SLICE, a name mpiexec's
# environment (which hydra passes on to every rank, over the proxy's own) does not have;
# each rank's wrapper (testbed.emulation.mpi) makes it the rank's MCASTLAB_GROUP_SLICE.
[ "$1" = "-x" ] && shift
host=$1
shift
read -r pid cgroup server slice <<END
$(awk -v h="$host" '$1 == h { print $2, $3, $4, $5 }' "${MCASTLAB_HOSTMAP:?}")
END
if [ -z "$pid" ]; then
    echo "mcastlab launcher: unknown host '$host'" >&2
    exit 1
fi
if [ -n "$slice" ] && [ "$slice" != "-" ]; then
    set -- env "MCASTLAB_SERVER_SLICE=$slice" "$@"
fi
if [ -n "$server" ] && [ "$server" != "-" ]; then
    quoted=$(printf '%s' "$*" | sed "s/'/'\\\\''/g")
    # shellcheck disable=SC2086  # MCASTLAB_SSH is the ssh command, word by word
    exec nsenter -t "${MCASTLAB_ROOT_PID:?}" -n -m -- ${MCASTLAB_SSH:?} "$server" \
        "env MCASTLAB_RUN=${MCASTLAB_RUN:?} MCASTLAB_JOB=${MCASTLAB_JOB:?}" \
        "nsenter -t $pid -n -m -u -- sh -c '$quoted'"
fi
if [ -n "$cgroup" ] && [ "$cgroup" != "-" ]; then
    exec nsenter -t "${MCASTLAB_ROOT_PID:?}" -m -- cgexec -g "$cgroup" nsenter -t "$pid" -n -m -u -- sh -c "$*"
fi
exec nsenter -t "$pid" -n -m -u -- sh -c "$*"
