#!/bin/sh
# Installs Debian's Chromium (package `chromium`), the browser the console's tests (gateway/console/test) drive with
# playwright-core; Playwright's own browser download is not used (it needs network access to its CDN). Does nothing
# when /usr/bin/chromium is already there. Recommended packages come too (fonts, so screenshots show text). Needs root (as CI and the session machines run).
set -eu
if [ -x /usr/bin/chromium ]; then
  echo "install-chromium: /usr/bin/chromium is installed" >&2
  exit 0
fi
sh "$(dirname -- "$0")/apt-install.sh" install-chromium chromium
[ -x /usr/bin/chromium ] || { echo "install-chromium: /usr/bin/chromium still missing after apt-get install" >&2; exit 1; }
echo "install-chromium: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) installed at /usr/bin/chromium" >&2
