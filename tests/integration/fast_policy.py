# SPDX-License-Identifier: GPL-2.0-only
"""The policy of the tests that want many outliers soon and thresholds that move: one
syscall-wide threshold each (no classes), learnt every 100 ms over a 1 s half-life at the
0.99 quantile, armed after a few hundred calls, and no budget to hold any outlier back."""

POLICY = """\
[global]
classes = none
interval = 100ms
half_life = 1s
budget = 100000
[default]
quantile = 0.99
margin = 1.0
floor = 1us
min_samples = 200
"""


def fast_policy_file(tmp_path):
    """POLICY written to tmp_path/fast.ini: its path."""
    p = tmp_path / "fast.ini"
    p.write_text(POLICY)
    return str(p)
