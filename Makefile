# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sroce: software RoCEv2 RDMA device.
#
#   make            build drivers/sroce/sroce.ko against KDIR
#   make run        build, boot a VM, bring up sroce devices, run RDMA tools
#   make check      the whole test suite (T=<glob> for a subset)
#   make sparse     build under sparse, failing on any warning
#   make install    install the module for the running kernel
#   make deps       install the Debian packages that build and tests need

SHELL := /bin/bash

# The kernel the test VM boots: Debian bookworm's 6.1, as pulled in by the
# linux-image-amd64 meta package.
TEST_KVER ?= $(shell dpkg-query -W -f='$${Depends}' linux-image-amd64 2>/dev/null | \
		sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
TEST_KDIR := /lib/modules/$(TEST_KVER)/build
TEST_VMLINUZ := /boot/vmlinuz-$(TEST_KVER)

RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(TEST_KDIR))

KO := drivers/sroce/sroce.ko
T ?= *

.PHONY: all modules clean deps check run sparse install

all: modules

modules:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "No kernel build directory at '$(KDIR)'."; \
		echo "Install your kernel's headers (Debian: linux-headers-\$$(uname -r)),"; \
		echo "or run 'make deps' for the test kernel's, or pass KDIR=."; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))

sparse:
	@out=$$($(MAKE) -s -C $(KDIR) M=$(CURDIR) C=2 W=1 modules 2>&1); rc=$$?; \
	echo "$$out"; \
	if [ $$rc != 0 ] || grep -qE 'warning:|error:' <<<"$$out"; then \
		echo "sparse: not clean"; exit 1; fi

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf build

deps:
	selftests/deps.sh

check:
	selftests/deps.sh
	selftests/check.sh --kver "$(TEST_KVER)" --tests '$(T)'

run:
	selftests/deps.sh
	selftests/check.sh --kver "$(TEST_KVER)" --mode run
