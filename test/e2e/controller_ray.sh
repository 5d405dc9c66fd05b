#!/bin/sh
# RayJob and RayCluster on turnstile-apiserver, whose job simulator plays the
# KubeRay operator: the same script as on the real control plane
# (test/k8s/e2e/ray.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/ray.sh"
