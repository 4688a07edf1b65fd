#!/bin/sh
# Installs the official OpenStack clients that the compatibility tests drive, from Debian's packages:
# python3-openstackclient (the `openstack` command), python3-octaviaclient (its `loadbalancer` commands) and
# python3-openstacksdk, and keystone (a real Keystone that integration tests bootstrap on SQLite and serve on
# loopback; its service is not started). Does nothing when they are already there. Needs root (as CI and the session machines run).
set -eu
if [ -x /usr/bin/openstack ] && [ -x /usr/bin/keystone-manage ] && /usr/bin/python3 -c 'import openstack, octaviaclient' >/dev/null 2>&1; then
  exit 0
fi
sh "$(dirname -- "$0")/apt-install.sh" install-openstack-clients --no-install-recommends \
  python3-openstackclient python3-octaviaclient python3-openstacksdk keystone
/usr/bin/openstack --version >&2
