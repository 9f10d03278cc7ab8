/* C++ standard-library types (libstdc++, and libc++ where its members
 * match): which view a class gets, from its name and the members DWARF
 * gives it. Shown as gdb's libstdc++ printers show them. */
#include <stdio.h>
#include <string.h>

#include "views_int.h"

#define MAX_TUPLE 64

/* A template argument as gdb's printers spell it: "int", "std::string",
 * "ns::Type". */
static const char *arg_name(struct gs_dwarf *d, Dwarf_Die *t)
{
	Dwarf_Die p;
	const char *n;

	switch (dwarf_tag(t)) {
	case DW_TAG_base_type:
		n = dwv_die_name(t);
		return n ? n : "?";
	case DW_TAG_pointer_type:
		return dwv_spell(d, "%s *", vw_type_of(t, &p) ? arg_name(d, &p) : "void", NULL);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		n = dwv_qualified_name(d, t);
		if (base_has_prefix(n, "std::__cxx11::basic_string<char,") ||
		    base_has_prefix(n, "std::basic_string<char,"))
			return "std::string";
		return n;
	default:
		n = dwv_die_name(t);
		return n ? n : "?";
	}
}

/* "std::unique_ptr<int>" from the template's first argument. */
static const char *named(struct gs_dwarf *d, const char *tmpl, Dwarf_Die *die, unsigned nargs)
{
	char buf[512];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s<", tmpl);

	for (unsigned i = 0; i < nargs && len < sizeof(buf); i++) {
		Dwarf_Die a;

		if (!vw_template_arg(die, i, &a))
			break;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "",
					arg_name(d, &a));
	}
	if (len < sizeof(buf))
		snprintf(buf + len, sizeof(buf) - len, ">");
	return dwv_strdup(d, buf);
}

/* Template arguments (through packs) of die. */
static unsigned count_args(Dwarf_Die *die)
{
	Dwarf_Die a;
	unsigned n = 0;

	while (n < 64 && vw_template_arg(die, n, &a))
		n++;
	return n;
}

/* A pointer member at path whose pointee is the element type (its size
 * known): the element's DIE in *elem. */
static bool ptr_member(Dwarf_Die *s, const char *path, uint32_t *off, Dwarf_Die *elem)
{
	Dwarf_Die p;

	return vw_path(s, path, off, &p) && vw_pointee(&p, elem);
}

/* A pointer and a count: basic_string<char> (_M_dataplus._M_p,
 * _M_string_length), basic_string_view<char> (_M_str, _M_len), span<T>
 * (_M_ptr, _M_extent._M_extent_value). Text has one-byte elements. */
static const struct gs_view *counted(struct gs_dwarf *d, Dwarf_Die *die, const char *ptr_path,
				     const char *len_path, uint8_t kind, uint8_t style)
{
	Dwarf_Die el, len;
	uint32_t p, l;
	struct gs_view *v;

	if (!ptr_member(die, ptr_path, &p, &el) || !vw_size(&el) ||
	    (kind == GS_VIEW_STRING && vw_size(&el) != 1) || !vw_path(die, len_path, &l, &len) ||
	    !vw_is_uint(&len, 8) || !(v = vw_new(d, kind, style)))
		return NULL;
	v->ptr_off = p;
	v->len_off = l;
	v->elem = vw_type(d, &el);
	return v;
}

/* vector<T> (not vector<bool>): _M_impl._M_start, _M_finish,
 * _M_end_of_storage, three T *. */
static const struct gs_view *vector_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die el, el2, el3;
	uint32_t s, f, e;
	struct gs_view *v;

	if (!ptr_member(die, "_M_impl._M_start", &s, &el) ||
	    !ptr_member(die, "_M_impl._M_finish", &f, &el2) ||
	    !ptr_member(die, "_M_impl._M_end_of_storage", &e, &el3) || !vw_size(&el) ||
	    el.addr != el2.addr || el.addr != el3.addr ||
	    !(v = vw_new(d, GS_VIEW_SEQ, GS_VSTYLE_CPP_VECTOR)))
		return NULL;
	v->ptr_off = s;
	v->len_how = GS_VLEN_END;
	v->len_off = f;
	v->cap_off = e;
	v->elem = vw_type(d, &el);
	return v;
}

/* vector<bool>: _M_impl's _M_start (_M_p, _M_offset), _M_finish and
 * _M_end_of_storage, words of 64 bits. */
static const struct gs_view *bitvector_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die w, w2, w3, o;
	uint32_t s, so, f, fo, e;
	struct gs_view *v;

	if (!ptr_member(die, "_M_impl._M_start._M_p", &s, &w) || vw_size(&w) != 8 ||
	    !vw_path(die, "_M_impl._M_start._M_offset", &so, &o) || !vw_is_uint(&o, 4) ||
	    !ptr_member(die, "_M_impl._M_finish._M_p", &f, &w2) ||
	    !vw_path(die, "_M_impl._M_finish._M_offset", &fo, &o) || !vw_is_uint(&o, 4) ||
	    !ptr_member(die, "_M_impl._M_end_of_storage", &e, &w3) ||
	    !(v = vw_new(d, GS_VIEW_BITS, GS_VSTYLE_CPP_VECTOR_BOOL)))
		return NULL;
	v->ptr_off = s;
	v->len_off = f;
	v->head_off = fo;
	v->cap_off = e;
	v->elem = vw_type(d, &w);
	return v;
}

/* deque<T>: _M_impl's _M_start and _M_finish iterators (_M_cur,
 * _M_first, _M_last, _M_node), buffers of 512 bytes (one element when
 * larger, as libstdc++'s __deque_buf_size). */
static const struct gs_view *deque_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die it, el, t, node;
	uint32_t s, f, cur, first, last, nd;
	struct gs_view *v;
	uint64_t size;

	if (!vw_path(die, "_M_impl._M_start", &s, &it) || !vw_path(die, "_M_impl._M_finish", &f, &t) ||
	    it.addr != t.addr || !ptr_member(&it, "_M_cur", &cur, &el) || !(size = vw_size(&el)) ||
	    !ptr_member(&it, "_M_first", &first, &t) || !ptr_member(&it, "_M_last", &last, &t) ||
	    !ptr_member(&it, "_M_node", &nd, &node) || !vw_is_pointer(&node) ||
	    !(v = vw_new(d, GS_VIEW_DEQUE, GS_VSTYLE_CPP_DEQUE)))
		return NULL;
	v->ptr_off = s;
	v->len_off = f;
	v->head_off = cur;
	v->cap_off = first;
	v->next_off = last;
	v->right_off = nd;
	v->node_size = size < 512 ? (uint32_t)(512 / size) : 1;
	v->elem = vw_type(d, &el);
	v->name = "std::deque";
	return v;
}

/* unique_ptr<T>: its one pointer (tuple<T *, deleter>'s _M_head_impl). */
static const struct gs_view *unique_ptr_view(struct gs_dwarf *d, Dwarf_Die *die,
					     const struct gs_type *t)
{
	Dwarf_Die p;
	uint32_t off;
	struct gs_view *v;
	struct gs_view_field *f;

	if (t->byte_size != 8 || !vw_find_pointer(die, "_M_head_impl", &off, &p) || off != 0 || !(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_CPP_UNIQUE_PTR)) ||
	    !(f = dwv_alloc(d, sizeof(*f))))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->type = dwv_type_ref(d, &p, false);
	f->offset = off;
	v->fields = f;
	v->nfields = 1;
	v->name = named(d, "std::unique_ptr", die, 1);
	return v;
}

/* shared_ptr<T> and weak_ptr<T>: _M_ptr, and _M_refcount._M_pi, the
 * control block read for its _M_use_count and _M_weak_count. */
static const struct gs_view *shared_ptr_view(struct gs_dwarf *d, Dwarf_Die *die, bool weak)
{
	Dwarf_Die p, base, cnt;
	uint32_t off, pi, use, wk;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!vw_path(die, "_M_ptr", &off, &p) || !vw_is_pointer(&p) ||
	    !ptr_member(die, "_M_refcount._M_pi", &pi, &base) ||
	    !vw_path(&base, "_M_use_count", &use, &cnt) || !vw_is_uint(&cnt, 4) ||
	    !vw_path(&base, "_M_weak_count", &wk, &cnt) || !vw_is_uint(&cnt, 4) ||
	    use != 8 || wk != 12 || vw_size(&base) < 16 ||
	    !(v = vw_new(d, GS_VIEW_BOX, weak ? GS_VSTYLE_CPP_WEAK_PTR : GS_VSTYLE_CPP_SHARED_PTR)) ||
	    !(f = dwv_alloc(d, sizeof(*f))))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->type = dwv_type_ref(d, &p, false);
	f->offset = off;
	v->fields = f;
	v->nfields = 1;
	v->ptr_off = pi;
	v->elem = vw_type(d, &base);
	v->name = named(d, weak ? "std::weak_ptr" : "std::shared_ptr", die, 1);
	return v;
}

/* optional<T>: _M_payload's _M_engaged flag and _M_payload._M_value. */
static const struct gs_view *optional_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die e, val, arg;
	uint32_t eo, vo;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!vw_find(die, "_M_engaged", &eo, &e) || !vw_is_uint(&e, 1) ||
	    !vw_find(die, "_M_value", &vo, &val) || !vw_template_arg(die, 0, &arg) ||
	    vw_size(&val) != vw_size(&arg) || !(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_CPP_OPTIONAL)) ||
	    !(f = dwv_alloc(d, sizeof(*f))))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->name = "[contained value]";
	f->type = dwv_type_ref(d, &val, true);
	f->offset = vo;
	v->discr_off = eo;
	v->discr_size = 1;
	v->fields = f;
	v->nfields = 1;
	v->name = named(d, "std::optional", die, 1);
	return v;
}

/* variant<Ts...>: _M_index and the alternatives, each at _M_u's start. */
static const struct gs_view *variant_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die ix, u;
	uint32_t io, uo;
	unsigned n = count_args(die);
	struct gs_view *v;
	struct gs_view_field *f;

	if (!n || !vw_find(die, "_M_index", &io, &ix) || vw_size(&ix) < 1 || vw_size(&ix) > 4 ||
	    !vw_is_uint(&ix, vw_size(&ix)) || !vw_find(die, "_M_u", &uo, &u) ||
	    !(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_CPP_VARIANT)) ||
	    !(f = dwv_alloc(d, n * sizeof(*f))))
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		Dwarf_Die a;

		memset(&f[i], 0, sizeof(f[i]));
		if (!vw_template_arg(die, i, &a) || vw_size(&a) > vw_size(&u))
			return NULL;
		f[i].type = dwv_type_ref(d, &a, true);
		f[i].offset = uo;
		f[i].discr = i;
	}
	v->discr_off = io;
	v->discr_size = (uint8_t)vw_size(&ix);
	v->fields = f;
	v->nfields = n;
	v->name = named(d, "std::variant", die, n);
	return v;
}

/* The _Head_base<I, T> bases of a tuple, each element's offset by I. */
static bool tuple_heads(Dwarf_Die *s, uint32_t base, struct gs_view_field *f, unsigned n,
			unsigned *found, struct gs_dwarf *d, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(s, &c) != 0)
		return true;
	do {
		Dwarf_Attribute a;
		Dwarf_Word o;
		Dwarf_Die bt, h;
		unsigned idx;
		uint32_t ho;

		if (dwarf_tag(&c) != DW_TAG_inheritance || !dwarf_attr(&c, DW_AT_data_member_location, &a) ||
		    dwarf_formudata(&a, &o) != 0 || !vw_type_of(&c, &bt))
			continue;
		if (vw_name_starts(&bt, "_Head_base<")) {
			if (sscanf(dwv_die_name(&bt) + 11, "%u", &idx) != 1 || idx >= n ||
			    !vw_path(&bt, "_M_head_impl", &ho, &h))
				return false;
			f[idx].type = dwv_type_ref(d, &h, true);
			f[idx].offset = base + (uint32_t)o + ho;
			(*found)++;
		} else if (!tuple_heads(&bt, base + (uint32_t)o, f, n, found, d, depth + 1)) {
			return false;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return true;
}

/* pair<T1, T2>: first and second, shown without its empty base as gdb's
 * printers show it. */
static const struct gs_view *pair_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	static const char *const names[2] = { "first", "second" };
	struct gs_view_field *f;
	struct gs_view *v;

	if (!(f = dwv_alloc(d, 2 * sizeof(*f))))
		return NULL;
	memset(f, 0, 2 * sizeof(*f));
	for (int i = 0; i < 2; i++) {
		Dwarf_Die t;

		if (!vw_path(die, names[i], &f[i].offset, &t))
			return NULL;
		f[i].name = names[i];
		f[i].type = dwv_type_ref(d, &t, true);
	}
	if (!(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_CPP_PAIR)))
		return NULL;
	v->fields = f;
	v->nfields = 2;
	return v;
}

/* tuple<Ts...>: its elements from its _Head_base<I, T> bases (GCC may
 * leave the tuple's own parameter pack empty). */
static const struct gs_view *tuple_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	unsigned n = MAX_TUPLE, found = 0;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!(f = dwv_alloc(d, n * sizeof(*f))))
		return NULL;
	memset(f, 0, n * sizeof(*f));
	if (!tuple_heads(die, 0, f, n, &found, d, 0) || !found)
		return NULL;
	n = found;
	for (unsigned i = 0; i < n; i++)
		if (!f[i].type)
			return NULL; /* the indexes are not 0..n-1 */
	if (!(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_CPP_TUPLE)))
		return NULL;
	for (unsigned i = 0; i < n; i++)
		f[i].discr = i + 1; /* shown as [1], [2], ... */
	v->fields = f;
	v->nfields = n;
	return v;
}

/* The template's name as gdb's printers say it: "std::__cxx11::list". */
static const char *template_name(struct gs_dwarf *d, Dwarf_Die *die)
{
	const char *q = dwv_qualified_name(d, die);
	const char *lt = strchr(q, '<');

	return lt ? vw_strndup(d, q, (size_t)(lt - q)) : q;
}

/* Offset of a member of a node base type (_List_node_base, _Rb_tree_node_base...),
 * a pointer. */
static bool node_link(Dwarf_Die *base, const char *name, uint32_t *off)
{
	Dwarf_Die t;

	return vw_path(base, name, off, &t) && vw_is_pointer(&t);
}

/* The offset of a value of type v after a node base of `base` bytes. */
static uint32_t after(uint64_t base, Dwarf_Die *v)
{
	uint64_t size = vw_size(v), align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;

	return (uint32_t)((base + align - 1) / align * align);
}

static struct gs_view *list_like(struct gs_dwarf *d, uint8_t kind, uint8_t style, uint32_t ptr,
				 uint32_t len, Dwarf_Die *elem)
{
	struct gs_view *v = vw_new(d, kind, style);

	if (!v)
		return NULL;
	v->ptr_off = ptr;
	v->len_off = len;
	v->elem = vw_type(d, elem);
	return v;
}

/* std::list<T>: _M_impl._M_node (_M_next, _M_size), nodes of
 * _List_node_base then the T. */
static const struct gs_view *list_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die base, sz, el;
	uint32_t p, l, next;
	struct gs_view *v;

	if (!ptr_member(die, "_M_impl._M_node._M_next", &p, &base) ||
	    !vw_path(die, "_M_impl._M_node._M_size", &l, &sz) || !vw_is_uint(&sz, 8) ||
	    !node_link(&base, "_M_next", &next) || !vw_template_arg(die, 0, &el) || !vw_size(&el) ||
	    !(v = list_like(d, GS_VIEW_LIST, GS_VSTYLE_CPP_LIST, p, l, &el)))
		return NULL;
	v->next_off = next;
	v->value_off = after(vw_size(&base), &el);
	v->node_size = v->value_off + (uint32_t)vw_size(&el);
	v->name = template_name(d, die);
	return v;
}

/* unordered_map/set: _M_h's _M_before_begin._M_nxt and _M_element_count;
 * each node a _Hash_node_base (_M_nxt) then the value. */
static const struct gs_view *unordered_view(struct gs_dwarf *d, Dwarf_Die *die, const char *name)
{
	Dwarf_Die h, base, cnt, el;
	uint32_t ho, p, l, next;
	struct gs_view *v;

	if (!vw_path(die, "_M_h", &ho, &h) || !ptr_member(&h, "_M_before_begin._M_nxt", &p, &base) ||
	    !vw_path(&h, "_M_element_count", &l, &cnt) || !vw_is_uint(&cnt, 8) ||
	    !node_link(&base, "_M_nxt", &next) || !vw_template_arg(&h, 1, &el) || !vw_size(&el) ||
	    !(v = list_like(d, GS_VIEW_LIST, GS_VSTYLE_CPP_UNORDERED, ho + p, ho + l, &el)))
		return NULL;
	v->next_off = next;
	v->value_off = after(vw_size(&base), &el);
	v->node_size = v->value_off + (uint32_t)vw_size(&el);
	v->pairs = strstr(name, "map") != NULL;
	v->name = dwv_spell(d, "std::%s", name, NULL);
	return v;
}

/* map, set, multimap, multiset: _M_t._M_impl's header (_M_parent: the
 * root) and _M_node_count; each node a _Rb_tree_node_base (_M_left,
 * _M_right) then the value. */
static const struct gs_view *tree_view(struct gs_dwarf *d, Dwarf_Die *die, const char *name)
{
	Dwarf_Die t, base, cnt, el;
	uint32_t to, p, l, left, right;
	struct gs_view *v;

	if (!vw_path(die, "_M_t", &to, &t) || !ptr_member(&t, "_M_impl._M_header._M_parent", &p, &base) ||
	    !vw_path(&t, "_M_impl._M_node_count", &l, &cnt) || !vw_is_uint(&cnt, 8) ||
	    !node_link(&base, "_M_left", &left) || !node_link(&base, "_M_right", &right) ||
	    !vw_template_arg(&t, 1, &el) || !vw_size(&el) ||
	    !(v = list_like(d, GS_VIEW_TREE, GS_VSTYLE_CPP_TREE, to + p, to + l, &el)))
		return NULL;
	v->next_off = left;
	v->right_off = right;
	v->value_off = after(vw_size(&base), &el);
	v->node_size = v->value_off + (uint32_t)vw_size(&el);
	v->pairs = strstr(name, "map") != NULL;
	v->name = dwv_spell(d, "std::%s", name, NULL);
	return v;
}

const struct gs_view *dwv_view_cpp(struct gs_dwarf *d, Dwarf_Die *die, const struct gs_type *t)
{
	const char *n = dwv_die_name(die);
	const char *q;

	if (!n || strchr(n, '<') == NULL)
		return NULL;
	q = dwv_qualified_name(d, die);
	if (!base_has_prefix(q, "std::"))
		return NULL;
	if (base_has_prefix(n, "basic_string<char,"))
		return counted(d, die, "_M_dataplus._M_p", "_M_string_length", GS_VIEW_STRING,
			       GS_VSTYLE_CPP_STRING);
	if (base_has_prefix(n, "basic_string_view<char,"))
		return counted(d, die, "_M_str", "_M_len", GS_VIEW_STRING, GS_VSTYLE_CPP_STRING);
	if (base_has_prefix(n, "vector<bool,"))
		return bitvector_view(d, die);
	if (base_has_prefix(n, "vector<"))
		return vector_view(d, die);
	if (base_has_prefix(n, "span<")) /* a dynamic extent's (a static one has no member) */
		return counted(d, die, "_M_ptr", "_M_extent._M_extent_value", GS_VIEW_SEQ,
			       GS_VSTYLE_CPP_SPAN);
	if (base_has_prefix(n, "unique_ptr<"))
		return unique_ptr_view(d, die, t);
	if (base_has_prefix(n, "shared_ptr<"))
		return shared_ptr_view(d, die, false);
	if (base_has_prefix(n, "weak_ptr<"))
		return shared_ptr_view(d, die, true);
	if (base_has_prefix(n, "optional<"))
		return optional_view(d, die);
	if (base_has_prefix(n, "variant<"))
		return variant_view(d, die);
	if (base_has_prefix(n, "tuple<"))
		return tuple_view(d, die);
	if (base_has_prefix(n, "pair<"))
		return pair_view(d, die);
	if (base_has_prefix(n, "deque<"))
		return deque_view(d, die);
	if (base_has_prefix(n, "list<"))
		return list_view(d, die);
	if (base_has_prefix(n, "unordered_map<") || base_has_prefix(n, "unordered_set<") ||
	    base_has_prefix(n, "unordered_multimap<") || base_has_prefix(n, "unordered_multiset<"))
		return unordered_view(d, die, vw_strndup(d, n, (size_t)(strchr(n, '<') - n)));
	if (base_has_prefix(n, "map<") || base_has_prefix(n, "set<") ||
	    base_has_prefix(n, "multimap<") || base_has_prefix(n, "multiset<"))
		return tree_view(d, die, vw_strndup(d, n, (size_t)(strchr(n, '<') - n)));
	return NULL;
}
