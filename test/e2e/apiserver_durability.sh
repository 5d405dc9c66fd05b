#!/bin/sh
# --data-dir durability: a write burst (creates and updates from 4
# keep-alive connections), kill -9 at a random acknowledged write while
# requests are in flight, restart, and check with the client's own record
# that every acknowledged write is there, nothing unacknowledged is
# half-applied and resourceVersions continue.  Some rounds also append a
# torn record (and one with a bad checksum) to the log before restarting.
#   TS_DURABILITY_ROUNDS (default 5) x TS_DURABILITY_COUNT (default 2000);
#   `make soak` runs 20 x 10000.
. "$(dirname "$0")/lib/apiserver.sh"
ROUNDS=${TS_DURABILITY_ROUNDS:-5}
COUNT=${TS_DURABILITY_COUNT:-2000}
D=$T/data
CLIENT="$PY $(dirname "$0")/lib/durability_client.py"

start() {
    : >"$T/server.out"
    as_start --insecure-http --data-dir "$D" --snapshot-every 1500 --no-access-log
}
start
r=1
while [ "$r" -le "$ROUNDS" ]; do
    echo "round $r: $($CLIENT burst "$URL" "$TOKEN" "$PID" "$T/state.json" "$COUNT" "$r$$")"
    wait "$PID" 2>/dev/null
    PIDS=""
    if [ $((r % 2)) -eq 0 ]; then # a torn final record: header says 4000 bytes, 9 follow
        printf 'TSW1\240\017\000\000\001\002\003\004partial..' >>"$D/wal"
    elif [ $((r % 3)) -eq 0 ]; then # a whole record with a wrong checksum
        printf 'TSW1\005\000\000\000\377\377\377\377P\n\n\n' >>"$D/wal"
    fi
    start
    out=$($CLIENT verify "$URL" "$TOKEN" "$T/state.json")
    rc=$?
    echo "round $r: $out"
    check "round $r: acknowledged writes recovered, nothing half-applied" test "$rc" -eq 0
    r=$((r + 1))
done
check "torn records were reported" grep -q "discarding a torn record" "$T/server.log"
finish
