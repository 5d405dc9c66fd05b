# The bad-input table of bad_input.sh (sourced once per mode; $S makes the
# names unique).  row DESC NAME TEXT HOW BODY: TEXT is what the report
# must say (a field path, or the reason).
WL=/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads
CQS=/apis/kueue.x-k8s.io/v1beta2/clusterqueues
JOBS=/apis/batch/v1/namespaces/team-a/jobs

cq() { # NAME FLAVOR QUOTA
    printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: %s\n      resources:\n      - {name: cpu, nominalQuota: %s}\n' "$1" "$2" "$3"
}
bad_job() { # NAME SPEC-JSON-TWEAK(python expression on j)
    $PY -c "import json,sys
j=json.load(open('$BD/good-job.json'))
j['metadata']['name']='$1'
$2
print(json.dumps(j))"
}

row "negative quantity" "neg-$S" "nominalQuota" k "$(cq "neg-$S" on-demand '"-1"')"
row "huge quantity" "huge-$S" "nominalQuota" k "$(cq "huge-$S" on-demand '"99999999999999999999999999999Ei"')"
row "huge JSON number" "hugenum-$S" "number out of range" "$CQS" \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\",\"metadata\":{\"name\":\"hugenum-$S\"},\"spec\":{\"resourceGroups\":[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":\"on-demand\",\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":1e400}]}]}]}}"
row "wrong type (resourceGroups a string)" "type-$S" "spec.resourceGroups" k \
    "$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: type-%s}\nspec: {resourceGroups: abc}\n' "$S")"
row "missing flavor" "noflavor-$S" "no-such-flavor" k "$(cq "noflavor-$S" no-such-flavor 1)"
row "LocalQueue of a missing ClusterQueue" "lqmissing-$S" "ClusterQueueDoesNotExist" k \
    "$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lqmissing-%s, namespace: team-a}\nspec: {clusterQueue: no-such-cq}\n' "$S")"
row "cyclic cohorts" "cyc2-$S" "spec.parentName" k \
    "$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: cyc1-%s}\nspec: {parentName: cyc2-%s}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: cyc2-%s}\nspec: {parentName: cyc1-%s}\n' "$S" "$S" "$S" "$S")"
row "job in a missing LocalQueue" "jobnolq-$S" "no-such-lq" "$JOBS" \
    "$(bad_job "jobnolq-$S" "j['metadata']['labels']['kueue.x-k8s.io/queue-name']='no-such-lq'")"
row "job with a negative request" "jobneg-$S" "requests" "$JOBS" \
    "$(bad_job "jobneg-$S" "j['spec']['template']['spec']['containers'][0]['resources']['requests']['cpu']='-2'")"
row "job with a huge parallelism" "jobpar-$S" "parallelism" "$JOBS" \
    "$(bad_job "jobpar-$S" "j['spec']['parallelism']=2**40")"
row "job with a wrong type" "jobtype-$S" "parallelism" "$JOBS" \
    "$(bad_job "jobtype-$S" "j['spec']['parallelism']='many'")"
row "job without a pod template" "jobnotpl-$S" "spec.template.spec.containers" "$JOBS" \
    "$(bad_job "jobnotpl-$S" "del j['spec']['template']")"
row "LocalQueue without clusterQueue" "lqnocq-$S" "ClusterQueueDoesNotExist" k \
    "$(printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lqnocq-%s, namespace: team-a}\nspec: {}\n' "$S")"
row "job with invalid UTF-8" "jobutf-$S" "metadata.labels" "$JOBS" \
    "$(bad_job "jobutf-$S" "j['metadata']['labels']['x']='\udcff'" | $PY -c 'import sys; sys.stdout.buffer.write(sys.stdin.read().replace("\\udcff", "\xff").encode("utf-8", "surrogateescape"))')"
row "deep nesting" "deep-$S" "nested deeper than" "$JOBS" \
    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"deep-$S\",\"annotations\":$($PY -c 'print("{\"a\":" * 5000 + "1" + "}" * 5000)')}}"
row "Workload with 10,000 pod sets" "wl10k-$S" "spec.podSets" "$WL" \
    "$($PY -c "import json; print(json.dumps({'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Workload','metadata':{'name':'wl10k-$S','namespace':'team-a'},'spec':{'queueName':'lq','podSets':[{'name':'p%d'%i,'count':1,'template':{'spec':{'containers':[{'name':'c','image':'i','resources':{'requests':{'cpu':'1'}}}]}}} for i in range(10000)]}}))")"
row "Workload without pod sets" "wlnops-$S" "spec.podSets" "$WL" \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{\"name\":\"wlnops-$S\",\"namespace\":\"team-a\"},\"spec\":{\"queueName\":\"lq\"}}"
