# smmulab front door.  meson (in build/) drives the real work.
#
#   make run      build what it needs, then run the main job: configs/default.ini
#                 (SEED=N: with the scenario seed N instead of the file's)
#   make scenario S=configs/NAME.ini   run another scenario
#   make check    build, then run every test
#   make build    build QEMU, the guest kernel and tools
#   make bench-unmap  the model's guest evidence: unmap latency vs model time
#   make bench-zero-cost, bench-engine-cost, bench-lines, fuzz-long,
#                 qtest-suite   (docs/testing.md)
#   make series   the QEMU changes as a git-am-able series in build/series/
#   make check-series   that series built and tested after every patch
#   make check-qemu-10.2   the series on QEMU 10.2.x (Debian sid's newest,
#                 or QEMU_SRC=): applied, built, its qtests run (minutes)
#   make kernel TREE=DIR   your own Linux tree (6.1 on, read only) with the
#                 kit's config, module, initramfs, and its series when it
#                 applies: build/tree-NAME (or TREE_BUILD=DIR), with
#                 compare.ini there for make scenario S=...
#   make check-tree TREE=DIR   that build, booted: the series line checked
#   make check-tree-variants TREE=DIR   that build with the kit's series
#                 (patches/linux-7.3/ for a 7.3 tree), through every
#                 guest-variants check
#   make bisect TREE=DIR GOOD=C BAD=C S=SCENARIO   which commit of a git tree
#                 brought a lockup (the scenario's primary endpoint;
#                 BISECT_OPTS=--variant NAME --batch N --cap N --seed N)
#   make check-bisect   that bisect on a history of its own (minutes)
#   make clean    remove build/ (caches in ~/.cache/smmulab stay)
#
# Variables: QEMU_SRC=DIR|TARBALL (QEMU 10.0.x source of your own; for
# check-qemu-10.2 a 10.2.x one),
# LINUX_SRC=DIR, SMMULAB_JOBS=N, SMMULAB_CACHE=DIR.

BUILD ?= build
MESON ?= meson
export QEMU_SRC LINUX_SRC SMMULAB_JOBS SMMULAB_CACHE

.PHONY: all build build-main deps run scenario check kernel check-tree check-tree-variants bisect check-bisect bench-unmap bench-zero-cost bench-lines bench-engine-cost fuzz-long qtest-suite series check-series check-qemu-10.2 clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja: | deps
	$(MESON) setup $(BUILD)

build: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

# What a scenario needs: the smmulab QEMU, the guest, the runner and the
# host tools it and scripts/boot.sh call (not the ASan and upstream QEMUs
# that only tests and benchmarks use)
HOST_TOOLS = smmulab-run runner/smmulab-lockups runner/smmulab-stats \
	runner/smmulab-topology:executable runner/smmulab-kparams:executable
build-main: deps $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD) qemu-system-aarch64 initramfs $(HOST_TOOLS)

# SEED=N: the scenario's seed instead of the file's (icount: another sample)
RUN_OPTS = $(if $(SEED),--seed $(SEED))

run: build-main
	$(BUILD)/runner/smmulab-run --build $(BUILD) $(RUN_OPTS) configs/default.ini

S ?= configs/default.ini
scenario: build-main
	$(BUILD)/runner/smmulab-run --build $(BUILD) $(RUN_OPTS) $(S)

check: build
	@$(MESON) test -C $(BUILD) --print-errorlogs $(TESTARGS); rc=$$?; \
	  scripts/test-summary.py $(BUILD)/meson-logs/testlog.json && exit $$rc

# Your own kernel tree: the kit's init and mkcpio for its initramfs, then
# the kernel in TREE_BUILD (docs/guest.md, "Your own tree")
TREE_BUILD ?= $(BUILD)/tree-$(notdir $(abspath $(TREE)))
kernel: deps $(BUILD)/build.ninja
	@test -n "$(TREE)" || { echo "usage: make kernel TREE=DIR [TREE_BUILD=DIR]" >&2; exit 2; }
	$(MESON) compile -C $(BUILD) guest/init guest/mkcpio runner/smmulab-kparams:executable
	SMMULAB_KIT=$(abspath $(BUILD)) scripts/build-kernel.sh --tree $(TREE) $(TREE_BUILD)

# That kernel built and booted under its compare.ini (minutes: docs/testing.md)
check-tree: kernel build-main
	tests/tree-build.sh $(BUILD) $(TREE_BUILD)

# The same build through the guest-variants checks (its series applied)
check-tree-variants: kernel build-main
	tests/tree-variants.sh $(BUILD) $(TREE_BUILD)

# Bisect a lockup (docs/scenarios.md, "Bisect a lockup"): results in
# build/bisect-TIME (or BISECT_OPTS=--out DIR)
bisect: build-main
	@test -n "$(TREE)" -a -n "$(GOOD)" -a -n "$(BAD)" || { echo "usage: make bisect TREE=DIR GOOD=COMMIT BAD=COMMIT S=SCENARIO [BISECT_OPTS=...]" >&2; exit 2; }
	$(MESON) compile -C $(BUILD) guest/init guest/mkcpio runner/smmulab-kparams:executable
	scripts/smmulab-bisect.sh --build $(BUILD) $(BISECT_OPTS) $(TREE) $(GOOD) $(BAD) $(S)

# The bisect on a history it makes (Debian's 6.12, the kit's series, a
# planted lockup): it must name the planted commit (docs/testing.md)
check-bisect: build-main
	$(MESON) compile -C $(BUILD) guest/init guest/mkcpio runner/smmulab-kparams:executable
	tests/bisect-e2e.sh $(BUILD)

# Guest evidence of the model's timing (docs/model.md)
bench-unmap: build
	scripts/bench-unmap-latency.sh $(BUILD)

# smmulab with every cost 0 against the same QEMU without smmulab
bench-zero-cost: build
	scripts/bench-zero-cost.sh $(BUILD)

# the line-transfer model's host cost (-icount line-ns=, patch 0021)
bench-lines: build-main
	scripts/bench-quantum.sh --lines $(BUILD)

# host instructions per retired command (valgrind callgrind)
bench-engine-cost: build
	scripts/bench-engine-cost.sh $(BUILD)

# QEMU's own aarch64 qtests on the patched tree (docs/testing.md)
qtest-suite: build
	scripts/qtest-suite.sh $(BUILD)

# The QEMU series for qemu-devel: cover letter and patches in build/series/
series: deps
	scripts/make-series.sh $(BUILD)

# ... applied with git am to pristine QEMU and built after every patch
check-series: build
	scripts/test-series.sh --each $(BUILD)

# The series on the second base, QEMU 10.2.x: the 10.2 copy of the hook
# patches current, applied with no fuzz, built (BUILD/qemu-10.2), the unit
# test and the qtests run (docs/testing.md; not part of make check)
check-qemu-10.2: deps
	scripts/check-qemu-10.2.sh $(BUILD)

# the long hostile-guest fuzz run: one million operations on ASan/UBSan QEMU
FUZZ_SEED ?= 7
fuzz-long: build
	cd $(BUILD)/qemu/build-asan && QTEST_QEMU_BINARY=./qemu-system-aarch64 \
	  tests/qtest/smmuv3-cmdq-fuzz --ops 1000000 --seed $(FUZZ_SEED) \
	  --findings $(CURDIR)/$(BUILD)/logs/fuzz-long | grep -v '^# '

clean:
	rm -rf $(BUILD)
