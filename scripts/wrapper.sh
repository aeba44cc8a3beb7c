#!/bin/sh
# /usr/local/sbin/mcastlab, the wrapper `sudo mcastlab` runs: scripts/install.sh writes the
# text this prints, and checks a checkout the same way before it installs one.
#
#   sh scripts/wrapper.sh check DIR   nothing, exit 0: only root can change the code that
#                                     `DIR/.venv/bin/mcastlab` runs; else one line, exit 2
#   sh scripts/wrapper.sh print DIR   the wrapper for checkout DIR (a physical path)
#   sh scripts/wrapper.sh install DIR TARGET   TARGET becomes that wrapper (install_wrapper)
#
# The wrapper runs the same check at every start, before any of the checkout's code: root
# runs that code, so a checkout another user can change (their clone, a folder of theirs
# on the way to it, a file or folder writable by group or others, a venv whose interpreter
# or system site-packages they can write) is refused with one line and exit code 2. The
# check is plain sh, find and stat, kept between the guard markers and copied whole into the
# wrapper: the wrapper is root's file in /usr/local/sbin and trusts nothing in the checkout.
set -u

# ---- guard: begin ----
# mcastlab_above PATH...: the folders above each PATH, up to /, on one line.
mcastlab_above() {
    for _p; do
        while [ -n "$_p" ] && [ "$_p" != / ]; do
            _p=${_p%/*}
            printf '%s ' "${_p:-/}"
        done
    done
}

# mcastlab_why SELF|ABOVE PATH...: one line naming how a user other than root can change
# the first PATH they can (not followed if it is a link); nothing when they can change none.
# ABOVE: the PATHs are folders above what is checked, and a folder writable by all with the
# sticky bit (/tmp) passes: nobody can replace root's entries in it.
mcastlab_why() {
    _k=$1
    shift
    [ $# -gt 0 ] || return 0
    _out=$(stat -c '%u %a %U %n' -- "$@" 2>&1) || { echo "${_out##*stat: }"; return; }
    printf '%s\n' "$_out" | while read -r _u _m _o _n; do
        if [ "$_u" != 0 ]; then
            echo "$_n belongs to $_o (uid $_u)"
            break
        elif [ $((0$_m & 022)) != 0 ] && { [ "$_k" = SELF ] || [ $((0$_m & 01000)) = 0 ]; }
        then
            echo "$_n is writable by its group or by others (mode $_m)"
            break
        fi
    done
}

# mcastlab_guard DIR: how another user can change what DIR's mcastlab runs as root, one
# line a way found (its caller takes the first); nothing when there is none.
mcastlab_guard() {
    set -f  # paths of letters, digits and /._+- (install_wrapper), split on spaces only
    _d=$1
    if [ "$(cd -- "$_d" 2>/dev/null && pwd -P)" != "$_d" ]; then
        echo "$_d is gone or is reached through a symbolic link now"
        return
    fi
    # the interpreter the venv links to, and the folders above it and the checkout
    _py=$(readlink -f -- "$_d/.venv/bin/python3") && [ -x "$_py" ] ||
        { echo "$_d/.venv/bin/python3 is missing (run make install)"; return; }
    _w=$(mcastlab_why SELF "$_py"; mcastlab_why ABOVE $(mcastlab_above "$_d" "$_py"))
    [ -z "$_w" ] || { echo "$_w"; return; }
    # the checkout: every file, folder and link (results and the git folder hold no code
    # that runs; testbed/results.py checks the git folder itself before it runs git)
    _b=$(find "$_d" \( -path "$_d/.git" -o -path "$_d/results" \) -prune -o \
        \( ! -user 0 -o ! -type l -perm /022 \) -print -quit 2>&1)
    [ -z "$_b" ] || { _w=$(mcastlab_why SELF "$_b"); echo "${_w:-$_b}"; return; }
    # the system's folders the interpreter reads modules from (not their files: Debian's)
    _sys=
    for _p in $("$_py" -I -S -c 'import site, sys
print(*sys.path, *site.getsitepackages([sys.base_prefix]))'); do
        [ ! -e "$_p" ] || _sys="$_sys $_p"
    done
    mcastlab_why SELF $_sys
    mcastlab_why ABOVE $(mcastlab_above $_sys)
}

mcastlab_refuse() {  # DIR WHY
    echo "mcastlab: refusing to run $1: $2, and sudo mcastlab runs its code as root." \
        "Install from a checkout only root can change: clone as root into a root-owned" \
        "folder (sudo git clone REPO /opt/mcastlab && cd /opt/mcastlab && sudo make install)," \
        "or, if you trust it, run its .venv/bin/mcastlab yourself." >&2
}
# ---- guard: end ----

wrapper_text() {  # DIR
    printf '#!/bin/sh\n# mcastlab: installed by %s/scripts/install.sh (make install)\n' "$1"
    echo "# It runs that checkout's .venv/bin/mcastlab once it has checked that only root can"
    echo "# change what that runs (scripts/wrapper.sh there says how)."
    sed -n '/^# ---- guard: begin/,/^# ---- guard: end/p' "$0"
    printf 'why=$(mcastlab_guard "%s" | head -n 1)\n' "$1"
    printf '[ -z "$why" ] || { mcastlab_refuse "%s" "$why"; exit 2; }\n' "$1"
    printf 'exec "%s/.venv/bin/mcastlab" "$@"\n' "$1"
}

# install DIR TARGET: TARGET becomes DIR's wrapper, unless DIR is a checkout another user
# can change (then a TARGET that ran DIR is removed) or TARGET is not mcastlab's wrapper (a
# link, another program's file: left alone). Written beside and renamed: never through a
# link. What it did, in one line; exit 0 whatever it was, so that install goes on.
install_wrapper() {  # DIR TARGET
    case "$1" in *[!A-Za-z0-9/._+-]*)
        echo "install: $2 not installed: the checkout's path $1 has characters other than" \
            "letters, digits and /._+- (run .venv/bin/mcastlab)"; return ;;
    esac
    ours=$(sed -n 's|^# mcastlab: installed by \(.*\)/scripts/install.sh .*|\1|p' "$2" 2>/dev/null)
    if [ -L "$2" ] || { [ -e "$2" ] && [ -z "$ours" ]; }; then
        echo "install: $2 is not mcastlab's wrapper: left alone (run .venv/bin/mcastlab)"
        return
    fi
    why=$(mcastlab_guard "$1" | head -n 1)
    if [ -n "$why" ]; then
        echo "install: $2 (sudo mcastlab) not installed for this checkout: $why, and it would" \
            "run this checkout's code as root. Clone as root into a root-owned folder (sudo git" \
            "clone REPO /opt/mcastlab && cd /opt/mcastlab && sudo make install); here, run" \
            ".venv/bin/mcastlab."
        if [ "$ours" = "$1" ]; then
            rm -f -- "$2" && echo "install: removed $2, which ran this checkout"
        fi
        return
    fi
    text=$(wrapper_text "$1")
    [ ! -f "$2" ] || [ "$(cat -- "$2")" != "$text" ] || return 0
    if [ -n "$ours" ] && [ "$ours" != "$1" ]; then
        echo "install: $2 now runs this checkout ($1), not $ours"
    else
        echo "install: $2 (sudo mcastlab ...) runs this checkout ($1)"
    fi
    mkdir -p -- "$(dirname -- "$2")"
    tmp=$(mktemp "$2.XXXXXX")
    printf '%s\n' "$text" > "$tmp" && chmod 755 "$tmp" && mv -f -- "$tmp" "$2"
}

case "${1:-} ${2:-}" in
    check\ /*)
        why=$(mcastlab_guard "$2" | head -n 1)
        [ -z "$why" ] || { echo "$why"; exit 2; } ;;
    print\ /*) wrapper_text "$2" ;;
    install\ /*)
        [ $# = 3 ] || { echo "usage: sh scripts/wrapper.sh install CHECKOUT TARGET" >&2; exit 2; }
        install_wrapper "$2" "$3" ;;
    *)
        echo "usage: sh scripts/wrapper.sh check|print CHECKOUT, install CHECKOUT TARGET" \
            "(CHECKOUT an absolute, physical path)" >&2
        exit 2 ;;
esac
