# Kueue as the oracle: test/oracle/ is a Go module of its own that
# runs Kueue's scheduler (sigs.k8s.io/kueue, pinned in test/oracle/go.mod) on
# the scenario YAML that `turnstilectl simulate` reads.  Go is test
# infrastructure only; the product stays C.  Included from the top Makefile:
#
#   make oracle-bin   build/oracle/bin/kueue-oracle (+ Kueue's CRDs beside it)
#   make fidelity     simulate vs Kueue on every test/scenarios file:
#                     agreement per family and a diff per disagreement
#                     (FIDELITY_ARGS=--expect also checks Kueue against each
#                     scenario's own expectations; --strict fails on a
#                     disagreement)
#   make fidelity SEEDS=N
#                     instead, N random scenarios of every family of
#                     test/oracle/gen.py (fuzz.py): agreement per family, each
#                     disagreement reduced under build/oracle/disagreements/
#                     (FUZZ_ARGS: more fuzz.py options, e.g. --first S)
#   make fidelity-seeds
#                     the fixed seed set make test runs (FUZZ_FIXED_SEEDS per
#                     family): fails on a disagreement or invalid scenario not
#                     listed in test/oracle/known-fuzz-differences.txt

ORACLE_SRC_DIR := test/oracle
ORACLE_OUT := build/oracle
ORACLE_BIN := $(ORACLE_OUT)/bin/kueue-oracle
ORACLE_CRDS := $(ORACLE_OUT)/crds/.stamp
ORACLE_GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
ORACLE_SOURCES := $(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum \
	$(wildcard $(ORACLE_SRC_DIR)/cmd/kueue-oracle/*.go) \
	$(wildcard $(ORACLE_SRC_DIR)/internal/*/*.go)
ORACLE_SIM ?= $(BUILD)/bin/turnstilectl
FIDELITY_ARGS ?=
SEEDS ?=
FUZZ_ARGS ?=
FUZZ_FIXED_SEEDS ?= 30

.PHONY: oracle-bin fidelity fidelity-seeds

oracle-bin: $(ORACLE_BIN) $(ORACLE_CRDS)

# rebuilt only when go.mod, go.sum or a source file changes
$(ORACLE_BIN): $(ORACLE_SOURCES)
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && nice -n 10 $(ORACLE_GO) build -trimpath -o $(CURDIR)/$@ ./cmd/kueue-oracle

# Kueue's own CRDs (defaults, schema and CEL validation), from the pinned
# module in the module cache
$(ORACLE_CRDS): $(ORACLE_SRC_DIR)/go.sum
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && $(ORACLE_GO) mod download sigs.k8s.io/kueue
	dir=$$(cd $(ORACLE_SRC_DIR) && $(ORACLE_GO) list -m -f '{{.Dir}}' sigs.k8s.io/kueue) && \
		cp $$dir/config/components/crd/bases/kueue.x-k8s.io_*.yaml $(@D)/ && chmod u+w $(@D)/*.yaml
	@touch $@

fidelity: oracle-bin $(ORACLE_SIM)
ifeq ($(strip $(SEEDS)),)
	/usr/bin/python3 $(ORACLE_SRC_DIR)/compare.py --sim $(ORACLE_SIM) --oracle $(ORACLE_BIN) $(FIDELITY_ARGS)
else
	nice -n 10 /usr/bin/python3 $(ORACLE_SRC_DIR)/fuzz.py --sim $(ORACLE_SIM) --oracle $(ORACLE_BIN) \
		--seeds $(SEEDS) --out $(ORACLE_OUT)/disagreements $(FUZZ_ARGS)
endif

fidelity-seeds: oracle-bin $(ORACLE_SIM)
	nice -n 10 /usr/bin/python3 $(ORACLE_SRC_DIR)/fuzz.py --sim $(ORACLE_SIM) --oracle $(ORACLE_BIN) \
		--seeds $(FUZZ_FIXED_SEEDS) --out $(ORACLE_OUT)/disagreements --quiet \
		--strict --known $(ORACLE_SRC_DIR)/known-fuzz-differences.txt

# Kueue's API rules as the oracle (kueue-api-oracle: CRD defaults, schema and
# CEL, webhook defaulting and validation, v1beta1 <-> v1beta2 conversion)
# against `turnstilectl validate` / `convert` on apigen.py's objects:
#
#   make api-oracle-bin            build/oracle/bin/kueue-api-oracle
#   make api-fidelity [SEEDS=N]    agreement per kind (20 seeds unless
#                                  SEEDS says); disagreements in
#                                  build/oracle/api-disagreements/
#                                  (API_FIDELITY_ARGS=--strict fails on one
#                                  known-api-differences.txt does not list)

API_ORACLE_BIN := $(ORACLE_OUT)/bin/kueue-api-oracle
API_ORACLE_SOURCES := $(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum \
	$(wildcard $(ORACLE_SRC_DIR)/cmd/kueue-api-oracle/*.go) \
	$(wildcard $(ORACLE_SRC_DIR)/internal/*/*.go)
API_FIDELITY_ARGS ?=

.PHONY: api-oracle-bin api-fidelity

api-oracle-bin: $(API_ORACLE_BIN) $(ORACLE_CRDS)

# rebuilt only when go.mod, go.sum or a source file changes
$(API_ORACLE_BIN): $(API_ORACLE_SOURCES)
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && nice -n 10 $(ORACLE_GO) build -trimpath -o $(CURDIR)/$@ ./cmd/kueue-api-oracle

api-fidelity: api-oracle-bin $(ORACLE_SIM)
	nice -n 10 /usr/bin/python3 $(ORACLE_SRC_DIR)/api_compare.py --seeds $(or $(SEEDS),20) \
		--ctl $(ORACLE_SIM) --oracle $(API_ORACLE_BIN) \
		--known $(ORACLE_SRC_DIR)/known-api-differences.txt \
		--out $(ORACLE_OUT)/api-disagreements $(API_FIDELITY_ARGS)

# Kueue beside Turnstile on Kueue's scheduler performance test
# (test/perf/bench-vs-kueue.sh, docs/benchmarks.md): Kueue's own runner and
# minimalkueue from the pinned module, kueue-bench-manager (minimalkueue's
# set-up with the client budget as a flag) and kube-envtest (the runner's
# control plane, for Turnstile's side)
#
#   make kueue-bench-bins   the four into build/oracle/bin (+ Kueue's CRDs)

KUEUE_PERF := sigs.k8s.io/kueue/test/performance/scheduler
KUEUE_BENCH_BINS := $(ORACLE_OUT)/bin/kueue-perf-runner $(ORACLE_OUT)/bin/minimalkueue \
	$(ORACLE_OUT)/bin/kueue-bench-manager $(ORACLE_OUT)/bin/kube-envtest

.PHONY: kueue-bench-bins

kueue-bench-bins: $(KUEUE_BENCH_BINS) $(ORACLE_CRDS)

$(ORACLE_OUT)/bin/kueue-perf-runner: $(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && nice -n 10 $(ORACLE_GO) build -trimpath -o $(CURDIR)/$@ $(KUEUE_PERF)/runner

$(ORACLE_OUT)/bin/minimalkueue: $(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && nice -n 10 $(ORACLE_GO) build -trimpath -o $(CURDIR)/$@ $(KUEUE_PERF)/minimalkueue

$(ORACLE_OUT)/bin/kueue-bench-manager $(ORACLE_OUT)/bin/kube-envtest: $(ORACLE_OUT)/bin/%: \
		$(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum $(ORACLE_SRC_DIR)/cmd/%/main.go
	@mkdir -p $(@D)
	cd $(ORACLE_SRC_DIR) && nice -n 10 $(ORACLE_GO) build -trimpath -o $(CURDIR)/$@ ./cmd/$*
