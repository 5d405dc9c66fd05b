#!/bin/sh
# make test: every test, then one summary line.
#   1. test/run-tests.sh BUILD: the cmocka programs and the end-to-end scripts
#      on turnstile-apiserver;
#   2. Kueue as the oracle (test/oracle): every committed scenario decided by
#      Kueue's own scheduler and by Turnstile's engine; a difference not listed
#      in test/oracle/known-differences.txt fails; then a fixed set of random
#      scenarios (make fidelity-seeds: seeds 0-29 of every family of
#      test/oracle/gen.py, known-fuzz-differences.txt), and Kueue's API
#      rules (make api-fidelity SEEDS=3: CRDs, webhooks and conversion on
#      generated objects, known-api-differences.txt);
#   3. make bench-vs-kueue's harness on test/perf/smoke.yaml (Kueue's own
#      performance runner and minimalkueue, then Turnstile, on envtest's
#      control plane): the table comes out whole;
#   4. the real control plane (test/k8s): kube-apiserver, etcd,
#      kube-controller-manager, kube-scheduler and KWOK built from their Go
#      modules, and test/k8s/e2e/*.sh on it.
# 2 to 4 need Go (test infrastructure only): without it the run stops and
# says what to install; TS_SKIP_K8S=1 skips them, and the summary says so.
# Usage: test/run-all.sh BUILD_DIR
set -u
build=${1:?usage: run-all.sh BUILD_DIR}
cd "$(dirname "$0")/.." || exit 1
logs=$build/test-logs
mkdir -p "$logs"
MAKE=${MAKE:-make}

# totals LOG: the "total: P passed, F failed[, S skipped]" line of LOG
totals() {
    sed -n 's/^total: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p' "$1" |
        tail -1
}

test/run-tests.sh "$build" 2>&1 | tee "$logs/run-tests.out"
set -- $(totals "$logs/run-tests.out")
passed=${1:-0} failed=${2:-1} skipped=${3:-0}
[ -n "${1:-}" ] || echo "run-all: test/run-tests.sh printed no total" >&2

if [ "${TS_SKIP_K8S:-0}" = 1 ]; then
    echo
    echo "== Kueue oracle and real control plane: skipped (TS_SKIP_K8S=1) =="
    skipped=$((skipped + 2))
else
    GO=$(command -v go 2>/dev/null || echo /usr/local/go/bin/go)
    if ! [ -x "$GO" ]; then
        echo "make test: Go is missing: the Kueue oracle and the real control plane are built from"
        echo "  Go modules (test infrastructure only). Install Go 1.26 as /usr/local/go, or run"
        echo "  TS_SKIP_K8S=1 make test to skip them."
        exit 2
    fi
    export PATH="$PATH:$(dirname "$GO")"
    echo
    echo "== Kueue as the oracle (test/oracle) =="
    if $MAKE --no-print-directory oracle-bin >"$logs/oracle-build.log" 2>&1 &&
        /usr/bin/python3 test/oracle/compare.py --sim "$build/bin/turnstilectl" \
            --oracle build/oracle/bin/kueue-oracle --quiet --strict \
            --known test/oracle/known-differences.txt >"$logs/fidelity.log" 2>&1; then
        passed=$((passed + 1))
        echo "[  PASSED  ] fidelity: $(grep 'decision agreement' "$logs/fidelity.log")"
    else
        failed=$((failed + 1))
        echo "[  FAILED  ] fidelity (logs: $logs/oracle-build.log, $logs/fidelity.log)"
        tail -20 "$logs/fidelity.log" 2>/dev/null || tail -20 "$logs/oracle-build.log"
    fi
    # the fixed random set: seeds 0-29 of every family of test/oracle/gen.py
    if $MAKE --no-print-directory fidelity-seeds BUILD="$build" ORACLE_SIM="$build/bin/turnstilectl" \
        >"$logs/fidelity-seeds.log" 2>&1; then
        passed=$((passed + 1))
        echo "[  PASSED  ] fidelity-seeds: $(sed -n 's|^[a-z-]*: *\([0-9]*\)/\([0-9]*\) agree.*|\1 \2|p' "$logs/fidelity-seeds.log" |
            awk '{a += $1; n += $2} END {printf "%d of %d random scenarios agree, the rest listed with reasons", a, n}')"
    else
        failed=$((failed + 1))
        echo "[  FAILED  ] fidelity-seeds (log: $logs/fidelity-seeds.log)"
        tail -30 "$logs/fidelity-seeds.log"
    fi
    # Kueue's API rules (CRDs, webhooks, conversion) on a fixed set of
    # generated objects: seeds 1-3 of test/oracle/apigen.py
    if $MAKE --no-print-directory api-fidelity SEEDS=3 ORACLE_SIM="$build/bin/turnstilectl" \
        API_FIDELITY_ARGS=--strict >"$logs/api-fidelity.log" 2>&1; then
        passed=$((passed + 1))
        echo "[  PASSED  ] api-fidelity: $(awk '$2 ~ /^[0-9]+$/ {n += $2} $2 == "update" && $3 ~ /^[0-9]+$/ {u += $3} END {print n " objects, " u " updates"}' "$logs/api-fidelity.log"), every difference listed with its reason"
    else
        failed=$((failed + 1))
        echo "[  FAILED  ] api-fidelity (log: $logs/api-fidelity.log)"
        tail -30 "$logs/api-fidelity.log"
    fi
    echo
    echo "== Kueue beside Turnstile (make bench-vs-kueue's harness on test/perf/smoke.yaml) =="
    # the harness only: Kueue's runner and minimalkueue, Turnstile on the
    # same control plane, the table; its figures are measurements, checked
    # for presence, not bounds
    if test/k8s/build.sh build/k8s/bin >"$logs/k8s-build.log" 2>&1 &&
        $MAKE --no-print-directory kueue-bench-bins >"$logs/kueue-bench-build.log" 2>&1 &&
        TS_BIN="$build/bin" test/perf/bench-vs-kueue.sh "$logs/bench-vs-kueue" test/perf/smoke.yaml \
            >"$logs/bench-vs-kueue.log" 2>&1 &&
        grep -q "^### smoke, 50/100" "$logs/bench-vs-kueue.log" &&
        grep -q "^### smoke, no budget" "$logs/bench-vs-kueue.log" &&
        grep -q "^| controller peak RSS, MiB | [0-9.]* | [0-9.]* |" "$logs/bench-vs-kueue.log"; then
        passed=$((passed + 1))
        echo "[  PASSED  ] bench-vs-kueue harness: $(grep -c '^| ' "$logs/bench-vs-kueue.log") table rows"
    else
        failed=$((failed + 1))
        echo "[  FAILED  ] bench-vs-kueue harness (logs: $logs/kueue-bench-build.log, $logs/bench-vs-kueue.log)"
        tail -20 "$logs/bench-vs-kueue.log" 2>/dev/null || tail -20 "$logs/kueue-bench-build.log"
    fi
    echo
    echo "== the real control plane (test/k8s) =="
    if test/k8s/build.sh build/k8s/bin >"$logs/k8s-build.log" 2>&1; then
        K8S_BIN=$(pwd)/build/k8s/bin test/k8s/run-e2e.sh "$build" 2>&1 | tee "$logs/k8s.out"
        set -- $(totals "$logs/k8s.out")
        passed=$((passed + ${1:-0})) failed=$((failed + ${2:-1})) skipped=$((skipped + ${3:-0}))
    else
        failed=$((failed + 1))
        echo "[  FAILED  ] building the control plane (log: $logs/k8s-build.log)"
        tail -20 "$logs/k8s-build.log"
    fi
fi
echo
echo "total: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
