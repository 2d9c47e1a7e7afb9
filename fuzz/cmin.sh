#!/usr/bin/env bash
# Minimise a campaign's queue back into the target's corpus:
#
#   fuzz/cmin.sh TARGET [OUT_DIR=/dev/shm/hermit-fuzz]
#
# CMIN_FLAGS passes options to afl-cmin: `-e` (edges only, no hit counts)
# keeps a corpus to a few hundred files where hit counts alone would keep
# a thousand (config).
# Uses AFL++'s afl-cmin.bash (the Python afl-cmin that `cargo afl cmin`
# runs finds no coverage in these persistent-mode binaries) with its work
# directory under /tmp (afl-showmap could not write its traces under
# /dev/shm here). Replaces fuzz/corpus/TARGET with the minimised set.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/cmin.sh TARGET [OUT_DIR]}
queue=${2:-/dev/shm/hermit-fuzz}/$target/default/queue
bin=${CARGO_TARGET_DIR:-target}/release/$target
afl_bin=${AFL_BIN:-$(ls -d "$HOME"/.local/share/afl.rs/rustc-"$(rustc -V | cut -d' ' -f2)"-*/afl.rs-*/afl/bin | tail -n1)}
work=$(mktemp -d /tmp/hermit-cmin-XXXXXX)
trap 'rm -rf "$work"' EXIT
AFL_SKIP_CPUFREQ=1 AFL_PATH=$afl_bin nice -n 19 "$afl_bin/afl-cmin.bash" ${CMIN_FLAGS:-} \
  -i "$queue" -o "$work/out" -- "$bin" >"$work/log" 2>&1 || { tail -c 2000 "$work/log" >&2; exit 1; }
n=$(find "$work/out" -maxdepth 1 -type f | wc -l)
[ "$n" -gt 0 ] || { echo "cmin.sh: nothing kept" >&2; exit 1; }
rm -f "fuzz/corpus/$target"/*
i=0
for f in "$work/out"/*; do
  cp "$f" "fuzz/corpus/$target/$(printf 'min-%04d' "$i")"
  i=$((i + 1))
done
echo "corpus/$target: $n files, $(cat "fuzz/corpus/$target"/* | wc -c) bytes"
