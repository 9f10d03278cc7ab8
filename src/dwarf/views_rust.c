/* Rust types: which view a struct gets, from its path and the members
 * DWARF gives it, across rustc's layouts (Vec's buffer is RawVec{ptr, cap}
 * in older compilers and RawVec{inner: RawVecInner{ptr: Unique<u8>, cap:
 * Cap}} in newer ones: members are followed by name, never by version).
 * Enums are read from DW_TAG_variant_part. Shown as rust-gdb shows them. */
#include <stdio.h>
#include <string.h>

#include "views_int.h"

#define MAX_VARIANTS 256

/* Through one-member wrappers (Unique, NonNull, Cell, UnsafeCell, Cap,
 * AtomicUsize...) down to a pointer or an integer: the offset of what is
 * there, added to *off. */
static bool unwrap(Dwarf_Die *t, uint32_t *off, bool want_pointer)
{
	for (int i = 0; i < 8; i++) {
		Dwarf_Die c, inner;
		uint32_t o = 0;
		int n = 0;

		if (want_pointer ? vw_is_pointer(t) : dwarf_tag(t) == DW_TAG_base_type)
			return true;
		if (dwarf_tag(t) != DW_TAG_structure_type || dwarf_child(t, &c) != 0)
			return false;
		do
			if (dwarf_tag(&c) == DW_TAG_member && vw_size(t) &&
			    vw_type_of(&c, &inner) && vw_size(&inner) == vw_size(t)) {
				Dwarf_Attribute a;
				Dwarf_Word w = 0;

				if (dwarf_attr(&c, DW_AT_data_member_location, &a) &&
				    dwarf_formudata(&a, &w) != 0)
					return false;
				o = (uint32_t)w;
				*t = inner;
				n++;
				break;
			}
		while (dwarf_siblingof(&c, &c) == 0);
		if (!n)
			return false;
		*off += o;
	}
	return false;
}

/* Vec<T>: its buffer's pointer, its len, its capacity. */
static bool vec_parts(Dwarf_Die *die, uint32_t *ptr, uint32_t *len, uint32_t *cap, Dwarf_Die *elem)
{
	Dwarf_Die buf, p, l, c;
	uint32_t bo, po, co;

	if (!vw_path(die, "len", len, &l) || !vw_is_uint(&l, 8) || !vw_path(die, "buf", &bo, &buf) ||
	    !vw_template_arg(die, 0, elem) || !vw_size(elem))
		return false;
	if (!vw_find(&buf, "ptr", &po, &p) || !unwrap(&p, &po, true))
		return false;
	if (!vw_find(&buf, "cap", &co, &c) || !unwrap(&c, &co, false) || vw_size(&c) != 8)
		return false;
	*ptr = bo + po;
	*cap = bo + co;
	return true;
}

static const struct gs_view *vec_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die el;
	uint32_t p, l, c;
	struct gs_view *v;

	if (!vec_parts(die, &p, &l, &c, &el) || !(v = vw_new(d, GS_VIEW_SEQ, GS_VSTYLE_RUST_VEC)))
		return NULL;
	v->ptr_off = p;
	v->len_off = l;
	v->cap_off = c;
	v->elem = vw_type(d, &el);
	return v;
}

/* String, OsString (and their Buf): one member after another down to a
 * Vec<u8>. */
static const struct gs_view *string_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die t = *die, el;
	uint32_t base = 0, p, l, c;
	struct gs_view *v;

	for (int i = 0; i < 4 && !vw_name_starts(&t, "Vec<"); i++) {
		Dwarf_Die m;
		uint32_t o;

		if (!vw_path(&t, "vec", &o, &m) && !vw_path(&t, "inner", &o, &m))
			return NULL;
		base += o;
		t = m;
	}
	if (!vw_name_starts(&t, "Vec<") || !vec_parts(&t, &p, &l, &c, &el) || vw_size(&el) != 1 ||
	    !(v = vw_new(d, GS_VIEW_STRING, GS_VSTYLE_RUST_STR)))
		return NULL;
	v->ptr_off = base + p;
	v->len_off = base + l;
	v->elem = vw_type(d, &el);
	return v;
}

/* &str, &[T], Box<str>, Box<[T]>: data_ptr and length. */
static const struct gs_view *slice_view(struct gs_dwarf *d, Dwarf_Die *die, const char *name)
{
	Dwarf_Die p, el, l;
	uint32_t po, lo;
	bool str;
	struct gs_view *v;

	if (!vw_path(die, "data_ptr", &po, &p) || !vw_pointee(&p, &el) ||
	    !vw_path(die, "length", &lo, &l) || !vw_is_uint(&l, 8) || !vw_size(&el))
		return NULL;
	str = strstr(name, "str") && vw_size(&el) == 1;
	if (!(v = vw_new(d, str ? GS_VIEW_STRING : GS_VIEW_SEQ,
			 str ? GS_VSTYLE_RUST_STR : GS_VSTYLE_RUST_SLICE)))
		return NULL;
	v->ptr_off = po;
	v->len_off = lo;
	v->elem = vw_type(d, &el);
	v->name = dwv_strdup(d, name);
	return v;
}

/* A count of Rc's or Arc's inner block: strong or weak, through Cell or
 * AtomicUsize to the integer. */
static bool count_field(struct gs_dwarf *d, Dwarf_Die *inner, const char *name,
			struct gs_view_field *f)
{
	Dwarf_Die t;
	uint32_t o;

	if (!vw_path(inner, name, &o, &t) || !unwrap(&t, &o, false) || !vw_is_uint(&t, 8))
		return false;
	f->name = name;
	f->type = dwv_type_ref(d, &t, true);
	f->offset = o;
	return true;
}

/* Rc<T>, Arc<T>: the pointer to RcBox/RcInner/ArcInner {strong, weak,
 * value or data}, read whole. */
static const struct gs_view *rc_view(struct gs_dwarf *d, Dwarf_Die *die, bool arc)
{
	Dwarf_Die p, inner, val;
	uint32_t po, vo;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!vw_path(die, "ptr", &po, &p) || !unwrap(&p, &po, true) || !vw_pointee(&p, &inner) ||
	    !(f = dwv_alloc(d, 3 * sizeof(*f))))
		return NULL;
	memset(f, 0, 3 * sizeof(*f));
	if ((!vw_path(&inner, "value", &vo, &val) && !vw_path(&inner, "data", &vo, &val)) ||
	    !count_field(d, &inner, "strong", &f[1]) || !count_field(d, &inner, "weak", &f[2]) ||
	    !(v = vw_new(d, GS_VIEW_BOX, arc ? GS_VSTYLE_RUST_ARC : GS_VSTYLE_RUST_RC)))
		return NULL;
	f[0].name = "value";
	f[0].type = vw_type(d, &val);
	f[0].offset = vo;
	v->ptr_off = po;
	v->elem = vw_type(d, &inner);
	v->fields = f;
	v->nfields = 3;
	return v;
}

/* Cell<T> {value: UnsafeCell<T>{value}}, RefCell<T> {borrow, value}. */
static const struct gs_view *cell_view(struct gs_dwarf *d, Dwarf_Die *die, bool ref)
{
	Dwarf_Die val, b;
	uint32_t vo, bo;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!vw_path(die, "value.value", &vo, &val) || !(f = dwv_alloc(d, 2 * sizeof(*f))))
		return NULL;
	memset(f, 0, 2 * sizeof(*f));
	f[0].name = "value";
	f[0].type = dwv_type_ref(d, &val, true);
	f[0].offset = vo;
	if (ref) {
		if (!vw_path(die, "borrow", &bo, &b) || !unwrap(&b, &bo, false) || !vw_is_uint(&b, 8))
			return NULL;
		f[1].name = "borrow";
		f[1].type = dwv_type_ref(d, &b, true);
		f[1].offset = bo;
	}
	if (!(v = vw_new(d, GS_VIEW_INLINE, ref ? GS_VSTYLE_RUST_REFCELL : GS_VSTYLE_RUST_CELL)))
		return NULL;
	v->fields = f;
	v->nfields = ref ? 2 : 1;
	return v;
}

/* NonZero<T> (newer compilers): the integer inside. */
static const struct gs_view *nonzero_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die t = *die;
	uint32_t o = 0;
	struct gs_view *v;
	struct gs_view_field *f;

	if (!unwrap(&t, &o, false) || !(f = dwv_alloc(d, sizeof(*f))) ||
	    !(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_RUST_NONZERO)))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->type = dwv_type_ref(d, &t, true);
	f->offset = o;
	v->fields = f;
	v->nfields = 1;
	return v;
}

/* HashMap, HashSet: hashbrown's RawTable<T> (T the (K, V) tuple) and
 * its RawTableInner's bucket_mask, ctrl and items. */
static const struct gs_view *hash_view(struct gs_dwarf *d, Dwarf_Die *die, bool set)
{
	Dwarf_Die raw, el, t;
	uint32_t ro, mo, co, io;
	struct gs_view *v;

	if (!vw_find(die, "table", &ro, &raw) || !vw_template_arg(&raw, 0, &el) || !vw_size(&el) ||
	    !vw_find(&raw, "bucket_mask", &mo, &t) || !vw_is_uint(&t, 8) ||
	    !vw_find(&raw, "items", &io, &t) || !vw_is_uint(&t, 8) ||
	    !vw_find(&raw, "ctrl", &co, &t) || !unwrap(&t, &co, true) ||
	    !(v = vw_new(d, GS_VIEW_HASH, GS_VSTYLE_RUST_HASH)))
		return NULL;
	v->ptr_off = ro + co;
	v->cap_off = ro + mo;
	v->len_off = ro + io;
	v->elem = vw_type(d, &el);
	v->pairs = !set;
	v->name = set ? "HashSet" : "HashMap";
	return v;
}

/* VecDeque<T>: {head, len, buf} in newer compilers, {tail, head, buf}
 * (len = (head - tail) & (cap - 1)) in older ones. */
static const struct gs_view *deque_view(struct gs_dwarf *d, Dwarf_Die *die)
{
	Dwarf_Die buf, p, c, el, t, t2;
	uint32_t bo, po, co, ho, lo;
	bool old = vw_path(die, "tail", &ho, &t);
	struct gs_view *v;

	if (!vw_path(die, "buf", &bo, &buf) || !vw_template_arg(die, 0, &el) || !vw_size(&el) ||
	    !vw_find(&buf, "ptr", &po, &p) || !unwrap(&p, &po, true) ||
	    !vw_find(&buf, "cap", &co, &c) || !unwrap(&c, &co, false) || vw_size(&c) != 8)
		return NULL;
	if (old ? !vw_path(die, "head", &lo, &t2) :
	    (!vw_path(die, "head", &ho, &t) || !vw_path(die, "len", &lo, &t2)))
		return NULL;
	if (!vw_is_uint(&t, 8) || !vw_is_uint(&t2, 8) ||
	    !(v = vw_new(d, GS_VIEW_RING, GS_VSTYLE_RUST_DEQUE)))
		return NULL;
	v->ptr_off = bo + po;
	v->cap_off = bo + co;
	v->head_off = ho;
	v->len_off = lo;
	v->len_how = old ? GS_VLEN_MASKED : GS_VLEN_FIELD;
	v->elem = vw_type(d, &el);
	return v;
}

static bool variant_part(Dwarf_Die *die, Dwarf_Die *out);

/* An Option's Some payload (its __0): offset and type. */
static bool some_payload(Dwarf_Die *opt, uint32_t *off, Dwarf_Die *out)
{
	Dwarf_Die part, c, m, st;

	if (!variant_part(opt, &part) || dwarf_child(&part, &c) != 0)
		return false;
	do {
		uint32_t mo = 0, po = 0;

		if (dwarf_tag(&c) != DW_TAG_variant || dwarf_child(&c, &m) != 0)
			continue;
		do {
			const char *n = dwv_die_name(&m);
			Dwarf_Attribute a;
			Dwarf_Word w = 0;

			if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, "Some") != 0 ||
			    !vw_type_of(&m, &st))
				continue;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) != 0)
				return false;
			mo = (uint32_t)w;
			if (!vw_path(&st, "__0", &po, out))
				return false;
			*off = mo + po;
			return true;
		} while (dwarf_siblingof(&m, &m) == 0);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* BTreeMap<K, V>: root (an Option<NodeRef> whose None is a NULL node)
 * with height and node, length; LeafNode's len, keys and vals arrays;
 * an internal node is the leaf and its edges after it. */
static const struct gs_view *btree_view(struct gs_dwarf *d, Dwarf_Die *die, bool set)
{
	Dwarf_Die m, opt, nref, t, leaf, keys, vals, kt, vt, karr;
	uint32_t base = 0, ro, po, ho, no, lo, nlo, ko, vo;
	struct gs_view *v;
	struct gs_view_field *f;
	uint64_t nkeys = 0, leaf_size, edges;
	Dwarf_Die c;

	if (set) {
		if (!vw_path(die, "map", &base, &m))
			return NULL;
		die = &m;
	}
	if (!vw_path(die, "root", &ro, &opt) || !some_payload(&opt, &po, &nref) || po != 0 ||
	    vw_size(&opt) != vw_size(&nref) || !vw_path(&nref, "height", &ho, &t) ||
	    !vw_is_uint(&t, 8) || !vw_path(&nref, "node", &no, &t) || !unwrap(&t, &no, true) ||
	    !vw_pointee(&t, &leaf) || !vw_path(die, "length", &lo, &t) || !vw_is_uint(&t, 8) ||
	    !vw_path(&leaf, "len", &nlo, &t) || !vw_is_uint(&t, 2) ||
	    !vw_path(&leaf, "keys", &ko, &keys) || dwarf_tag(&keys) != DW_TAG_array_type ||
	    !vw_path(&leaf, "vals", &vo, &vals) || dwarf_tag(&vals) != DW_TAG_array_type ||
	    !vw_template_arg(die, 0, &kt) || !vw_template_arg(die, 1, &vt) || !vw_size(&kt) ||
	    !vw_type_of(&keys, &karr) || vw_size(&karr) != vw_size(&kt))
		return NULL;
	if (dwarf_child(&keys, &c) == 0 && dwarf_tag(&c) == DW_TAG_subrange_type) {
		Dwarf_Attribute a;
		Dwarf_Word w;

		if (dwarf_attr(&c, DW_AT_count, &a) && dwarf_formudata(&a, &w) == 0)
			nkeys = w;
		else if (dwarf_attr(&c, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &w) == 0)
			nkeys = w + 1;
	}
	leaf_size = vw_size(&leaf);
	edges = (leaf_size + 7) / 8 * 8;
	if (!nkeys || nkeys > 64 || !leaf_size || !(f = dwv_alloc(d, sizeof(*f))) ||
	    !(v = vw_new(d, GS_VIEW_BTREE, GS_VSTYLE_RUST_BTREE)))
		return NULL;
	memset(f, 0, sizeof(*f));
	f->type = vw_type(d, &vt);
	v->fields = f;
	v->nfields = 1;
	v->ptr_off = base + ro + no;
	v->head_off = base + ro + ho;
	v->len_off = base + lo;
	v->cap_off = nlo;
	v->next_off = ko;
	v->value_off = vo;
	v->right_off = (uint32_t)edges;
	v->node_size = (uint32_t)(edges + (nkeys + 1) * 8);
	v->node_keys = (uint8_t)nkeys;
	v->elem = vw_type(d, &kt);
	v->pairs = !set;
	v->name = set ? "BTreeSet" : "BTreeMap";
	return v;
}

static bool attr_sdata(Dwarf_Die *die, unsigned name, int64_t *out)
{
	Dwarf_Attribute a;
	Dwarf_Word u;

	if (!dwarf_attr(die, name, &a))
		return false;
	if (a.form == DW_FORM_sdata || a.form == DW_FORM_implicit_const) {
		Dwarf_Sword s;

		if (dwarf_formsdata(&a, &s) != 0)
			return false;
		*out = s;
		return true;
	}
	if (dwarf_formudata(&a, &u) != 0)
		return false;
	*out = (int64_t)u;
	return true;
}

/* An enum: DW_TAG_variant_part with its discriminant member (DW_AT_discr;
 * none for a one-variant enum), each DW_TAG_variant one member whose type
 * is the variant's struct. */
static const struct gs_view *enum_view(struct gs_dwarf *d, Dwarf_Die *die, Dwarf_Die *part)
{
	Dwarf_Die c, dm, dt;
	Dwarf_Attribute a;
	struct gs_view_field *f;
	struct gs_view *v;
	uint32_t n = 0, dofs = 0;
	uint8_t dsize = 0;

	if (dwarf_attr(part, DW_AT_discr, &a)) {
		Dwarf_Word o = 0;
		Dwarf_Attribute la;

		if (!dwarf_formref_die(&a, &dm) || !vw_type_of(&dm, &dt) ||
		    !vw_is_uint(&dt, vw_size(&dt)) || vw_size(&dt) > 8 ||
		    (dwarf_attr(&dm, DW_AT_data_member_location, &la) && dwarf_formudata(&la, &o) != 0))
			return NULL;
		dofs = (uint32_t)o;
		dsize = (uint8_t)vw_size(&dt);
	}
	if (!(f = dwv_alloc(d, MAX_VARIANTS * sizeof(*f))) || dwarf_child(part, &c) != 0)
		return NULL;
	do {
		Dwarf_Die m, mt;
		Dwarf_Attribute la;
		Dwarf_Word o = 0;

		if (dwarf_tag(&c) != DW_TAG_variant)
			continue;
		if (n == MAX_VARIANTS || dwarf_child(&c, &m) != 0)
			return NULL;
		while (dwarf_tag(&m) != DW_TAG_member)
			if (dwarf_siblingof(&m, &m) != 0)
				return NULL;
		if (!vw_type_of(&m, &mt) ||
		    (dwarf_attr(&m, DW_AT_data_member_location, &la) && dwarf_formudata(&la, &o) != 0))
			return NULL;
		memset(&f[n], 0, sizeof(f[n]));
		f[n].name = dwv_die_name(&m);
		f[n].type = dwv_type_ref(d, &mt, true);
		f[n].offset = (uint32_t)o;
		f[n].is_default = !attr_sdata(&c, DW_AT_discr_value, &f[n].discr);
		if (dwarf_hasattr(&c, DW_AT_discr_list))
			return NULL; /* ranges: not produced by rustc */
		n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	if (!n || (!dsize && n != 1) || !(v = vw_new(d, GS_VIEW_INLINE, GS_VSTYLE_RUST_ENUM)))
		return NULL;
	v->discr_off = dofs;
	v->discr_size = dsize;
	v->fields = f;
	v->nfields = n;
	v->name = dwv_qualified_name(d, die);
	return v;
}

static bool variant_part(Dwarf_Die *die, Dwarf_Die *out)
{
	if (dwarf_child(die, out) != 0)
		return false;
	do
		if (dwarf_tag(out) == DW_TAG_variant_part)
			return true;
	while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* Any other struct: shown with its path, {x: 1} or (1, 2). */
static const struct gs_view *struct_view(struct gs_dwarf *d, Dwarf_Die *die, const char *name)
{
	struct gs_view *v = vw_new(d, GS_VIEW_INLINE, name[0] == '(' ? GS_VSTYLE_RUST_TUPLE :
				   GS_VSTYLE_RUST_STRUCT);

	if (v)
		v->name = name[0] == '(' ? NULL : dwv_qualified_name(d, die);
	return v;
}

const struct gs_view *dwv_view_rust(struct gs_dwarf *d, Dwarf_Die *die, const struct gs_type *t)
{
	const char *n = dwv_die_name(die);
	const char *q;
	Dwarf_Die part, dp;
	const struct gs_view *v = NULL;
	uint32_t po;

	(void)t;
	if (!n || dwarf_tag(die) == DW_TAG_union_type)
		return NULL;
	if (variant_part(die, &part))
		return enum_view(d, die, &part);
	/* fat pointers: &str, &[T], Box<str>, Box<[T]>, *const [T] */
	if (vw_path(die, "data_ptr", &po, &dp) && vw_path(die, "length", &po, &dp))
		v = slice_view(d, die, n);
	else if (n[0] == '(')
		return struct_view(d, die, n);
	q = v ? NULL : dwv_qualified_name(d, die);
	if (v)
		return v;
	if (base_has_prefix(q, "alloc::vec::Vec<"))
		v = vec_view(d, die);
	else if (!strcmp(q, "alloc::string::String") || !strcmp(q, "std::ffi::os_str::OsString") ||
		 !strcmp(q, "std::sys::unix::os_str::Buf") ||
		 base_has_prefix(q, "std::sys::os_str::"))
		v = string_view(d, die);
	else if (base_has_prefix(q, "alloc::rc::Rc<"))
		v = rc_view(d, die, false);
	else if (base_has_prefix(q, "alloc::sync::Arc<"))
		v = rc_view(d, die, true);
	else if (base_has_prefix(q, "core::cell::Cell<"))
		v = cell_view(d, die, false);
	else if (base_has_prefix(q, "core::cell::RefCell<"))
		v = cell_view(d, die, true);
	else if (base_has_prefix(q, "core::num::nonzero::NonZero<"))
		v = nonzero_view(d, die);
	else if (base_has_prefix(q, "std::collections::hash::map::HashMap<"))
		v = hash_view(d, die, false);
	else if (base_has_prefix(q, "std::collections::hash::set::HashSet<"))
		v = hash_view(d, die, true);
	else if (base_has_prefix(q, "alloc::collections::vec_deque::VecDeque<"))
		v = deque_view(d, die);
	else if (base_has_prefix(q, "alloc::collections::btree::map::BTreeMap<"))
		v = btree_view(d, die, false);
	else if (base_has_prefix(q, "alloc::collections::btree::set::BTreeSet<"))
		v = btree_view(d, die, true);
	return v ? v : struct_view(d, die, q);
}
