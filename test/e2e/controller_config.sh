#!/bin/sh
# The manager's knobs from the Kueue Configuration file: metrics.bindAddress,
# health.healthProbeBindAddress (a probes-only listener), leaderElection
# (leaderElect, resourceNamespace, resourceName) and visibilityServer.bindPort
# for the controller, resources.transformations and excludeResourcePrefixes
# (a Workload's requests as admitted), and
# webhook.port / health.healthProbeBindAddress for `turnstile --webhook-only`;
# command-line flags win over the file.
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
as_start

crds_with_conversion
K apply -f "$CD/queues.yaml" >/dev/null 2>&1
vport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/config.yaml" <<Y
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
metrics: {bindAddress: "127.0.0.1:0"}
health: {healthProbeBindAddress: "127.0.0.1:0"}
leaderElection: {leaderElect: true, resourceNamespace: default, resourceName: turnstile-test-lock}
visibilityServer: {bindPort: $vport}
resources:
  excludeResourcePrefixes: [networking.example.com/]
  transformations:
  - {input: nvidia.com/mig-1g.5gb, strategy: Replace, outputs: {memory: 1Gi}}
Y

"$CTL" --kubeconfig "$KC" --config "$T/config.yaml" >"$T/ctl.log" 2>&1 &
CTL_PID=$!
PIDS="$PIDS $CTL_PID"
port_of() { sed -n "s/.*$1 serving on [^ ]*:\([0-9]*\) .*/\1/p" "$T/ctl.log" | tail -1; }
serving() { [ -n "$(port_of health)" ] && [ -n "$(port_of metrics)" ]; }
wait_for "metrics and health listeners from the file" serving
mport=$(port_of metrics)
hport=$(port_of health)
check "metrics.bindAddress: metrics on the loopback address" contains "$(cat "$T/ctl.log")" "metrics serving on 127.0.0.1:$mport"
check "visibilityServer.bindPort" contains "$(cat "$T/ctl.log")" "visibility API serving on *:$vport"
leader() { [ "$(K get lease -n default turnstile-test-lock -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)" != "" ]; }
wait_for "leaderElection: the Lease named in the file is taken" leader
# the MIG slices become memory and the excluded resource needs no quota:
# neither is covered by cq, so without them the Workload would never fit
wl_yaml xform 0 | sed 's|requests: {cpu: "1"}|requests: {cpu: "1", nvidia.com/mig-1g.5gb: "2", networking.example.com/vpc1: "1"}|' | K create -f - >/dev/null
wait_for "resources.transformations: the Workload is admitted" wl_reserved xform
check "resources.transformations: resourceUsage is the transformed requests" eq \
    "$(K get workload -n team-a xform -o jsonpath='{.status.admission.podSetAssignments[0].resourceUsage}')" \
    '{"cpu":"1","memory":"2Gi"}'
check "resources.* is not reported as unhonoured" eq "$(grep -c 'field=resources' "$T/ctl.log")" "0"
ready() { [ "$(curl -s "http://127.0.0.1:$hport/readyz")" = ok ]; }
wait_for "health port /readyz" ready
check "health port /healthz" eq "$(curl -s "http://127.0.0.1:$hport/healthz")" "ok"
check "health port serves no /metrics" eq "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$hport/metrics")" "404"
check "metrics port serves /metrics" contains "$(curl -s "http://127.0.0.1:$mport/metrics")" "kueue_build_info"
stop_pid "$CTL_PID"

# flags win: no metrics listener, no leader election
: >"$T/ctl.log"
"$CTL" --metrics-bind-address 0 --visibility-bind-address 0 --kubeconfig "$KC" \
    --config "$T/config.yaml" --leader-elect=false \
    >"$T/ctl.log" 2>&1 &
CTL_PID=$!
PIDS="$PIDS $CTL_PID"
started() { grep -q "started against" "$T/ctl.log"; }
wait_for "controller started" started
check "--metrics-bind-address 0 overrides the file" eq "$(port_of metrics)" ""
check "--visibility-bind-address 0 overrides the file" eq "$(grep -c 'visibility API serving' "$T/ctl.log")" "0"
check "the health listener from the file stays" contains "$(cat "$T/ctl.log")" "health serving on 127.0.0.1:"
check "--leader-elect=false overrides the file" eq "$(grep -c 'leading; scheduling starts' "$T/ctl.log")" "0"
stop_pid "$CTL_PID"

# --webhook-only: webhook.port and the health port from the file, flags win
wport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/wh.yaml" <<Y
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
webhook: {port: $wport}
health: {healthProbeBindAddress: ":0"}
Y
mkdir -p "$T/certs"
"$CTL" --webhook-only --config "$T/wh.yaml" --webhook-host 127.0.0.1 --cert-dir "$T/certs" \
    >"$T/wh.log" 2>&1 &
WH=$!
PIDS="$PIDS $WH"
wh_up() { grep -q "webhook serving" "$T/wh.log"; }
wait_for "webhook server up" wh_up
check "webhook.port from the file" contains "$(cat "$T/wh.log")" "webhook serving port=$wport "
check "health port from the file (not 8081)" eq "$(grep -c 'health_port=8081' "$T/wh.log")" "0"
stop_pid "$WH"
# truncate here: a `>` on a background command happens in the child, after
# which the wait below could still see the first run's lines
: >"$T/wh.log"
"$CTL" --webhook-only --config "$T/wh.yaml" --webhook-port 0 --health-port -1 --webhook-host 127.0.0.1 \
    --cert-dir "$T/certs" >>"$T/wh.log" 2>&1 &
WH=$!
PIDS="$PIDS $WH"
wait_for "webhook server up again" wh_up
check "--webhook-port overrides webhook.port" eq "$(grep -c "webhook serving port=$wport " "$T/wh.log")" "0"
check "--health-port -1 overrides the file" contains "$(cat "$T/wh.log")" "health_port=-1"
stop_pid "$WH"

bad=$("$CTL" --webhook-only --config /nonexistent.yaml 2>&1)
check "a missing --config file is an error naming it" contains "$bad" "/nonexistent.yaml"
ctl_check_log
finish
