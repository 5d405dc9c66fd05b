#!/bin/sh
# Read your own writes (pkg/controller/written.c): the controller's next
# write on a Workload (its admission right after its pending reason, an
# eviction) is built on its own landed write, not on the cache's older
# copy, while the watch has not brought that write back yet.  Here every
# watch event arrives 300 ms late (the server's watch-lag fault) and
# turnstilectl bench runs test/perf/smoke.yaml (24 Workloads, pending
# reasons, admissions, preemption) against it: each write built on the
# cache's copy would be refused with a 409 until the watch caught up,
# dozens to hundreds of times a run; only a victim's eviction racing the
# runner's own write may still conflict.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
ctl=${TS_BUILD:-build}/bin/turnstilectl
[ -x "${TS_BUILD:-build}/bin/turnstile" ] || { echo "skip: turnstile not built"; exit 77; }
as_start --faults seed=1,watch-lag=300ms

K apply --server-side -f crds/ >"$T/apply" 2>&1 || { cat "$T/apply"; fail "apply CRDs"; }
K wait --for=condition=Established --timeout=30s crd/workloads.kueue.x-k8s.io >/dev/null
"$ctl" bench test/perf/smoke.yaml --live --kubeconfig "$KC" --crds crds --timeout 120 \
    >"$T/out" 2>&1 || { cat "$T/out"; fail "bench under watch lag"; }
check "every workload admitted and finished" contains "$(cat "$T/out")" \
    "admitted: 24  finished: 24  never admitted: 0"
status_put='method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads/[^ ]*/status'
ok=$(grep -c "$status_put code=200" "$T/server.log")
conflicts=$(grep -c "$status_put code=409" "$T/server.log")
echo "status writes: $ok landed, $conflicts refused"
check "status writes landed" test "$ok" -ge 24
check "no 409 storm while the watch lags ($conflicts refused)" test "$conflicts" -le 5
finish
