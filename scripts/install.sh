#!/usr/bin/env bash
# Idempotent set-up: Debian packages, the project's venv, Open vSwitch running.
# A second run only checks (a few hundred milliseconds); it never downloads again.
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "install: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo make install / sudo make test / sudo make testbed)"
[ -x /usr/bin/python3 ] || die "Debian's /usr/bin/python3 is missing (this project is tried on Debian 12)"
# pyproject's requires-python: checked here, before any package, not by pip after them
/usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "needs Python 3.11 or later as /usr/bin/python3, found $(/usr/bin/python3 -V 2>&1) (Debian 12 has 3.11: README.md, Requirements)"

# 1. Debian packages -----------------------------------------------------------------
PKGS=(mininet openvswitch-switch iperf3 tcpdump ethtool iptables nftables iproute2
      util-linux procps psmisc iputils-ping python3-venv python3-pip cgroup-tools uftp openssl
      iperf ssmping smcroute openssh-server chromium chromium-driver python3-selenium)
# chromium, chromium-driver and python3-selenium are for the live view's browser test
# (tests/integration/test_live_view.py: Chromium headless, driven by Selenium; the venv sees
# the system's Python packages)
# openssh-server is for the two-server test rig (testbed/cluster/rig.py), which runs sshd
# itself in a namespace of its own: on a machine that had no sshd, the packaged daemon is
# kept from starting (Debian's /etc/ssh/sshd_not_to_be_run; remove that file on a machine
# that should accept ssh, such as a server of a real cluster). One that had it keeps it.
if ! dpkg-query -W -f='${Status}' openssh-server 2>/dev/null | grep -q "install ok installed"; then
    mkdir -p /etc/ssh && touch /etc/ssh/sshd_not_to_be_run
fi
missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install: Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# uftp's package may start a uftpd daemon in the root namespace: the benchmarks run their
# own in the emulated hosts (testbed/bench/uftp.py) and want no stray one
if command -v systemctl >/dev/null && systemctl is-active -q uftpd 2>/dev/null; then
    systemctl disable -q --now uftpd || true
fi
# smcroute's package enables (and under systemd starts) an smcrouted in the root namespace, on
# the default /run/smcroute.{sock,pid}: the emulated hosts each run their own, with their own
# socket and pid file, so keep the packaged one disabled and stopped. `systemctl disable` also
# works where systemd is not PID 1 (containers; it updates the SysV links as well).
if command -v systemctl >/dev/null; then
    if systemctl is-enabled -q smcroute smcroute-helper 2>/dev/null; then
        systemctl disable -q smcroute smcroute-helper 2>/dev/null || true
    fi
    if [ -d /run/systemd/system ] && systemctl is-active -q smcroute 2>/dev/null; then
        systemctl stop smcroute || true
    fi
elif ls /etc/rc[2-5].d/S[0-9][0-9]smcroute >/dev/null 2>&1; then
    update-rc.d smcroute disable >/dev/null 2>&1 || true
fi
# one started by /etc/init.d/smcroute: stop it by its pid file, only if it is in this namespace
smc_pid=$(cat /run/smcroute.pid 2>/dev/null || true)
if [ -n "$smc_pid" ] && [ "$(cat "/proc/$smc_pid/comm" 2>/dev/null)" = smcrouted ] &&
   [ "$(readlink "/proc/$smc_pid/ns/net")" = "$(readlink /proc/self/ns/net)" ]; then
    kill "$smc_pid" 2>/dev/null || true
fi

# 2. Virtual environment (sees Debian's mininet module through system site packages) -----
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
    echo "install: creating $VENV"
    /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
stamp="$VENV/.mcastlab-installed"
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "install: Python packages (pinned in requirements.txt)"
    pip=("$VENV/bin/pip" install -q --disable-pip-version-check)
    # (the filter hides this machine's notes about absent local package mirrors)
    "${pip[@]}" -r requirements.txt 2> >(grep -v 'is ignored: it is neither' >&2)
    "${pip[@]}" --no-deps --no-build-isolation -e . 2> >(grep -v 'is ignored: it is neither' >&2)
    echo "$want" > "$stamp"
fi

# `mcastlab` on root's PATH (/usr/local/sbin is in sudo's secure_path): a wrapper that runs
# this checkout's venv, the checkout installed last, and only a checkout no other user can
# change (scripts/wrapper.sh: it checks at every start, and here before it installs). A
# file there that is not our wrapper (or a link) is left alone.
sh scripts/wrapper.sh install "$(pwd -P)" /usr/local/sbin/mcastlab

# 3. Open vSwitch -----------------------------------------------------------------------
if ! ovs-vsctl --timeout=2 show >/dev/null 2>&1; then
    echo "install: starting Open vSwitch"
    # ovs-ctl notes the missing kernel module and carries on with the userspace datapath.
    /usr/share/openvswitch/scripts/ovs-ctl start --system-id=random >/dev/null 2>&1 || true
    ovs-vsctl --timeout=5 show >/dev/null 2>&1 || die "Open vSwitch did not start (see /var/log/openvswitch/)"
fi
