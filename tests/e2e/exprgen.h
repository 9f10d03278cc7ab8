/* A seeded generator of C expressions over the variables of
 * tests/e2e/fixtures/values/values_exprs.c: each expression in
 * two spellings, gstrace's script and gdb's C, with the value C gives it
 * (computed here, from a copy of the fixture's values) and tags naming
 * every construct it uses, so a difference can be traced to a construct.
 * Deterministic from the seed (xorshift64*); free of undefined behaviour:
 * no division by zero, no shift past the width or of a negative, no signed
 * overflow, no read through NULL except behind a && or || that skips it. */
#ifndef GS_E2E_EXPRGEN_H
#define GS_E2E_EXPRGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXPRGEN_TEXT 640
#define EXPRGEN_TAGS 512

struct exprgen {
	uint64_t state;
};

struct exprgen_expr {
	char script[EXPRGEN_TEXT]; /* gstrace: cast(e, "T"), p == "lit", ... */
	char gdb[EXPRGEN_TEXT];    /* gdb: ((T)(e)), $_streq(p, "lit"), ... */
	/* Space-separated construct tags ("div/u64", "ptr-arith", ...), each once. */
	char tags[EXPRGEN_TAGS];
	/* C's value, as a decimal integer; "" when it is an address (a
	 * pointer-typed expression: only gdb and gstrace know it). */
	char value[32];
	/* Needs the live process at ex_probe: parameters, its statics. */
	bool live;
};

void exprgen_seed(struct exprgen *g, uint64_t seed);
/* The next expression of g's sequence. */
void exprgen_next(struct exprgen *g, struct exprgen_expr *e);
/* The value of enumerator `name` of the fixture's enum, for comparing
 * gdb's and gstrace's text of an enum value; false when it is none. */
bool exprgen_enumerator(const char *name, long *value);
/* tag is one of e->tags. */
bool exprgen_has_tag(const struct exprgen_expr *e, const char *tag);

#endif /* GS_E2E_EXPRGEN_H */
