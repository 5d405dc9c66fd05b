#!/bin/sh
# A stand-in for valgrind in test/e2e/wrapper.sh: writes the file
# $TS_FAKE_REPORT, ==PID== replaced by this process's id, as its log in
# $TS_WRAP_LOGS, then becomes the command (keeping the id, as valgrind does).
if [ -n "${TS_FAKE_REPORT:-}" ]; then
    sed "s/^==PID==/==$$==/" "$TS_FAKE_REPORT" >"$TS_WRAP_LOGS/vg-$$.log"
fi
exec "$@"
