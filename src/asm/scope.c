/* Label scopes and the qualified names of labels. A label keeps the
 * caller's literal name and the id of the scope in force when it was
 * created (a statement, a frame: gs_asm_scope_enter); nothing is copied or
 * formatted while a program is built. The name a reader sees, outermost
 * scope first plus an ordinal where scope and name still repeat
 * ("s2.f3.search_not_below.4"), is formatted only by the disassembly and
 * in error messages, so that no two labels of a dump read the same. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/asm.h>

#include "mem.h"
#include "scope.h"

#define MAX_DEPTH 16 /* scopes shown around one label; deeper ones are elided */

uint32_t gs_asm_scope_enter(struct gs_asm *a, const char *tag, int32_t num)
{
	uint32_t prev = a->scope;

	assert(prev <= a->nscopes);
	if (!tag || base_grow((void **)&a->scopes, &a->scopes_cap, a->nscopes + 1,
			     sizeof(*a->scopes))) {
		gs_asm_fail(a, -ENOMEM, "out of memory opening label scope '%s'", tag ? tag : "?");
		return prev;
	}
	a->scopes[a->nscopes] = (struct gs_label_scope){ .tag = tag, .num = num, .parent = prev };
	a->scope = (uint32_t)++a->nscopes;
	return prev;
}

uint32_t gs_asm_scope_set(struct gs_asm *a, uint32_t scope)
{
	uint32_t prev = a->scope;

	/* A scope gs_asm_scope_enter() or this returned since the last reset;
	 * without asserts, any other falls back to none. */
	assert(scope <= a->nscopes);

	a->scope = scope <= a->nscopes ? scope : 0;
	return prev;
}

static uint64_t key_hash(const struct gs_label_info *l)
{
	uint64_t h = 1469598103934665603ull ^ l->scope;

	for (const char *c = l->name ? l->name : ""; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	return h;
}

static bool same_key(const struct gs_label_info *x, const struct gs_label_info *y)
{
	return x->scope == y->scope &&
	       (x->name == y->name || (x->name && y->name && strcmp(x->name, y->name) == 0));
}

static size_t slot_of(const struct gs_asm *a, const uint32_t *first, size_t cap, size_t i)
{
	size_t h = (size_t)key_hash(&a->labels[i]) & (cap - 1);

	while (first[h] && !same_key(&a->labels[first[h] - 1], &a->labels[i]))
		h = (h + 1) & (cap - 1);
	return h;
}

/* Which labels a dump shows: bound ones and jump targets. A label
 * created and never used (a failure path not taken) shows nowhere and
 * takes no ordinal. NULL on ENOMEM. */
static bool *shown_labels(const struct gs_asm *a)
{
	bool *shown = calloc(a->nlabels + 1, sizeof(*shown));

	if (!shown)
		return NULL;
	for (size_t i = 0; i < a->nfixups; i++)
		if (a->fixups[i].label < a->nlabels)
			shown[a->fixups[i].label] = true;
	for (size_t i = 0; i < a->nlabels; i++)
		shown[i] |= a->labels[i].binds > 0;
	return shown;
}

/* Two passes over an open-addressed table of (scope, name) keys: count
 * each, then number the labels of the keys that repeat. */
int asm_label_ordinals(const struct gs_asm *a, uint32_t *ord)
{
	size_t n = a->nlabels, cap = 16;
	uint32_t *first, *count, *rank;
	bool *shown = shown_labels(a);

	while (cap < 2 * n)
		cap *= 2;
	first = calloc(3 * cap, sizeof(*first)); /* label index + 1 of the key */
	if (!first || !shown) {
		free(first);
		free(shown);
		return -ENOMEM;
	}
	count = first + cap;
	rank = count + cap;
	for (size_t i = 0; i < n; i++) {
		size_t h;

		if (!shown[i])
			continue;
		h = slot_of(a, first, cap, i);
		if (!first[h])
			first[h] = (uint32_t)i + 1;
		count[h]++;
	}
	for (size_t i = 0; i < n; i++) {
		size_t h = shown[i] ? slot_of(a, first, cap, i) : 0;

		ord[i] = shown[i] && count[h] > 1 ? ++rank[h] : 0;
	}
	free(first);
	free(shown);
	return 0;
}

uint32_t asm_label_ordinal(const struct gs_asm *a, uint32_t id)
{
	uint32_t before = 0, after = 0;
	bool *shown = shown_labels(a);

	for (size_t i = 0; i < a->nlabels; i++)
		if (i != id && (!shown || shown[i]) && same_key(&a->labels[i], &a->labels[id]))
			*(i < id ? &before : &after) += 1;
	free(shown);
	return before + after ? before + 1 : 0;
}

size_t asm_label_format(const struct gs_asm *a, uint32_t id, uint32_t ord, char *buf,
			size_t size)
{
	const struct gs_label_scope *chain[MAX_DEPTH];
	size_t depth = 0, len = 0;
	uint32_t s;
	int n;

	if (size)
		buf[0] = '\0';
	if (id >= a->nlabels)
		return (size_t)snprintf(buf, size, "?");
	for (s = a->labels[id].scope; s && s <= a->nscopes && depth < MAX_DEPTH;
	     s = a->scopes[s - 1].parent) {
		/* A scope opens inside the one in force, made before it: the
		 * chain goes outward and ends. */
		assert(a->scopes[s - 1].parent < s);
		chain[depth++] = &a->scopes[s - 1];
	}
#define PUT(...) \
	do { \
		n = snprintf(buf + (len < size ? len : size), len < size ? size - len : 0, \
			     __VA_ARGS__); \
		len += n > 0 ? (size_t)n : 0; \
	} while (0)
	if (s && s <= a->nscopes)
		PUT("...");
	while (depth-- > 0) {
		if (chain[depth]->num < 0)
			PUT("%s.", chain[depth]->tag);
		else
			PUT("%s%d.", chain[depth]->tag, chain[depth]->num);
	}
	PUT("%s", a->labels[id].name ? a->labels[id].name : "?");
	if (ord)
		PUT(".%u", ord);
#undef PUT
	return len;
}

size_t gs_asm_label_name(const struct gs_asm *a, struct gs_label l, char *buf, size_t size)
{
	return asm_label_format(a, l.id, l.id < a->nlabels ? asm_label_ordinal(a, l.id) : 0,
				buf, size);
}
