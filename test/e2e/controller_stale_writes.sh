#!/bin/sh
# A Workload write waits for its token behind the client's budget.  If the
# Workload changes meanwhile, the write is not sent (the server would
# refuse it with a 409, a token spent for nothing) and the decision is made
# again on the new version (pkg/controller/sched.c, write_current).  Here
# the budget is 0.5 QPS: the three Workloads are created 2 s apart and
# their admissions queue behind the creations; the third Workload is
# relabelled while its admission waits.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

K apply -f crds/ >/dev/null
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota","value":"10"}]' >/dev/null
cat >"$T/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
clientConnection:
  qps: 0.5
  burst: 1
YAML
ctl_start --config "$T/config.yaml"
sleep 1
job j1
job j2
job j3
has_wl() { [ -n "$(wl_of "$1")" ]; }
WAIT_TENTHS=150 wait_for "the third Workload is created" has_wl j3
w3=$(wl_of j3)
check "its admission still waits for a token" test "$(wl_cond j3 Admitted)" != True
K label workload -n team-a "$w3" touched=yes >/dev/null
for j in j1 j2 j3; do
    WAIT_TENTHS=300 wait_for "$j admitted" admitted $j
done
conflicts=$(grep -c "workloads/.*/status code=409" "$T/server.log")
check "no Workload write was refused (got $conflicts 409s)" test "$conflicts" -eq 0
writes=$(grep -c "method=PUT path=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/$w3/status code=200" "$T/server.log")
check "the relabelled Workload was admitted by one write (got $writes)" test "$writes" -eq 1
check "the relabelled Workload keeps its label" \
    test "$(K get workload -n team-a "$w3" -o jsonpath='{.metadata.labels.touched}')" = yes

kill -TERM "$CTL_PID"
ctl_check_log
finish
