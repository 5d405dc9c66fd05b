# Turnstile - one non-recursive GNU Makefile.
#
#   make            build library, binaries and test binaries (debug, into build/)
#   make test       check dependencies, build, run every test, print a summary: the
#                   unit and end-to-end tests on turnstile-apiserver, Kueue as the
#                   oracle (make fidelity), the real control plane (make test-k8s);
#                   TS_SKIP_K8S=1 skips the last two (they need Go)
#   make asan       the same tests built with ASan+UBSan (into build/asan/)
#   make valgrind   unit tests under valgrind, then bad_input.sh and a 100-step
#                   soak_short.sh with the binaries under valgrind (~8 min)
#   make fuzz       libFuzzer on every test/fuzz target (clang; FUZZ_SECONDS each)
#   make lint / fmt clang-format check / rewrite, cppcheck, banned functions
#   make bench-engine  engine throughput on Kueue's performance shapes
#   make bench      Kueue's scheduler performance baseline: ideal (unlimited, 50/100
#                   write budget) and live (unlimited, 50/100), with Kueue's range check
#   make bench-large   the same on Kueue's large-scale configuration
#   make bench-vs-kueue  Turnstile beside Kueue (its own runner and minimalkueue)
#                   on Kueue's baseline, same machine and control plane, one table
#                   (BENCH_LARGE=1 adds the large-scale config)
#   make run        the local API server + webhook + controller + samples
#                   (K8S=real: on a real control plane built from Go modules)
#   make install    the product binaries (release build) into $(DESTDIR)$(PREFIX)/bin:
#                   turnstile, turnstilectl and turnstile-apiserver; PREFIX=/usr/local;
#                   kubectl-kueue -> turnstilectl (the `kubectl kueue` plugin) and
#                   kubectl_complete-kueue -> turnstilectl (its shell completion)
#   make soak       apiserver durability (20 kill -9 rounds x 10,000 writes), then the
#                   crash-restart soak: 3,000 steps, >= 1,000 controller kills, --faults,
#                   --preemption
#                   (SOAK_LOAD=1: with both cores kept busy, test/soak/load.sh)
#                   K8S=real: the real control plane's faults instead (kube-apiserver
#                   and etcd killed, kube-apiserver paused; SOAK_PLANE_ROUNDS bursts)
#   make soak-mutant  the soak against a build that over-admits: must fail on quota
#   make deps       install the Debian packages (needs root)
#   make help       this list
#
# MODE=debug|asan|release selects flags and the build subtree; V=1 shows
# full command lines.

MODE ?= debug
ifeq ($(MODE),debug)
BUILD := build
else
BUILD := build/$(MODE)
endif

CC ?= cc
PKGS := libcurl libcjson yaml-0.1 libmicrohttpd openssl
TEST_PKGS := cmocka
DEB_PKGS := libcurl4-openssl-dev libcjson-dev libyaml-dev libmicrohttpd-dev libssl-dev \
	libcmocka-dev pkg-config make gcc curl python3 python3-kubernetes
APT_CMD = apt-get install -y --no-install-recommends $(DEB_PKGS)

# Recursive (=) so pkg-config runs only when something is compiled, i.e.
# after check-deps had its chance to install what is missing.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_CFLAGS = $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
TEST_LIBS = $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wcast-qual -Wformat=2 -Wvla -Wundef -Wnull-dereference
STD := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
OPT_debug := -O1 -g
OPT_release := -O2 -g -DNDEBUG
# MODE=mutant (make soak-mutant): a debug build that over-admits on purpose
OPT_mutant := $(OPT_debug) -DTS_MUTATE_OVERADMIT=8
OPT_asan := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
LDOPT_asan := -fsanitize=address,undefined
# MODE=fuzz (CC=clang, see test/fuzz/run.sh): coverage for libFuzzer on
# everything, the fuzzer's main linked into build/fuzz/fuzz/<target> only.
# clang warns of things gcc does not (the gcc build holds -Werror).
OPT_fuzz := $(OPT_asan) -fsanitize=fuzzer-no-link -Wno-error
LDOPT_fuzz := $(LDOPT_asan)
OPT := $(OPT_$(MODE))
# CPPFLAGS, CFLAGS and LDFLAGS from the environment or the command line
# come last, so a packager's flags win (EXTRA_* are the older spelling).
CFLAGS_ALL = $(STD) $(WARN) $(OPT) -Ipkg $(PKG_CFLAGS) -MMD -MP $(CPPFLAGS) $(CFLAGS) \
	$(EXTRA_CFLAGS)
LDFLAGS_ALL = $(LDOPT_$(MODE)) $(LDFLAGS) $(EXTRA_LDFLAGS)

# Quantity arithmetic is where silent narrowing would hurt most, so that
# module is also held to -Wconversion.
CONV_DIRS := pkg/resource
CONV_FLAGS := -Wconversion -Wsign-conversion

LIB_SRCS := $(sort $(shell find pkg -name '*.c'))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libturnstile.a

CMDS := $(sort $(notdir $(wildcard cmd/*)))
BINS := $(CMDS:%=$(BUILD)/bin/%)

TEST_SRCS := $(sort $(wildcard test/unit/test_*.c))
TEST_HELPER_SRCS := $(sort $(filter-out $(TEST_SRCS),$(wildcard test/unit/*.c)))
TEST_HELPER_OBJS := $(TEST_HELPER_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(TEST_SRCS:test/unit/%.c=$(BUILD)/test/%)

# Fuzz targets (test/fuzz/fuzz_<name>.c): each links with replay.c into a
# test (corpus + seeded mutations, gcc) and, in MODE=fuzz, with libFuzzer.
FUZZ_SRCS := $(sort $(wildcard test/fuzz/fuzz_*.c))
FUZZ_NAMES := $(FUZZ_SRCS:test/fuzz/fuzz_%.c=%)
REPLAY_BINS := $(FUZZ_NAMES:%=$(BUILD)/test/test_fuzz_replay_%)
FUZZER_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/%)

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: bench bench-large bench-vs-kueue bench-engine fuzz fuzzers run soak soak-mutant install all lib bins tests test unit asan valgrind lint fmt clean deps check-deps \
	print-deb-packages help
.DEFAULT_GOAL := all

all: lib bins tests

lib: $(LIB)
bins: $(BINS)
tests: $(TEST_BINS) $(REPLAY_BINS)
fuzzers: $(FUZZER_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS_ALL) $(if $(filter $(CONV_DIRS)/%,$<),$(CONV_FLAGS)) \
		$(if $(filter test/%,$<),$(TEST_CFLAGS) -Itest/unit) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# Each binary is every .c in cmd/<name>/ linked with the library.  (The
# pattern lives in a variable: a literal % in a pattern rule's
# prerequisites would be replaced by the stem before $$(call ...) runs.)
cmd_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard cmd/$(1)/*.c))
.SECONDEXPANSION:
$(BUILD)/bin/%: $$(call cmd_objs,$$*) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIB) $(PKG_LIBS) -lm

$(BUILD)/test/%: $(BUILD)/obj/test/unit/%.o $(TEST_HELPER_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIB) $(PKG_LIBS) $(TEST_LIBS) -lm

$(BUILD)/test/test_fuzz_replay_%: $(BUILD)/obj/test/fuzz/replay.o $(BUILD)/obj/test/fuzz/fuzz_%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o,$^) $(LIB) $(PKG_LIBS) $(TEST_LIBS) -lm

$(BUILD)/fuzz/%: $(BUILD)/obj/test/fuzz/fuzz_%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(LIB) $(PKG_LIBS) -lm

# --- benchmarks (not tests: they measure, they do not pass or fail) -------
BENCH_SRCS := $(sort $(wildcard test/bench/*.c))
BENCH_BINS := $(BENCH_SRCS:test/bench/%.c=$(BUILD)/bench/%)

$(BUILD)/bench/%: $(BUILD)/obj/test/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIB) $(PKG_LIBS) -lm

bench-engine: check-deps
	@$(MAKE) --no-print-directory MODE=release build/release/bench/bench_engine
	build/release/bench/bench_engine

# Kueue's scheduler performance test (docs/benchmarks.md).  The unlimited
# ideal must pass Kueue's range; the write-capped ideal and the live runs
# (turnstile-apiserver + turnstile started by turnstilectl; minutes each,
# BENCH_LIVE=0 skips them) print their range check and never fail the
# target: they are measurements.
BENCH_BIN := build/release/bin
BENCH_MAKE = $(MAKE) --no-print-directory MODE=release
BENCH_FILE ?= test/perf/baseline/generator.yaml
BENCH_RANGE ?= test/perf/baseline/rangespec.yaml
BENCH_LIVE ?= 1

bench: check-deps
	@$(BENCH_MAKE) bins
	$(BENCH_BIN)/turnstilectl bench $(BENCH_FILE) --ideal --check $(BENCH_RANGE)
	-$(BENCH_BIN)/turnstilectl bench $(BENCH_FILE) --ideal --write-budget 50/100 --check $(BENCH_RANGE)
	-[ "$(BENCH_LIVE)" = 0 ] || $(BENCH_BIN)/turnstilectl bench $(BENCH_FILE) --live \
		--check $(BENCH_RANGE)
	-[ "$(BENCH_LIVE)" = 0 ] || $(BENCH_BIN)/turnstilectl bench $(BENCH_FILE) --live \
		--qps 50 --burst 100 --check $(BENCH_RANGE)
	@echo "large scale: make bench-large (test/perf/large-scale/generator.yaml)"

bench-large: check-deps
	@$(BENCH_MAKE) bins
	$(BENCH_BIN)/turnstilectl bench test/perf/large-scale/generator.yaml --ideal
	-$(BENCH_BIN)/turnstilectl bench test/perf/large-scale/generator.yaml --ideal --write-budget 50/100
	-[ "$(BENCH_LIVE)" = 0 ] || $(BENCH_BIN)/turnstilectl bench test/perf/large-scale/generator.yaml \
		--live --qps 50 --burst 100

# Turnstile and Kueue side by side on Kueue's scheduler performance test,
# the same machine, control plane and hour (test/perf/bench-vs-kueue.sh):
# Kueue's baseline at 50/100 and without a budget; BENCH_LARGE=1 adds the
# large-scale config (about an hour more); BENCH_VS_FILES overrides the
# generator files, BUDGETS the budgets ("50 0").  Prints the table
# (also in $(BENCH_VS_OUT)/table.md).
BENCH_VS_OUT ?= build/bench-vs-kueue
BENCH_VS_FILES ?= test/perf/baseline/generator.yaml $(if $(filter 1,$(BENCH_LARGE)),test/perf/large-scale/generator.yaml)

bench-vs-kueue: check-deps kueue-bench-bins
	@$(BENCH_MAKE) bins
	@test/k8s/build.sh $(K8S_BIN)
	K8S_BIN=$(K8S_BIN) ORACLE_OUT=$(ORACLE_OUT) TS_BIN=$(BENCH_BIN) \
		test/perf/bench-vs-kueue.sh $(BENCH_VS_OUT) $(BENCH_VS_FILES)

# The full --data-dir durability soak (make test runs 5 rounds x 2,000),
# then the long crash-restart soak of the controller against
# turnstile-apiserver --faults (make test runs 200 steps, see
# docs/reliability.md): SOAK_SEED, SOAK_STEPS; stops by itself.
# SOAK_LOAD=1 keeps both cores busy meanwhile (test/soak/load.sh: CPU hogs
# and a second apiserver + controller pair); SOAK_DURABILITY=0 skips the
# durability part.
SOAK_SEED ?= 1
SOAK_STEPS ?= 3000
SOAK_LOAD ?= 0
SOAK_DURABILITY ?= 1
SOAK_BIN ?= $(BUILD)/bin
SOAK_DIR ?= $(BUILD)/soak
SOAK_RUN = python3 test/soak/soak.py --bin $(SOAK_BIN) --dir $(SOAK_DIR) --seed $(SOAK_SEED) \
		--steps $(SOAK_STEPS) --restart-every 3 --quiesce-every 250 --min-restarts 1000 \
		--max-seconds 3600 --preemption
SOAK_PLANE_ROUNDS ?= 3
SOAK_PLANE_LOG = $(BUILD)/k8s/test-logs/k8s-plane_faults.log
ifeq ($(K8S),real)
# K8S=real: the real control plane's faults instead (test/k8s/e2e/
# plane_faults.sh, SOAK_PLANE_ROUNDS bursts of 200 Jobs, each with
# kube-apiserver killed mid-burst, etcd killed, kube-apiserver paused 30 s)
soak: check-deps
	@$(MAKE) --no-print-directory all
	@test/k8s/build.sh $(BUILD)/k8s/bin
	@K8S_BIN=$(CURDIR)/$(BUILD)/k8s/bin TS_PLANE_ROUNDS=$(SOAK_PLANE_ROUNDS) TS_TEST_TIMEOUT=3600 \
		test/k8s/run-e2e.sh $(BUILD) plane_faults; rc=$$?; \
		grep -E '^(==|round|burst|cluster.sh|kube-apiserver paused|controller log|FAIL)' \
		$(SOAK_PLANE_LOG); exit $$rc
else
soak: check-deps
	@$(MAKE) --no-print-directory all
	[ "$(SOAK_DURABILITY)" = 0 ] || TS_BUILD=$(BUILD) TS_DURABILITY_ROUNDS=20 \
		TS_DURABILITY_COUNT=10000 test/e2e/apiserver_durability.sh
	rm -rf $(SOAK_DIR)
	@if [ "$(SOAK_LOAD)" = 1 ]; then test/soak/load.sh start $(SOAK_DIR)-load $(BUILD)/bin; fi; \
		$(SOAK_RUN); rc=$$?; \
		if [ "$(SOAK_LOAD)" = 1 ]; then test/soak/load.sh stop $(SOAK_DIR)-load; fi; exit $$rc
endif

# The soak must catch an over-admission: MODE=mutant builds an engine whose
# cohorts offer an eighth more than their quota (TS_MUTATE_OVERADMIT), and
# this target passes only when the soak, at its normal length, reports a
# quota violation against it.
soak-mutant: check-deps
	@$(MAKE) --no-print-directory MODE=mutant bins
	@rm -rf build/mutant/soak; \
	if $(MAKE) --no-print-directory soak SOAK_DURABILITY=0 SOAK_BIN=build/mutant/bin \
		SOAK_DIR=build/mutant/soak >build/mutant/soak.out 2>&1; then \
		tail -15 build/mutant/soak.out; echo "soak-mutant: the over-admitting build passed the soak"; exit 1; \
	fi; grep -q 'VIOLATION.*quota' build/mutant/soak.out || { tail -15 build/mutant/soak.out; \
		echo "soak-mutant: the soak failed, but not on quota"; exit 1; }; \
	grep -m3 'VIOLATION.*quota' build/mutant/soak.out; \
	echo "soak-mutant: caught (first at $$(grep -m1 -o 'VIOLATION step [0-9]*' build/mutant/soak.out))"

# libFuzzer, FUZZ_SECONDS (default 60) per target; says so and fails when
# clang or libFuzzer is missing.
fuzz: check-deps
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) MAKE="$(MAKE)" test/fuzz/run.sh

# --- dependency check: install when root, else one clear line -----------
check-deps:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"; \
	command -v $(CC) >/dev/null 2>&1 || missing="$$missing $(CC)"; \
	if [ -z "$$missing" ]; then \
		for p in $(PKGS) $(TEST_PKGS); do \
			pkg-config --exists $$p || missing="$$missing $$p"; \
		done; \
	fi; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "turnstile: missing$$missing; running 'make deps'"; \
			$(MAKE) --no-print-directory deps || exit 1; \
		else \
			echo "turnstile: missing$$missing; install with: sudo apt-get update && sudo $(APT_CMD)"; \
			exit 1; \
		fi; \
	fi

print-deb-packages:
	@echo $(DEB_PKGS)

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive $(APT_CMD)
	@command -v kubectl >/dev/null 2>&1 || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends kubernetes-client

# --- install: the product, not the benchmark tools ------------------------
PREFIX ?= /usr/local
INSTALL_BINS := turnstile turnstilectl turnstile-apiserver
install:
	@$(MAKE) --no-print-directory MODE=release $(INSTALL_BINS:%=build/release/bin/%)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(INSTALL_BINS:%=build/release/bin/%) $(DESTDIR)$(PREFIX)/bin/
	ln -sf turnstilectl $(DESTDIR)$(PREFIX)/bin/kubectl-kueue
	ln -sf turnstilectl $(DESTDIR)$(PREFIX)/bin/kubectl_complete-kueue

# --- the main job on the embedded default ---------------------------------
run: check-deps
	@$(MAKE) --no-print-directory all
	@if [ "$(K8S)" = real ]; then test/k8s/build.sh $(BUILD)/k8s/bin; fi
	@BUILD=$(BUILD) K8S=$(K8S) config/local/run.sh

# --- tests ----------------------------------------------------------------
test: check-deps
	@$(MAKE) --no-print-directory all
	@MAKE="$(MAKE)" test/run-all.sh $(BUILD)

unit: all
	@test/run-tests.sh $(BUILD)

asan: check-deps
	@$(MAKE) --no-print-directory MODE=asan all
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		test/run-tests.sh build/asan

# The cmocka programs under valgrind, then the e2e tests of issue 11 with
# the binaries they start under it (TS_BIN_WRAPPER, logs checked by the
# tests: test/e2e/lib/apiserver.sh): the bad-input table, and the soak
# with VG_SOAK_STEPS steps of at least a second (a controller 20-50x
# slower gets time to work between kills) and longer waits.
# docs/reliability.md has the time it takes and what it found.
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --suppressions=test/valgrind.supp
VG_SOAK_STEPS ?= 100
valgrind: check-deps
	@$(MAKE) --no-print-directory all
	@command -v valgrind >/dev/null 2>&1 || { \
		echo "turnstile: valgrind missing; install with: sudo apt-get install -y valgrind"; exit 1; }
	@TS_E2E=0 TS_FUZZ_MUTATIONS=200 TS_TEST_TIMEOUT=3600 TS_TEST_WRAPPER="$(VALGRIND)" test/run-tests.sh $(BUILD)
	@TS_UNIT=0 TS_TEST_TIMEOUT=3600 TS_BIN_WRAPPER="$(VALGRIND) --log-file=%q{TS_WRAP_LOGS}/vg-%p.log" \
		TS_SOAK_STEPS=$(VG_SOAK_STEPS) TS_SOAK_ARGS="--pace 1 --grace 60 --quiesce-timeout 120" \
		test/run-tests.sh $(BUILD) "bad_input soak_short"

# --- style ----------------------------------------------------------------
FMT_SRCS = $(shell find pkg cmd test -name '*.[ch]')
BANNED := '\b(strcpy|strcat|sprintf|vsprintf|strtok|atoi|atol|atoll|gets|cJSON_Compare)[[:space:]]*\('

lint:
	@command -v clang-format >/dev/null && command -v cppcheck >/dev/null || { \
		echo "turnstile: lint needs clang-format and cppcheck: sudo apt-get install -y clang-format cppcheck"; exit 1; }
	@! grep -nE $(BANNED) $(FMT_SRCS) || { echo "lint: banned function used (see above)"; exit 1; }
	@clang-format --dry-run -Werror $(FMT_SRCS)
	@cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem --std=c11 -Ipkg \
		--include=/usr/include/cjson/cJSON.h pkg cmd
	@test/lint/layers.sh
	@echo "lint: ok"

fmt:
	@clang-format -i $(FMT_SRCS)

clean:
	rm -rf build

help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

include test/k8s/k8s.mk
include test/oracle/oracle.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
