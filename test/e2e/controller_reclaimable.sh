#!/bin/sh
# status.reclaimablePods from a Job's succeeded pods (Kueue's
# Job.ReclaimablePods): a Job of 4 pods (1 cpu each) fills a 4-cpu queue;
# when 2 of its 4 completions succeed, 2 of its pods will not run again, the
# Workload says so and their quota goes back to the queue, which admits a
# waiting 1-cpu Job.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
queues_with_cpu 4
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/1/nominalQuota","value":"64Gi"}]' >/dev/null
ctl_start

# On turnstile-apiserver the test says that 2 of 4 completions succeeded;
# on the real control plane KWOK completes all 4 pods after 20 s, and the
# job controller starts the last 2 of its 6 completions: either way 2 of
# the 4 pods will not run again.
if [ "${TS_SERVER:-ours}" = real ]; then
    sed "s/NAME/wide/; s/parallelism: 1/parallelism: 4/; s/completions: 1/completions: 6/" \
        "$CD/job.tmpl" | pods_run 20s | K create -f - >/dev/null
else
    sed "s/NAME/wide/; s/parallelism: 1/parallelism: 4/; s/completions: 1/completions: 4/" \
        "$CD/job.tmpl" | K create -f - >/dev/null
fi
wait_for "wide admitted" admitted wide
job small
sleep 1
check "small waits for quota" eq "$(wl_cond small QuotaReserved)" "False"

if [ "${TS_SERVER:-ours}" != real ]; then
    K patch job wide -n team-a --subresource=status --type=merge \
        -p '{"status":{"active":2,"succeeded":2}}' >/dev/null
fi
WAIT_TENTHS=400
w=$(wl_of wide)
reclaimable() {
    [ "$(K get workload -n team-a "$w" -o jsonpath='{.status.reclaimablePods[0].name}/{.status.reclaimablePods[0].count}')" = main/2 ]
}
wait_for "wide's Workload: 2 pods of main reclaimable" reclaimable
wait_for "small admitted into the reclaimed quota" admitted small
check "wide still admitted" admitted wide
WAIT_TENTHS=100

kill -TERM "$CTL_PID"
ctl_check_log
finish
