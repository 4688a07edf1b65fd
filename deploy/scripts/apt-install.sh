#!/bin/sh
# Installs Debian packages for the project's install scripts, one way for all of them:
#   sh deploy/scripts/apt-install.sh <caller> [apt-get install options] <package>...
#   sh deploy/scripts/apt-install.sh --missing <package>...   (prints those not installed, space-separated)
# Refreshes the package lists first (they may be stale or missing on a fresh machine, pointing at versions the mirror
# no longer has), waits up to 10 minutes for another apt-get to let go of its lock, stays quiet unless it fails (then
# apt-get's last lines are shown), and exits 1 with `<caller>: …` on stderr when apt-get is missing or the install
# fails. Root, or sudo when not root.
set -eu
if [ "$1" = --missing ]; then
  shift
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || printf '%s ' "$p"
  done
  exit 0
fi
WHO=$1
shift
command -v apt-get >/dev/null 2>&1 || { echo "$WHO: apt-get not found (Debian's packages are needed: $*)" >&2; exit 1; }
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "$WHO: installing $* (first run only)..." >&2
export DEBIAN_FRONTEND=noninteractive
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >"$OUT" 2>&1 || echo "$WHO: apt-get update failed; installing from the lists there are" >&2
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >"$OUT" 2>&1 || {
  tail -n 20 "$OUT" >&2
  echo "$WHO: apt-get install $* failed" >&2
  exit 1
}
