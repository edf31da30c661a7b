# virtio_blk_sgl toolkit: driver, BPF programs, sglstat, tests.
# `make demo` and `make check` are the two entry points (see README.md).

TOP	:= $(CURDIR)
BUILD	:= $(TOP)/build

# The module is built for every supported kernel line whose headers are
# installed (Debian 12's 6.1 and its 6.12 line, scripts/deps.sh installs
# both), one directory per kernel version: build/driver/KVER/. `make
# KDIR=...` builds for that tree only. build/driver/virtio_blk_sgl.ko stays a
# copy of the 6.1 build (the first one), the default guest kernel's.
newest_headers = $(lastword $(shell ls -d $(1) 2>/dev/null | sort -V))
KDIR_6_1  := $(call newest_headers,/usr/src/linux-headers-6.1.*-amd64)
KDIR_6_12 := $(call newest_headers,/usr/src/linux-headers-6.12.*+deb12-amd64)
KDIR_RUN  := $(wildcard /lib/modules/$(shell uname -r)/build)
kver_of	= $(patsubst linux-headers-%,%,$(notdir $(realpath $(1))))
KDIRS	:= $(if $(KDIR),$(KDIR),$(KDIR_6_1) $(KDIR_6_12) \
	   $(if $(filter $(realpath $(KDIR_RUN)),$(realpath $(KDIR_6_1) $(KDIR_6_12))),,$(KDIR_RUN)))
KVERS	:= $(foreach k,$(KDIRS),$(call kver_of,$(k)))
KVER_COMPAT := $(firstword $(if $(KDIR),,$(call kver_of,$(KDIR_6_1))) $(KVERS))

CFLAGS	?= -O2 -g
DEPS_FIRST := check demo bench fuzz soak deb arm64
DRIVER_SRCS := $(wildcard driver/*.c driver/*.h) driver/Kbuild include/sgl_model.h
GUEST_HELPERS := $(patsubst tests/vm/%.c,$(BUILD)/guest-bin/%,$(wildcard tests/vm/*.c))

.PHONY: dkms-src all driver bpf sglstat guest-tools deps check check-unit check-bpf \
	check-fuzz check-prom check-host check-reliability check-install check-fleet check-guest check-arm64 check-fresh fuzz arm64 arm64-build soak demo bench install uninstall clean \
	$(addsuffix -after-deps,$(DEPS_FIRST))

all: driver bpf sglstat guest-tools

deps:
	@$(TOP)/scripts/deps.sh

# kbuild writes next to its sources, so build from a copy under build/.
ifeq ($(strip $(KDIRS)),)
driver:
	@echo "no kernel headers: run 'make deps'" >&2; exit 1
else
driver: $(BUILD)/driver/virtio_blk_sgl.ko $(foreach v,$(KVERS),$(BUILD)/driver/$(v)/virtio_blk_sgl.ko) \
	$(foreach v,$(KVERS),$(BUILD)/driver-testing/$(v)/virtio_blk_sgl.ko)
endif
# driver_rule KDIR FLAVOUR-DIR MAKE-ARGS: build/driver/KVER/ is the production
# module (no testing parameter); build/driver-testing/KVER/ the testing
# flavour the guest tests load (VSGL_TESTING=1, docs/DRIVER.md).
define driver_rule
$(BUILD)/$(2)/$(call kver_of,$(1))/virtio_blk_sgl.ko: $(DRIVER_SRCS)
	@mkdir -p $$(@D)
	cp driver/*.c driver/*.h driver/Kbuild $$(@D)/
	$$(MAKE) -C $(1) M=$$(@D) SGL_INCLUDE=$(TOP)/include W=1 $(3) modules
endef
$(foreach k,$(KDIRS),$(eval $(call driver_rule,$(k),driver,)))
$(foreach k,$(KDIRS),$(eval $(call driver_rule,$(k),driver-testing,VSGL_TESTING=1)))
$(BUILD)/driver/virtio_blk_sgl.ko: $(BUILD)/driver/$(KVER_COMPAT)/virtio_blk_sgl.ko
	cp $< $@

# Regenerate the committed vmlinux.h from this host's BTF (CO-RE serves 6.1
# too); only when asked for by name, never as a side effect of a build.
ifneq ($(filter vmlinux.h,$(MAKECMDGOALS)),)
.PHONY: vmlinux.h
endif
vmlinux.h:
	$(SGL_BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# BPF objects, skeletons, sglstat and the test binaries: tools/sglstat/sglstat.mk
include $(TOP)/tools/sglstat/sglstat.mk
bpf: sglstat-bpf
sglstat: $(BUILD)/sglstat $(BUILD)/sglstat-static

# Small static helpers that guest tests run (tests/vm/*.c).
guest-tools: $(GUEST_HELPERS)
$(BUILD)/guest-bin/%: tests/vm/%.c
	@mkdir -p $(@D)
	$(SGL_CC) $(CFLAGS) -Wall -Wextra -Werror -static $< -o $@

# arm64 (tests/arm64/run): the module cross-built for Debian's arm64 kernels
# of the host's ABIs, sglstat and the guest helpers cross-built statically,
# into build/arm64/; the arm64 kernels, their headers and the guest's tools
# are unpacked by scripts/arm64-root. The BPF object is the same one: BPF
# bytecode and CO-RE are architecture-neutral.
ARM64	:= $(BUILD)/arm64
ARM64_CC := aarch64-linux-gnu-gcc
ARM64_KBUILD = ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
arm64-after-deps: $(BUILD)/bpf/sglstat.skel.h
	@$(TOP)/scripts/arm64-root $(ARM64)
	@$(MAKE) --no-print-directory arm64-build ARM64_KVERS="$$(cat $(ARM64)/kvers)"
# iobench (make bench's x86 string-instruction copies) is not among them
ARM64_HELPERS := $(patsubst tests/vm/%.c,$(ARM64)/guest-bin/%,$(filter-out tests/vm/iobench.c,$(wildcard tests/vm/*.c)))
arm64-build: $(ARM64)/sglstat-static $(ARM64_HELPERS) \
	$(foreach v,$(ARM64_KVERS),$(ARM64)/driver/$(v)/virtio_blk_sgl.ko $(ARM64)/driver-testing/$(v)/virtio_blk_sgl.ko)
$(ARM64)/driver/%/virtio_blk_sgl.ko: $(DRIVER_SRCS) $(ARM64)/key
	$(call arm64_module,$*,)
$(ARM64)/driver-testing/%/virtio_blk_sgl.ko: $(DRIVER_SRCS) $(ARM64)/key
	$(call arm64_module,$*,VSGL_TESTING=1)
# arm64_module KVER MAKE-ARGS: W=1, and any warning fails the build
define arm64_module
	@mkdir -p $(@D)
	cp driver/*.c driver/*.h driver/Kbuild $(@D)/
	$(MAKE) -C $(ARM64)/headers/usr/src/linux-headers-$(1) M=$(@D) SGL_INCLUDE=$(TOP)/include \
		W=1 $(ARM64_KBUILD) $(2) modules 2>&1 | tee $(@D)/build.log
	@! grep -q 'warning:' $(@D)/build.log || { echo "arm64: warnings building $@" >&2; rm -f $@; exit 1; }
	@test -s $@
endef
$(ARM64)/sglstat-static: $(SGL_SRCS) $(SGL_HDRS) $(BUILD)/bpf/sglstat.skel.h
	@mkdir -p $(@D)
	$(ARM64_CC) $(SGL_CFLAGS) $(SGL_STATIC_CFLAGS) $(SGL_SRCS) -o $@ $(SGL_STATIC_LIBS) -lm
$(ARM64)/guest-bin/%: tests/vm/%.c
	@mkdir -p $(@D)
	$(ARM64_CC) $(CFLAGS) -Wall -Wextra -Werror -static $< -o $@

# Targets that install packages first: deps runs, then a sub-make does the
# rest, because what depends on installed packages (KDIR, the wildcards make
# caches) is computed when a make starts, before deps could install it.
$(DEPS_FIRST): deps
	@$(MAKE) --no-print-directory $@-after-deps

check-after-deps: all
	@$(TOP)/tests/run-all

check-unit check-bpf check-fuzz check-prom check-host check-reliability check-install check-fleet check-guest check-arm64: all
	@$(TOP)/tests/run-all $(patsubst check-%,%,$@)

# The README's commands on a real fresh Debian 12 root (tests/fresh/run): no
# cache, the archive's packages installed by the root's own apt.
check-fresh: deps
	@CHECK_LOG=$(BUILD)/check-fresh.log $(TOP)/tests/run-all fresh

# Longer fuzzing than check's bounded run (FUZZ_SECONDS per harness).
fuzz-after-deps: all
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-300} $(TOP)/tests/fuzz/run

demo-after-deps: all
	@$(TOP)/scripts/demo.sh

clean:
	rm -rf $(BUILD)

# --- installation -----------------------------------------------------------
PREFIX	?= /usr/local
DESTDIR	?=
VERSION	:= $(shell cat $(TOP)/VERSION)
SBINDIR	:= $(PREFIX)/sbin
MAN8DIR	:= $(PREFIX)/share/man/man8
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
UNITDIR	:= $(PREFIX)/lib/systemd/system
DOCDIR	:= $(PREFIX)/share/doc/virtio_blk_sgl
DKMSDIR	:= /usr/src/virtio_blk_sgl-$(VERSION)

install: $(BUILD)/sglstat
	install -D -m 0755 $(BUILD)/sglstat $(DESTDIR)$(SBINDIR)/sglstat
	install -D -m 0644 docs/sglstat.8 $(DESTDIR)$(MAN8DIR)/sglstat.8
	install -D -m 0644 deploy/sglstat.bash-completion $(DESTDIR)$(BASHCOMPDIR)/sglstat
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/sglstat|$(SBINDIR)/sglstat|g' deploy/sglstat.service > $(DESTDIR)$(UNITDIR)/sglstat.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/sglstat.service
	install -D -m 0644 deploy/virtio_blk_sgl.modprobe.conf $(DESTDIR)$(DOCDIR)/examples/virtio_blk_sgl.conf
	install -D -m 0644 deploy/virtio_blk_sgl.rules.yml $(DESTDIR)$(DOCDIR)/examples/virtio_blk_sgl.rules.yml
	install -D -m 0644 deploy/grafana-dashboard.json $(DESTDIR)$(DOCDIR)/examples/grafana-dashboard.json
	$(MAKE) --no-print-directory dkms-src DESTDIR=$(DESTDIR)

# The DKMS source tree: driver sources, the shared model header, dkms.conf.
dkms-src:
	install -d $(DESTDIR)$(DKMSDIR)
	install -m 0644 driver/*.c driver/*.h driver/Kbuild include/sgl_model.h $(DESTDIR)$(DKMSDIR)/
	sed 's/@VERSION@/$(VERSION)/' driver/dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

# Debian packages (debian/, docs/PACKAGING.md) into build/deb/.
deb-after-deps:
	@$(TOP)/scripts/mkdeb

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/sglstat $(DESTDIR)$(MAN8DIR)/sglstat.8 \
		$(DESTDIR)$(BASHCOMPDIR)/sglstat $(DESTDIR)$(UNITDIR)/sglstat.service
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DKMSDIR)

# Benchmarks (not part of check): docs/BENCHMARKS.md, docs/bench/.
bench-after-deps: all
	@$(TOP)/scripts/bench/run.sh

# The long soak (SOAK_SECONDS, default 600) of tests/vm/cases/reliability-soak.sh.
soak-after-deps: all
	@SOAK_SECONDS=$${SOAK_SECONDS:-600} $(TOP)/tests/reliability/soak
