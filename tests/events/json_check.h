/* A strict JSON checker (RFC 8259) for the tests of the JSON printer:
 * whether a text is exactly one JSON value. Stricter than most parsers on
 * what the printer must never write: NaN and Infinity, control characters
 * in strings, bytes that are not UTF-8, lone surrogates, leading zeros. */
#ifndef GS_TESTS_JSON_CHECK_H
#define GS_TESTS_JSON_CHECK_H

#include <stddef.h>

/* NULL when s[0, n) is one JSON value (whitespace around it allowed);
 * else why not, and *at the offset where it goes wrong. */
const char *json_check(const char *s, size_t n, size_t *at);

#endif /* GS_TESTS_JSON_CHECK_H */
