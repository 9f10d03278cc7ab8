/* A compact one-line-per-trace text form of parsed scripts, so the tests
 * can state a script and the tree it must give side by side. */
#ifndef GS_TEST_SCRIPT_DUMP_H
#define GS_TEST_SCRIPT_DUMP_H

#include <stddef.h>

#include <gs/script.h>

/* Expressions: 5, $pid, reg5, var0, (- e), (+ a b), (u64* e).
 * Statements: str "..."; fmt "..." a, b; print e; let x#0 = e; bt 0x04;
 * if e { ... } else { ... }
 * Traces: fn NAME | addr 0xA | mod PATH 0xA | line FILE N, then { ... }. */
void dump_expr(const struct gs_expr *e, char *buf, size_t size);
void dump_script(const struct gs_script *s, char *buf, size_t size);

#endif /* GS_TEST_SCRIPT_DUMP_H */
