#!/bin/sh
# Plain Pods on turnstile-apiserver: the same script as on the real control
# plane (test/k8s/e2e/pods.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/pods.sh"
