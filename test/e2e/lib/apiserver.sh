# Shared helpers for the turnstile-apiserver e2e tests (sourced, not run).
#
#   as_start [flags...]   start build/bin/turnstile-apiserver on 127.0.0.1:0
#                         in a fresh temporary directory $T, wait until it is
#                         ready; sets URL, KC (kubeconfig), TOKEN, PID
#   as_start_http [PORT [flags...]]  the same over plain HTTP without a token,
#                         with --data-dir $T/data (restartable on PORT)
#   K ...                 kubectl with that kubeconfig and a fresh cache dir
#   api METHOD PATH [curl args...]  curl against the server; prints the body;
#                         `code` then prints the HTTP status (works after
#                         out=$(api ...) too, through a file)
#   jq_py EXPR            evaluates a Python expression on stdin's JSON as `d`
#   check DESC COND...    runs COND; fails the test with DESC when false
#   contains HAYSTACK NEEDLE
#   wrap_check_logs       fail on a report in the wrapper's logs (finish does)
# Everything started is killed by PID on exit (trap), and $T removed.
#
# TS_BIN_WRAPPER (e.g. "valgrind -q ... --log-file=%q{TS_WRAP_LOGS}/vg-%p.log",
# see `make valgrind`) is put before every binary the tests start: $WRAP.
# The process keeps its PID under valgrind (it execs), so kill by PID works.
# Its logs go to $TS_WRAP_LOGS ($T/wrap, exported for the wrapper and
# test/soak/soak.py); every waiting loop is $SLOW times longer under it.

set -u
BUILD=${TS_BUILD:-build}
BIN=$BUILD/bin/turnstile-apiserver
PY=/usr/bin/python3
FAILS=0
T=$(mktemp -d /tmp/ts-e2e.XXXXXX)
PIDS=""
OURS="" # the PIDs of our binaries (as_start*, ctl_start): they stop cleanly
WRAP=${TS_BIN_WRAPPER:-}
SLOW=1
[ -z "$WRAP" ] || SLOW=8
TS_WRAP_LOGS=$T/wrap
export TS_WRAP_LOGS
mkdir -p "$TS_WRAP_LOGS"

# reap PID: waits for a child sent SIGTERM; one still there after 30 s
# ($SLOW times that under a wrapper) gets SIGKILL, and reap returns 137.
# A process that ignores SIGTERM must fail its test, not hang the suite.
reap() {
    (
        nap=""
        trap '[ -z "$nap" ] || kill "$nap" 2>/dev/null; exit 0' TERM # no sleep left behind
        sleep $((30 * SLOW)) &
        nap=$!
        wait $nap && kill -9 "$1" 2>/dev/null
    ) &
    dog=$!
    wait "$1" 2>/dev/null
    rc=$?
    kill "$dog" 2>/dev/null
    return $rc
}

# not_killed PID RC: fails the test when reap had to SIGKILL PID
not_killed() {
    [ "$2" -ne 137 ] || fail "PID $1 did not stop within $((30 * SLOW)) s of SIGTERM: killed"
}

# stop_pid PID: SIGTERM and reap; one that ignores it fails the test
stop_pid() {
    kill "$1" 2>/dev/null
    reap "$1"
    rc=$?
    not_killed "$1" "$rc"
    return $rc
}

cleanup() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do reap "$p"; done
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

# TS_SERVER=real: as_start and as_start_http start the real control plane
# instead (test/k8s/cluster.sh, binaries in $K8S_BIN), so that a contract
# test of turnstile-apiserver checks the reference too; their flags are
# turnstile-apiserver's and mean nothing there.  A check of what only ours
# does is guarded by `ours_only`.
K8S_BIN=${K8S_BIN:-build/k8s/bin}
K8S_DIR=$T/k8s
as_start_real() {
    for b in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
        [ -x "$K8S_BIN/$b" ] || { echo "skip: $K8S_BIN/$b not built (make k8s-bins)"; exit 77; }
    done
    trap 'test/k8s/cluster.sh down "$K8S_DIR" >/dev/null 2>&1; cleanup' EXIT
    if ! K8S_BIN=$K8S_BIN test/k8s/cluster.sh up "$K8S_DIR" >"$T/cluster.out" 2>&1; then
        cat "$T/cluster.out"
        echo "FAIL: the control plane did not start"
        exit 1
    fi
    # finish shows the server log's tail on failure
    ln -sf "$K8S_DIR/kube-apiserver.log" "$T/server.log"
    sed -n 's/^cluster.sh: up in \([0-9]*\) ms.*/control plane up in \1 ms/p' "$T/cluster.out"
    URL=$(sed -n 's/^APISERVER_URL=//p' "$K8S_DIR/env")
    TOKEN=$(sed -n 's/^ADMIN_TOKEN=//p' "$K8S_DIR/env")
    KC=$K8S_DIR/kubeconfig
}

# ours_only: true on turnstile-apiserver; false (and says so) on the real
# server, for a check of something only ours has (its flags, its faults)
ours_only() {
    [ "${TS_SERVER:-ours}" != real ] && return 0
    echo "  (not on the real server: $*)"
    return 1
}

as_start() {
    if [ "${TS_SERVER:-ours}" = real ]; then
        as_start_real
        return
    fi
    [ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
    TOKEN=tok-$$
    # cleared here, not by the redirect below: that happens in the child,
    # later, and a second as_start would read the first server's address
    : >"$T/server.out"
    rm -f "$T/kc"
    $WRAP "$BIN" --listen 127.0.0.1:0 --kubeconfig-out "$T/kc" --token "$TOKEN" "$@" \
        >>"$T/server.out" 2>>"$T/server.log" &
    PID=$!
    PIDS="$PIDS $PID"
    OURS="$OURS $PID"
    KC=$T/kc
    i=0
    while [ $i -lt $((400 * SLOW)) ]; do
        URL=$(sed -n 's/^turnstile-apiserver: serving on //p' "$T/server.out" 2>/dev/null)
        [ -n "$URL" ] && [ -s "$KC" ] && break
        sleep 0.05
        i=$((i + 1))
    done
    [ -n "$URL" ] || { echo "server did not start"; cat "$T/server.log"; exit 1; }
    i=0
    until curl -sk "$URL/readyz" >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt $((400 * SLOW)) ] || { echo "server not ready"; exit 1; }
        sleep 0.05
    done
}

# as_start_http [PORT [flags...]]: plain HTTP, no token (kubectl sends no
# token over HTTP), objects in $T/data, so a restart on the same PORT
# needs no certificate the clients already trust; sets URL, KC, PID
as_start_http() {
    [ -x "$BIN" ] || { echo "skip: $BIN not built"; exit 77; }
    port=${1:-0}
    [ $# -gt 0 ] && shift
    rm -f "$T/kc"
    : >"$T/server.out" # (see as_start)
    $WRAP "$BIN" --listen "127.0.0.1:$port" --insecure-http --data-dir "$T/data" \
        --kubeconfig-out "$T/kc" "$@" >>"$T/server.out" 2>>"$T/server.log" &
    PID=$!
    PIDS="$PIDS $PID"
    OURS="$OURS $PID"
    KC=$T/kc
    i=0
    until [ -s "$T/kc" ] && URL=$(sed -n 's/^turnstile-apiserver: serving on //p' "$T/server.out") &&
        [ -n "$URL" ] && curl -s "$URL/readyz" >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt $((400 * SLOW)) ] || { echo "server did not start"; cat "$T/server.log"; exit 1; }
        sleep 0.05
    done
}

# free_port: a free TCP port for a server a test starts later (see
# config/local/free-ports for why not port 0)
free_port() {
    config/local/free-ports
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

ne() {
    [ "$1" != "$2" ] && return 0
    echo "  want other than '$2'"
    return 1
}

# A wrapper's log with a report in it is a finding (valgrind -q writes only
# its reports: errors, leaks at exit, a fatal signal; warnings and the leak
# kinds that are no errors, "possibly lost" and "still reachable", are
# not).  A SIGKILLed process gets no leak check, but its errors are there.
wrap_check_logs() {
    for f in "$TS_WRAP_LOGS"/*; do
        [ -s "$f" ] || continue
        grep -v -E '^==[0-9]+== +(Warning|WARNING|.* (possibly lost|still reachable) in loss record)' "$f" |
            grep -q -E '^==[0-9]+== [^ ]' || continue
        echo "== $f"
        head -100 "$f"
        fail "wrapper report in $(basename "$f") (${TS_BIN_WRAPPER%% *})"
    done
}

finish() {
    # stop the servers first so sanitizer reports (leaks at exit) are seen;
    # ours must stop on SIGTERM, not die of it (exit 143: nothing drained,
    # nothing freed, no leak check worth the name)
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    for p in $PIDS; do
        reap "$p"
        rc=$?
        case " $OURS " in
        *" $p "*)
            [ "$rc" -ne 143 ] || fail "PID $p died of SIGTERM instead of stopping"
            not_killed "$p" "$rc"
            ;;
        esac
    done
    PIDS=""
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/server.log" 2>/dev/null; then
        grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/server.log" | head -60
        fail "sanitizer report in the server log"
    fi
    wrap_check_logs
    if [ "$FAILS" -ne 0 ]; then
        echo "$FAILS check(s) failed; server log tail:"
        tail -20 "$T/server.log"
        exit 1
    fi
    echo "ok"
    exit 0
}
