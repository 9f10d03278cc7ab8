#!/usr/bin/env python3
"""Reads an OpenMetrics 1.0.0 exposition on stdin, parses it with the strict
parser of Prometheus' Python client (Debian's python3-prometheus-client:
`# EOF`, TYPE/UNIT/HELP once and before the samples, units as the names'
suffixes, counters' _total, non-negative counter-like values, cumulative
buckets in order ending at +Inf, no _sum beside a bound below zero, _count
equal to +Inf, label names and escapes), and writes the same families in
the text format 0.0.4 on stdout, for `promtool check metrics` to lint.
Exit 1 with the parser's message when the exposition is invalid; 77 when
the client is not installed."""
import sys

try:
    from prometheus_client.exposition import generate_latest
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError as e:
    print(f"python3-prometheus-client is not installed ({e}): scripts/deps installs it")
    sys.exit(77)


class Families:
    def __init__(self, families):
        self.families = families

    def collect(self):
        return self.families


try:
    families = list(text_string_to_metric_families(sys.stdin.read()))
except ValueError as e:
    print(f"invalid OpenMetrics: {e}")
    sys.exit(1)
sys.stdout.write(generate_latest(Families(families)).decode())
