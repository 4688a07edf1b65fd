#!/bin/sh
# Installs Debian's podman and what building the images needs (runc, catatonit, buildah, debootstrap), and writes
# the containers.conf drop-in this kind of machine needs. Idempotent: a second run checks and returns in a second.
#
#   sh deploy/scripts/install-podman.sh          (as root; exits 1 with a message when not root or without apt-get)
#
# The drop-in (/etc/containers/containers.conf.d/stratum.conf) sets:
#   runtime = "runc"       crun fails here with "cgroups in hybrid mode not supported";
#   default_ulimits = []   otherwise runc fails with "setrlimit RLIMIT_NPROC: Operation not permitted".
# Progress goes to stderr; nothing is printed when everything is in place.
set -eu
log() { echo "install-podman: $*" >&2; }
die() { echo "install-podman: error: $*" >&2; exit 1; }
PKGS="podman runc catatonit buildah debootstrap"
CONF_DIR=/etc/containers/containers.conf.d
CONF=$CONF_DIR/stratum.conf
CONF_TEXT='# Written by deploy/scripts/install-podman.sh (Stratum). See that script for why.
[containers]
default_ulimits = []

[engine]
runtime = "runc"'

# shellcheck disable=SC2086 # the list is word-split on purpose
MISSING=$(sh "$(dirname -- "$0")/apt-install.sh" --missing $PKGS)
CONF_OK=0
[ -f "$CONF" ] && [ "$(cat "$CONF")" = "$CONF_TEXT" ] && CONF_OK=1
if [ -z "$MISSING" ] && [ "$CONF_OK" = 1 ]; then
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install ${MISSING:-the containers.conf drop-in} (sudo sh $0)"
if [ -n "$MISSING" ]; then
  # shellcheck disable=SC2086 # the list is word-split on purpose
  sh "$(dirname -- "$0")/apt-install.sh" install-podman --no-install-recommends $MISSING
fi
if [ "$CONF_OK" = 0 ]; then
  mkdir -p "$CONF_DIR"
  printf '%s\n' "$CONF_TEXT" >"$CONF"
  log "wrote $CONF"
fi
log "podman $(podman --version 2>/dev/null | awk '{print $3}') ready (runtime runc)"
