#!/bin/sh
# turnstile-apiserver --faults at the HTTP level, each kind at probability
# 1: failed writes (409, 429 with Retry-After, 500, 503: a metav1.Status,
# and nothing written), 410 Expired on watch and list resumes, replies cut
# halfway, watch streams dropped after N events, latency, a pause, the
# X-Turnstile-Faults: off exemption, a held write of a client that went
# away not applied, and the counts at /debug/faults.
. "$(dirname "$0")/lib/apiserver.sh"
CM=/api/v1/namespaces/default/configmaps
TOKEN=unused # the server runs without one
restart() { # SPEC
    [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    as_start_http 0 --no-access-log --faults "$1"
}
post() { # NAME [curl args]: creates ConfigMap NAME; prints the body, code via `code`
    n=$1
    shift
    api POST $CM -H 'Content-Type: application/json' -d "{\"metadata\":{\"name\":\"$n\"}}" "$@"
}
exempt() { api "$@" -H 'X-Turnstile-Faults: off'; }
field() { jq_py "$1"; }

for kind in 409:Conflict 429:TooManyRequests 500:InternalError 503:ServiceUnavailable; do
    c=${kind%%:*} reason=${kind#*:}
    restart "seed=3,write-$c=1,retry-after=3"
    out=$(post "w$c" -D "$T/headers")
    check "write-$c: HTTP $c" eq "$(code)" "$c"
    check "write-$c: a Status with reason $reason" eq "$(echo "$out" | field "d['kind'], d['reason'], d['code']")" "Status $reason $c"
    exempt GET "$CM/w$c" >/dev/null
    check "write-$c: the write was not performed" eq "$(code)" 404
    if [ "$c" = 429 ]; then
        check "write-429: Retry-After header" contains "$(cat "$T/headers")" "Retry-After: 3"
        check "write-429: details.retryAfterSeconds" eq "$(echo "$out" | field "d['details']['retryAfterSeconds']")" 3
    fi
    exempt GET $CM >/dev/null
    check "write-$c: reads are not failed" eq "$(code)" 200
    post "x$c" -H 'X-Turnstile-Faults: off' >/dev/null
    check "write-$c: exempt writes go through" eq "$(code)" 201
    check "write-$c: counted" eq "$(exempt GET /debug/faults | field "d['injected']['write-$c'], d['total']")" "1 1"
done

restart "gone=1"
rv=$(post g1 -H 'X-Turnstile-Faults: off' | field "d['metadata']['resourceVersion']")
out=$(curl -s -m 5 "$URL$CM?watch=1&resourceVersion=$rv")
check "gone: a watch resume gets the 410 Expired ERROR event" eq "$(echo "$out" | grep ERROR | field "d['type'], d['object']['reason'], d['object']['code']")" "ERROR Expired 410"
out=$(curl -s -m 5 "$URL$CM?watch=1&timeoutSeconds=1")
check "gone: a watch from now is not failed" contains "$out" '"ADDED"'
api GET "$CM?limit=1&continue=$(exempt GET "$CM?limit=1" | field "d['metadata'].get('continue', '')")" >/dev/null
check "gone: a list continue gets 410" eq "$(code)" 410
api GET "$CM" >/dev/null
check "gone: a list from the start is not failed" eq "$(code)" 200

restart "cut=1"
post c1 -H 'X-Turnstile-Faults: off' >/dev/null
curl -s -o "$T/cut" "$URL$CM"
rc=$?
check "cut: the transfer ends early (curl exit 18, got $rc)" eq "$rc" 18
full=$(exempt GET $CM | wc -c)
check "cut: half the body arrived ($(wc -c <"$T/cut") of $full)" test "$(wc -c <"$T/cut")" -lt "$full"
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' -d '{"metadata":{"name":"c2"}}' "$URL$CM"
exempt GET "$CM/c2" >/dev/null
check "cut: a cut write was still carried out" eq "$(code)" 200

restart "watch-drop-after=2"
for n in a b c; do post "d$n" -H 'X-Turnstile-Faults: off' >/dev/null; done
curl -s -m 5 -o "$T/watch" "$URL$CM?watch=1"
rc=$?
check "watch-drop-after=2: the stream breaks (curl exit 18, got $rc)" eq "$rc" 18
check "watch-drop-after=2: after two events" eq "$(grep -c '"type"' "$T/watch")" 2
curl -s -m 5 -o "$T/watch" "$URL$CM?watch=1&timeoutSeconds=1" -H 'X-Turnstile-Faults: off'
check "watch-drop: exempt watches are not dropped" eq "$(grep -c '"ADDED"' "$T/watch")" "$(exempt GET $CM | field "len(d['items'])")"

restart "latency=300ms"
t=$(curl -s -o /dev/null -w '%{time_total}' "$URL$CM")
check "latency=300ms: a request takes at least 0.3 s ($t)" $PY -c "import sys; sys.exit(not $t >= 0.29)"

restart "pause=2s@0s"
t=$(curl -s -o /dev/null -w '%{time_total}' "$URL$CM")
check "pause=2s@0s: a request waits for the end of the pause ($t)" $PY -c "import sys; sys.exit(not $t >= 1)"
check "pause: counted" eq "$(exempt GET /debug/faults | field "d['injected']['pause']")" 1

# a write whose client goes away while the pause holds it is not applied
# (kube-apiserver cancels the request's context); one that waits is
restart "pause=3s@0s"
post gone -m 1 >/dev/null
post waited >/dev/null
check "pause: the waiting client's write is applied" eq "$(code)" 201
exempt GET "$CM/gone" >/dev/null
check "pause: the write of a client that went away is not applied" eq "$(code)" 404

stop_pid "$PID"
check "the counts are logged at exit" contains "$(tail -2 "$T/server.log")" 'faults injected={"seed":1,"injected":{'
"$BIN" --faults bogus=1 >/dev/null 2>"$T/bad"
check "a bad spec is refused naming the key" contains "$(cat "$T/bad")" "unknown key 'bogus'"
finish
