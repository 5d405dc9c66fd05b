#!/bin/sh
# make fuzz: builds every test/fuzz target with clang and libFuzzer
# (-fsanitize=fuzzer,address,undefined, into build/fuzz/) and runs each for
# FUZZ_SECONDS (default 60) on its corpus.  New inputs go to
# build/fuzz/corpus/<target>/ (test/fuzz/corpus/<target>/ is only read);
# a crash is written to build/fuzz/crashes/<target>-crash-*: fix it, then
# copy the file into test/fuzz/corpus/<target>/ as its regression test.
# Prints one line per target: executions, coverage, corpus size, crashes.
# Usage: test/fuzz/run.sh [TARGET...]   (FUZZ_SECONDS, FUZZ_JOBS env)
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=${FUZZ_SECONDS:-60}
make=${MAKE:-make}
out=build/fuzz

if ! command -v clang >/dev/null 2>&1; then
    echo "make fuzz: clang is not installed; libFuzzer needs it: sudo apt-get install -y clang" >&2
    exit 1
fi
probe=$(mktemp -d)
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$probe/p.c"
if ! clang -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" 2>"$probe/err"; then
    echo "make fuzz: clang cannot link libFuzzer (-fsanitize=fuzzer):" >&2
    cat "$probe/err" >&2
    rm -rf "$probe"
    exit 1
fi
rm -rf "$probe"

$make --no-print-directory MODE=fuzz CC=clang -j2 fuzzers || exit 1
targets=${*:-$(ls test/fuzz/fuzz_*.c | sed 's|test/fuzz/fuzz_\(.*\)\.c|\1|')}
mkdir -p "$out/crashes" "$out/logs"
failed=0
printf '%-11s %6s %11s %9s %6s %6s %8s %7s\n' target secs execs exec/s cov ft corpus crashes
for t in $targets; do
    mkdir -p "$out/corpus/$t"
    log=$out/logs/$t.log
    "$out/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$t-" "$out/corpus/$t" "test/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corpus=$(ls "$out/corpus/$t" "test/fuzz/corpus/$t" | grep -vc ':$')
    crashes=$(ls "$out/crashes" | grep -c "^$t-")
    printf '%-11s %6s %11s %9s %6s %6s %8s %7s\n' "$t" "$secs" "${execs:-?}" "${speed:-?}" \
        "${cov:-?}" "${ft:-?}" "$corpus" "$crashes"
    if [ "$rc" -ne 0 ]; then
        failed=1
        echo "  $t: exit $rc, see $log:"
        grep -E 'ERROR|property failed|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/    /'
    fi
done
exit $failed
