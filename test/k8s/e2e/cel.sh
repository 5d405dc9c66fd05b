#!/bin/sh
# Our CRDs' OpenAPI schemas and CEL rules (x-kubernetes-validations) as the
# real kube-apiserver evaluates them, no webhook in the chain: each invalid
# object below must be refused by kube-apiserver (else the rule in crds/ is
# wrong or never runs).  The same request goes to turnstile-apiserver, which
# must answer the same (its CEL interpreter, pkg/api/cel*.c).
# Transition rules (oldSelf) are checked with an update.  Meaningful only on
# the real control plane: TS_SERVER=ours skips it.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/k8s/e2e/lib/k8s.sh
crds_on_both

cq() { # NAME SPEC-YAML (indented by 2)
    printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2"
}
rf() {
    printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: %s}\nspec:\n%s\n' "$1" "$2"
}
wl() {
    printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: %s, namespace: default}\nspec:\n%s\n' "$1" "$2"
}
POD='    template: {spec: {containers: [{name: c, image: busybox}]}}'

differ=0
# refused DESC WANT-SUBSTRING: $T/obj.yaml is created with --dry-run=server
# on both servers
refused() {
    real=$(kubectl --kubeconfig "$KC_REAL" create --dry-run=server -f "$T/obj.yaml" 2>&1)
    rc_real=$?
    ours=$(kubectl --kubeconfig "$KC_OURS" create --dry-run=server -f "$T/obj.yaml" 2>&1)
    rc_ours=$?
    check "kube-apiserver refuses: $1" [ "$rc_real" -ne 0 ]
    check "kube-apiserver's message for '$1'" contains "$real" "$2"
    if [ "$real" != "$ours" ] || [ "$rc_ours" -eq 0 ]; then
        differ=$((differ + 1))
        printf 'difference for "%s":\n  kube-apiserver:      %s\n  turnstile-apiserver: %s\n' \
            "$1" "$(echo "$real" | tr '\n' ' ')" "$(echo "$ours" | tr '\n' ' ')"
    fi
}

cq c1 '  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: 1}' >"$T/obj.yaml"
refused "flavor resources must match coveredResources" "spec.resourceGroups[0]"
cq c2 '  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: 1, borrowingLimit: 1}' >"$T/obj.yaml"
refused "borrowingLimit needs a cohort" "spec: Invalid value"
cq c3 '  preemption:
    reclaimWithinCohort: Never
    borrowWithinCohort: {policy: LowerPriority}' >"$T/obj.yaml"
refused "reclaimWithinCohort Never with borrowWithinCohort" "spec.preemption"
cq c5 '  queueingStrategy: Sometimes' >"$T/obj.yaml"
refused "queueingStrategy enum" 'Unsupported value: "Sometimes"'
rf r1 '  nodeTaints: [{key: k, value: v, effect: Bad}]' >"$T/obj.yaml"
refused "taint effect" "supported taint effect values"
rf r2 '  tolerations: [{key: k, operator: Exists, value: v}]' >"$T/obj.yaml"
refused "toleration value with Exists" \
    "a value must be empty when 'operator' is 'Exists'"
rf r3 '  topologyName: t' >"$T/obj.yaml"
refused "topologyName needs nodeLabels" "at least one nodeLabel is required when topology is set"
wl w1 "  queueName: q
  podSets:
  - name: main
    count: 1
    minCount: 2
$POD" >"$T/obj.yaml"
refused "minCount <= count" "minCount should be positive and less or equal to count"
wl w2 "  priorityClassRef: {name: p, kind: WorkloadPriorityClass, group: kueue.x-k8s.io}
  podSets:
  - name: main
    count: 1
$POD" >"$T/obj.yaml"
refused "priority with priorityClassRef" "priority should not be nil when priorityClassRef is set"

# Kueue v0.17's schema rules as crds/ carries them, and kube-apiserver's
# own checks (ObjectMeta, number formats, int-or-string)
cq c6 '  admissionChecksStrategy: {admissionChecks: []}' >"$T/obj.yaml"
refused "admissionChecks minItems" "should have at least 1 items"
cq c7 '  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: true}' >"$T/obj.yaml"
refused "nominalQuota of the wrong type (anyOf)" "must validate at least one schema (anyOf)"
cq c8 '  preemption:
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 2147483648}' >"$T/obj.yaml"
refused "maxPriorityThreshold past int32" "int32"
printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: w1}\nvalue: 1.5\n' >"$T/obj.yaml"
refused "WorkloadPriorityClass value not an integer" "must be of type integer"
printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata: {name: w2, labels: {a: %s}}\nvalue: 1\n' \
    "$(printf 'x%.0s' $(seq 64))" >"$T/obj.yaml"
refused "label value too long (ObjectMeta)" "must be no more than 63"
wl w5 "  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{image: busybox}]}}" >"$T/obj.yaml"
refused "pod template container without a name" "name: Required value"
wl w6 "  podSets:
$(for i in 1 2 3 4 5 6 7 8 9; do printf '  - name: p%s\n    count: 1\n%s\n' "$i" "$POD"; done)" >"$T/obj.yaml"
refused "at most 8 pod sets" "must have at most 8 items"

# a transition rule (oldSelf): a ResourceFlavor's topologyName is immutable
rf r4 '  nodeLabels: {a: b}
  topologyName: t' >"$T/r4.yaml"
for KC in $KC_REAL $KC_OURS; do K create -f "$T/r4.yaml" >/dev/null; done
real=$(KC=$KC_REAL K patch resourceflavor r4 --type=merge -p '{"spec":{"topologyName":"u"}}' 2>&1)
ours=$(KC=$KC_OURS K patch resourceflavor r4 --type=merge -p '{"spec":{"topologyName":"u"}}' 2>&1)
check "kube-apiserver: topologyName immutable (oldSelf rule)" contains "$real" \
    "topologyName is immutable when topologyName is set"
[ "$real" = "$ours" ] || {
    differ=$((differ + 1))
    printf 'difference for the topologyName update:\n  kube-apiserver:      %s\n  turnstile-apiserver: %s\n' "$real" "$ours"
}
check "turnstile-apiserver answers as kube-apiserver" eq "$differ" 0
finish
