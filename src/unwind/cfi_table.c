/* A module's CFI table as its users read it: the row covering a pc (the
 * reference walker's, or why its CFI was dropped; the loop walker's),
 * the drop reasons' names, and freeing a table built in memory. Whatever
 * builds one (cfi.c, a half of cfi_split.c, cfi_cache.c reading it from
 * disk) frees it here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "base.h"

static const char *const drop_names[GS_CFI_DROP_NREASONS] = {
	[GS_CFI_DROP_EMPTY_RANGE] = "empty_range",
	[GS_CFI_DROP_CFA_EXPRESSION] = "cfa_expression",
	[GS_CFI_DROP_CFA_REGISTER] = "cfa_register",
	[GS_CFI_DROP_RA_UNDEFINED] = "ra_undefined",
	[GS_CFI_DROP_RA_RULE] = "ra_rule",
	[GS_CFI_DROP_SP_RULE] = "sp_rule",
	[GS_CFI_DROP_RBP_RULE] = "rbp_rule",
	[GS_CFI_DROP_LIBDW_ERROR] = "libdw_error",
	[GS_CFI_DROP_SAVED_RULE] = "saved_rule",
	[GS_CFI_DROP_CORRUPT] = "corrupt_cfi",
};

const char *gs_cfi_drop_name(enum gs_cfi_drop reason)
{
	return (unsigned)reason < GS_CFI_DROP_NREASONS ? drop_names[reason] : "unknown";
}
void gs_cfi_table_free(struct gs_cfi_table *t)
{
	free(t->rows);
	free(t->xrows);
	free(t->dropped);
	memset(t, 0, sizeof(*t));
}

struct pc_key {
	const struct gs_cfi_table *t;
	uint64_t pc;
};

static bool dropped_starts_by(const void *ctx, size_t i)
{
	const struct pc_key *k = ctx;

	return k->t->dropped[i].pc_start <= k->pc;
}

static bool xrow_ends_by(const void *ctx, size_t i)
{
	const struct pc_key *k = ctx;

	return k->t->xrows[i].pc_end <= k->pc;
}

int gs_cfi_table_lookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_unwind_row *row,
			enum gs_cfi_drop *reason)
{
	const struct gs_unwind_row *r = gs_rows_find(t->rows, 0, t->nrows, pc);
	struct pc_key k = { t, pc };
	size_t past;

	if (r) {
		if (row)
			*row = *r;
		return 0;
	}
	/* the first dropped range starting past pc: pc may be in the one before */
	past = base_lower_bound(0, t->ndropped, &k, dropped_starts_by);
	if (past && pc < t->dropped[past - 1].pc_end) {
		if (reason)
			*reason = (enum gs_cfi_drop)t->dropped[past - 1].reason;
		return -EOPNOTSUPP;
	}
	return -ENOENT;
}

int gs_cfi_table_xlookup(const struct gs_cfi_table *t, uint64_t pc, struct gs_cfi_row *row)
{
	struct pc_key k = { t, pc };
	size_t at = base_lower_bound(0, t->nxrows, &k, xrow_ends_by); /* first ending after pc */

	if (at == t->nxrows || t->xrows[at].pc_start > pc)
		return -ENOENT;
	if (row)
		*row = t->xrows[at];
	return 0;
}
