#!/bin/sh
# The webhook server end to end: `turnstile --webhook-only` on a loopback
# port with generated certificates, driven with curl over TLS: reviews
# answered, TLS 1.2/1.3 only, slow-loris clients cut off by the idle timeout
# and the request deadline while other requests keep being served,
# concurrent requests, and certificate reload from mounted files.
set -eu
cd "$(dirname "$0")/../.."
bin=${TS_BUILD:-build}/bin/turnstile
[ -x "$bin" ] || { echo "skip: $bin not built"; exit 77; }
command -v curl >/dev/null && command -v python3 >/dev/null && command -v openssl >/dev/null ||
    { echo "skip: needs curl, python3 and openssl"; exit 77; }
tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*.log; do echo "== $f"; cat "$f"; done; exit 1; }
ok() { echo "ok: $*"; }

# start NAME ARGS...: runs turnstile, waits for its port, sets $port
start() {
    name=$1; shift
    : >"$tmp/$name.log"
    "$bin" --webhook-only --webhook-host 127.0.0.1 --webhook-port 0 "$@" >"$tmp/$name.log" 2>&1 &
    pids="$pids $!"
    last_pid=$!
    for _ in $(seq 100); do
        port=$(sed -n 's/.*webhook serving port=\([0-9]*\).*/\1/p' "$tmp/$name.log")
        [ -n "$port" ] && return 0
        kill -0 "$last_pid" 2>/dev/null || fail "$name exited"
        sleep 0.1
    done
    fail "$name did not start"
}

review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e-1","operation":"CREATE","namespace":"team-a","object":{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"team-a","annotations":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}'
post() { # PATH [curl args...]
    p=$1; shift
    curl -sS --max-time 10 --cacert "$tmp/a/ca.crt" -H 'Content-Type: application/json' \
        --data-binary "$review" "$@" "https://127.0.0.1:$port$p"
}

# 1. internal certificates written to the cert dir; a review over TLS
mkdir "$tmp/a"
start a --cert-dir "$tmp/a" --health-port 0 --idle-timeout 2 --request-deadline 3 --threads 4
main_port=$port
[ -s "$tmp/a/ca.crt" ] && [ -s "$tmp/a/tls.crt" ] || fail "no certificate files"
[ "$(stat -c %a "$tmp/a/tls.key")" = 600 ] || fail "tls.key is not 0600"
out=$(post /mutate-batch-v1-job)
echo "$out" | grep -q '"uid":"e2e-1","allowed":true,"patchType":"JSONPatch"' || fail "mutate: $out"
patch=$(echo "$out" | sed 's/.*"patch":"\([^"]*\)".*/\1/' | base64 -d)
[ "$patch" = '[{"op":"add","path":"/spec/suspend","value":true}]' ] || fail "patch: $patch"
ok "annotated job is suspended over TLS"
openssl x509 -in "$tmp/a/tls.crt" -noout -ext subjectAltName | grep -q "IP Address:127.0.0.1" ||
    fail "no IP SAN"
openssl verify -CAfile "$tmp/a/ca.crt" "$tmp/a/tls.crt" >/dev/null || fail "chain"
grep -q "PRIVATE KEY" "$tmp"/a.log && fail "key material in the log"
ok "certificate chain and SANs"

# 2. TLS versions: 1.2 and 1.3 served, 1.0 and 1.1 refused
post /healthz --tlsv1.2 --tls-max 1.2 -o /dev/null || fail "TLS 1.2 refused"
post /healthz --tlsv1.3 -o /dev/null || fail "TLS 1.3 refused"
for v in 1.0 1.1; do
    if curl -sS --max-time 5 --cacert "$tmp/a/ca.crt" --tlsv$v --tls-max $v \
        --ciphers 'DEFAULT@SECLEVEL=0' "https://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
        fail "TLS $v accepted"
    fi
done
# the same with openssl s_client, whose SECLEVEL=0 lets it offer TLS 1.1:
# the server ends the handshake (no cipher agreed, nothing read back),
# while the same client with -tls1_2 gets through
sc() { echo | openssl s_client -connect "127.0.0.1:$port" -CAfile "$tmp/a/ca.crt" \
    -cipher 'DEFAULT@SECLEVEL=0' "$@" 2>&1; }
sc -tls1_2 | grep -q "Protocol *: TLSv1.2" || fail "s_client -tls1_2 (control) did not connect"
out=$(sc -tls1_1) && fail "s_client -tls1_1 connected: $out"
echo "$out" | grep -q "Cipher is (NONE)" || fail "s_client -tls1_1: a cipher was agreed: $out"
ok "TLS 1.2/1.3 only"

# 3. errors: unknown path, wrong method, malformed and oversized bodies
code=$(post /nope -o /dev/null -w '%{http_code}') && [ "$code" = 404 ] || fail "404: $code"
code=$(curl -sS --cacert "$tmp/a/ca.crt" -o /dev/null -w '%{http_code}' -X DELETE \
    "https://127.0.0.1:$port/convert") && [ "$code" = 405 ] || fail "405: $code"
out=$(curl -sS --cacert "$tmp/a/ca.crt" --data-binary 'not json' "https://127.0.0.1:$port/validate-batch-v1-job")
echo "$out" | grep -q '"allowed":false' && echo "$out" | grep -q '"code":400' || fail "bad body: $out"
head -c 3200000 /dev/zero | tr '\0' ' ' >"$tmp/big"
code=$(curl -sS --cacert "$tmp/a/ca.crt" -o /dev/null -w '%{http_code}' --data-binary @"$tmp/big" \
    "https://127.0.0.1:$port/validate-batch-v1-job") && [ "$code" = 413 ] || fail "413: $code"
code=$(curl -sS --cacert "$tmp/a/ca.crt" -o /dev/null -w '%{http_code}' -H 'Transfer-Encoding: chunked' \
    --data-binary @"$tmp/big" "https://127.0.0.1:$port/validate-batch-v1-job") &&
    [ "$code" = 413 ] || fail "chunked 413: $code"
ok "404, 405, 400 review, 413"

# 4. slow clients hold a socket, not the server: while two stall, 40
#    concurrent requests are answered; the stalled ones are cut off
python3 test/e2e/lib/slowclient.py headers "$port" "$tmp/a/ca.crt" >"$tmp/slow-headers" &
slow1=$!
python3 test/e2e/lib/slowclient.py trickle "$port" "$tmp/a/ca.crt" >"$tmp/slow-trickle" &
slow2=$!
sleep 0.5
t0=$(date +%s)
seq 40 | xargs -P 20 -I{} sh -c "curl -sS --max-time 10 --cacert '$tmp/a/ca.crt' \
    --data-binary '$review' https://127.0.0.1:$port/mutate-batch-v1-job | grep -q '\"allowed\":true' \
    && echo ok" >"$tmp/concurrent"
t1=$(date +%s)
[ "$(grep -c ok "$tmp/concurrent")" = 40 ] || fail "concurrent: $(grep -c ok "$tmp/concurrent")/40"
[ $((t1 - t0)) -le 5 ] || fail "concurrent requests took $((t1 - t0)) s"
ok "40 concurrent requests answered while slow clients stall"
wait "$slow1" "$slow2"
h=$(cat "$tmp/slow-headers"); t=$(cat "$tmp/slow-trickle")
[ "$h" != open ] && [ "${h%.*}" -le 4 ] || fail "stalled headers kept open: $h"
[ "$t" != open ] && [ "${t%.*}" -le 6 ] || fail "trickling body kept open: $t"
ok "slow-loris cut off (headers after ${h}s, trickle after ${t}s)"
post /healthz -o /dev/null || fail "server unhealthy after slow clients"

# 5. health listener (plain HTTP)
hport=$(sed -n 's/.*health_port=\([0-9]*\).*/\1/p' "$tmp/a.log")
[ "$(curl -sS "http://127.0.0.1:$hport/readyz")" = ok ] || fail "readyz"
ok "health listener"

# 6. cert-manager style: mounted files, reloaded when they change
mkdir "$tmp/b"
cp "$tmp/a/tls.crt" "$tmp/a/tls.key" "$tmp/b/"
start b --cert-dir "$tmp/b" --internal-cert-management=false --health-port -1
post /healthz -o /dev/null || fail "files mode"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=new \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/new.key" -out "$tmp/new.crt" 2>/dev/null
cp "$tmp/new.key" "$tmp/b/tls.key.tmp" && mv "$tmp/b/tls.key.tmp" "$tmp/b/tls.key"
cp "$tmp/new.crt" "$tmp/b/tls.crt.tmp" && mv "$tmp/b/tls.crt.tmp" "$tmp/b/tls.crt"
for _ in $(seq 50); do
    curl -sS --max-time 5 --cacert "$tmp/new.crt" "https://127.0.0.1:$port/healthz" >/dev/null 2>&1 &&
        break
    sleep 0.1
done
curl -sS --max-time 5 --cacert "$tmp/new.crt" "https://127.0.0.1:$port/healthz" >/dev/null ||
    fail "new certificate not served"
grep -q "certificate reloaded" "$tmp/b.log" || fail "no reload logged"
ok "mounted certificate reloaded without restart"

# 7. SIGTERM: clean exit
port=$main_port
kill "$last_pid"
wait "$last_pid" || fail "exit status $?"
ok "clean shutdown"
