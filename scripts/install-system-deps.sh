#!/bin/sh
# System packages the test suite needs beyond Python wheels.
# Installed with apt-get when missing and when we may (root or passwordless sudo).
set -eu
need=""
command -v chromium >/dev/null 2>&1 || need="$need chromium"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = "0" ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
  echo "install-system-deps: cannot install:$need (not root, no sudo); browser tests will report it" >&2
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: apt-get install$need" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
else
  echo "install-system-deps: no apt-get; install$need yourself" >&2
fi
