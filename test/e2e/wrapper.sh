#!/bin/sh
# TS_BIN_WRAPPER, as `make valgrind` uses it: lib/apiserver.sh and
# lib/controller.sh put it before the binaries they start, killing the PID
# they keep kills the wrapped process, and a report in the wrapper's logs
# fails the test (wrap_check_logs; test/soak/soak.py's "wrapper"
# violation), while warnings and "possibly lost" records do not.  First
# with a stand-in wrapper (data/wrapper/report.sh writes a given log, then
# execs the binary), then, when installed, with real valgrind on a small
# program with an invalid read and a leak (data/wrapper/bad.c).
W=$(dirname "$0")/data/wrapper
TS_BIN_WRAPPER="sh $W/report.sh"
. "$(dirname "$0")/lib/apiserver.sh"
need_kubectl
. "$(dirname "$0")/lib/controller.sh"

# wrap_verdict: what wrap_check_logs says, in a subshell (it counts FAILS)
wrap_verdict() {
    (FAILS=0 && wrap_check_logs >"$T/verdict" && [ "$FAILS" -eq 0 ] && echo clean || echo report)
}

# a benign log: warnings and possibly-lost records only
export TS_FAKE_REPORT=$W/benign.txt
as_start_http
K apply -f crds/ >/dev/null
check "the wrapper wrote its log for the server's PID" test -s "$TS_WRAP_LOGS/vg-$PID.log"
check "the PID is the server's, not the wrapper's" contains "$(tr '\0' ' ' </proc/$PID/cmdline)" \
    turnstile-apiserver
ctl_start
wait_for "the controller's log is written" test -s "$TS_WRAP_LOGS/vg-$CTL_PID.log"
wait_for "the controller runs" grep -q "controller: started" "$T/ctl.log"
check "the controller's PID is the controller's" contains "$(tr '\0' ' ' </proc/$CTL_PID/cmdline)" \
    "$CTL --kubeconfig"
kill -9 "$CTL_PID" "$PID"
wait "$CTL_PID" "$PID" 2>/dev/null
check "SIGKILL of the PID stopped the wrapped controller" sh -c "! kill -0 $CTL_PID 2>/dev/null"
check "SIGKILL of the PID stopped the wrapped server" sh -c "! kill -0 $PID 2>/dev/null"
check "warnings and possibly-lost records are no finding" eq "$(wrap_verdict)" clean

# an error report fails the test, naming the log
TS_FAKE_REPORT=$W/errors.txt
as_start
check "an invalid read is a finding" eq "$(wrap_verdict)" report
check "... naming the log" contains "$(cat "$T/verdict")" "wrapper report in vg-$PID.log"
stop_pid "$PID"
rm -f "$TS_WRAP_LOGS"/*

# test/soak/soak.py: --wrapper (or TS_BIN_WRAPPER) before both binaries,
# a report in their logs is a violation
if $PY -c 'import yaml' 2>/dev/null; then
    for want in benign:0 errors:1; do
        rm -rf "$T/soak"
        TS_FAKE_REPORT=$W/${want%:*}.txt TS_WRAP_LOGS=$T/soak/wrap $PY test/soak/soak.py \
            --bin "$BUILD/bin" --dir "$T/soak" --steps 3 --wrapper "sh $W/report.sh" \
            >"$T/soak.out" 2>&1
        rc=$?
        [ "$rc" = "${want#*:}" ] || cat "$T/soak.out"
        check "soak with a ${want%:*} log exits ${want#*:} (got $rc)" eq "$rc" "${want#*:}"
        check "soak: both binaries wrapped (${want%:*})" test "$(ls "$T/soak/wrap" | wc -l)" -ge 2
    done
    check "soak names the report" contains "$(cat "$T/soak.out")" "wrapper: $T/soak/wrap/vg-"
    rm -rf "$T/soak"
else
    echo "soak part skipped: python3-yaml not installed"
fi

# real valgrind: its reports are what the check looks for
if command -v valgrind >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
    VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect"
    VG="$VG --errors-for-leak-kinds=definite,indirect --log-file=$TS_WRAP_LOGS/vg-%p.log"
    $VG true
    check "valgrind on a clean program: no finding" eq "$(wrap_verdict)" clean
    cc -O0 -g -o "$T/bad" "$W/bad.c"
    $VG "$T/bad"
    check "valgrind's invalid read and leak are findings" eq "$(wrap_verdict)" report
    check "... the invalid read is shown" contains "$(cat "$T/verdict")" "Invalid read of size 4"
    check "... and the leak" contains "$(cat "$T/verdict")" "definitely lost"
    rm -f "$TS_WRAP_LOGS"/*
    $VG sleep 60 &
    vp=$!
    wait_for "valgrind runs in the PID it was started as" sh -c \
        "readlink /proc/$vp/exe | grep -q memcheck"
    kill -9 "$vp"
    wait "$vp" 2>/dev/null
    check "SIGKILL of that PID ended it" sh -c "! kill -0 $vp 2>/dev/null"
else
    echo "valgrind part skipped: valgrind or cc not installed"
fi
rm -f "$TS_WRAP_LOGS"/*
finish
