# test/k8s/k8s.mk - the real Kubernetes control plane in the test bed
# (build with make k8s-bins, run with make test-k8s); included by the Makefile.
#
#   make k8s-bins   build etcd, kube-apiserver, kube-controller-manager,
#                   kube-scheduler and kwok into build/k8s/bin from the Go
#                   modules pinned in test/k8s (only when the pins changed)
#   make test-k8s   build Turnstile and those, run test/k8s/e2e/*.sh on a real
#                   control plane; ends with a `total: N passed, N failed` line
#
# Go is test infrastructure only: without it test-k8s stops and says what to
# install.  TS_SKIP_K8S=1 skips the suite.

K8S_BIN ?= build/k8s/bin

.PHONY: k8s-bins test-k8s

k8s-bins:
	@test/k8s/build.sh $(K8S_BIN)

test-k8s:
	@if [ "$${TS_SKIP_K8S:-0}" = 1 ]; then \
		echo "test-k8s: skipped (TS_SKIP_K8S=1)"; \
		echo "total: 0 passed, 0 failed, 1 skipped"; \
	else \
		$(MAKE) --no-print-directory all && \
		test/k8s/build.sh $(K8S_BIN) && \
		K8S_BIN=$(abspath $(K8S_BIN)) test/k8s/run-e2e.sh $(or $(BUILD),build); \
	fi
