#!/bin/sh
# XGBoostJob, PaddleJob, JAXJob and JobSet on turnstile-apiserver (its job
# simulator plays their operators): the same script as on the real control
# plane (test/k8s/e2e/kinds.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/kinds.sh"
