#!/usr/bin/env bash
# The whole HermitMQ test suite, from a fresh machine: installs what the
# tests need (Node.js for the Web Crypto interop tests, nats-server for the
# NATS JetStream transport), then checks formatting, lints and docs and runs
# every test of every crate. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v nats-server >/dev/null 2>&1 || need_apt+=(nats-server)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "test.sh: installing ${need_apt[*]} from Debian's packages" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need_apt[@]}"
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# Docs build without warnings (broken intra-doc links, stray HTML).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --all-targets
cargo test --workspace --doc
