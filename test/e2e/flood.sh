#!/bin/sh
# Hostile and overloaded clients cannot stop admission (loopback only,
# bounded): against `turnstile --webhook-only`, from 50 source addresses
# 127.0.0.2-51, idle TCP connections (64 each: 3,200), half-open TLS
# handshakes, headers dripped a byte a second and oversized bodies sent
# slowly (20 each); meanwhile a client on 127.0.0.1 sends AdmissionReviews:
# every one must be answered, p99 under FLOOD_P99_MS (100 ms; 400 under
# ASan) or, on a machine so busy that the same probes without a flood are
# slower than that, under twice their p99 plus 50 ms; and the server's
# memory must stay bounded.  Then the same idle
# flood against the controller's metrics port while it admits a burst of
# 20 Jobs: every Job is admitted and the scrapes are answered; and
# turnstile-apiserver keeps answering under 2,000 half-open handshakes.
. "$(dirname "$0")/lib/apiserver.sh"
BINT=$BUILD/bin/turnstile
[ -x "$BINT" ] || { echo "skip: $BINT not built"; exit 77; }
command -v openssl >/dev/null || { echo "skip: needs openssl"; exit 77; }
P99=${FLOOD_P99_MS:-100}
RSS_KIB=204800 # 200 MiB
# ASan keeps freed memory in quarantine (256 MiB by default) and shadows the
# rest; its TLS handshakes are several times slower, and the promised 100 ms
# is the regular build's: there the latency only bounds a stall
case $BUILD in *asan*) P99=${FLOOD_P99_MS:-1500} RSS_KIB=1048576 ;; esac
[ -z "$WRAP" ] || P99=$((P99 * 20))
FL="$PY $(dirname "$0")/lib/flood.py"

mkdir -p "$T/wh"
$WRAP "$BINT" --webhook-only --webhook-host 127.0.0.1 --webhook-port 0 --health-port 0 \
    --cert-dir "$T/wh" >"$T/wh.log" 2>&1 &
WH=$!
PIDS="$PIDS $WH"
OURS="$OURS $WH"
i=0
until port=$(sed -n 's/.*webhook serving port=\([0-9]*\).*/\1/p' "$T/wh.log") && [ -n "$port" ]; do
    i=$((i + 1))
    [ $i -lt $((100 * SLOW)) ] || { cat "$T/wh.log"; fail "webhook did not start"; finish; }
    sleep 0.1
done
cat >"$T/review.json" <<'JSON'
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"flood-1","operation":"CREATE","namespace":"team-a","object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"team-a","labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}
JSON

# the same probes without a flood: how fast this machine answers now
base=$($FL --port "$port" --cacert "$T/wh/ca.crt" --addrs 0 --per-addr 0 --seconds 4 --probes 20 \
    --path /mutate-batch-v1-job --body "$T/review.json")
echo "no flood: $base"
base_p99=$(echo "$base" | sed -n 's/.* p99_ms=\([0-9]*\).*/\1/p')
[ $((2 * ${base_p99:-0} + 50)) -le "$P99" ] || P99=$((2 * base_p99 + 50))

# flood MODE PER_ADDR SECONDS: runs one flood, checks what it reports
flood() {
    out=$($FL --port "$port" --cacert "$T/wh/ca.crt" --mode "$1" --addrs 50 --per-addr "$2" \
        --seconds "$3" --probes 20 --path /mutate-batch-v1-job --body "$T/review.json")
    echo "$1: $out"
    answered=$(echo "$out" | sed -n 's/.* answered=\([0-9]*\) .*/\1/p')
    p99=$(echo "$out" | sed -n 's/.* p99_ms=\([0-9]*\).*/\1/p')
    opened=$(echo "$out" | sed -n 's/^opened=\([0-9]*\) .*/\1/p')
    check "$1: every review answered" eq "$answered" 20
    check "$1: p99 ${p99:-?} ms under $P99 ms" [ "${p99:-99999}" -lt "$P99" ]
    check "$1: the flood's connections were opened ($opened)" [ "${opened:-0}" -ge $((50 * $2 / 2)) ]
}
flood idle 64 10
flood tls-half 20 6
flood drip 20 6
flood big 10 6
rss=$(ps -o rss= -p "$WH" | tr -d ' ')
echo "webhook RSS after the floods: ${rss} KiB"
check "webhook memory bounded (${rss} KiB < $RSS_KIB KiB)" [ "${rss:-9999999}" -lt "$RSS_KIB" ]
hp=$(sed -n 's/.*health_port=\([0-9]*\).*/\1/p' "$T/wh.log")
check "health port still answers" eq "$(curl -s --max-time 5 "http://127.0.0.1:$hp/healthz")" ok

# turnstile-apiserver under 2,000 half-open TLS handshakes (held open,
# each would take a thread and a connection slot for ever, until nothing
# is answered): they are closed after 10 s idle, the rest is served
as_start
asport=${URL##*:}
out=$($FL --port "$asport" --mode tls-half --addrs 50 --per-addr 40 --seconds 12 --probes 10 \
    --path /version --probe-timeout 5)
echo "turnstile-apiserver tls-half: $out"
check "turnstile-apiserver answers under half-open handshakes" \
    eq "$(echo "$out" | sed -n 's/.* answered=\([0-9]*\) .*/\1/p')" 10

# the metrics port under an idle flood while a burst is admitted
need_kubectl
. "$(dirname "$0")/lib/controller.sh"
queues_with_cpu 40
K patch clusterqueue cq --type=json \
    -p '[{"op":"replace","path":"/spec/resourceGroups/0/flavors/0/resources/1/nominalQuota","value":"64Gi"}]' >/dev/null
ctl_start
wait_for "metrics serving" grep -q 'metrics serving on' "$T/ctl.log"
mport=$(sed -n 's/.*metrics serving on [^ ]*:\([0-9]*\) .*/\1/p' "$T/ctl.log" | tail -1)
jobs_yaml burst 20 >"$T/burst.yaml"
$PY -c '
import socket, sys, time
port, n = int(sys.argv[1]), 0
socks = []
for a in range(50):
    for _ in range(64):
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + a), 0))
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", port)); socks.append(s)
        except OSError:
            pass
print(len(socks), flush=True)
time.sleep(12)
' "$mport" >"$T/mflood.out" 2>&1 &
MF=$!
PIDS="$PIDS $MF"
wait_for "the metrics flood is connected" grep -q '^[0-9]' "$T/mflood.out"
K apply -f "$T/burst.yaml" >/dev/null
all_admitted() {
    n=$(K get workloads -n team-a -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}{"\n"}{end}' | grep -c True)
    [ "$n" -eq 20 ]
}
WAIT_TENTHS=100 wait_for "all 20 burst Jobs admitted within 10 s under the metrics flood" all_admitted
scraped() { metrics | grep -q kueue_admitted_workloads_total; }
check "a scrape is answered under the flood" scraped
echo "metrics flood connections: $(cat "$T/mflood.out")"
kill -TERM "$CTL_PID"
ctl_check_log
finish
