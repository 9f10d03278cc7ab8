/* String, variable-name and type tables of a trace, indexed by u16 on the
 * wire. Strings are found through a hash index, so a trace with tens of
 * thousands of prints still builds in linear time. Type trees are copied
 * into an arena the context owns, so it outlives the DWARF. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/context.h>

#include "base.h"

void gs_context_init(struct gs_trace_context *c)
{
	memset(c, 0, sizeof(*c));
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void gs_context_fini(struct gs_trace_context *c)
{
	free_strings(c->strings, c->nstrings);
	free_strings(c->var_names, c->nvar_names);
	free(c->string_slots);
	free(c->var_name_slots);
	free(c->types);
	base_arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The slot of s in the index (empty: *slot == 0), growing it to twice the
 * table when more than half full. NULL when out of memory. */
static uint32_t *find_slot(char **v, size_t n, uint32_t **slots, size_t *nslots, const char *s)
{
	size_t mask;

	if (2 * (n + 1) > *nslots) {
		size_t ncap = *nslots ? 2 * *nslots : 8;
		uint32_t *ns;

		while (2 * (n + 1) > ncap)
			ncap *= 2;
		ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			size_t k = hash_str(v[i]) & (ncap - 1);

			while (ns[k])
				k = (k + 1) & (ncap - 1);
			ns[k] = (uint32_t)(i + 1);
		}
		free(*slots);
		*slots = ns;
		*nslots = ncap;
	}
	mask = *nslots - 1;
	for (size_t k = hash_str(s) & mask;; k = (k + 1) & mask)
		if (!(*slots)[k] || strcmp(v[(*slots)[k] - 1], s) == 0)
			return &(*slots)[k];
}

static int intern(char ***v, size_t *n, size_t *cap, uint32_t **slots, size_t *nslots,
		  const char *s, const char *what, struct gs_error *err)
{
	uint32_t *slot = find_slot(*v, *n, slots, nslots, s);
	char *copy;

	if (!slot)
		return gs_errorf(err, -ENOMEM, "out of memory adding %s \"%.40s\"", what, s);
	if (*slot)
		return (int)(*slot - 1);
	if (*n > GS_CONTEXT_MAX_INDEX)
		return gs_errorf(err, -E2BIG, "a trace may use at most %d %s; \"%.40s\" is one "
				 "too many: split the script into more traces",
				 GS_CONTEXT_MAX_INDEX + 1, what, s);
	if (base_grow((void **)v, cap, *n + 1, sizeof(**v)) || !(copy = strdup(s)))
		return gs_errorf(err, -ENOMEM, "out of memory adding %s \"%.40s\"", what, s);
	(*v)[*n] = copy;
	*slot = (uint32_t)(*n + 1);
	return (int)(*n)++;
}

int gs_context_string(struct gs_trace_context *c, const char *s, struct gs_error *err)
{
	return intern(&c->strings, &c->nstrings, &c->strings_cap, &c->string_slots,
		      &c->nstring_slots, s, "strings", err);
}

int gs_context_var_name(struct gs_trace_context *c, const char *name, struct gs_error *err)
{
	return intern(&c->var_names, &c->nvar_names, &c->var_names_cap, &c->var_name_slots,
		      &c->nvar_name_slots, name, "variable names", err);
}

static void *arena_alloc(struct gs_trace_context *c, size_t n)
{
	return base_arena_alloc(&c->arena, n);
}

static const char *arena_str(struct gs_trace_context *c, const char *s)
{
	return base_arena_strdup(&c->arena, s);
}

static int push_type(struct gs_trace_context *c, const struct gs_type *t, const char *what,
		     struct gs_error *err)
{
	if (c->ntypes > GS_CONTEXT_MAX_INDEX)
		return gs_errorf(err, -E2BIG, "a trace may use at most %d value types; %.60s is "
				 "one too many: split the script into more traces",
				 GS_CONTEXT_MAX_INDEX + 1, what);
	if (base_grow((void **)&c->types, &c->types_cap, c->ntypes + 1, sizeof(*c->types)))
		return gs_errorf(err, -ENOMEM, "out of memory adding type %.60s", what);
	c->types[c->ntypes] = t;
	return (int)c->ntypes++;
}

int gs_context_type(struct gs_trace_context *c, uint8_t kind, uint8_t size, const char *name,
		    struct gs_error *err)
{
	struct gs_type *t = arena_alloc(c, sizeof(*t));

	if (!t || !(t->name = arena_str(c, name)))
		return gs_errorf(err, -ENOMEM, "out of memory adding type %s", name ? name : "");
	t->kind = kind;
	t->size = size;
	t->byte_size = size;
	return push_type(c, t, t->name, err);
}

/* Source node -> its copy, by open addressing on the pointer. */
struct copy_memo {
	const struct gs_type **from;
	struct gs_type **to;
	size_t cap, n;
};

static size_t memo_slot(const struct copy_memo *m, const struct gs_type *t)
{
	size_t h = ((uintptr_t)t >> 4) * 0x9E3779B97F4A7C15ull;

	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
		if (!m->from[i] || m->from[i] == t)
			return i;
}

static int memo_put(struct copy_memo *m, const struct gs_type *from, struct gs_type *to)
{
	if (2 * (m->n + 1) > m->cap) {
		struct copy_memo big = { .cap = m->cap ? 2 * m->cap : 64 };

		big.from = calloc(big.cap, sizeof(*big.from));
		big.to = calloc(big.cap, sizeof(*big.to));
		if (!big.from || !big.to) {
			free(big.from);
			free(big.to);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->from[i]) {
				size_t k = memo_slot(&big, m->from[i]);

				big.from[k] = m->from[i];
				big.to[k] = m->to[i];
				big.n++;
			}
		free(m->from);
		free(m->to);
		*m = big;
	}
	size_t k = memo_slot(m, from);

	m->from[k] = from;
	m->to[k] = to;
	m->n++;
	return 0;
}

static struct gs_type *copy_tree(struct gs_trace_context *c, struct copy_memo *m,
				 const struct gs_type *t, unsigned depth);

static struct gs_view *copy_view(struct gs_trace_context *c, struct copy_memo *m,
				 const struct gs_view *v, unsigned depth)
{
	struct gs_view *n = arena_alloc(c, sizeof(*n));

	if (!n)
		return NULL;
	*n = *v;
	n->fields = NULL;
	if (v->name && !(n->name = arena_str(c, v->name)))
		return NULL;
	if (v->elem && !(n->elem = copy_tree(c, m, v->elem, depth + 1)))
		return NULL;
	if (v->nfields) {
		struct gs_view_field *fv = arena_alloc(c, v->nfields * sizeof(*fv));

		if (!fv)
			return NULL;
		for (uint32_t i = 0; i < v->nfields; i++) {
			fv[i] = v->fields[i];
			if (fv[i].name && !(fv[i].name = arena_str(c, fv[i].name)))
				return NULL;
			if (fv[i].type && !(fv[i].type = copy_tree(c, m, fv[i].type, depth + 1)))
				return NULL;
		}
		n->fields = fv;
	}
	return n;
}

/* Depth-first copy; a node seen before (a cycle through a pointer, a type
 * shared by two members) is linked, not copied again. */
static struct gs_type *copy_tree(struct gs_trace_context *c, struct copy_memo *m,
				 const struct gs_type *t, unsigned depth)
{
	struct gs_type *n;

	if (m->cap) {
		size_t k = memo_slot(m, t);

		if (m->from[k] == t)
			return m->to[k];
	}
	if (depth > 4096 || !(n = arena_alloc(c, sizeof(*n))) || memo_put(m, t, n))
		return NULL;
	*n = *t;
	n->name = arena_str(c, t->name);
	n->target = NULL;
	n->members = NULL;
	n->enumerators = NULL;
	n->view = NULL;
	if (!n->name)
		return NULL;
	if (t->view && !(n->view = copy_view(c, m, t->view, depth)))
		return NULL;
	if (t->target && !(n->target = copy_tree(c, m, t->target, depth + 1)))
		return NULL;
	if (t->nmembers) {
		struct gs_type_member *mv = arena_alloc(c, t->nmembers * sizeof(*mv));

		if (!mv)
			return NULL;
		for (uint32_t i = 0; i < t->nmembers; i++) {
			mv[i] = t->members[i];
			if (t->members[i].name && !(mv[i].name = arena_str(c, t->members[i].name)))
				return NULL;
			if (!(mv[i].type = copy_tree(c, m, t->members[i].type, depth + 1)))
				return NULL;
		}
		n->members = mv;
	}
	if (t->nenumerators) {
		struct gs_type_enumerator *ev = arena_alloc(c, t->nenumerators * sizeof(*ev));

		if (!ev)
			return NULL;
		for (uint32_t i = 0; i < t->nenumerators; i++) {
			ev[i] = t->enumerators[i];
			if (!(ev[i].name = arena_str(c, t->enumerators[i].name)))
				return NULL;
		}
		n->enumerators = ev;
	}
	return n;
}

int gs_context_add_type(struct gs_trace_context *c, const struct gs_type *t,
			struct gs_error *err)
{
	struct copy_memo m = { 0 };
	struct gs_type *copy;

	if (!t)
		return gs_errorf(err, -EINVAL, "gs_context_add_type: the type is missing");
	copy = copy_tree(c, &m, t, 0);
	free(m.from);
	free(m.to);
	if (!copy)
		return gs_errorf(err, -ENOMEM, "out of memory copying type %.60s (or it nests "
				 "deeper than 4096 levels)", t->name ? t->name : "");
	return push_type(c, copy, copy->name, err);
}

const char *gs_context_get_string(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->nstrings ? c->strings[index] : NULL;
}

const char *gs_context_get_var_name(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->nvar_names ? c->var_names[index] : NULL;
}

const struct gs_type *gs_context_get_type(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->ntypes ? c->types[index] : NULL;
}
