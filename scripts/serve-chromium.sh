#!/usr/bin/env bash
# Installs Debian's chromium (as root) for the serve package's browser test
# (TestJobPageInChromium), which fails under CI=true without it.
#
#   bash scripts/serve-chromium.sh
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "serve-chromium.sh: chromium is missing and installing it needs root" >&2
	exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
