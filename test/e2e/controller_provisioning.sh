#!/bin/sh
# The ProvisioningRequest admission check through the controller on
# turnstile-apiserver: the same script as on the real control plane
# (test/k8s/e2e/provisioning.sh).
TS_SERVER=ours exec "$(dirname "$0")/../k8s/e2e/provisioning.sh"
