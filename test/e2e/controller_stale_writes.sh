#!/bin/sh
# A Workload write waits for its token behind the client's budget.  If the
# Workload changes meanwhile, the write is not sent (the server would
# refuse it with a 409, a token spent for nothing) and the decision is made
# again on the new version (pkg/controller/sched.c, write_current).  Here
# the budget is 0.2 QPS with a burst of 1, and two Workloads in two
# ClusterQueues exist before the controller starts: its first cycle admits
# both, the second admission waits 5 s for its token, and its Workload is
# relabelled meanwhile.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

queues_with_cpu 10
K apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq2}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: on-demand
      resources: [{name: cpu, nominalQuota: 10}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq2, namespace: team-a}
spec: {clusterQueue: cq2}
YAML
{ wl_yaml w1 0 lq; wl_yaml w2 0 lq2; } | K apply -f - >/dev/null
budget_config 0.2 1
ctl_start --config "$T/config.yaml" --log-level debug
one_admitted() { K get workloads -n team-a -o jsonpath='{.items[*].status.admission.clusterQueue}' | grep -q cq; }
unadmitted() { ! K get workload -n team-a "$1" -o jsonpath='{.status.admission}' | grep -q .; }
WAIT_TENTHS=150 wait_for "one Workload is admitted" one_admitted
first=$(K get workloads -n team-a -o jsonpath='{range .items[?(@.status.admission)]}{.metadata.name}{end}')
case $first in w1) other=w2 ;; w2) other=w1 ;; *) fail "not one admitted Workload: '$first'" ;; esac
check "the other's admission still waits for a token" unadmitted "$other"
K label workload -n team-a "$other" touched=yes >/dev/null
WAIT_TENTHS=300 wait_for "$other admitted" wl_reserved "$other"
conflicts=$(grep -c "workloads/.*/status code=409" "$T/server.log")
check "no Workload write was refused (got $conflicts 409s)" test "$conflicts" -eq 0
check "the stale write was dropped, not sent" grep -q "workload=team-a/$other status write dropped" "$T/ctl.log"
writes=$(grep -c "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$other/status code=200" "$T/server.log")
check "the relabelled Workload was admitted by one write (got $writes)" test "$writes" -eq 1
check "the relabelled Workload keeps its label" \
    test "$(K get workload -n team-a "$other" -o jsonpath='{.metadata.labels.touched}')" = yes

kill -TERM "$CTL_PID"
ctl_check_log
finish
