# SPDX-License-Identifier: GPL-2.0-only
#
# make            build the BPF objects, skeletons, user/sclat and the plugins
# make check      install missing dependencies, build, run every test
# make demo       install missing dependencies, build, trace a real workload
# make install    PREFIX=/usr/local DESTDIR=
# V=1             show full commands

OUTPUT		:= .output
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= gcc
PKG_CONFIG	?= pkg-config
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
PREFIX		?= /usr/local
DESTDIR		?=
PYTHON		?= /usr/bin/python3

ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
UNISTD_H	?= $(firstword $(wildcard /usr/include/$(shell uname -m)-linux-gnu/asm/unistd_64.h \
					  /usr/include/asm/unistd_64.h /usr/include/asm-generic/unistd.h))

ifeq ($(V),1)
Q	=
msg	=
else
Q	= @
msg	= @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

PKGS		:= libbpf lttng-ust lttng-ctl liburcu-memb babeltrace2 inih
CFLAGS		?= -g -O2
CFLAGS		+= -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
		   -Ishm -Iuser -I$(OUTPUT) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS		+= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -ldl -lpthread -lm
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall \
		   -I$(OUTPUT) -Ishm -Ikern-bpf -Itests/bpf

BPF_SRCS	:= $(wildcard kern-bpf/*.bpf.c)
BPF_OBJS	:= $(patsubst kern-bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS		:= $(patsubst kern-bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

# user/sclat.c holds main(); everything else in user/ is the library the tests link.
USER_SRCS	:= $(filter-out user/sclat.c,$(wildcard user/*.c))
USER_OBJS	:= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS)) \
		   $(OUTPUT)/user/syscall_names.o
LIBSCLAT	:= $(OUTPUT)/libsclat.a

ALL_TARGETS	:= user/sclat
INSTALL_TARGETS	:= install-sclat
CHECK_TARGETS	:=

.PHONY: all
all: build

# Subfolders add their own targets: tracer-plugins/*/build.mk, tests/*.mk, scripts/*.mk.
-include $(wildcard tracer-plugins/*/build.mk tests/*.mk scripts/*.mk)

.PHONY: build
build: $(ALL_TARGETS)

$(OUTPUT) $(OUTPUT)/user:
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(OUTPUT)/%.bpf.o: kern-bpf/%.bpf.c $(OUTPUT)/vmlinux.h $(wildcard shm/*.h kern-bpf/*.bpf.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp && \
		$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(OUTPUT)/syscall_names.c: scripts/gen-syscall-names.sh $(UNISTD_H) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-names.sh $(UNISTD_H) > $@.tmp && mv $@.tmp $@

$(OUTPUT)/user/syscall_names.o: $(OUTPUT)/syscall_names.c user/syscalls.h | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/user/%.o: user/%.c $(wildcard user/*.h shm/*.h) $(SKELS) | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(LIBSCLAT): $(USER_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

user/sclat: $(OUTPUT)/user/sclat.o $(LIBSCLAT)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

.PHONY: deps
deps:
	$(Q)scripts/install-deps.sh

# Dependencies first, then a fresh make reads the Makefile with them in place.
.PHONY: check
check: deps
	$(Q)$(MAKE) --no-print-directory build
	$(Q)$(MAKE) --no-print-directory check-run

# Unit tests first, integration tests last; -k runs them all even when one fails.
CHECK_ORDER	= $(filter check-unit,$(CHECK_TARGETS)) \
		  $(filter-out check-unit check-integration,$(CHECK_TARGETS)) \
		  $(filter check-integration,$(CHECK_TARGETS))

.PHONY: check-run
check-run:
	$(Q)$(MAKE) --no-print-directory -k $(CHECK_ORDER)

.PHONY: demo
demo: deps
	$(Q)$(MAKE) --no-print-directory build
	$(Q)scripts/demo.sh

.PHONY: install
install: $(INSTALL_TARGETS)

.PHONY: install-sclat
install-sclat: user/sclat user/sclat.8
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man8
	$(Q)install -m 0755 user/sclat $(DESTDIR)$(PREFIX)/bin/sclat
	$(Q)install -m 0644 user/sclat.8 $(DESTDIR)$(PREFIX)/share/man/man8/sclat.8

.PHONY: format
# Only the lines changed since HEAD: the tree's hand-aligned comments and
# tables are not what clang-format would write, so whole files are left alone.
format:
	$(Q)git clang-format --style=file --extensions c,h HEAD -- shm kern-bpf user \
		tracer-plugins tests scripts || true

.PHONY: clean
clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) user/sclat $(CLEAN_EXTRA)

.DELETE_ON_ERROR:
.SECONDARY:
