# Shared helpers for the turnstile-apiserver e2e tests (sourced, not run).
#
#   as_start [flags...]   start build/bin/turnstile-apiserver on 127.0.0.1:0
#                         in a fresh temporary directory $T, wait until it is
#                         ready; sets URL, KC (kubeconfig), TOKEN, PID
#   K ...                 kubectl with that kubeconfig and a fresh cache dir
#   api METHOD PATH [curl args...]  curl against the server; prints the body;
#                         `code` then prints the HTTP status (works after
#                         out=$(api ...) too, through a file)
#   jq_py EXPR            evaluates a Python expression on stdin's JSON as `d`
#   check DESC COND...    runs COND; fails the test with DESC when false
#   contains HAYSTACK NEEDLE
# Everything started is killed by PID on exit (trap), and $T removed.

set -u
BUILD=${TS_BUILD:-build}
BIN=$BUILD/bin/turnstile-apiserver
PY=/usr/bin/python3
FAILS=0
T=$(mktemp -d /tmp/ts-e2e.XXXXXX)
PIDS=""

cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    FAILS=$((FAILS + 1))
}

need_kubectl() {
    command -v kubectl >/dev/null 2>&1 || { echo "skip: kubectl not installed"; exit 77; }
}

as_start() {
    [ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
    TOKEN=tok-$$
    # a restart must not read the previous server's URL or kubeconfig
    # before the new one truncates them (the redirect runs in the child)
    rm -f "$T/server.out" "$T/kc"
    "$BIN" --listen 127.0.0.1:0 --kubeconfig-out "$T/kc" --token "$TOKEN" "$@" \
        >"$T/server.out" 2>>"$T/server.log" &
    PID=$!
    PIDS="$PIDS $PID"
    KC=$T/kc
    i=0
    while [ $i -lt 100 ]; do
        URL=$(sed -n 's/^turnstile-apiserver: serving on //p' "$T/server.out" 2>/dev/null)
        [ -n "$URL" ] && [ -s "$KC" ] && break
        sleep 0.05
        i=$((i + 1))
    done
    [ -n "$URL" ] || { echo "server did not start"; cat "$T/server.log"; exit 1; }
    i=0
    until curl -sk "$URL/readyz" >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 100 ] || { echo "server not ready"; exit 1; }
        sleep 0.05
    done
}

KUBECTL=${KUBECTL:-kubectl}
K() {
    "$KUBECTL" --kubeconfig "$KC" --cache-dir "$T/cache" "$@"
}

api() {
    m=$1 p=$2
    shift 2
    curl -sk -o "$T/body" -w '%{http_code}' -X "$m" -H "Authorization: Bearer $TOKEN" \
        "$@" "$URL$p" >"$T/code"
    cat "$T/body"
}

code() {
    cat "$T/code"
}

jq_py() {
    $PY -c "import json,sys
d=json.load(sys.stdin)
print($1)"
}

check() {
    desc=$1
    shift
    if "$@"; then :; else fail "$desc"; fi
}

contains() {
    case "$1" in *"$2"*) return 0 ;; *) echo "  missing '$2' in: $1" | head -c 2000; echo; return 1 ;; esac
}

eq() {
    [ "$1" = "$2" ] && return 0
    echo "  want '$2' got '$1'"
    return 1
}

finish() {
    # stop the servers first so sanitizer reports (leaks at exit) are seen
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do wait "$p" 2>/dev/null; done
    PIDS=""
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/server.log" 2>/dev/null; then
        grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/server.log" | head -60
        fail "sanitizer report in the server log"
    fi
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS check(s) failed; server log tail:"
        tail -20 "$T/server.log"
        exit 1
    fi
    echo "ok"
    exit 0
}
