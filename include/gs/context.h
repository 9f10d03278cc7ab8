/* The side tables of one trace (the reference's TraceContext): the strings,
 * variable names and value types that instructions refer to by u16 index.
 * The code generator fills them; the decoder and renderer read them.
 * Strings and names are de-duplicated; types are not. */
#ifndef GS_CONTEXT_H
#define GS_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/view.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_CONTEXT_MAX_INDEX 65535

/* A value's type, as a tree: the code generator reads values by it (sizes,
 * member offsets, bit fields, element strides) and the decoder renders them
 * by it (C-like, members in order). The dwarf layer builds these from DIEs;
 * codegen builds the flat ones of script values. typedef, const, volatile
 * and restrict are seen through: `name` keeps the spelling for display. */
struct gs_type;

struct gs_type_member {
	const char *name;           /* NULL: an anonymous struct or union */
	const struct gs_type *type;
	uint32_t offset;            /* bytes from the start of the aggregate */
	uint16_t bit_size;          /* 0: not a bit field */
	uint16_t bit_offset;        /* bit field: its lowest bit, counted from bit 0 of
				     * the byte at `offset` (little-endian) */
};

struct gs_type_enumerator {
	const char *name;
	int64_t value;
};

#define GS_TYPEF_SIGNED 0x01   /* integers, chars and enums: signed */
#define GS_TYPEF_CHAR 0x02     /* a character type: {:s} reads arrays and
				* pointers of it as strings */
#define GS_TYPEF_FUNCTION 0x04 /* POINTER: to a function (target NULL) */
#define GS_TYPEF_CYCLIC 0x08   /* UNKNOWN: the DWARF type holds itself by value (a
				* typedef cycle, an array of itself): <cyclic type> */
#define GS_TYPEF_TOO_DEEP 0x10 /* UNKNOWN: nested past what the reader follows (1024
				* typedef/cv links, 64 other levels): <type too deep> */
#define GS_TYPEF_SYNTHETIC 0x20 /* OPTIMIZED_OUT: shown as gdb's <synthetic pointer>:
				 * a DW_OP_implicit_pointer, or bytes past the
				 * last DWARF piece */
#define GS_TYPEF_REFERENCE 0x40 /* POINTER: a C++ reference (& or &&) to target: its
				 * value is the referent, as gdb shows it and as
				 * members, indexing and operators see it */

/* kind (enum gs_type_kind) and name are always set. size is the scalar
 * width the flat renderers use: byte_size when it is 1..8, else 0. */
struct gs_type {
	uint8_t kind;
	uint8_t size;
	const char *name;           /* C spelling: "struct point", "char *", "u64" */
	uint8_t flags;              /* GS_TYPEF_* */
	uint32_t byte_size;         /* the whole value's bytes */
	const struct gs_type *target; /* POINTER: pointee (NULL: void or function);
				       * ARRAY: element type; ENUM: NULL */
	uint32_t count;             /* ARRAY: elements (0: bound unknown) */
	const struct gs_type_member *members;         /* STRUCT, UNION, in order */
	uint32_t nmembers;
	const struct gs_type_enumerator *enumerators; /* ENUM */
	uint32_t nenumerators;
	const struct gs_view *view; /* a recognized standard-library type (gs/view.h),
				     * or NULL */
};

/* The member `name` of the aggregate t (a struct or union), as `t.name`
 * finds it: looking into anonymous members and C++ base classes (members
 * named `<Base>`), eight levels deep at most. Adds the member's byte offset
 * from t's start to *off (the caller sets it first, usually to 0). NULL
 * when t has no such member (*off unchanged); t and name must not be NULL.
 * Never fails otherwise; allocates nothing. Since 1.1. */
GS_API const struct gs_type_member *gs_type_find_member(const struct gs_type *t, const char *name,
							uint32_t *off);

struct gs_arena;

/* Types are copied in whole trees into the context's own memory, so a
 * context outlives the DWARF it was built from. */
struct gs_trace_context {
	char **strings;
	size_t nstrings, strings_cap;
	char **var_names;
	size_t nvar_names, var_names_cap;
	uint32_t *string_slots, *var_name_slots; /* hash indexes of the two tables */
	size_t nstring_slots, nvar_name_slots;
	const struct gs_type **types;
	size_t ntypes, types_cap;
	struct gs_arena *arena; /* every type node, member and name copied */
	struct gs_view_caps view_caps; /* what views read (gs/view.h), set by the
					* code generator; zero: the defaults */
};

/* gs_context_init() empties a context the caller allocated (it allocates
 * nothing); gs_context_fini() frees every string, name and type it holds
 * (pointers from its lookups end there) and leaves it empty. */
GS_API void gs_context_init(struct gs_trace_context *c);
GS_API void gs_context_fini(struct gs_trace_context *c);

/* Index of `s` (copied if new: the caller keeps its own; s must not be
 * NULL), or -E2BIG past 65536 entries / -ENOMEM with err filled. */
GS_API int gs_context_string(struct gs_trace_context *c, const char *s, struct gs_error *err);
GS_API int gs_context_var_name(struct gs_trace_context *c, const char *name, struct gs_error *err);
/* Appends a flat type (name is copied; NULL is kept as ""); its index, or
 * -E2BIG / -ENOMEM with err filled. */
GS_API int gs_context_type(struct gs_trace_context *c, uint8_t kind, uint8_t size, const char *name,
			   struct gs_error *err);
/* Appends a copy of the tree t (shared nodes and cycles through pointers
 * are kept as such; t is the caller's still); its index, or -EINVAL for
 * a NULL t, -E2BIG / -ENOMEM, with err filled. */
GS_API int gs_context_add_type(struct gs_trace_context *c, const struct gs_type *t,
			       struct gs_error *err);

/* Lookups for the decoder: NULL when the index is out of range; what they
 * return belongs to c (valid until gs_context_fini). */
GS_API const char *gs_context_get_string(const struct gs_trace_context *c, uint32_t index);
GS_API const char *gs_context_get_var_name(const struct gs_trace_context *c, uint32_t index);
GS_API const struct gs_type *gs_context_get_type(const struct gs_trace_context *c, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* GS_CONTEXT_H */
