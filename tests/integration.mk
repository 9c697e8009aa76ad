# SPDX-License-Identifier: GPL-2.0-only
# Integration tests: pytest with Debian's python3 (python3-bt2 lives there).
# They load the real BPF programs and run real LTTng sessions: root required.
# tests/lttng-world gives them LTTng daemons of their own, in a private mount
# namespace: a daemon already running here, or another run of the tests, is
# never stopped or killed by them.
#
# They run in TEST_JOBS parallel workers (pytest-xdist), each in a world of its own
# (tests/pytest-worker), a test file to a worker, its tests in order: most of their time
# is spent waiting for sessions, workloads and intervals, not on a CPU: three workers on two
# CPUs (measured: the slowest tests' times as with two, none failed). TEST_JOBS=1: one
# process, no xdist.
PYTEST_ARGS	?=
TEST_JOBS	?= 3
ifeq ($(TEST_JOBS),1)
PYTEST_PAR	:=
else
PYTEST_PAR	:= -p xdist --dist loadfile --tx $(TEST_JOBS)*popen//python=tests/pytest-worker
endif

.PHONY: check-integration
check-integration: build
	$(Q)SCLAT_TEST_PYTHON=$(PYTHON) tests/lttng-world $(PYTHON) -m pytest -q -rs \
		$(PYTEST_PAR) tests/integration $(PYTEST_ARGS)

CHECK_TARGETS	+= check-integration
