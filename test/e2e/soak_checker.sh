#!/bin/sh
# The soak's quota invariant on its own (test/soak/test_quota_check.py):
# an admission of one flavor bounds that flavor's usage only, a cohort over
# a lowered quota is no violation until something of that flavor is
# admitted, and one Workload too many is caught.
. "$(dirname "$0")/lib/apiserver.sh"
if ! $PY test/soak/test_quota_check.py -v >"$T/out" 2>&1; then
    cat "$T/out"
    fail "test_quota_check.py"
fi
tail -3 "$T/out"
finish
