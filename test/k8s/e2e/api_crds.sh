#!/bin/sh
# The CRD layer on generated objects: test/oracle/apigen.py's v1beta2
# objects (seeds 1-2, valid ones and ones broken one field at a time)
# created with dryRun=All on kube-apiserver and on turnstile-apiserver, both
# with crds/ and no webhook, must be accepted and refused alike, with the
# same status and message (lib/api_crds.py).  Meaningful only on the real
# control plane: TS_SERVER=ours skips it.
set -u
cd "$(dirname "$0")/../../.." || exit 1
. test/e2e/lib/apiserver.sh
need_kubectl
. test/k8s/e2e/lib/k8s.sh
crds_on_both
$PY test/k8s/e2e/lib/api_crds.py --real "$KC_REAL" --ours "$KC_OURS" --seeds 2 >"$T/out" 2>&1
rc=$?
cat "$T/out"
check "turnstile-apiserver answers every generated object as kube-apiserver" [ "$rc" -eq 0 ]
check "objects were sent" grep -q "^api_crds: [1-9][0-9]* objects" "$T/out"
finish
