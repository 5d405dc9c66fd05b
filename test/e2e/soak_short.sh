#!/bin/sh
# The short crash-restart soak (test/soak/soak.py; `make soak` runs the
# long one): 200 seeded random steps (jobs created, completed, deleted,
# ClusterQueue quota edits, turnstile killed with SIGKILL at random
# moments at least every 9th step, turnstile-apiserver killed and
# restarted from its --data-dir) against turnstile-apiserver --faults,
# with preemption in two of the three ClusterQueues (--preemption: victims
# evicted under the same faults and kills), the invariant checker after
# every step and at quiescence.  Any violation fails the test, naming the
# objects.
#
# `make valgrind` runs it with the binaries under valgrind (TS_BIN_WRAPPER,
# which soak.py reads) and fewer steps: TS_SOAK_STEPS (a tenth of them at
# least are controller kills and admissions); TS_SOAK_ARGS goes to soak.py
# after the arguments below, so it overrides them.
. "$(dirname "$0")/lib/apiserver.sh"
STEPS=${TS_SOAK_STEPS:-200}
export TS_SOAK_ARGS="--steps $STEPS ${TS_SOAK_ARGS:-}"
[ -x "$BIN" ] && [ -x "$BUILD/bin/turnstile" ] || { echo "skip: binaries not built"; exit 77; }
$PY -c 'import yaml' 2>/dev/null || { echo "skip: python3-yaml not installed"; exit 77; }
$PY test/soak/soak.py --bin "$BUILD/bin" --dir "$T/soak" --seed "${TS_SOAK_SEED:-1}" \
    --steps 200 --restart-every 9 --controller-kill 0.06 --quiesce-every 100 --preemption \
    >"$T/soak.out" 2>&1
rc=$?
cat "$T/soak.out"
if [ "$rc" -ne 0 ]; then # keep the logs of a violation: the soak's timing rarely repeats
    rm -rf "$BUILD/test-logs/soak-short-failed"
    mkdir -p "$BUILD/test-logs" && cp -r "$T/soak" "$BUILD/test-logs/soak-short-failed" &&
        echo "soak logs kept in $BUILD/test-logs/soak-short-failed"
fi
for f in server.log ctl.log; do
    if grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/soak/$f" 2>/dev/null; then
        grep -A30 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/soak/$f" | head -60
        fail "sanitizer report in $f"
    fi
done
check "the soak ran to the end with no violation" eq "$rc" 0
ctl=$(sed -n 's/.*restarts controller=\([0-9]*\).*/\1/p' "$T/soak.out")
check "at least $((STEPS / 10)) controller restarts (${ctl:-none})" test "${ctl:-0}" -ge $((STEPS / 10))
steps=$(sed -n 's/.* steps=\([0-9]*\).*/\1/p' "$T/soak.out")
check "at least $STEPS steps (${steps:-none})" test "${steps:-0}" -ge "$STEPS"
adm=$(sed -n 's/.*workloads admitted=\([0-9]*\).*/\1/p' "$T/soak.out")
check "workloads were admitted (${adm:-none})" test "${adm:-0}" -ge $((STEPS / 10))
[ "$FAILS" -eq 0 ] || tail -30 "$T/soak/ctl.log"
finish
