#!/usr/bin/env bash
# Fuzz one target for a budget of CPU seconds (not wall seconds: the fuzzer
# runs under `nice -n 19`, so on a busy machine it gets less than a core).
#
#   fuzz/run.sh TARGET [CPU_SECONDS=1200] [OUT_DIR=/dev/shm/hermit-fuzz] [WALL_SECONDS]
#
# Expects the AFL binary built (`cargo afl build --release -p hermit-fuzz
# --features afl --bin TARGET`). Starts afl-fuzz on fuzz/corpus/TARGET,
# samples the CPU time of its whole process tree (its own time, the live
# target's, and what reaped children left in cutime/cstime) every 5 s, stops
# it with SIGINT once the budget is spent, and prints the campaign's numbers
# from fuzzer_stats. WALL_SECONDS, when given, stops it earlier (a campaign
# with a deadline on a busy machine). One fuzzer at a time: the machine is
# shared. Running it again on the same OUT_DIR resumes the campaign.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh TARGET [CPU_SECONDS] [OUT_DIR]}
budget=${2:-1200}
out=${3:-/dev/shm/hermit-fuzz}/$target
wall=${4:-0}
bin=${CARGO_TARGET_DIR:-target}/release/$target
[ -x "$bin" ] || { echo "run.sh: build $bin first (see fuzz/README.md)" >&2; exit 1; }
mkdir -p "$out"
# afl-fuzz itself, not `cargo afl fuzz` (a parent that would not pass the
# SIGINT on): the one cargo-afl built for this toolchain.
afl_fuzz=${AFL_FUZZ:-$(ls -d "$HOME"/.local/share/afl.rs/rustc-"$(rustc -V | cut -d' ' -f2)"-*/afl.rs-*/afl/bin/afl-fuzz | tail -n1)}
hz=$(getconf CLK_TCK)

# CPU ticks of a process and its descendants (utime+stime+cutime+cstime).
tree_ticks() {
  local pid=$1 sum=0 child t
  # Fields after the ")" of the command name: 14-17 are the four times. A
  # process may end between listing and reading: it counts 0 (its time is
  # in its parent's cutime once reaped).
  t=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12+$13+$14+$15}')
  sum=${t:-0}
  for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do
    t=$(tree_ticks "$child")
    sum=$((sum + ${t:-0}))
  done
  echo "$sum"
}

resume=()
# A second run continues the same campaign (AFL_AUTORESUME keeps the queue).
[ -d "$out/default/queue" ] && resume=(env AFL_AUTORESUME=1)
AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
  "${resume[@]}" nice -n 19 "$afl_fuzz" -i "fuzz/corpus/$target" -o "$out" "$bin" \
  >"$out.log" 2>&1 &
afl=$!
ticks=0
started=$SECONDS
while kill -0 "$afl" 2>/dev/null; do
  sleep 5
  t=$(tree_ticks "$afl")
  [ "$t" -gt "$ticks" ] && ticks=$t
  if [ "$ticks" -ge $((budget * hz)) ] || { [ "$wall" -gt 0 ] && [ $((SECONDS - started)) -ge "$wall" ]; }; then
    kill -INT "$afl"
    break
  fi
done
wait "$afl" || true
stats=$out/default/fuzzer_stats
echo "target=$target cpu_seconds=$((ticks / hz)) wall_seconds=$((SECONDS - started))"
if [ -r "$stats" ]; then
  grep -E '^(run_time|execs_done|execs_per_sec|corpus_count|bitmap_cvg|edges_found|total_edges|saved_crashes|saved_hangs)\b' "$stats"
fi
