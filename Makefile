# SPDX-License-Identifier: GPL-2.0-only
#
# make            build the BPF objects, skeletons, user/sclat and the plugins
# make check      install missing dependencies, build, run every test
# make demo       install missing dependencies, build, trace a real workload
# make install    PREFIX=/usr/local DESTDIR=
# make format     reformat the tree with .clang-format (check-format checks it)
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

# pkg-config modules and the Debian packages that provide them.
PKGS		:= libbpf lttng-ust lttng-ctl liburcu-memb babeltrace2 inih libdw ncursesw
PKG_DEB_libbpf		:= libbpf-dev
PKG_DEB_lttng-ust	:= liblttng-ust-dev
PKG_DEB_lttng-ctl	:= liblttng-ctl-dev
PKG_DEB_liburcu-memb	:= liburcu-dev
PKG_DEB_babeltrace2	:= libbabeltrace2-dev
PKG_DEB_inih		:= libinih-dev
PKG_DEB_libdw		:= libdw-dev
# The --metrics endpoint's HTTP server.
PKGS		+= libmicrohttpd
PKG_DEB_libmicrohttpd	:= libmicrohttpd-dev
PKG_DEB_ncursesw	:= libncurses-dev

# Goals that run before the dependencies are installed, or need none.
NO_PKG_GOALS	:= deps check demo clean format check-format
ifneq ($(filter-out $(NO_PKG_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v $(PKG_CONFIG)),)
$(error $(PKG_CONFIG) not found: install pkg-config, or run 'make deps' as root)
endif
PKG_MISSING	:= $(strip $(foreach p,$(PKGS),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(PKG_MISSING),)
$(error pkg-config finds no $(PKG_MISSING): install $(foreach p,$(PKG_MISSING),$(PKG_DEB_$(p))), or run 'make deps' as root)
endif
endif

CFLAGS		?= -g -O2
CFLAGS		+= -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Ishm -Iuser -I$(OUTPUT) \
		   $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS		+= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -ldl -lpthread -lm
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall \
		   -I$(OUTPUT) -Ishm -Ikern-bpf

BPF_SRCS	:= $(wildcard kern-bpf/*.bpf.c)
BPF_OBJS	:= $(patsubst kern-bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS		:= $(patsubst kern-bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

# user/, one folder per stage of the pipeline (README.md, "Layout"), built as
# three libraries so that the trace readers never need the BPF skeletons:
#   libsclat-util.a   user/util: parsing, names, JSON; nothing but libc (PIC:
#                     the babeltrace2 plugin links it too)
#   libsclat-trace.a  user/trace: the babeltrace2 graph front (sclat-lami and the
#                     plugin too; PIC)
#   libsclat.a        the tracer: kernel, controller, policy, explain, outputs,
#                     control, run, top, commands (all but main.c, which user/sclat
#                     adds)
user_objs	= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(1))
UTIL_OBJS	:= $(call user_objs,$(wildcard user/util/*.c)) $(OUTPUT)/user/util/syscall_table.o \
		   $(OUTPUT)/user/util/syscall_args_table.o
TRACE_OBJS	:= $(call user_objs,$(wildcard user/trace/*.c))
TRACER_DIRS	:= kernel controller policy explain outputs control run top commands
TRACER_OBJS	:= $(call user_objs,$(filter-out user/commands/main.c, \
			$(wildcard $(patsubst %,user/%/*.c,$(TRACER_DIRS)))))
LIBUTIL		:= $(OUTPUT)/libsclat-util.a
LIBTRACE	:= $(OUTPUT)/libsclat-trace.a
LIBSCLAT	:= $(OUTPUT)/libsclat.a
# What links the tracer library: everything user/sclat links but main().
SCLAT_LIBS	:= $(LIBSCLAT) $(LIBTRACE) $(LIBUTIL)
# Headers made by the build that sources include.
GEN_HDRS	:= $(SKELS)

ALL_TARGETS	:= user/sclat
INSTALL_TARGETS	:= install-sclat
CHECK_TARGETS	:=

.PHONY: all
all: build

# Subfolders add their own targets: tracer-plugins/*/build.mk, tests/*.mk, scripts/*.mk.
-include $(wildcard tracer-plugins/*/build.mk tests/*.mk scripts/*.mk)

.PHONY: build
build: $(ALL_TARGETS)

$(OUTPUT):
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

$(OUTPUT)/syscall_table.c: scripts/gen-syscall-names.sh $(UNISTD_H) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-names.sh $(UNISTD_H) > $@.tmp && mv $@.tmp $@

# Argument names from this kernel's syscall trace events (tracefs), when it has them.
SYSCALL_EVENTS	?= $(firstword $(wildcard /sys/kernel/tracing/events/syscalls \
					  /sys/kernel/debug/tracing/events/syscalls))

$(OUTPUT)/syscall_args_table.c: scripts/gen-syscall-args.sh | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-args.sh $(or $(SYSCALL_EVENTS),/nonexistent) > $@.tmp && mv $@.tmp $@

# Header dependencies come from the compiler (-MMD); generated headers first.
$(OUTPUT)/user/util/syscall_table.o: $(OUTPUT)/syscall_table.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(OUTPUT)/user/util/syscall_args_table.o: $(OUTPUT)/syscall_args_table.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(OUTPUT)/user/util/%.o: user/util/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# The trace readers' front needs babeltrace2 only: no skeleton, no generated header (PIC:
# the babeltrace2 plugin links it too).
$(OUTPUT)/user/trace/%.o: user/trace/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(OUTPUT)/user/%.o: user/%.c | $(GEN_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(OUTPUT)/user/*/*.d)

$(LIBUTIL): $(UTIL_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBTRACE): $(TRACE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBSCLAT): $(TRACER_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

user/sclat: $(OUTPUT)/user/commands/main.o $(SCLAT_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

.PHONY: deps
deps:
	$(Q)scripts/install-deps.sh

# Dependencies first, then a fresh make reads the Makefile with them in place. Everything
# the checks run is built first on every CPU; the checks then run one after the other.
CHECK_JOBS	?= $(shell nproc 2>/dev/null || echo 2)
CHECK_BUILDS	+= build

.PHONY: check
check: deps
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(CHECK_BUILDS)
	$(Q)$(MAKE) --no-print-directory check-run

# Static checks and unit tests first, integration tests last; -k runs them all
# even when one fails.
CHECK_ORDER	= $(filter check-format check-layers,$(CHECK_TARGETS)) \
		  $(filter check-unit,$(CHECK_TARGETS)) \
		  $(filter-out check-format check-layers check-unit check-integration,$(CHECK_TARGETS)) \
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
install-sclat: user/sclat user/commands/sclat.8
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man8
	$(Q)install -m 0755 user/sclat $(DESTDIR)$(PREFIX)/bin/sclat
	$(Q)install -m 0644 user/commands/sclat.8 $(DESTDIR)$(PREFIX)/share/man/man8/sclat.8

# The C sources clang-format owns: all of ours, none generated.
FORMAT_SRCS	= $(shell git ls-files --cached --others --exclude-standard -- '*.c' '*.h' 2>/dev/null)

.PHONY: format
format:
	$(Q)clang-format --style=file -i $(FORMAT_SRCS)

.PHONY: check-format
check-format:
	$(call msg,FORMAT,$(words $(FORMAT_SRCS)) files)
	$(Q)clang-format --style=file --dry-run -Werror $(FORMAT_SRCS) || \
		{ echo "check-format: run 'make format'" >&2; exit 1; }

# Each folder of user/ depends only on those below it, and nothing calls back.
.PHONY: check-layers
check-layers: build
	$(call msg,LAYERS,user/)
	$(Q)scripts/check-layers $(OUTPUT)

CHECK_TARGETS	+= check-format check-layers

.PHONY: clean
clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) user/sclat $(CLEAN_EXTRA)

.DELETE_ON_ERROR:
.SECONDARY:
