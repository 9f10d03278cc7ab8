/* The side tables of one trace (reference 1.11 TraceContext): the strings,
 * variable names and value types that instructions refer to by u16 index.
 * The code generator fills them; the decoder and renderer read them.
 * Strings and names are de-duplicated; types are not. */
#ifndef GS_CONTEXT_H
#define GS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <gs/error.h>

#define GS_CONTEXT_MAX_INDEX 65535

/* How a captured value is shown: its wire kind (enum gs_type_kind), size in
 * bytes, and C spelling ("long unsigned int", "u64 (computed)"). */
struct gs_type {
	uint8_t kind;
	uint8_t size;
	const char *name;
};

struct gs_trace_context {
	char **strings;
	size_t nstrings, strings_cap;
	char **var_names;
	size_t nvar_names, var_names_cap;
	struct gs_type *types;
	size_t ntypes, types_cap;
};

void gs_context_init(struct gs_trace_context *c);
void gs_context_fini(struct gs_trace_context *c);

/* Index of `s` (added if new), or -E2BIG past 65535 entries / -ENOMEM. */
int gs_context_string(struct gs_trace_context *c, const char *s, struct gs_error *err);
int gs_context_var_name(struct gs_trace_context *c, const char *name, struct gs_error *err);
/* Appends a type (name is copied); its index, or -E2BIG / -ENOMEM. */
int gs_context_type(struct gs_trace_context *c, uint8_t kind, uint8_t size, const char *name,
		    struct gs_error *err);

/* Lookups for the decoder: NULL when the index is out of range. */
const char *gs_context_get_string(const struct gs_trace_context *c, uint32_t index);
const char *gs_context_get_var_name(const struct gs_trace_context *c, uint32_t index);
const struct gs_type *gs_context_get_type(const struct gs_trace_context *c, uint32_t index);

#endif /* GS_CONTEXT_H */
