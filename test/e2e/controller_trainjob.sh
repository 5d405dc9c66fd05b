#!/bin/sh
# TrainJob on turnstile-apiserver, whose job simulator plays the Kubeflow
# Trainer operator: the same script as on the real control plane
# (test/k8s/e2e/trainjob.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/trainjob.sh"
