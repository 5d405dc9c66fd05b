#!/bin/sh
# ownerReference garbage collection: background (dependents go after the
# owner; ones with another live owner only lose the reference), orphan,
# foreground (foregroundDeletion finalizer, blockOwnerDeletion), and the
# batch/v1 Job default (orphan, with the warning).
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
as_start

mk() { # name [ownerRefs-json] [finalizers-json]
    api POST /api/v1/namespaces/default/configmaps -H 'Content-Type: application/json' \
        -d "{\"metadata\":{\"name\":\"$1\",\"ownerReferences\":${2:-[]},\"finalizers\":${3:-[]}}}" |
        jq_py "d['metadata']['uid']"
}
ref() { echo "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"$1\",\"uid\":\"$2\"${3:-}}"; }
exists() { api GET "/api/v1/namespaces/default/configmaps/$1" >/dev/null; [ "$(code)" = 200 ]; }
gone() { ! exists "$1"; }
del() { api DELETE "/api/v1/namespaces/default/configmaps/$1" -H 'Content-Type: application/json' -d "$2"; }

# background
o1=$(mk o1); o2=$(mk o2)
mk d1 "[$(ref o1 "$o1")]" >/dev/null
mk d2 "[$(ref o1 "$o1"),$(ref o2 "$o2")]" >/dev/null
del o1 '{"propagationPolicy":"Background"}' >/dev/null
check "background: owner gone" gone o1
check "background: dependent gone" gone d1
check "background: dependent with a live owner stays" exists d2
check "... without the dangling reference" eq "$(api GET /api/v1/namespaces/default/configmaps/d2 | jq_py "[r['name'] for r in d['metadata']['ownerReferences']]")" "['o2']"

# a dependent created after its owner was deleted (a controller acting on a
# stale cache) is collected too, as kube's collector does with dangling
# references; with a finalizer it is marked for deletion
mk g1 "[$(ref o1 "$o1")]" >/dev/null
check "dangling: dependent of a deleted owner is collected" gone g1
mk g2 "[$(ref o1 "$o1")]" '["x/keep"]' >/dev/null
check "dangling: ... marked deleting while a finalizer holds it" contains "$(api GET /api/v1/namespaces/default/configmaps/g2)" deletionTimestamp
mk g3 "[$(ref o1 "$o1"),$(ref o2 "$o2")]" >/dev/null
check "dangling: one live owner keeps it" exists g3

# orphan
o3=$(mk o3)
mk d3 "[$(ref o3 "$o3")]" >/dev/null
del o3 '{"propagationPolicy":"Orphan"}' >/dev/null
check "orphan: owner gone" gone o3
check "orphan: dependent stays without ownerReferences" eq "$(api GET /api/v1/namespaces/default/configmaps/d3 | jq_py "d['metadata'].get('ownerReferences')")" None
o3b=$(mk o3b)
mk d3b "[$(ref o3b "$o3b")]" >/dev/null
del o3b '{"orphanDependents":true}' >/dev/null
check "orphanDependents: true orphans" exists d3b

# foreground with a blocking dependent that has a finalizer
o5=$(mk o5)
mk d5 "[$(ref o5 "$o5" ',"blockOwnerDeletion":true')]" '["test.io/hold"]' >/dev/null
mk d6 "[$(ref o5 "$o5" ',"blockOwnerDeletion":true')]" >/dev/null
mk d7 "[$(ref o5 "$o5")]" >/dev/null
out=$(del o5 '{"propagationPolicy":"Foreground"}')
check "foreground: 200 with the owner pending" eq "$(code)" 200
check "foreground: deletionTimestamp and foregroundDeletion" eq "$(echo "$out" | jq_py "(bool(d['metadata'].get('deletionTimestamp')), d['metadata']['finalizers'])")" "(True, ['foregroundDeletion'])"
check "foreground: dependents deleted" gone d6
check "foreground: non-blocking dependent deleted" gone d7
check "foreground: owner waits for the blocking dependent" exists o5
check "foreground: the blocking dependent is being deleted" eq "$(api GET /api/v1/namespaces/default/configmaps/d5 | jq_py "bool(d['metadata'].get('deletionTimestamp'))")" True
api PATCH /api/v1/namespaces/default/configmaps/d5 -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"finalizers":null}}' >/dev/null
check "foreground: dependent gone after its finalizer" gone d5
check "foreground: then the owner goes" gone o5
o8=$(mk o8)
mk d8 "[$(ref o8 "$o8" ',"blockOwnerDeletion":true')]" >/dev/null
K delete configmap o8 --cascade=foreground >/dev/null 2>&1
check "kubectl --cascade=foreground: owner gone" gone o8
check "kubectl --cascade=foreground: dependent gone" gone d8

# batch/v1 Job without a policy orphans (with kube-apiserver's warning)
api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d '{"metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' >/dev/null
ju=$(api GET /apis/batch/v1/namespaces/default/jobs/j1 | jq_py "d['metadata']['uid']")
mk wl "[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"j1\",\"uid\":\"$ju\",\"controller\":true,\"blockOwnerDeletion\":true}]" >/dev/null
w=$(curl -sk -D - -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" "$URL/apis/batch/v1/namespaces/default/jobs/j1" | tr -d '\r' | grep -i '^Warning')
check "job delete without policy: warning" contains "$w" "child pods are preserved by default"
check "job delete without policy: dependent orphaned" exists wl
api POST /apis/batch/v1/namespaces/default/jobs -H 'Content-Type: application/json' -d '{"metadata":{"name":"j2"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"x"}]}}}}' >/dev/null
ju=$(api GET /apis/batch/v1/namespaces/default/jobs/j2 | jq_py "d['metadata']['uid']")
mk wl2 "[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"j2\",\"uid\":\"$ju\",\"controller\":true,\"blockOwnerDeletion\":true}]" >/dev/null
K delete job j2 >/dev/null 2>&1
check "kubectl delete job (Background): dependent gone" gone wl2
finish
