#!/bin/sh
# bench-vs-kueue.sh OUTDIR GENERATOR... - Turnstile and Kueue side by side
# on Kueue's scheduler performance test, on one machine in one sitting
# (make bench-vs-kueue; docs/benchmarks.md).
#
# For each generator file, at Kueue's client budget (50 QPS / 100 burst)
# and without one, alternately:
#   Kueue      its own runner (test/performance/scheduler/runner of the
#              pinned sigs.k8s.io/kueue) starting its envtest control plane
#              (etcd and kube-apiserver from build/k8s/bin) and Kueue:
#              minimalkueue at 50/100, kueue-bench-manager (the same set-up,
#              budget off) without a budget;
#   Turnstile  the same control plane (kube-envtest: envtest with the
#              runner's settings), then `turnstilectl bench --live
#              --kubeconfig` (the runner's role played by turnstilectl, the
#              controller started by it) at the same budget;
# then the zero-latency ideal under each budget.  Every kube-apiserver
# writes an audit log of the writes (policy below), so API writes are
# counted the same way for both.  vs_kueue.py prints the table.
#
# Environment: K8S_BIN (build/k8s/bin), ORACLE_OUT (build/oracle: the Go
# programs and Kueue's CRDs), TS_BIN (build/release/bin), BUDGETS ("50 0").
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OUTDIR GENERATOR..." >&2; exit 2; }
out=$1
shift
K8S_BIN=$(cd "${K8S_BIN:-build/k8s/bin}" && pwd)
ORACLE_OUT=$(cd "${ORACLE_OUT:-build/oracle}" && pwd)
TS_BIN=${TS_BIN:-build/release/bin}
BUDGETS=${BUDGETS:-50 0}
crds=$ORACLE_OUT/crds
for f in "$K8S_BIN/kube-apiserver" "$K8S_BIN/etcd" "$ORACLE_OUT/bin/kueue-perf-runner" \
    "$ORACLE_OUT/bin/minimalkueue" "$ORACLE_OUT/bin/kueue-bench-manager" \
    "$ORACLE_OUT/bin/kube-envtest" "$TS_BIN/turnstilectl" "$TS_BIN/turnstile"; do
    [ -x "$f" ] || { echo "bench-vs-kueue: $f is missing (make bench-vs-kueue builds it)" >&2; exit 1; }
done
mkdir -p "$out/assets"
out=$(cd "$out" && pwd)

# kube-apiserver as envtest starts it, plus an audit log of every write
cat >"$out/assets/kube-apiserver" <<SH
#!/bin/sh
exec "$K8S_BIN/kube-apiserver" "\$@" --audit-log-path="\$TS_AUDIT_LOG" \\
    --audit-policy-file="$out/assets/audit-policy.yaml" --audit-log-maxsize=0
SH
chmod +x "$out/assets/kube-apiserver"
ln -sf "$K8S_BIN/etcd" "$out/assets/etcd"
cat >"$out/assets/audit-policy.yaml" <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
YAML
export KUBEBUILDER_ASSETS="$out/assets"
# Kueue's test utilities look for their project directory at start
export PROJECT_DIR="$out/assets/kueue-project"

say() { echo "bench-vs-kueue: $(date -u +%H:%M:%S) $*"; }

kueue_run() { # GEN BUDGET DIR
    mkdir -p "$3"
    if [ "$2" = 0 ]; then
        manager=$ORACLE_OUT/bin/kueue-bench-manager
        qps=-1
    else
        manager=$ORACLE_OUT/bin/minimalkueue # fixes 50/100 itself
        qps=50
    fi
    say "Kueue $(basename "$manager") budget $2: $1"
    TS_KUEUE_QPS=$qps TS_KUEUE_BURST=100 TS_AUDIT_LOG="$3/audit.log" \
        "$ORACLE_OUT/bin/kueue-perf-runner" --o "$3" --crds "$crds" --generatorConfig "$1" \
        --minimalKueue "$manager" --timeout 90m >"$3/runner.log" 2>&1 ||
        { echo "bench-vs-kueue: Kueue's runner failed (see $3/runner.log)" >&2; return 1; }
}

turnstile_run() { # GEN BUDGET DIR
    mkdir -p "$3"
    rm -f "$3/kubeconfig"
    say "Turnstile budget $2: $1"
    TS_AUDIT_LOG="$3/audit.log" "$ORACLE_OUT/bin/kube-envtest" --crds "$crds" \
        --kubeconfig-out "$3/kubeconfig" >"$3/envtest.log" 2>&1 &
    envtest=$!
    i=0
    until [ -s "$3/kubeconfig" ]; do
        i=$((i + 1))
        if [ $i -gt 1200 ] || ! kill -0 $envtest 2>/dev/null; then
            echo "bench-vs-kueue: the control plane did not start (see $3/envtest.log)" >&2
            kill $envtest 2>/dev/null || :
            return 1
        fi
        sleep 0.1
    done
    budget=""
    [ "$2" = 0 ] || budget="--qps $2 --burst 100"
    rc=0
    # shellcheck disable=SC2086
    "$TS_BIN/turnstilectl" bench "$1" --live --kubeconfig "$3/kubeconfig" --crds "$crds" \
        --no-cleanup --bin-dir "$TS_BIN" $budget --timeout 5400 --series "$3/series.tsv" -o json \
        >"$3/bench.json" 2>"$3/bench.err" || rc=$?
    kill -TERM $envtest 2>/dev/null || :
    wait $envtest || :
    [ $rc = 0 ] || { echo "bench-vs-kueue: turnstilectl bench failed (see $3/bench.err)" >&2; return 1; }
}

say "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
for gen in "$@"; do
    case "$gen" in
    */generator.yaml) name=$(basename "$(dirname "$gen")") ;;
    *) name=$(basename "$gen" .yaml) ;;
    esac
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    cp "$gen" "$out/$name/generator.yaml" # the classes' requests, for the table
    for b in $BUDGETS; do
        kueue_run "$gen" "$b" "$out/$name/kueue-$b"
        turnstile_run "$gen" "$b" "$out/$name/turnstile-$b"
        ideal="--ideal"
        [ "$b" = 0 ] || ideal="--ideal --write-budget $b/100"
        # shellcheck disable=SC2086
        "$TS_BIN/turnstilectl" bench "$gen" $ideal -o json >"$out/$name/ideal-$b.json"
    done
done
/usr/bin/python3 "$(dirname "$0")/vs_kueue.py" "$out" >"$out/table.md"
cat "$out/table.md"
