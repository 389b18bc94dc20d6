# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sroce: software RoCEv2 RDMA device.
#
#   make            build drivers/sroce/sroce.ko against KDIR
#   make run        build, boot a VM, bring up sroce devices, run RDMA tools
#   make check      the whole test suite (T=<glob> for a subset)
#   make check2     the two-host tests: sroce against sroce and against rdma_rxe
#                   in two VMs (MTU=9000, PAIRS="sroce:rxe", T=2host/<glob>)
#   make check-cluster  the cluster tests in NODES=N (4) VMs on one bridge,
#                   DRIVERS=sroce,rxe,... per node (the last one repeated)
#   make bench      sroce against rdma_rxe, side by side: medians of ROUNDS=N
#                   (3) boots each, counters, build/bench-KVER.png
#                   (UPDATE_DOC=1 also copies it to Documentation/);
#                   TOPO=loop (one device), ns (two namespaces, 7.2) or vm2 (two VMs);
#                   PROFILE=ROW,... adds a perf profile of those rows per driver
#   make bench-host the data path's copy and CRC-32 variants, timed on this
#                   CPU, natively (BENCH_ARGS="-t MS -r RUNS")
#   make fuzz       fuzz the packet checks in user space (FUZZ_RUNS=N)
#   make fuzz-verbs the verbs fuzzer on the debug kernel (KVER=...) for
#                   FUZZ_SECONDS (3600) with FUZZ_SEED (random; printed)
#   make sparse     build under sparse, failing on any warning
#   make style      shellcheck, flake8 and checkpatch.pl --strict, failing on
#                   any finding; checkpatch.pl is CHECKPATCH=, else the debug
#                   kernel source's (selftests/kernels.sh env debug unpacks it)
#   make install    install the module for the running kernel
#   make deb        build/deb/sroce-dkms_VERSION_all.deb, a Debian DKMS package
#   make deps       install the Debian packages that build and tests need
#
#   KVER=6.1|6.12|7.2 builds against, checks, runs or benches on that Debian
#   kernel, fetched from the archive by selftests/kernels.sh.

SHELL := /bin/bash

# The kernel the test VM boots by default: Debian bookworm's 6.1, as pulled
# in by the linux-image-amd64 meta package.
TEST_KVER ?= $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | \
		sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
TEST_KDIR := /lib/modules/$(TEST_KVER)/build

RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(TEST_KDIR))

# KVER=6.1|6.12|7.2 builds against (and tests on) that Debian kernel, fetched
# from the archive by selftests/kernels.sh; empty means KDIR above.
KVER ?=

KO := drivers/sroce/sroce.ko
PROBED := drivers/sroce/compat_probed.h
T ?= *

.PHONY: all modules probe clean deps check check2 check-cluster run bench bench-host sparse \
	install fuzz fuzz-verbs deb style

all: modules

ifneq ($(KVER),)

# Another kernel: kernels.sh fetches it, then calls this Makefile back with
# KDIR set (inside the sid chroot for 7.2).
modules sparse:
	selftests/kernels.sh make $(KVER) $@ $(if $(W),W=$(W))

else

probe:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "No kernel build directory at '$(KDIR)'."; \
		echo "Install your kernel's headers (Debian: linux-headers-\$$(uname -r)),"; \
		echo "or run 'make deps' for the test kernel's, or pass KDIR=."; \
		exit 1; \
	fi
	@drivers/sroce/probes/probe.sh $(KDIR) $(PROBED) $(CURDIR)/build/probes

modules: probe
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

sparse: probe
	@out=$$($(MAKE) -s -C $(KDIR) M=$(CURDIR) C=2 W=1 modules 2>&1); rc=$$?; \
	echo "$$out"; \
	if [ $$rc != 0 ] || grep -qE 'warning:|error:|not available or not up to date' <<<"$$out"; then \
		echo "sparse: not clean"; exit 1; fi

endif

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build $(PROBED)

deps:
	selftests/deps.sh

style:
	selftests/deps.sh
	selftests/style.sh

# The package is built from a copy of the tracked files, so that nothing
# built in this tree ends up in /usr/src/sroce-VERSION (in a copy of the
# tree that check.sh made for a background kernel, which is no git work
# tree, build/tracked-files lists them).
DEB_VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
deb:
	@command -v dh_dkms >/dev/null || \
		apt-get install -y --no-install-recommends debhelper dh-dkms
	rm -rf build/deb
	mkdir -p build/deb/sroce-$(DEB_VERSION)
	if [ -f build/tracked-files ]; then cat build/tracked-files; \
	else git ls-files -z --cached --others --exclude-standard; fi | \
		cpio --quiet -0 -pdm build/deb/sroce-$(DEB_VERSION)
	cd build/deb/sroce-$(DEB_VERSION) && dpkg-buildpackage -b -us -uc
	@ls build/deb/sroce-dkms_$(DEB_VERSION)_all.deb

check:
	selftests/deps.sh
	selftests/check.sh $(if $(KVER),--kernels "$(KVER)") --tests '$(T)'

# The verbs fuzzer (tests/verbs/fuzz.sh) for long: make check runs it for
# 40 s with seed 1.
FUZZ_SECONDS ?= 3600
fuzz-verbs:
	selftests/deps.sh
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_SEED=$(or $(FUZZ_SEED),$(shell echo $$RANDOM)) \
		selftests/check.sh --kernels "$(or $(KVER),debug)" --tests verbs/fuzz

check2:
	selftests/deps.sh
	selftests/check.sh --two-host --kernels "$(or $(KVER),6.1)" \
		$(if $(MTU),--mtu $(MTU)) $(if $(PAIRS),--pairs "$(PAIRS)") \
		$(if $(filter-out *,$(T)),--tests '$(T)')

check-cluster:
	selftests/deps.sh cluster
	selftests/check.sh --cluster --kernels "$(or $(KVER),6.1)" \
		$(if $(NODES),--nodes $(NODES)) $(if $(DRIVERS),--drivers "$(DRIVERS)") \
		$(if $(MTU),--mtu $(MTU)) $(if $(filter-out *,$(T)),--tests '$(T)')

run:
	selftests/deps.sh
	selftests/check.sh --kernels "$(or $(KVER),6.1)" --mode run

bench:
	selftests/deps.sh
	selftests/bench.sh --kernel "$(or $(KVER),6.1)" $(if $(ROUNDS),--rounds $(ROUNDS)) \
		$(if $(TOPO),--topo $(TOPO)) $(if $(PROFILE),--profile $(PROFILE)) \
		$(if $(filter 1,$(UPDATE_DOC)),--update-doc) \
		$(if $(and $(MTU),$(filter vm2,$(TOPO))),--mtu $(MTU))

# The per-byte primitives (payload copies, the ICRC's CRC-32) on the host CPU
# rather than under TCG: which variant the kernel should use. x86-64-v2 plus
# PCLMULQDQ; the AVX2 and PCLMUL variants check the CPU at run time.
HOSTCC ?= gcc
BENCH_HOST_CFLAGS := -O2 -march=x86-64-v2 -mpclmul -msse4.1
bench-host:
	@mkdir -p build
	$(HOSTCC) $(BENCH_HOST_CFLAGS) -Wall -Wextra -Werror \
		-DPRIM_CFLAGS='"$(BENCH_HOST_CFLAGS)"' \
		-o build/primitives selftests/bench/primitives.c
	build/primitives $(BENCH_ARGS)

# The receive-side packet checks (drivers/sroce/parse.c) under libFuzzer,
# ASan and UBSan, with a corpus kept in build/fuzz/corpus.
FUZZ_RUNS ?= 10000000
fuzz:
	selftests/deps.sh
	selftests/fuzz/run.sh --keep --runs $(FUZZ_RUNS)
