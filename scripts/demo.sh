#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make demo: record the syscall latency outliers of a real workload with the
# default (adaptive) policy, say where the trace is, and summarize it.
#
# The workload walks /usr (getdents64, openat, newfstatat, close), writes and
# fsyncs 16 MiB, calls sync, and sleeps, three times: about 5 to 15 seconds.
# Root (sclat loads BPF programs). Exit status 0 when sclat recorded and
# reported without error.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: sclat loads BPF programs: run as root (sudo make demo)" >&2
	exit 1
fi
# Run directly, build first; under `make demo` the Makefile has built already.
if [ -z "${MAKELEVEL:-}" ]; then
	make --no-print-directory build
fi

work=$(mktemp -d /var/tmp/sclat-demo.XXXXXX)
trace=$work/trace

# $1 is the scratch directory; /var/tmp is on disk where /tmp may be tmpfs.
# shellcheck disable=SC2016 # expanded by the inner sh, not here
workload='
for i in 1 2 3; do
	find /usr -xdev -name "*.h" >/dev/null 2>&1 || true
	dd if=/dev/zero of="$1/data" bs=64k count=256 conv=fsync status=none
	sync
	sleep 0.5
done
rm -f "$1/data"'

echo "demo: sclat record -o $trace -- <find /usr, dd conv=fsync, sync, sleep> x3"
if ! user/sclat record -o "$trace" -- sh -c "$workload" sh "$work" >"$work/location"; then
	echo "demo: sclat record failed (see above)" >&2
	exit 1
fi
echo "demo: the trace is in $(cat "$work/location")"
echo
echo "demo: sclat report $trace"
user/sclat report "$trace"
echo
echo "demo: next, for instance:"
echo "  user/sclat report $trace --by process --json"
echo "  babeltrace2 $trace | head"
echo "  babeltrace2 --plugin-path=.output/plugins $trace -c sink.sclat.report -p 'top=3'"
echo "  user/sclat convert $trace -o $work/kernel    # for Trace Compass"
