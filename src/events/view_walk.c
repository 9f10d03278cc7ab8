/* The views that were walked (gs/view.h): std::list, unordered_map/set
 * (linked nodes), std::map/set (a red-black tree read depth first, shown
 * in key order), Rust's HashMap/HashSet (hashbrown's buckets) and
 * VecDeque (a ring), in gdb's and rust-gdb's spellings. Only what was read
 * is shown; a tree cut short shows the keys in order up to the first node
 * not read, then "...". */
#include <string.h>

#include "ev_int.h"

#define TREE_MAX_DEPTH 64

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static bool field(const uint8_t *data, size_t len, uint32_t off, size_t n, uint64_t *out)
{
	if (off > len || n > len - off)
		return false;
	*out = le(data + off, n);
	return true;
}

/* One element: `[key] = value` for pairs (C++ pair's first and second, a
 * Rust (K, V) tuple's __0 and __1; a Rust set's (T, ()) its T alone),
 * `[i] = value` when indexed, else the value. */
struct walk_out {
	struct ev_out *o;
	const struct gs_view *v;
	const struct ev_ext *x;
	unsigned depth;
	uint64_t shown;   /* elements written */
	uint64_t max;     /* elements to write at most */
	bool indexed;
	bool stopped;     /* a part not read, or max reached */
};

static void put_element(struct walk_out *w, const uint8_t *value, size_t inner_off)
{
	const struct gs_type *t = w->v->elem;
	struct ev_ext ex = ev_ext_sub(w->x, inner_off, t, true);
	bool rust_set = w->v->style == GS_VSTYLE_RUST_HASH && !w->v->pairs;

	if (w->shown)
		ev_put(w->o, ", ", 2);
	if ((w->v->pairs || rust_set) && t->nmembers >= 2) {
		const struct gs_type_member *k = &t->members[0], *val = &t->members[1];
		struct ev_ext kx = ex;

		if (!rust_set)
			ev_put_char(w->o, '[');
		ev_put_typed(w->o, k->type, value + k->offset, t->byte_size - k->offset,
			     w->depth + 1, kx);
		if (!rust_set) {
			ev_ext_skip(&kx, k->type);
			ev_put(w->o, "] = ", 4);
			ev_put_typed(w->o, val->type, value + val->offset, t->byte_size - val->offset,
				     w->depth + 1, kx);
		}
	} else {
		if (w->indexed) {
			ev_put_char(w->o, '[');
			ev_put_udec(w->o, w->shown);
			ev_put(w->o, "] = ", 4);
		}
		ev_put_typed(w->o, t, value, t->byte_size, w->depth + 1, ex);
	}
	w->shown++;
}

static void put_count(struct ev_out *o, const char *name, uint64_t n)
{
	ev_put_str(o, name);
	ev_put_str(o, " with ");
	ev_put_udec(o, n);
	ev_put_str(o, n == 1 ? " element" : " elements");
}

static void read_error(struct ev_out *o, uint64_t addr)
{
	ev_put_str(o, "<error: Cannot access memory at address ");
	ev_put_0x(o, addr);
	ev_put_char(o, '>');
}

/* The extension's header for a walked view: false (and why written) when
 * it has nothing to show. */
static bool ext_ok(struct ev_out *o, const struct ev_ext *x, uint64_t addr)
{
	if (!x->p || !x->n) {
		ev_put_str(o, "<not read: the event has no room>");
		return false;
	}
	if (x->p[0] != GS_VAR_OK) {
		read_error(o, addr);
		return false;
	}
	return true;
}

static void put_list(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t n = 0, first = 0;
	uint32_t cap = gs_view_cap(x->caps, v);
	uint32_t inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);
	struct walk_out w = { .o = o, .v = v, .x = x, .depth = depth,
			      .indexed = v->style == GS_VSTYLE_CPP_LIST || !v->pairs };

	if (!field(data, len, v->len_off, 8, &n) || !field(data, len, v->ptr_off, 8, &first))
		return;
	if (v->style == GS_VSTYLE_CPP_LIST) {
		if (!n) {
			ev_put_str(o, "empty ");
			ev_put_str(o, v->name);
			return;
		}
		ev_put_str(o, v->name);
	} else {
		put_count(o, v->name, n);
		if (!n)
			return;
	}
	ev_put(o, " = {", 4);
	if (ext_ok(o, x, first)) {
		for (uint64_t i = 0; i < n && i < cap; i++) {
			const uint8_t *node = x->p + 1 + i * v->node_size;

			/* a node not read: the walk ended (a NULL link) */
			if (i && !le(node - v->node_size + v->next_off, 8))
				break;
			put_element(&w, node + v->value_off,
				    1 + (size_t)cap * v->node_size + (size_t)i * inner);
		}
		if (n > w.shown)
			ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
}

static void put_hash(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t items = 0, mask = 0, ctrl = 0;
	uint32_t cap = gs_view_cap(x->caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);
	struct walk_out w = { .o = o, .v = v, .x = x, .depth = depth };

	if (!field(data, len, v->len_off, 8, &items) || !field(data, len, v->cap_off, 8, &mask) ||
	    !field(data, len, v->ptr_off, 8, &ctrl))
		return;
	ev_put_str(o, v->name);
	ev_put_str(o, "(size=");
	ev_put_udec(o, items);
	ev_put_char(o, ')');
	if (!items)
		return;
	ev_put(o, " = {", 4);
	if (ext_ok(o, x, ctrl)) {
		uint64_t buckets = mask + 1 < cap ? mask + 1 : cap;
		const uint8_t *slots = x->p + 1 + cap;

		for (uint64_t i = 0; i < buckets && w.shown < items; i++) {
			if (x->p[1 + i] & 0x80)
				continue; /* empty or deleted */
			put_element(&w, slots + (cap - 1 - i) * size,
				    1 + cap + (size_t)2 * cap * size + (size_t)i * inner);
		}
		if (items > w.shown)
			ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
}

static void put_ring(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t n = 0, head = 0, cap = 0, ptr = 0;
	uint32_t max = gs_view_cap(x->caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);
	struct walk_out w = { .o = o, .v = v, .x = x, .depth = depth };

	if (!field(data, len, v->len_off, 8, &n) || !field(data, len, v->head_off, 8, &head) ||
	    !field(data, len, v->cap_off, 8, &cap) || !field(data, len, v->ptr_off, 8, &ptr))
		return;
	if (v->len_how == GS_VLEN_MASKED)
		n = cap ? (n - head) & (cap - 1) : 0;
	ev_put_str(o, "VecDeque(size=");
	ev_put_udec(o, n);
	ev_put_char(o, ')');
	if (!n)
		return;
	ev_put(o, " = {", 4);
	if (ext_ok(o, x, ptr)) {
		for (uint64_t i = 0; i < n && i < max; i++)
			put_element(&w, x->p + 1 + i * size, 1 + (size_t)2 * max * size +
				    (size_t)i * inner);
		if (n > w.shown)
			ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
}

struct tree {
	const struct gs_view *v;
	const uint8_t *addrs, *nodes;
	uint32_t nread, cap, inner;
	size_t inner_at;
};

/* The slot a node at addr was read into, or -1. */
static int64_t tree_slot(const struct tree *t, uint64_t addr)
{
	for (uint32_t k = 0; k < t->nread; k++)
		if (le(t->addrs + 8 * k, 8) == addr)
			return k;
	return -1;
}

static void tree_walk(struct walk_out *w, const struct tree *t, uint64_t addr, unsigned depth)
{
	int64_t k;
	const uint8_t *node;

	if (w->stopped || !addr)
		return;
	if (depth > TREE_MAX_DEPTH || w->shown >= w->max || (k = tree_slot(t, addr)) < 0) {
		w->stopped = true;
		return;
	}
	node = t->nodes + (size_t)k * t->v->node_size;
	tree_walk(w, t, le(node + t->v->next_off, 8), depth + 1);
	if (w->stopped)
		return;
	put_element(w, node + t->v->value_off, t->inner_at + (size_t)k * t->inner);
	tree_walk(w, t, le(node + t->v->right_off, 8), depth + 1);
}

static void put_tree(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		     unsigned depth, const struct ev_ext *x)
{
	uint64_t n = 0, root = 0;
	uint32_t cap = gs_view_tree_nodes(x->caps, v), shown = gs_view_cap(x->caps, v);
	struct walk_out w = { .o = o, .v = v, .x = x, .depth = depth, .indexed = !v->pairs };
	struct tree t = { .v = v, .cap = cap };

	if (!field(data, len, v->len_off, 8, &n) || !field(data, len, v->ptr_off, 8, &root))
		return;
	put_count(o, v->name, n);
	if (!n)
		return;
	ev_put(o, " = {", 4);
	if (x->p && x->n >= 5) {
		t.nread = (uint32_t)le(x->p + 1, 4);
		if (t.nread > cap)
			t.nread = cap;
		t.addrs = x->p + 5;
		t.nodes = t.addrs + 8 * (size_t)cap;
		t.inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);
		t.inner_at = 5 + (size_t)cap * (8 + v->node_size) + 8 * (size_t)gs_view_tree_slots(cap);
		w.max = n < shown ? n : shown;
	}
	if (ext_ok(o, x, root)) {
		tree_walk(&w, &t, root, 0);
		if (n > w.shown)
			ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
}

bool ev_put_walked(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		   unsigned depth, const struct ev_ext *x)
{
	switch (v->kind) {
	case GS_VIEW_LIST:
		put_list(o, v, data, len, depth, x);
		return true;
	case GS_VIEW_HASH:
		put_hash(o, v, data, len, depth, x);
		return true;
	case GS_VIEW_RING:
		put_ring(o, v, data, len, depth, x);
		return true;
	case GS_VIEW_TREE:
		put_tree(o, v, data, len, depth, x);
		return true;
	default:
		return false;
	}
}
