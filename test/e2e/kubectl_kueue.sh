#!/bin/sh
# `kubectl kueue`: real kubectl finds turnstilectl through a kubectl-kueue
# symlink on PATH (plugin discovery) and runs it as Kueue's kueuectl.
# create, list, stop, resume, delete, the kubectl pass-through verbs and
# shell completion against turnstile-apiserver (or, TS_SERVER=real, the
# real control plane) with the controller admitting Jobs, the output
# compared with kueuectl's: the
# tables of cmd/kueuectl/app/list/list_*_printer.go (columns three spaces
# apart, ages as duration.HumanDuration; the ages themselves are replaced by
# <age> and <exec>), the name printer's "... created", "(client dry run)",
# and kueuectl's messages.  The namespace comes from the kubeconfig's
# context, as for any kubectl plugin.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start
crds_with_conversion
K apply -f "$CD/queues.yaml" >/dev/null
ctl_start

P=$T/plugins
mkdir -p "$P"
ln -s "$(cd "$(dirname "$BUILD/bin/turnstilectl")" && pwd)/turnstilectl" "$P/kubectl-kueue"
ln -s kubectl-kueue "$P/kubectl_complete-kueue"
PATH=$P:$PATH
cp "$KC" "$T/kc-team-a"
KUBECONFIG=$T/kc-team-a
export PATH KUBECONFIG
kubectl config set-context --current --namespace=team-a >/dev/null

out=$(kubectl plugin list 2>/dev/null)
check "kubectl plugin list finds kubectl-kueue" contains "$out" "$P/kubectl-kueue"

# kk ARGS: `kubectl kueue ARGS`, stdout and stderr together, then "rc=N"
kk() {
    kubectl kueue "$@" 2>&1
    echo "rc=$?"
}
# the ages (and, wl_ages, a workload's exec time before it) as placeholders
ages() { sed -E '/^rc=/b; s/[0-9][0-9smhdy]*$/<age>/'; }
wl_ages() { sed -E '/^rc=/b; s/[0-9][0-9smhdy]* +[0-9][0-9smhdy]*$/<exec> <age>/; s/[0-9][0-9smhdy]*$/<age>/'; }

# ---- create -------------------------------------------------------------
out=$(kk create resourceflavor spot --node-labels instance-type=spot,zone=a \
    --node-taints spot=true:NoSchedule --tolerations spot:NoSchedule)
check "create resourceflavor" eq "$out" "resourceflavor.kueue.x-k8s.io/spot created
rc=0"
out=$(K get resourceflavor spot -o jsonpath='{.spec.nodeLabels.zone} {.spec.nodeTaints[0].key}={.spec.nodeTaints[0].value}:{.spec.nodeTaints[0].effect} {.spec.tolerations[0].key} {.spec.tolerations[0].operator} {.spec.tolerations[0].effect}')
check "its labels, taints and tolerations" eq "$out" "a spot=true:NoSchedule spot Exists NoSchedule"
out=$(kk create rf spot2 --node-labels a=b --dry-run=client -o yaml)
check "create rf --dry-run=client -o yaml: the object kueuectl would send" eq "$out" "apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: spot2
spec:
  nodeLabels:
    a: b
rc=0"
check "client dry run creates nothing" sh -c "! kubectl get rf spot2 >/dev/null 2>&1"
out=$(kk create rf bad --node-taints key=value)
check "a bad taint: kueuectl's message" eq "$out" "Error: invalid taint spec: key=value
rc=1"
out=$(kk create localqueue lq2 -c cq)
check "create localqueue in the context's namespace" eq "$out" "localqueue.kueue.x-k8s.io/lq2 created
rc=0"
check "lq2 is in team-a" eq "$(K get localqueue -n team-a lq2 -o jsonpath='{.spec.clusterQueue}')" "cq"
out=$(kk create lq lq3 -c nope)
check "an unknown ClusterQueue is refused" eq "$out" 'Error: clusterqueues.kueue.x-k8s.io "nope" not found
rc=1'
out=$(kk create lq lq3)
check "-c is required" eq "$out" 'Error: required flag(s) "clusterqueue" not set
rc=1'
out=$(kk create lq lq3 -c nope -i --dry-run=server)
check "--ignore-unknown-cq, server dry run" eq "$out" "localqueue.kueue.x-k8s.io/lq3 created (server dry run)
rc=0"
check "server dry run creates nothing" sh -c "! kubectl get lq -n team-a lq3 >/dev/null 2>&1"

# ---- list queues and flavors ----------------------------------------------
out=$(kk list resourceflavor | ages)
check "list resourceflavor" eq "$out" "NAME        NODE LABELS                  AGE
on-demand   instance-type=on-demand      <age>
spot        instance-type=spot, zone=a   <age>
rc=0"
cq_active() { [ "$(K get cq cq -o jsonpath='{.status.conditions[?(@.type=="Active")].status}')" = True ]; }
wait_for "cq active" cq_active
out=$(kk list cq | ages)
check "list clusterqueue" eq "$out" "NAME   COHORT   PENDING WORKLOADS   ADMITTED WORKLOADS   ACTIVE   AGE
cq              0                   0                    true     <age>
rc=0"
out=$(kk list lq | ages)
check "list localqueue (the context's namespace)" eq "$out" "NAME   CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS   AGE
lq     cq             0                   0                    <age>
lq2    cq             0                   0                    <age>
rc=0"
out=$(kk list localqueue -A --clusterqueue cq | ages)
check "list localqueue -A --clusterqueue" eq "$out" "NAMESPACE   NAME   CLUSTERQUEUE   PENDING WORKLOADS   ADMITTED WORKLOADS   AGE
team-a      lq     cq             0                   0                    <age>
team-a      lq2    cq             0                   0                    <age>
rc=0"
out=$(kk list lq -n default)
check "nothing in default: kueuectl's message" eq "$out" "No resources found in default namespace.
rc=0"
out=$(env -u KUBECONFIG kubectl kueue list lq -o name --kubeconfig "$KC" -n team-a 2>&1)
check "--kubeconfig and -n after the command, -o name" eq "$out" "localqueue.kueue.x-k8s.io/lq
localqueue.kueue.x-k8s.io/lq2"
out=$(kk list cq -o wide)
check "-o wide is not kueuectl's" eq "$out" 'Error: unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,name,go-template,go-template-file,template,templatefile,jsonpath,jsonpath-as-json,jsonpath-file
rc=1'
out=$(kk list cq -o json)
check "-o json: the ClusterQueueList" contains "$out" '"kind": "ClusterQueueList"'

# ---- workloads ------------------------------------------------------------
job j1
wait_for "j1 admitted" admitted j1
job j2
wait_for "j2 admitted" admitted j2
job j3
j3_waits() { [ "$(wl_cond j3 QuotaReserved reason)" = WaitingForQuota ]; }
wait_for "j3 evaluated" j3_waits
W1=$(wl_of j1) W2=$(wl_of j2) W3=$(wl_of j3)
pad=$(printf '%*s' ${#W1} '')
out=$(kk list workload | wl_ages | sort)
want=$(printf '%s\n' \
    "NAME${pad#    }   JOB TYPE    JOB NAME   LOCALQUEUE   CLUSTERQUEUE   STATUS     POSITION IN QUEUE   EXEC TIME   AGE" \
    "$W1   job.batch   j1         lq           cq             ADMITTED                       <exec> <age>" \
    "$W2   job.batch   j2         lq           cq             ADMITTED                       <exec> <age>" \
    "$W3   job.batch   j3         lq           cq             PENDING                                    <age>" \
    "rc=0" | sort)
check "list workload" eq "$out" "$want"
out=$(kk list kwl --status pending -o name)
check "--status pending" eq "$out" "workload.kueue.x-k8s.io/$W3
rc=0"
out=$(kk list workload --status admitted --status finished -o name | sort)
check "--status admitted --status finished" eq "$out" "$(printf '%s\n' "rc=0" "workload.kueue.x-k8s.io/$W1" "workload.kueue.x-k8s.io/$W2" | sort)"
out=$(kk list workload --status bogus)
check "a bad --status: kueuectl's message" eq "$out" 'Error: invalid status value (bogus). Must be "all", "pending", "admitted" or "finished"
rc=1'
out=$(kk list workload --for job/j2 -o name)
check "--for job/j2" eq "$out" "workload.kueue.x-k8s.io/$W2
rc=0"
out=$(kk list workload --for job/nope)
check "--for a missing job" eq "$out" "No resources found in team-a namespace.
rc=0"
out=$(kk list workload -A --clusterqueue cq --localqueue lq | head -1)
check "-A adds NAMESPACE" contains "$out" "NAMESPACE   NAME"
out=$(kk list wl)
check "wl is not one of kueuectl's aliases" eq "$out" 'Error: unknown command "wl" for "kueuectl list"
rc=1'

# ---- stop and resume ------------------------------------------------------
active() { K get workload -n team-a "$1" -o jsonpath='{.spec.active}'; }
out=$(kk stop workload "$W3" --dry-run=client)
check "stop --dry-run=client" eq "$out" "workload.kueue.x-k8s.io/$W3 stopped (client dry run)
rc=0"
check "client dry run changes nothing" ne "$(active "$W3")" "false"
out=$(kk stop workload "$W3" --dry-run=server -o yaml | grep '^  active:')
check "stop --dry-run=server -o yaml shows the result" eq "$out" "  active: false"
check "server dry run changes nothing" ne "$(active "$W3")" "false"
out=$(kk stop workload "$W3")
check "stop workload" eq "$out" "workload.kueue.x-k8s.io/$W3 stopped
rc=0"
check "spec.active false" eq "$(active "$W3")" "false"
out=$(kk resume workload "$W3")
check "resume workload" eq "$out" "workload.kueue.x-k8s.io/$W3 resumed
rc=0"
check "spec.active true" eq "$(active "$W3")" "true"
policy() { K get "$1" "$2" -n team-a -o jsonpath='{.spec.stopPolicy}'; }
out=$(kk stop localqueue lq)
check "stop localqueue (no operation printed, as kueuectl)" eq "$out" "localqueue.kueue.x-k8s.io/lq
rc=0"
check "HoldAndDrain" eq "$(policy localqueue lq)" "HoldAndDrain"
out=$(kk resume lq lq)
check "resume localqueue" eq "$(policy localqueue lq)" "None"
out=$(kk stop cq cq --keep-already-running)
check "stop clusterqueue --keep-already-running" eq "$out" "clusterqueue.kueue.x-k8s.io/cq
rc=0"
check "Hold" eq "$(policy clusterqueue cq)" "Hold"
out=$(kk stop workload nope)
check "stop a missing workload" eq "$out" 'Error: workloads.kueue.x-k8s.io "nope" not found
rc=1'
out=$(kk resume cq cq -o name)
check "resume clusterqueue" eq "$(policy clusterqueue cq)" "None"

# ---- create clusterqueue (create_clusterqueue.go) ----------------------
out=$(kk create cq cq2 --cohort co --nominal-quota "on-demand:cpu=2;memory=4Gi" \
    --borrowing-limit "on-demand:cpu=1000m;memory=1024Mi" --preemption-within-cluster-queue LowerPriority)
check "create clusterqueue" eq "$out" "clusterqueue.kueue.x-k8s.io/cq2 created
rc=0"
out=$(K get cq cq2 -o jsonpath='{.spec.cohortName} {.spec.queueingStrategy} {.spec.preemption.withinClusterQueue} {.spec.resourceGroups[0].coveredResources} {.spec.resourceGroups[0].flavors[0].resources[1].nominalQuota} {.spec.resourceGroups[0].flavors[0].resources[1].borrowingLimit}')
check "its cohort, defaults, quotas and limits" eq "$out" 'co BestEffortFIFO LowerPriority ["cpu","memory"] 4Gi 1Gi'
out=$(kk create cq cq3 --nominal-quota "a:cpu=1;memory=2,b:cpu=3")
check "overlapping resource groups: kueuectl's message" eq "$out" "Error: invalid resource group
rc=1"
out=$(kk create cq cq3 --nominal-quota "a:cpu=1.5")
check "a quota kueuectl's pattern refuses" eq "$out" "Error: invalid resources specification
rc=1"
out=$(kk create cq cq3 --queuing-strategy Bogus)
check "the server names the field" contains "$out" 'spec.queueingStrategy: Unsupported value: "Bogus"'
out=$(kk create cq cq3 --dry-run=server -o name)
check "create cq --dry-run=server -o name" eq "$out" "clusterqueue.kueue.x-k8s.io/cq3
rc=0"
check "server dry run creates nothing" sh -c "! kubectl get cq cq3 >/dev/null 2>&1"

# ---- pass-through verbs (passthrough.go) ---------------------------------
out=$(kk get cq cq2 -o name)
check "get clusterqueue runs kubectl" eq "$out" "clusterqueue.kueue.x-k8s.io/cq2
rc=0"
out=$(kk get kwl nope)
check "get: kubectl's NotFound" eq "$out" 'Error from server (NotFound): workloads.kueue.x-k8s.io "nope" not found
rc=1'
out=$(kk describe lq lq | head -2)
check "describe localqueue" eq "$out" "Name:         lq
Namespace:    team-a"
out=$(kk patch rf spot --type merge -p '{"spec":{"nodeLabels":{"zone":"b"}}}')
check "patch resourceflavor" eq "$out" "resourceflavor.kueue.x-k8s.io/spot patched
rc=0"
out=$(kk delete cq cq2)
check "delete clusterqueue" eq "$out" 'clusterqueue.kueue.x-k8s.io "cq2" deleted
rc=0'
out=$(PATH=$P kubectl-kueue get cq 2>&1)
check "no kubectl on PATH: kueuectl's message" eq "$out" "Error: pass-through command are not available: exec: \"kubectl\": executable file not found in \$PATH, PATH=\"$P\""

# ---- list pods (list_pods.go) ----------------------------------------------
# a pod of Job jp held by a scheduling gate, so it stays pending on both servers
K create -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: jp-0, namespace: team-a, labels: {batch.kubernetes.io/job-name: jp}}
spec:
  schedulingGates: [{name: test}]
  containers: [{name: c, image: busybox}]
YAML
sed 's/NAME/jp/; s/labels: {kueue.x-k8s.io\/queue-name: lq}/labels: {}/' "$CD/job.tmpl" | K create -f - >/dev/null
out=$(kk list pods --for job/jp | ages)
# kube-apiserver's scheduler marks it SchedulingGated; turnstile-apiserver
# leaves status.phase unset (kube-apiserver defaults it to Pending)
status=""
[ "${TS_SERVER:-ours}" = real ] && status=SchedulingGated
w=$((${#status} > 6 ? ${#status} : 6))
check "list pods --for job/jp" eq "$out" "$(printf 'NAME   READY   %-*s   RESTARTS   AGE\njp-0   0/1     %-*s   0          <age>\nrc=0' "$w" STATUS "$w" "$status")"
out=$(kk list pods --for job/jp -o name -A)
check "list pods -o name -A" eq "$out" "pod/jp-0
rc=0"
out=$(kk list pods --for job/nope)
check "list pods for a missing job" eq "$out" "No resources found in team-a namespace.
rc=0"
out=$(kk list pods)
check "--for is required" eq "$out" 'Error: required flag(s) "for" not set
rc=1'

# ---- delete workload (delete_workload.go) --------------------------------
out=$(kk delete workload nope)
check "delete a missing workload: reported, not an error" eq "$out" 'workloads.kueue.x-k8s.io "nope" not found
rc=0'
out=$(echo n | kubectl kueue delete kwl "$W3" 2>&1)
check "the confirmation, refused" eq "$out" "This operation will also delete:
  - jobs.batch/j3 associated with the team-a/$W3 workload
Do you want to proceed (y/n)? Deletion is canceled"
out=$(kk delete workload "$W3" --dry-run=server)
check "delete --dry-run=server" eq "$out" "jobs.batch/j3 deleted (server dry run)
rc=0"
check "server dry run keeps the job" sh -c "kubectl get job j3 >/dev/null 2>&1"
api DELETE /apis/batch/v1/namespaces/team-a/jobs/j3 -H 'Content-Type: application/json' \
    -d '{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}' >/dev/null
check "dryRun in the DeleteOptions body (client-go's) keeps the job too" sh -c "kubectl get job j3 >/dev/null 2>&1"
out=$(echo y | kubectl kueue delete workload "$W3" 2>&1 | grep -v '^Warning:')
check "the confirmation, accepted: the job is deleted" eq "$out" "This operation will also delete:
  - jobs.batch/j3 associated with the team-a/$W3 workload
Do you want to proceed (y/n)? jobs.batch/j3 deleted"
check "job j3 gone" sh -c "! kubectl get job j3 >/dev/null 2>&1"
wl_yaml lone 0 | K create -f - >/dev/null
out=$(kk delete workload lone -y)
check "a workload without owners is deleted itself" eq "$out" "workload.kueue.x-k8s.io/lone deleted
rc=0"
out=$(kk delete workload -A "$W1")
check "names across namespaces: kueuectl's message" eq "$out" "Error: a resource cannot be retrieved by name across all namespaces
rc=1"

# ---- completion ----------------------------------------------------------
out=$(kubectl __complete kueue li 2>/dev/null)
check "kubectl completes the plugin's words through kubectl_complete-kueue" eq "$out" "list	Display resources
:4"
out=$(kubectl_complete-kueue stop workload "" 2>/dev/null | sort)
check "stop workload: the active workloads' names from the server" eq "$out" "$(printf '%s\n' ":4" "$W1" "$W2" "$W3" | sort)"
kk completion bash >"$T/comp.bash"
check "completion bash parses" bash -n "$T/comp.bash"
out=$(bash -c '. "$1"; COMP_WORDS=(kubectl-kueue create r); COMP_CWORD=2; __kueuectl_complete; echo "${COMPREPLY[*]}"' _ "$T/comp.bash")
check "the bash script completes" eq "$out" "resourceflavor"
out=$(kk completion fish)
check "fish: not yet, said so" contains "$out" "not implemented yet"

out=$(kk version)
check "version" contains "$out" "Client Version: v"
ctl_check_log
finish
