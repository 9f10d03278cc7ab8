/* Prometheus' own checks of an exposition, for the tests that write one
 * (tests/events/test_prom.c, tests/serve/test_metrics.c): promtool check
 * metrics lints the text format (counters end in _total, base units, no
 * abbreviated units, help text, ...); OpenMetrics is read first by the
 * strict parser of Prometheus' Python client (prom_om_check.py), which
 * writes it back as 0.0.4 for promtool. The tools come from the
 * environment meson sets (GS_PROMTOOL, GS_PROM_OM_CHECK). */
#ifndef GS_TESTS_PROM_LINT_H
#define GS_TESTS_PROM_LINT_H

#include <stdbool.h>

/* Fails the test on any problem either tool finds in text (printing the
 * text and what the tool said); skips the test, saying why, when promtool
 * is absent, and only the OpenMetrics parse when its parser is. */
void prom_lint(const char *text, bool openmetrics);

#endif
