#!/bin/sh
# LimitRange defaults and RuntimeClass overhead on turnstile-apiserver: the
# same script as on the real control plane (test/k8s/e2e/limitrange.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/limitrange.sh"
