#!/bin/sh
# Exec credential plugin for tests.  $1 selects the behaviour; every run
# is counted in $TS_TEST_COUNTER; the token carries the run number.
n=$(cat "$TS_TEST_COUNTER" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$TS_TEST_COUNTER"
case "$KUBERNETES_EXEC_INFO" in
*'"interactive":false'*) ;;
*) echo "plugin: bad KUBERNETES_EXEC_INFO" >&2; exit 4 ;;
esac
case "$1" in
fail) echo "plugin: cannot log in" >&2; exit 3 ;;
garbage) echo "not json"; exit 0 ;;
wrongapi) printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}\n'; exit 0 ;;
cluster)
    case "$KUBERNETES_EXEC_INFO" in
    *'"server":"https://10.0.0.1"'*) ;;
    *) echo "plugin: no cluster info" >&2; exit 5 ;;
    esac ;;
esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s-%d","expirationTimestamp":"%s"}}\n' \
    "$1" "$n" "${TS_TEST_EXP:-2030-01-01T00:00:00Z}"
