#!/bin/sh
# The deployment runs locked down: every container of every workload that
# `kubectl kustomize config/default` renders runs non-root (runAsNonRoot,
# a non-zero runAsUser), with a read-only root filesystem, no privilege
# escalation, all capabilities dropped and the RuntimeDefault seccomp
# profile (pod or container level), not privileged, no host namespaces or
# hostPath volumes; the Containerfile's runtime stage ends as a non-root
# USER.  The checker is also run on copies with one setting removed, and
# must refuse each.
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v kubectl >/dev/null 2>&1 || { echo "skip: kubectl not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

kubectl kustomize config/default >"$T/all.yaml" 2>"$T/err" || { cat "$T/err"; exit 1; }
cat >"$T/check.py" <<'PY'
import sys, yaml
bad = []
n = 0
for d in yaml.safe_load_all(open(sys.argv[1])):
    if not d or d.get("kind") not in ("Deployment", "StatefulSet", "DaemonSet", "Job", "Pod"):
        continue
    pod = d["spec"]["template"]["spec"] if d["kind"] != "Pod" else d["spec"]
    psc = pod.get("securityContext") or {}
    for h in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(h):
            bad.append(f"{d['metadata']['name']}: {h}")
    for v in pod.get("volumes") or []:
        if "hostPath" in v:
            bad.append(f"{d['metadata']['name']}: hostPath volume {v['name']}")
    for c in (pod.get("initContainers") or []) + pod["containers"]:
        n += 1
        sc = c.get("securityContext") or {}
        eff = lambda k: sc.get(k, psc.get(k))
        where = f"{d['kind']} {d['metadata']['name']} container {c['name']}"
        if eff("runAsNonRoot") is not True:
            bad.append(f"{where}: runAsNonRoot is not true")
        if eff("runAsUser") in (0, None):
            bad.append(f"{where}: runAsUser is root or unset")
        if sc.get("readOnlyRootFilesystem") is not True:
            bad.append(f"{where}: readOnlyRootFilesystem is not true")
        if sc.get("allowPrivilegeEscalation") is not False:
            bad.append(f"{where}: allowPrivilegeEscalation is not false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            bad.append(f"{where}: capabilities do not drop ALL")
        if (sc.get("capabilities") or {}).get("add"):
            bad.append(f"{where}: capabilities added")
        if (eff("seccompProfile") or {}).get("type") != "RuntimeDefault":
            bad.append(f"{where}: seccompProfile is not RuntimeDefault")
        if sc.get("privileged"):
            bad.append(f"{where}: privileged")
if n == 0:
    bad.append("no containers found")
print("\n".join(bad) if bad else f"{n} containers locked down")
sys.exit(1 if bad else 0)
PY
out=$(python3 "$T/check.py" "$T/all.yaml") || fail "config/default: $out"
echo "config/default: $out"

# each mutation must be caught
for m in "readOnlyRootFilesystem: true|readOnlyRootFilesystem: false" \
    "allowPrivilegeEscalation: false|allowPrivilegeEscalation: true" \
    "runAsNonRoot: true|runAsNonRoot: false" "- ALL|- NET_RAW" \
    "type: RuntimeDefault|type: Unconfined" "runAsUser: 65532|runAsUser: 0"; do
    sed "s/${m%|*}/${m#*|}/" "$T/all.yaml" >"$T/mut.yaml"
    cmp -s "$T/all.yaml" "$T/mut.yaml" && { fail "mutation '$m' changed nothing"; continue; }
    python3 "$T/check.py" "$T/mut.yaml" >/dev/null && fail "checker accepted '${m#*|}'"
done

# the image: the last stage's last USER is a non-root uid:gid
user=$(awk '/^FROM /{u=""} /^USER /{u=$2} END{print u}' Containerfile)
case "$user" in
"" | 0 | 0:* | root | root:*) fail "Containerfile runtime stage runs as '${user:-root (no USER)}'" ;;
*) echo "Containerfile: USER $user" ;;
esac
[ "$FAILS" -eq 0 ] || exit 1
echo ok
