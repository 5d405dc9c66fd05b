#!/bin/sh
# Protobuf request bodies from kubectl's generator commands: create
# namespace, create configmap, create secret generic (kubectl never falls
# back to JSON for these); other protobuf kinds get 415, and an object of
# another kind than the resource's 400 as on kube-apiserver.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
as_start

check "kubectl create namespace" contains "$(K create namespace pb-ns 2>&1)" "namespace/pb-ns created"
check "namespace label and finalizer" eq "$(K get ns pb-ns -o json | jq_py "(d['metadata']['labels'], d['spec'])")" \
    "({'kubernetes.io/metadata.name': 'pb-ns'}, {'finalizers': ['kubernetes']})"
check "kubectl create configmap" contains "$(K create configmap cm1 -n pb-ns --from-literal=a=1 --from-literal=b='two words' 2>&1)" "configmap/cm1 created"
check "configmap data" eq "$(K get cm cm1 -n pb-ns -o json | jq_py "d['data']")" "{'a': '1', 'b': 'two words'}"
printf 'bin\377\002' >"$T/blob"
check "kubectl create configmap --from-file (binaryData)" contains "$(K create configmap cm2 -n pb-ns --from-file=blob="$T/blob" 2>&1)" "configmap/cm2 created"
check "binaryData base64" eq "$(K get cm cm2 -n pb-ns -o json | jq_py "d.get('binaryData')")" "{'blob': 'Ymlu/wI='}"
check "kubectl create secret generic" contains "$(K create secret generic s1 -n pb-ns --from-literal=user=admin 2>&1)" "secret/s1 created"
check "secret data and type" eq "$(K get secret s1 -n pb-ns -o json | jq_py "(d['data'], d['type'])")" "({'user': 'YWRtaW4='}, 'Opaque')"
check "invalid name still validated" contains "$(K create namespace bad_name 2>&1)" 'The Namespace "bad_name" is invalid'
check "create namespace --dry-run=server" contains "$(K create namespace dry --dry-run=server 2>&1)" "created (server dry run)"
printf 'k8s\000\012\011\012\002v1\022\003Pod\022\000' >"$T/pod.pb"
out=$(api POST /api/v1/namespaces/default/configmaps -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary @"$T/pod.pb")
check "protobuf of another kind: 400" eq "$(code)" 400
check "protobuf of another kind: message" contains "$out" 'Pod in version \"v1\" cannot be handled as a ConfigMap'
if ours_only "a protobuf Pod is decoded (and refused as invalid)"; then
    api POST /api/v1/namespaces/default/pods -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary @"$T/pod.pb" >/dev/null
    check "unsupported protobuf kind: 415" eq "$(code)" 415
fi
printf 'k8s\000\377\377' >"$T/bad.pb"
api POST /api/v1/namespaces/default/configmaps -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary @"$T/bad.pb" >/dev/null
check "malformed protobuf: 400" eq "$(code)" 400
finish
