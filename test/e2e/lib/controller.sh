# Shared helpers for the controller e2e tests (sourced after
# lib/apiserver.sh): start/stop build/bin/turnstile against the server,
# poll for conditions, create Jobs from data/controller/job.tmpl.
#
#   ctl_start            start the controller (log: $T/ctl.log), sets CTL_PID
#   ctl_check_log        fail on sanitizer reports in the controller log
#   wait_for DESC CMD..  poll CMD for up to 10 s (WAIT_TENTHS overrides;
#                        both times $SLOW under a wrapper)
#   job NAME [PRIO]      create Job NAME in team-a, queue lq, 1 cpu
#   jobs_yaml PREFIX N [LQ]  YAML of Jobs PREFIX1..PREFIXN (queue LQ, default lq)
#   wl_of JOB            name of the Workload owned by JOB
#   admitted JOB / suspended JOB [KIND PATH] / unsuspended ... / gone JOB
#   queues_with_cpu N    apply the CRDs and data/controller/queues.yaml, cq's cpu quota N
#   crds_with_conversion the CRDs (and, on the real control plane, the webhook
#                        server converting them)
#   budget_config QPS BURST  write $T/config.yaml with that client budget
#   wl_yaml NAME PRIO [LQ]   YAML of a 1-cpu Workload in team-a (queue LQ, default lq)
#   wl_reserved WORKLOAD  the Workload (team-a) holds QuotaReserved=True
CTL=$BUILD/bin/turnstile
CD=$(dirname "$0")/data/controller
[ -x "$CTL" ] || { echo "skip: $CTL not built"; exit 77; }

ctl_start() {
    $WRAP "$CTL" --kubeconfig "$KC" --metrics-bind-address 127.0.0.1:0 --visibility-bind-address 127.0.0.1:0 "$@" >>"$T/ctl.log" 2>&1 &
    CTL_PID=$!
    PIDS="$PIDS $CTL_PID"
    OURS="$OURS $CTL_PID"
}

ctl_check_log() {
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/ctl.log"; then
        grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/ctl.log" | head -60
        fail "sanitizer report in the controller log"
    fi
    [ "$FAILS" -eq 0 ] || tail -30 "$T/ctl.log"
}

wait_for() {
    desc=$1
    shift
    i=0
    until "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -ge $((${WAIT_TENTHS:-100} * SLOW)) ]; then
            fail "$desc (timed out)"
            return 1
        fi
        sleep 0.1
    done
}

queues_with_cpu() {
    crds_with_conversion
    K apply -f "$CD/queues.yaml" >/dev/null 2>&1
    K patch clusterqueue cq --type=json \
        -p "[{\"op\":\"replace\",\"path\":\"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota\",\"value\":\"$1\"}]" >/dev/null
}

# crds_with_conversion: the CRDs; on the real control plane
# (TS_SERVER=real) also the webhook server for their v1beta1 conversion
# and Kueue's webhooks (test/k8s/e2e/lib/k8s.sh), which turnstile-apiserver
# has built in
crds_with_conversion() {
    if [ "${TS_SERVER:-ours}" = real ]; then
        . test/k8s/e2e/lib/k8s.sh
        crds_apply
        wh_start
    else
        K apply -f crds/ >/dev/null
    fi
}

budget_config() {
    cat >"$T/config.yaml" <<YAML
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
clientConnection:
  qps: $1
  burst: $2
YAML
}

wl_yaml() {
    cat <<YAML
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: $1, namespace: team-a}
spec:
  queueName: ${3:-lq}
  priority: $2
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: registry.k8s.io/pause:3.9
          resources: {requests: {cpu: "1"}}
YAML
}

wl_reserved() {
    [ "$(K get workload -n team-a "$1" -o jsonpath='{.status.conditions[?(@.type=="QuotaReserved")].status}')" = True ]
}

# pods_run [DELAY]: on the real control plane a Job's Pods run (under KWOK)
# for DELAY (default an hour), as turnstile-apiserver's jobs run until stopped
pods_run() {
    if [ "${TS_SERVER:-ours}" = real ]; then
        sed "s|^  template:\$|  template:\n    metadata: {annotations: {pod-complete.stage.kwok.x-k8s.io/delay: ${1:-1h}}}|"
    else
        cat
    fi
}

job() {
    if [ -n "${2:-}" ]; then
        sed "s/NAME/$1/; s|labels: {|labels: {kueue.x-k8s.io/priority-class: $2, |" "$CD/job.tmpl"
    else
        sed "s/NAME/$1/" "$CD/job.tmpl"
    fi | pods_run | K create -f - >/dev/null
}

jobs_yaml() {
    i=1
    while [ $i -le "$2" ]; do
        sed "s/NAME/$1$i/; s/queue-name: lq}/queue-name: ${3:-lq}}/" "$CD/job.tmpl" | pods_run
        echo "---"
        i=$((i + 1))
    done
}

wl_of() {
    K get workloads -n team-a -o jsonpath="{range .items[?(@.metadata.ownerReferences[0].name==\"$1\")]}{.metadata.name}{end}"
}

wl_cond() { # JOB TYPE [FIELD]: a condition field of the job's Workload
    w=$(wl_of "$1")
    [ -n "$w" ] && K get workloads -n team-a "$w" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].${3:-status}}"
}

admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }

suspended() {
    [ "$(K get "${2:-job}" -n team-a "$1" -o jsonpath="${3:-{.spec.suspend\}}")" = true ]
}

unsuspended() { ! suspended "$@"; }

gone() { [ -z "$(wl_of "$1")" ]; }

# metrics PATH: GET PATH from the running controller's metrics server
metrics() {
    port=$(sed -n 's/.*metrics serving on [^ ]*:\([0-9]*\) .*/\1/p' "$T/ctl.log" | tail -1)
    curl -s "http://127.0.0.1:$port${1:-/metrics}"
}

# pending_gauges CQ: CQ's pending Workloads as its kueue_pending_workloads
# gauges (active and inadmissible) count them
pending_gauges() {
    metrics | awk -v p="kueue_pending_workloads{cluster_queue=\"$1\"," \
        'index($0, p) == 1 { n += $2 } END { print n + 0 }'
}
