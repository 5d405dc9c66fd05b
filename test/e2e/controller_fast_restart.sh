#!/bin/sh
# Issue 43: a controller without leader election, killed (SIGKILL) at a
# random moment of its first 300 ms and started again within 100 ms, 200
# times (under ASan 60 lives of up to 1 s), while jobs are created,
# completed and deleted (test/soak/soak.py --storm, turnstile-apiserver
# --faults as in the soak): no over-admission (the soak's quota checker
# after every step), and at the end every
# invariant of the soak at quiescence.  Each incarnation writes its start
# fence (pkg/controller/fence.c) and decides nothing until its informers
# have seen it; the API server refuses a write whose client has gone.
. "$(dirname "$0")/lib/apiserver.sh"
[ -x "$BIN" ] && [ -x "$BUILD/bin/turnstile" ] || { echo "skip: binaries not built"; exit 77; }
$PY -c 'import yaml' 2>/dev/null || { echo "skip: python3-yaml not installed"; exit 77; }
KILLS=${TS_STORM_KILLS:-200}
LIFE=0.3
# an ASan controller takes most of 300 ms to reach its fence: fewer, longer
# lives there (the regular build in `make test` has the 200 kills)
case $BUILD in *asan*) KILLS=${TS_STORM_KILLS:-60} LIFE=1.0 ;; esac
$PY test/soak/soak.py --bin "$BUILD/bin" --dir "$T/soak" --seed "${TS_SOAK_SEED:-1}" \
    --steps 150 --storm "$KILLS" --storm-life "$LIFE" --restart-every 1000000000 \
    --controller-kill 0 --apiserver-kill 0 --quiesce-every 1000000000 --preemption \
    >"$T/soak.out" 2>&1
rc=$?
cat "$T/soak.out"
if [ "$rc" -ne 0 ]; then
    rm -rf "$BUILD/test-logs/fast-restart-failed"
    mkdir -p "$BUILD/test-logs" && cp -r "$T/soak" "$BUILD/test-logs/fast-restart-failed" &&
        echo "logs kept in $BUILD/test-logs/fast-restart-failed"
fi
check "no violation (quota after every step, the soak's invariants at the end)" eq "$rc" 0
n=$(sed -n 's/.*restarts controller=\([0-9]*\).*/\1/p' "$T/soak.out")
check "$KILLS kills and restarts (${n:-none})" test "${n:-0}" -ge "$KILLS"
gap=$(sed -n 's/.*storm_longest_restart_ms=\([0-9]*\).*/\1/p' "$T/soak.out")
check "each restart within 100 ms of its kill (longest ${gap:-?} ms)" test "${gap:-999}" -le 100
adm=$(sed -n 's/.*workloads admitted=\([0-9]*\).*/\1/p' "$T/soak.out")
check "workloads were admitted (${adm:-none})" test "${adm:-0}" -ge 20
fenced=$(grep -c 'start fence: lease soak/turnstile-start-fence at resourceVersion' "$T/soak/ctl.log")
seen=$(grep -c 'start fence: every informer at or past' "$T/soak/ctl.log")
# (an incarnation killed early in its discovery never gets to write it)
check "the incarnations wrote their start fence ($fenced)" test "$fenced" -ge $((KILLS / 4))
check "some lived to see it ($seen)" test "$seen" -ge $((KILLS / 10))
for f in server.log ctl.log; do
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/soak/$f" 2>/dev/null; then
        grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/soak/$f" | head -60
        fail "sanitizer report in $f"
    fi
done
finish
