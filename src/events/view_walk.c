/* The views that were walked (gs/view.h): std::list, unordered_map/set
 * (linked nodes), std::map/set (a red-black tree read depth first, given
 * in key order), std::deque (its buffers), Rust's HashMap/HashSet
 * (hashbrown's buckets), BTreeMap/BTreeSet (nodes read depth first,
 * given in key order) and VecDeque (a ring). ev_walk gives their elements in order to the text
 * renderer below and to the JSON printer (view_json.c) alike; only what
 * was read is given, and a tree cut short stops at the first node not
 * read. The text is gdb's and rust-gdb's. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "view_parts.h"

#define TREE_MAX_DEPTH 64

struct walker {
	const struct gs_view *v;
	const struct ev_ext *x;
	struct ev_walk *w;
	ev_walk_fn each;
	void *arg;
	uint64_t max;
};

static uint64_t le64(const uint8_t *p)
{
	return ev_le(p, 8);
}

static void give(struct walker *k, const uint8_t *value, size_t inner_off)
{
	struct ev_elem e = { .value = value };

	if (k->each) {
		e.ex = ev_ext_sub(k->x, inner_off, k->v->elem, true);
		k->each(k->arg, k->v, &e, k->w->shown);
	}
	k->w->shown++;
}

static void walk_list(struct walker *k)
{
	const struct gs_view *v = k->v;
	uint32_t cap = gs_view_cap(k->x->caps, v);
	uint32_t inner = gs_view_ext_size(k->x->caps, v->elem, k->x->depth + 1);

	for (uint64_t i = 0; i < (uint64_t)k->w->n && i < cap; i++) {
		const uint8_t *node = k->x->p + 1 + i * v->node_size;

		/* a node not read: the walk ended at a NULL link */
		if (i && !le64(node - v->node_size + v->next_off))
			break;
		give(k, node + v->value_off, 1 + (size_t)cap * v->node_size + (size_t)i * inner);
	}
}

static void walk_hash(struct walker *k, uint64_t buckets)
{
	const struct gs_view *v = k->v;
	uint32_t cap = gs_view_cap(k->x->caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(k->x->caps, v->elem, k->x->depth + 1);
	const uint8_t *slots = k->x->p + 1 + cap;

	if (buckets > cap)
		buckets = cap;
	for (uint64_t i = 0; i < buckets && k->w->shown < (uint64_t)k->w->n; i++)
		if (!(k->x->p[1 + i] & 0x80)) /* full: not empty nor deleted */
			give(k, slots + (cap - 1 - i) * size,
			     1 + cap + (size_t)2 * cap * size + (size_t)i * inner);
}

static void walk_ring(struct walker *k)
{
	uint32_t max = gs_view_cap(k->x->caps, k->v);
	uint32_t size = k->v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(k->x->caps, k->v->elem, k->x->depth + 1);

	for (uint64_t i = 0; i < (uint64_t)k->w->n && i < max; i++)
		give(k, k->x->p + 1 + i * size, 1 + (size_t)2 * max * size + (size_t)i * inner);
}

static void walk_deque(struct walker *k)
{
	uint32_t max = gs_view_cap(k->x->caps, k->v);
	uint32_t size = k->v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(k->x->caps, k->v->elem, k->x->depth + 1);
	size_t data = 1 + 8 * (size_t)gs_view_deque_nodes(k->x->caps, k->v);

	for (uint64_t i = 0; i < (uint64_t)k->w->n && i < max; i++)
		give(k, k->x->p + data + i * size, data + (size_t)2 * max * size + (size_t)i * inner);
}

/* std::deque's length, as libstdc++'s iterator difference. */
static bool deque_len(const struct gs_view *v, const uint8_t *data, size_t len, int64_t *n,
		      uint64_t *first)
{
	uint64_t sn, fnode, fcur, ffirst, slast, scur;
	uint64_t size = v->elem->byte_size ? v->elem->byte_size : 1;

	if (!ev_view_u(data, len, v->ptr_off + v->right_off, 8, &sn) ||
	    !ev_view_u(data, len, v->len_off + v->right_off, 8, &fnode) ||
	    !ev_view_u(data, len, v->len_off + v->head_off, 8, &fcur) ||
	    !ev_view_u(data, len, v->len_off + v->cap_off, 8, &ffirst) ||
	    !ev_view_u(data, len, v->ptr_off + v->next_off, 8, &slast) ||
	    !ev_view_u(data, len, v->ptr_off + v->head_off, 8, &scur))
		return false;
	*n = (int64_t)v->node_size * ((int64_t)(fnode - sn) / 8 - (fnode != 0)) +
	     (int64_t)(fcur - ffirst) / (int64_t)size + (int64_t)(slast - scur) / (int64_t)size;
	*first = sn;
	return true;
}

/* The nodes a tree walk read: their addresses (a B-tree's packed with
 * its height above ADDR_MASK) and bytes, found by address through an
 * index sorted once per value, not by a scan per node. */
#define ADDR_MASK ((1ull << 56) - 1)

struct read_node {
	uint64_t addr;
	uint32_t slot;
};

struct nodes {
	const uint8_t *addrs, *bytes;
	uint32_t nread, size;
	struct read_node *index; /* NULL: out of memory, found by a scan */
};

/* By address, then slot: a node read twice (a list that loops back) is
 * found at its first slot, by the index as by the scan without one. */
static int by_addr(const void *a, const void *b)
{
	const struct read_node *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

struct node_key {
	const struct nodes *t;
	uint64_t addr;
};

static bool node_before(const void *ctx, size_t i)
{
	const struct node_key *k = ctx;

	return k->t->index[i].addr < k->addr;
}

/* The nodes of the extension x: nread (the u32 at 1), at most n, their
 * addresses from 5 and their bytes after n addresses. */
static void nodes_open(struct nodes *t, const struct ev_ext *x, uint32_t n, uint32_t size)
{
	t->nread = (uint32_t)ev_le(x->p + 1, 4);
	if (t->nread > n)
		t->nread = n;
	t->addrs = x->p + 5;
	t->bytes = t->addrs + 8 * (size_t)n;
	t->size = size;
	t->index = t->nread ? malloc(t->nread * sizeof(*t->index)) : NULL;
	if (!t->index)
		return;
	for (uint32_t k = 0; k < t->nread; k++)
		t->index[k] = (struct read_node){ le64(t->addrs + 8 * k) & ADDR_MASK, k };
	qsort(t->index, t->nread, sizeof(*t->index), by_addr);
}

/* The bytes of the node read at addr, or NULL. */
static const uint8_t *nodes_find(const struct nodes *t, uint64_t addr)
{
	struct node_key key = { t, addr };
	size_t i;

	if (!t->index) {
		for (uint32_t k = 0; k < t->nread; k++)
			if ((le64(t->addrs + 8 * k) & ADDR_MASK) == addr)
				return t->bytes + (size_t)k * t->size;
		return NULL;
	}
	i = base_lower_bound(0, t->nread, &key, node_before);
	if (i == t->nread || t->index[i].addr != addr)
		return NULL;
	return t->bytes + (size_t)t->index[i].slot * t->size;
}

/* The slot of a node's bytes. */
static size_t nodes_slot(const struct nodes *t, const uint8_t *node)
{
	return (size_t)(node - t->bytes) / t->size;
}

struct tree {
	struct nodes n;
	uint32_t inner;
	size_t inner_at;
};

static void tree_walk(struct walker *k, const struct tree *t, uint64_t addr, unsigned depth)
{
	const uint8_t *node;

	if (k->w->cut || !addr)
		return;
	if (depth > TREE_MAX_DEPTH || k->w->shown >= k->max || !(node = nodes_find(&t->n, addr))) {
		k->w->cut = true;
		return;
	}
	tree_walk(k, t, le64(node + k->v->next_off), depth + 1);
	if (k->w->cut)
		return;
	give(k, node + k->v->value_off, t->inner_at + nodes_slot(&t->n, node) * t->inner);
	tree_walk(k, t, le64(node + k->v->right_off), depth + 1);
}

struct btree {
	struct nodes n;
	uint32_t kin, vin;
	size_t inner_at;
};

/* In order: edge 0, key 0, edge 1, key 1, ..., edge len. */
static void btree_walk(struct walker *k, const struct btree *t, uint64_t addr, uint64_t height,
		       unsigned depth)
{
	const struct gs_view *v = k->v;
	size_t slot;
	const uint8_t *node;
	uint64_t len;

	if (k->w->cut || !addr)
		return;
	if (depth > TREE_MAX_DEPTH || !(node = nodes_find(&t->n, addr))) {
		k->w->cut = true;
		return;
	}
	slot = nodes_slot(&t->n, node);
	len = ev_le(node + v->cap_off, 2);
	if (len > v->node_keys)
		len = v->node_keys;
	for (uint64_t i = 0; i <= len && !k->w->cut; i++) {
		if (height)
			btree_walk(k, t, le64(node + v->right_off + 8 * i), height - 1, depth + 1);
		if (i == len || k->w->cut)
			break;
		if (k->w->shown >= k->max) {
			k->w->cut = true;
			break;
		}
		if (k->each) {
			size_t at = t->inner_at + (slot * v->node_keys + i) * (t->kin + t->vin);
			struct ev_elem e = {
				.value = node + v->next_off + i * v->elem->byte_size,
				.ex = ev_ext_sub(k->x, at, v->elem, true),
				.val = node + v->value_off + i * v->fields[0].type->byte_size,
				.vex = ev_ext_sub(k->x, at + t->kin, v->fields[0].type, true),
			};

			k->each(k->arg, v, &e, k->w->shown);
		}
		k->w->shown++;
	}
}

static void walk_btree(struct walker *k, uint64_t root, uint64_t height)
{
	const struct gs_view *v = k->v;
	uint32_t n = gs_view_btree_nodes(k->x->caps, v);
	struct btree t = {
		.kin = gs_view_ext_size(k->x->caps, v->elem, k->x->depth + 1),
		.vin = gs_view_ext_size(k->x->caps, v->fields[0].type, k->x->depth + 1),
		.inner_at = 5 + (size_t)n * (8 + v->node_size) + 8 * (size_t)GS_VIEW_BTREE_SLOTS,
	};

	if (k->x->n < 5)
		return;
	nodes_open(&t.n, k->x, n, v->node_size);
	btree_walk(k, &t, root, height, 0);
	free(t.n.index);
}

static void walk_tree(struct walker *k, uint64_t root)
{
	const struct gs_view *v = k->v;
	uint32_t nodes = gs_view_tree_nodes(k->x->caps, v);
	struct tree t = {
		.inner = gs_view_ext_size(k->x->caps, v->elem, k->x->depth + 1),
		.inner_at = 5 + (size_t)nodes * (8 + v->node_size) + 8 * (size_t)gs_view_tree_slots(nodes),
	};

	if (k->x->n < 5)
		return;
	nodes_open(&t.n, k->x, nodes, v->node_size);
	tree_walk(k, &t, root, 0);
	free(t.n.index);
}

int ev_elem_parts(const struct gs_view *v, const struct ev_elem *e, struct ev_shown *key,
		  struct ev_shown *val)
{
	const struct gs_type *t = v->elem;
	bool rust_set = v->style == GS_VSTYLE_RUST_HASH && !v->pairs;
	struct ev_part k, w;

	*key = (struct ev_shown){ e->value, t, e->ex };
	if (e->val) { /* a B-tree's key, and its value for a map */
		*val = (struct ev_shown){ e->val, v->fields[0].type, e->vex };
		return v->pairs ? 2 : 1;
	}
	if ((v->pairs || rust_set) && ev_pair(t, &e->ex, &k, &w) && k.offset <= t->byte_size &&
	    w.offset <= t->byte_size && k.type->byte_size <= t->byte_size - k.offset &&
	    w.type->byte_size <= t->byte_size - w.offset) {
		*key = (struct ev_shown){ e->value + k.offset, k.type, k.ext };
		*val = (struct ev_shown){ e->value + w.offset, w.type, w.ext };
		return rust_set ? 1 : 2;
	}
	return 1;
}

bool ev_walked(const struct gs_view *v)
{
	return v->kind == GS_VIEW_LIST || v->kind == GS_VIEW_HASH || v->kind == GS_VIEW_RING ||
	       v->kind == GS_VIEW_TREE || v->kind == GS_VIEW_DEQUE || v->kind == GS_VIEW_BTREE;
}

bool ev_walk(const struct gs_view *v, const uint8_t *data, size_t len, const struct ev_ext *x,
	     struct ev_walk *w, ev_walk_fn each, void *arg)
{
	uint64_t n = 0, a = 0, b = 0, head = 0;
	struct walker k = { .v = v, .x = x, .w = w, .each = each, .arg = arg };

	memset(w, 0, sizeof(*w));
	if (!ev_view_u(data, len, v->len_off, 8, &n) || !ev_view_u(data, len, v->ptr_off, 8, &a))
		return false;
	w->n = (int64_t)n;
	w->addr = a;
	switch (v->kind) {
	case GS_VIEW_DEQUE:
		if (!deque_len(v, data, len, &w->n, &a))
			return false;
		break;
	case GS_VIEW_HASH: /* a: ctrl, b: bucket_mask */
		if (!ev_view_u(data, len, v->cap_off, 8, &b))
			return false;
		break;
	case GS_VIEW_RING: /* b: the buffer's capacity, head: the first's index */
		if (!ev_view_u(data, len, v->cap_off, 8, &b) ||
		    !ev_view_u(data, len, v->head_off, 8, &head))
			return false;
		if (v->len_how == GS_VLEN_MASKED)
			w->n = b ? (int64_t)((n - head) & (b - 1)) : 0;
		break;
	case GS_VIEW_BTREE: /* head: the root's height */
		if (!v->nfields || !ev_view_u(data, len, v->head_off, 8, &head))
			return false;
		break;
	case GS_VIEW_LIST:
	case GS_VIEW_TREE:
		break;
	default:
		return false;
	}
	if (w->n <= 0)
		return true;
	w->state = ev_ext_state(x, a, &w->addr);
	if (w->state != EV_EXT_OK)
		return true;
	k.max = gs_view_cap(x->caps, v);
	if (v->kind == GS_VIEW_LIST)
		walk_list(&k);
	else if (v->kind == GS_VIEW_HASH)
		walk_hash(&k, b + 1);
	else if (v->kind == GS_VIEW_RING)
		walk_ring(&k);
	else if (v->kind == GS_VIEW_DEQUE)
		walk_deque(&k);
	else if (v->kind == GS_VIEW_BTREE)
		walk_btree(&k, a, head);
	else
		walk_tree(&k, a);
	return true;
}

/* ---- the text -------------------------------------------------------- */

struct text {
	struct ev_out *o;
	unsigned depth;
	bool indexed;
};

/* One element: `[key] = value` for pairs (C++ pair's first and second, a
 * Rust (K, V) tuple's __0 and __1), a Rust set's (T, ()) its T alone,
 * `[i] = value` when indexed, else the value. */
static void put_element(void *arg, const struct gs_view *v, const struct ev_elem *e,
			uint64_t i)
{
	struct text *tx = arg;
	struct ev_shown key, val;
	int n = ev_elem_parts(v, e, &key, &val);

	if (i)
		ev_put(tx->o, ", ", 2);
	if (n == 2) {
		ev_put_char(tx->o, '[');
		ev_put_typed(tx->o, key.type, key.data, key.type->byte_size, tx->depth + 1, key.ext);
		ev_put(tx->o, "] = ", 4);
		ev_put_typed(tx->o, val.type, val.data, val.type->byte_size, tx->depth + 1, val.ext);
		return;
	}
	if (tx->indexed) {
		ev_put_char(tx->o, '[');
		ev_put_udec(tx->o, i);
		ev_put(tx->o, "] = ", 4);
	}
	ev_put_typed(tx->o, key.type, key.data, key.type->byte_size, tx->depth + 1, key.ext);
}

/* The header: gdb's "std::map with 2 elements", "empty std::__cxx11::list",
 * rust-gdb's "HashMap(size=2)"; false when nothing follows it. */
static bool put_header(struct ev_out *o, const struct gs_view *v, int64_t n)
{
	const char *name = v->name ? v->name : "?";

	switch (v->style) {
	case GS_VSTYLE_CPP_LIST:
		if (n <= 0)
			ev_put_str(o, "empty ");
		ev_put_str(o, name);
		break;
	case GS_VSTYLE_RUST_HASH:
	case GS_VSTYLE_RUST_BTREE:
	case GS_VSTYLE_RUST_DEQUE:
		ev_put_str(o, v->style == GS_VSTYLE_RUST_DEQUE ? "VecDeque" : name);
		ev_put_str(o, "(size=");
		ev_put_sdec(o, n);
		ev_put_char(o, ')');
		break;
	default:
		ev_put_str(o, name);
		ev_put_str(o, " with ");
		ev_put_sdec(o, n);
		ev_put_str(o, n == 1 ? " element" : " elements");
		break;
	}
	return n > 0;
}

bool ev_put_walked(struct ev_out *o, const struct gs_view *v, const uint8_t *data, size_t len,
		   unsigned depth, const struct ev_ext *x)
{
	/* gdb's printers number a list's and a set's elements */
	struct text tx = { .o = o, .depth = depth,
			   .indexed = v->style == GS_VSTYLE_CPP_LIST ||
				      ((v->style == GS_VSTYLE_CPP_TREE ||
					v->style == GS_VSTYLE_CPP_UNORDERED) && !v->pairs) };
	struct ev_walk w, head;

	if (!ev_walked(v))
		return false;
	/* the header first, from the value's own bytes */
	if (!ev_walk(v, data, len, &(struct ev_ext){ .caps = x->caps }, &head, NULL, NULL)) {
		ev_put(o, "...", 3);
		return true;
	}
	if (!put_header(o, v, head.n))
		return true;
	ev_put(o, " = {", 4);
	ev_walk(v, data, len, x, &w, put_element, &tx);
	if (w.state == EV_EXT_NO_ROOM) {
		ev_put_str(o, "<not read: the event has no room>");
	} else if (w.state == EV_EXT_FAILED) {
		ev_put_str(o, "<error: Cannot access memory at address ");
		ev_put_0x(o, w.addr);
		ev_put_char(o, '>');
	} else if (w.state == EV_EXT_OPTIMIZED_OUT) {
		ev_put_str(o, "<optimized out>");
	} else if ((uint64_t)w.n > w.shown) {
		ev_put(o, "...", 3);
	}
	ev_put_char(o, '}');
	return true;
}
