#!/bin/sh
# Issue 43: the controller survives the real control plane's failures.
# 200 Jobs (each through Turnstile's webhook) arrive for a ClusterQueue with
# room for 50 while: kube-apiserver is killed (SIGKILL) and restarted in the
# middle of the burst, then etcd is, then kube-apiserver is paused (SIGSTOP)
# for 30 s.  The controller runs without leader election (its start fence
# in the default namespace) and is never restarted.  Checked: at no sampled
# moment more than 50 Workloads hold quota, 50 Jobs run or 50 Pods exist; in
# the end every Job has its one Workload, exactly 50 are admitted and 150
# pending, the ClusterQueue's status says so, and the informers work again
# without a restart of the controller (10 Jobs finished: 10 more admitted).
#
# TS_PLANE_ROUNDS (default 1; `make soak K8S=real` runs more) repeats the
# whole sequence with a new burst, the previous one deleted first;
# TS_PLANE_JOBS (200) and TS_PLANE_PAUSE (30 s) size it.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/e2e/lib/controller.sh
. test/k8s/e2e/lib/k8s.sh
[ "${TS_SERVER:-real}" != ours ] || { echo "skip: kills and pauses the real control plane's processes"; exit 77; }
ROUNDS=${TS_PLANE_ROUNDS:-1}
JOBS=${TS_PLANE_JOBS:-200}
PAUSE=${TS_PLANE_PAUSE:-30}
FIT=50
k8s_with_turnstile test/e2e/data/controller/burst.yaml

# counts of round R: "WORKLOADS HOLDING RUNNING PODS" (empty when the API
# does not answer)
counts() {
    w=$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="QuotaReserved")].status}/{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' 2>/dev/null) || return 1
    j=$(K get jobs -n team-a -o jsonpath='{range .items[*]}{.metadata.name} {.spec.suspend}/{.status.succeeded}{"\n"}{end}' 2>/dev/null) || return 1
    p=$(K get pods -n team-a -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' 2>/dev/null) || return 1
    echo "$(echo "$w" | grep -c "^job-r$R-") $(echo "$w" | grep "^job-r$R-" | grep -c ' True/$') $(echo "$j" | grep "^r$R-" | grep -c ' false/$') $(echo "$p" | grep "^r$R-" | grep -c -v ' .')"
}
MAX=0 WL=0 HOLD=0 RUN=0 PODS=0
SAMPLES=0
sample() {
    c=$(counts) || return 0 # the plane is down: nothing to read
    set -- $c
    WL=$1 HOLD=$2 RUN=$3 PODS=$4
    SAMPLES=$((SAMPLES + 1))
    for v in $HOLD $RUN $PODS; do [ "$v" -gt "$MAX" ] && MAX=$v; done
    [ "$HOLD" -le $FIT ] || fail "round $R: $HOLD Workloads hold quota, over the $FIT that fit"
    [ "$RUN" -le $FIT ] || fail "round $R: $RUN Jobs run, over the $FIT that fit"
    [ "$PODS" -le $FIT ] || fail "round $R: $PODS Pods, over the $FIT that fit"
}
# sample_for SECONDS: sample about twice a second
sample_for() {
    end=$(($(date +%s) + $1))
    while [ "$(date +%s)" -lt "$end" ]; do
        sample
        sleep 0.3
    done
}
plane() {
    out=$(test/k8s/cluster.sh restart "$K8S_DIR" "$1" 2>&1)
    rc=$?
    echo "$out" | tail -3
    [ "$rc" -eq 0 ] || { fail "$1 not restarted"; k8s_logs; finish; }
}
# create: every Job of the burst exists (created now or before a fault)
create_all() {
    K create -f "$T/jobs.yaml" >"$T/create.out" 2>&1
    [ "$(grep -c -E 'created|AlreadyExists' "$T/create.out")" -eq "$JOBS" ]
}

ctl_start --lease-namespace default
CTL0=$CTL_PID
R=1
while [ $R -le "$ROUNDS" ]; do
    echo "== round $R"
    if [ $R -gt 1 ]; then
        K delete jobs -n team-a --all --wait=false >/dev/null 2>&1
        gone() { [ -z "$(K get workloads -n team-a -o name 2>/dev/null)" ] && [ -z "$(K get pods -n team-a -o name 2>/dev/null)" ]; }
        WAIT_TENTHS=1200 wait_for "round $((R - 1)) deleted" gone
    fi
    burst_yaml "r$R-" "$JOBS" >"$T/jobs.yaml"
    K create -f "$T/jobs.yaml" >"$T/create.out" 2>&1 &
    creator=$!
    some() { c=$(counts) && set -- $c && [ "$1" -ge $((JOBS / 4)) ]; }
    WAIT_TENTHS=600 wait_for "a quarter of the burst in" some
    before=$(counts | cut -d' ' -f1)
    plane kube-apiserver # mid-burst: kubectl sees some creates fail
    wait "$creator"
    echo "burst: $before Workloads at the kill, $(grep -c created "$T/create.out") of $JOBS Jobs created by the first kubectl"
    sample_for 3
    plane etcd
    sample_for 3
    wait_for "kube-apiserver answers after etcd's restart" counts
    K8S_APISERVER_PID=$(cat "$K8S_DIR/kube-apiserver.pid")
    kill -STOP "$K8S_APISERVER_PID"
    sleep "$PAUSE"
    kill -CONT "$K8S_APISERVER_PID"
    echo "kube-apiserver paused for $PAUSE s"
    WAIT_TENTHS=600 wait_for "every Job of the burst created (retried after the faults)" create_all
    settled() {
        sample
        [ "$SAMPLES" -gt 0 ] && [ "$WL" -eq "$JOBS" ] && [ "$HOLD" -eq $FIT ] && [ "$RUN" -eq $FIT ] && [ "$PODS" -eq $FIT ]
    }
    WAIT_TENTHS=1200 wait_for "round $R: $JOBS Workloads, $FIT admitted, running and with Pods" settled
    sample_for 2
    check "round $R: every Job has its Workload" eq "$WL" "$JOBS"
    check "round $R: $FIT hold quota" eq "$HOLD" $FIT
    per_job=$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].name}{"\n"}{end}' | grep "^r$R-" | sort | uniq -d)
    check "round $R: no Job with two Workloads" eq "$per_job" ""
    cq_counts() {
        [ "$(K get cq cq -o jsonpath='{.status.pendingWorkloads}/{.status.reservingWorkloads}')" = "$1" ]
    }
    WAIT_TENTHS=300 wait_for "round $R: ClusterQueue status $((JOBS - FIT)) pending / $FIT reserving" cq_counts $((JOBS - FIT))/$FIT
    # the informers work again: 10 Jobs finish, 10 more are admitted
    K get jobs -n team-a -o jsonpath='{range .items[*]}{.metadata.name} {.spec.suspend}{"\n"}{end}' |
        grep "^r$R-.* false$" | head -10 | cut -d' ' -f1 >"$T/done"
    for j in $(cat "$T/done"); do K delete job -n team-a "$j" --wait=false >/dev/null; done
    more() { sample && [ "$WL" -eq $((JOBS - 10)) ] && [ "$HOLD" -eq $FIT ] && [ "$RUN" -eq $FIT ]; }
    WAIT_TENTHS=600 wait_for "round $R: 10 Jobs deleted, 10 more admitted" more
    echo "round $R: most holding, running or with Pods at once: $MAX (of $FIT); $SAMPLES samples"
    R=$((R + 1))
done
check "the controller was never restarted (PID $CTL0)" kill -0 "$CTL0"
check "one controller start in the log" eq "$(grep -c 'controller: started against' "$T/ctl.log")" 1
echo "controller log: $(grep -c 'watch: .*stream ended' "$T/ctl.log") watch streams ended, $(grep -c 'watch: .*expired: relisting' "$T/ctl.log") relists after 410, $(grep -c 'list failed' "$T/ctl.log") failed lists"
[ "$FAILS" -eq 0 ] || k8s_logs
ctl_check_log
finish
