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

ORACLE_SRC_DIR := test/oracle
ORACLE_OUT := build/oracle
ORACLE_BIN := $(ORACLE_OUT)/bin/kueue-oracle
ORACLE_CRDS := $(ORACLE_OUT)/crds/.stamp
ORACLE_GO ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
ORACLE_SOURCES := $(ORACLE_SRC_DIR)/go.mod $(ORACLE_SRC_DIR)/go.sum \
	$(wildcard $(ORACLE_SRC_DIR)/cmd/kueue-oracle/*.go)
ORACLE_SIM ?= $(BUILD)/bin/turnstilectl
FIDELITY_ARGS ?=

.PHONY: oracle-bin fidelity

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
	/usr/bin/python3 $(ORACLE_SRC_DIR)/compare.py --sim $(ORACLE_SIM) --oracle $(ORACLE_BIN) $(FIDELITY_ARGS)
