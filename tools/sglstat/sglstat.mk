# sglstat build fragment, included by the top-level Makefile.
# Inputs: TOP (repository root), BUILD (output dir, e.g. $(TOP)/build).
# Targets: sglstat-bpf, $(BUILD)/sglstat, $(BUILD)/sglstat-static,
#          sglstat-unit (tests/unit), sglstat-bpftest (tests/bpf).
TOP ?= .
BUILD ?= $(TOP)/build

SGL_CLANG ?= clang
SGL_CC ?= gcc
SGL_BPFTOOL ?= bpftool
SGL_BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-I$(TOP) -I$(TOP)/include -I$(TOP)/bpf
SGL_VERSION := $(shell cat $(TOP)/VERSION)
SGL_CFLAGS := -O2 -g -Wall -Wextra -Werror -DSGLSTAT_VERSION='"$(SGL_VERSION)"' -I$(BUILD)/bpf -I$(TOP)/bpf -I$(TOP)/include \
	-I$(TOP)/tools/sglstat
SGL_LIBS := -lbpf -lelf -lz
SGL_STATIC_LIBS := -static -l:libbpf.a -l:libelf.a -l:libz.a -l:libzstd.a
# static builds: no getaddrinfo() (glibc's needs its own NSS modules at run
# time, and says so at link time); `tune --prometheus` takes IP addresses there
SGL_STATIC_CFLAGS := -DSGL_NO_NSS

# pure userspace sources (no BPF), also linked by the unit tests; the loop
# (sglstat.c), the tracer and the probes need libbpf and the skeleton
SGL_BPF_SRCS := $(addprefix $(TOP)/tools/sglstat/,sglstat.c tracer.c probe.c)
SGL_LIB_SRCS := $(filter-out $(SGL_BPF_SRCS),$(wildcard $(TOP)/tools/sglstat/*.c))
SGL_SRCS := $(SGL_BPF_SRCS) $(SGL_LIB_SRCS)
SGL_HDRS := $(wildcard $(TOP)/tools/sglstat/*.h) $(TOP)/bpf/sglstat.h $(TOP)/include/sgl_model.h

$(BUILD)/bpf/sglstat.bpf.o: $(TOP)/bpf/sglstat.bpf.c $(TOP)/bpf/sglstat.h $(TOP)/include/sgl_model.h $(TOP)/vmlinux.h
	@mkdir -p $(dir $@)
	$(SGL_CLANG) $(SGL_BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/sglstat.skel.h: $(BUILD)/bpf/sglstat.bpf.o
	$(SGL_BPFTOOL) gen skeleton $< name sglstat_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/fake_rq.bpf.o: $(TOP)/tests/bpf/fake_rq.bpf.c $(TOP)/vmlinux.h
	@mkdir -p $(dir $@)
	$(SGL_CLANG) $(SGL_BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/fake_rq.skel.h: $(BUILD)/bpf/fake_rq.bpf.o
	$(SGL_BPFTOOL) gen skeleton $< name fake_rq_bpf > $@.tmp && mv $@.tmp $@

sglstat-bpf: $(BUILD)/bpf/sglstat.skel.h

$(BUILD)/sglstat: $(SGL_SRCS) $(SGL_HDRS) $(BUILD)/bpf/sglstat.skel.h
	$(SGL_CC) $(SGL_CFLAGS) $(SGL_SRCS) -o $@ $(SGL_LIBS) -lm

$(BUILD)/sglstat-static: $(SGL_SRCS) $(SGL_HDRS) $(BUILD)/bpf/sglstat.skel.h
	$(SGL_CC) $(SGL_CFLAGS) $(SGL_STATIC_CFLAGS) $(SGL_SRCS) -o $@ $(SGL_STATIC_LIBS) -lm

# tests/bpf: BPF_PROG_TEST_RUN of the raw_tp programs (needs root)
$(BUILD)/tests/bpf/test_sglstat_bpf: $(TOP)/tests/bpf/test_sglstat_bpf.c $(BUILD)/bpf/sglstat.skel.h \
		$(BUILD)/bpf/fake_rq.skel.h $(SGL_HDRS)
	@mkdir -p $(dir $@)
	$(SGL_CC) $(SGL_CFLAGS) $< -o $@ $(SGL_LIBS)

# the pure sources compiled once into a static library, which the unit
# tests link (each test used to recompile all of them)
SGL_LIB_OBJS := $(patsubst $(TOP)/tools/sglstat/%.c,$(BUILD)/sgl-lib/%.o,$(SGL_LIB_SRCS))
SGL_LIB := $(BUILD)/sgl-lib/libsglstat.a
$(BUILD)/sgl-lib/%.o: $(TOP)/tools/sglstat/%.c $(SGL_HDRS)
	@mkdir -p $(dir $@)
	$(SGL_CC) $(SGL_CFLAGS) -c $< -o $@
$(SGL_LIB): $(SGL_LIB_OBJS)
	rm -f $@.tmp && ar rcs $@.tmp $^ && mv $@.tmp $@

# tests/unit: cmocka
SGL_UNIT_TESTS := $(basename $(notdir $(wildcard $(TOP)/tests/unit/test_*.c)))
$(BUILD)/tests/unit/%: $(TOP)/tests/unit/%.c $(TOP)/tests/unit/tap.h $(SGL_LIB) $(SGL_HDRS)
	@mkdir -p $(dir $@)
	$(SGL_CC) $(SGL_CFLAGS) -I$(TOP)/tests/unit $< $(SGL_LIB) -o $@ -lcmocka -lm

sglstat-unit: $(addprefix $(BUILD)/tests/unit/,$(SGL_UNIT_TESTS))
sglstat-bpftest: $(BUILD)/tests/bpf/test_sglstat_bpf

.PHONY: sglstat-bpf sglstat-unit sglstat-bpftest
