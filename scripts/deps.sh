#!/bin/bash
# Install what smmulab needs on Debian 12 (bookworm), as root, from Debian's
# archive only.  Idempotent: prints what it installs, nothing when all is there.
#
#   scripts/deps.sh            everything (QEMU build, kernel build, host tools)
#   scripts/deps.sh --linux-7.3   only linux-source-7.3, from trixie-backports
#       (the newest Linux source Debian's archive serves; the kit's 7.3
#       series, patches/linux-7.3/, is for it: docs/guest.md, "Your own tree")
#
# Adds two apt sources when missing:
#   - bookworm-backports (deb): meson >= 1.5 and python3-pycotap for QEMU 10
#   - trixie (deb-src only): Debian's source package of QEMU 10.0.x
# and with --linux-7.3 a third, pinned so that nothing else comes from it:
#   - trixie-backports (deb): linux-source-7.3 (architecture all)
set -euo pipefail

log() { echo "smmulab-deps: $*"; }
die() { echo "smmulab-deps: error: $*" >&2; exit 1; }

linux73=0
case ${1:-} in
'') ;;
--linux-7.3) linux73=1 ;;
*) die "$1: unknown option (scripts/deps.sh [--linux-7.3])" ;;
esac

APT_PKGS=(
    # QEMU build
    build-essential ninja-build pkg-config libglib2.0-dev libpixman-1-dev
    libfdt-dev zlib1g-dev python3-venv python3-setuptools flex bison
    dpkg-dev rsync ccache xz-utils bzip2 patch git
    # guest kernel and userspace
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross bc libssl-dev libelf-dev
    cpio kmod linux-source-6.12
    # host runner and tests (slurm: the one-node cluster of tests/slurm.sh;
    # its daemons are started only by that test, with their own config)
    libjson-glib-dev parallel chromium slurmctld slurmd slurm-client munge
)
BPO_PKGS=(meson python3-pycotap)

installed() {
    dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'
}

if [ $linux73 = 1 ] && [ "$(id -u)" != 0 ]; then
    installed linux-source-7.3 && exit 0
    die "not installed: linux-source-7.3; run 'sudo $0 --linux-7.3' once"
fi
if [ "$(id -u)" != 0 ]; then
    # A package dpkg does not know prints nothing: ask for each one
    absent=()
    for p in "${APT_PKGS[@]}" "${BPO_PKGS[@]}"; do
        installed "$p" || absent+=("$p")
    done
    if [ ${#absent[@]} = 0 ]; then
        exit 0
    fi
    die "not installed: ${absent[*]}; run 'sudo $0' once, then build as yourself"
fi

if ! grep -q '^ID=debian' /etc/os-release || \
   ! grep -q 'VERSION_CODENAME=bookworm' /etc/os-release; then
    die "this is not Debian 12 (bookworm): not adding Debian apt sources here; install the equivalents of: ${APT_PKGS[*]} ${BPO_PKGS[*]} (meson >= 1.5), and QEMU 10.0.x and Linux 6.12 sources (QEMU_SRC=, LINUX_SRC=: docs/build.md)"
fi

# The mirror this machine already uses for bookworm (deb822 or one-line
# sources), so that the added suites come from the same place
mirror=$(awk 'BEGIN { RS = ""; FS = "\n" }
    { u = ""; s = 0
      for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); u = a[2] }
          if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) s = 1
      }
      if (s && u != "") { print u; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null)
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1 == "deb" && / bookworm / {
        for (i = 2; i <= NF; i++) if ($i ~ /^(https?|ftp):/) { print $i; exit } }' \
        /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}

# linux-source-7.3 (all architectures, depends on binutils and xz-utils
# only) from trixie-backports, a suite pinned to priority 1 so that only
# what is asked for by name comes from it
if [ $linux73 = 1 ]; then
    installed linux-source-7.3 && exit 0
    src=/etc/apt/sources.list.d/smmulab-linux7.sources
    if [ ! -f "$src" ]; then
        log "adding apt source $src (trixie-backports deb, from $mirror)"
        cat > "$src" <<SRC
# Added by smmulab scripts/deps.sh --linux-7.3
Types: deb
URIs: $mirror
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
        cat > /etc/apt/preferences.d/smmulab-linux7 <<'PREF'
Package: *
Pin: release n=trixie-backports
Pin-Priority: 1
PREF
    fi
    export DEBIAN_FRONTEND=noninteractive
    log "apt-get update"
    apt-get update -qq || die "apt-get update failed"
    log "installing from trixie-backports: linux-source-7.3"
    apt-get install -y -qq --no-install-recommends linux-source-7.3/trixie-backports \
        >/dev/null || die "apt-get install linux-source-7.3/trixie-backports failed"
    exit 0
fi

need_update=0
src=/etc/apt/sources.list.d/smmulab.sources
if [ ! -f "$src" ]; then
    log "adding apt sources $src (bookworm-backports deb, trixie deb-src, from $mirror)"
    cat > "$src" <<SRC
# Added by smmulab scripts/deps.sh
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    need_update=1
fi
# Never let trixie binaries in: only its sources are wanted.
if [ ! -f /etc/apt/preferences.d/smmulab ]; then
    cat > /etc/apt/preferences.d/smmulab <<'PREF'
Package: *
Pin: release n=trixie
Pin-Priority: 1
PREF
fi

missing=()
for p in "${APT_PKGS[@]}"; do
    installed "$p" || missing+=("$p")
done
bpo_missing=()
for p in "${BPO_PKGS[@]}"; do
    installed "$p" || bpo_missing+=("$p")
done
# meson from bookworm itself is 1.0: too old for QEMU 10.
if installed meson; then
    v=$(dpkg-query -W -f='${Version}' meson)
    if dpkg --compare-versions "$v" lt 1.5; then
        bpo_missing+=(meson)
    fi
fi

if [ ${#missing[@]} = 0 ] && [ ${#bpo_missing[@]} = 0 ] && [ $need_update = 0 ]; then
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
lists_age=$(( $(date +%s) - $(stat -c %Y /var/lib/apt/lists 2>/dev/null || echo 0) ))
if [ $need_update = 1 ] || [ "$lists_age" -gt 86400 ] || \
   ! ls /var/lib/apt/lists/*trixie*Sources* >/dev/null 2>&1; then
    log "apt-get update"
    apt-get update -qq || die "apt-get update failed"
fi
if [ ${#missing[@]} != 0 ]; then
    log "installing: ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install ${missing[*]} failed"
fi
if [ ${#bpo_missing[@]} != 0 ]; then
    log "installing from bookworm-backports: ${bpo_missing[*]}"
    apt-get install -y -qq --no-install-recommends -t bookworm-backports \
        "${bpo_missing[@]}" >/dev/null \
        || die "apt-get install -t bookworm-backports ${bpo_missing[*]} failed"
fi
log "dependencies installed"
