#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Install the Debian packages sclat needs to build, run and test.
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

pkgs=(
	make gcc clang llvm pkg-config
	libbpf-dev bpftool libelf-dev zlib1g-dev linux-libc-dev
	liblttng-ust-dev lttng-tools liblttng-ctl-dev liburcu-dev
	babeltrace2 libbabeltrace2-dev python3-bt2 babeltrace
	libinih-dev python3-pytest python3-pytest-xdist libdw-dev python3-lttnganalyses
	libclang-rt-dev
	libmicrohttpd-dev prometheus
	libncurses-dev tmux
	libfuse3-dev fuse3
	chromium fonts-dejavu-core
)
if [ "${1:-}" = "--bench" ]; then
	pkgs+=(bpftrace libbpf-tools linux-perf postgresql)
fi

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages: ${missing[*]}; run as root" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The build reads syscall argument names from tracefs, and the tracer pins
# nothing but libbpf expects bpffs: a fresh machine may have neither mounted.
if [ "$(id -u)" -eq 0 ]; then
	mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
fi
