/* Type DIEs -> gs_type trees, memoized by DIE so a type shared by many
 * variables (and a struct reaching itself through a pointer) is built once.
 * typedef and cv-qualified types (types_alias.c) are copies of the type
 * they name, with their own spelling. A type that holds itself by value
 * (hostile DWARF: a typedef cycle, an array or struct of itself) is marked
 * cyclic, nesting past MAX_TYPE_DEPTH too deep: the renderer says so. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dwv_int.h"

/* Types nested in types (members, elements, pointees...) are built by
 * recursion, 64 levels at most; typedef and cv chains do not count (they
 * are followed in a loop, types_alias.c). */
#define MAX_TYPE_DEPTH 64
#define NAME_MAX_LEN 256

static struct gs_type unknown_type = {
	.kind = GS_TYPE_UNKNOWN, .name = "?",
};

static struct gs_type void_type = {
	.kind = GS_TYPE_UNKNOWN, .name = "void",
};

static struct gs_type cyclic_type = {
	.kind = GS_TYPE_UNKNOWN, .name = "<cyclic type>", .flags = GS_TYPEF_CYCLIC,
};

static struct gs_type too_deep_type = {
	.kind = GS_TYPE_UNKNOWN, .name = "<type too deep>", .flags = GS_TYPEF_TOO_DEEP,
};

const struct gs_type *dwv_void_type(void)
{
	return &void_type;
}

const struct gs_type *dwv_cyclic_type(void)
{
	return &cyclic_type;
}

const struct gs_type *dwv_too_deep_type(void)
{
	return &too_deep_type;
}

bool dwv_type_building(const struct gs_dwarf *d, const struct gs_type *t)
{
	return dwv_map_get(&d->building, t) != NULL;
}

void dwv_type_built(struct gs_dwarf *d, const struct gs_type *t, bool building)
{
	dwv_map_put(&d->building, t, building ? (void *)t : NULL);
}

/* "... *" or "...*" when the spelling already ends in '*'. */
/* "T *", "T &", "T &&"; "char **", "char *&" as C++ spells them. */
static const char *pointer_name(struct gs_dwarf *d, const char *to, const char *sigil)
{
	size_t n = strlen(to);

	return dwv_spell(d, n && (to[n - 1] == '*' || to[n - 1] == '&') ? "%s%s" : "%s %s", to,
			 sigil);
}

static uint64_t attr_udata(Dwarf_Die *die, unsigned name, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr_integrate(die, name, &a) || dwarf_formudata(&a, &v) != 0)
		return dflt;
	return v;
}

const char *dwv_spell(struct gs_dwarf *d, const char *fmt, const char *a, const char *b)
{
	char buf[NAME_MAX_LEN];

	snprintf(buf, sizeof(buf), fmt, a ? a : "", b ? b : "");
	return dwv_strdup(d, buf);
}

static uint8_t base_kind(unsigned enc, uint64_t size, uint8_t *flags)
{
	static const uint8_t u[9] = { 0, GS_TYPE_U8, GS_TYPE_U16, 0, GS_TYPE_U32, 0, 0, 0,
				      GS_TYPE_U64 };
	static const uint8_t s[9] = { 0, GS_TYPE_I8, GS_TYPE_I16, 0, GS_TYPE_I32, 0, 0, 0,
				      GS_TYPE_I64 };

	switch (enc) {
	case DW_ATE_boolean:
		return size <= 8 ? GS_TYPE_BOOL : GS_TYPE_UNKNOWN;
	case DW_ATE_float:
		return size == 4 ? GS_TYPE_F32 : size == 8 ? GS_TYPE_F64 : GS_TYPE_UNKNOWN;
	case DW_ATE_signed_char:
		*flags |= GS_TYPEF_SIGNED | GS_TYPEF_CHAR;
		return size == 1 ? GS_TYPE_CHAR : size <= 8 ? s[size] : GS_TYPE_UNKNOWN;
	case DW_ATE_unsigned_char:
		*flags |= GS_TYPEF_CHAR;
		return size == 1 ? GS_TYPE_CHAR : size <= 8 ? u[size] : GS_TYPE_UNKNOWN;
	case DW_ATE_signed:
		*flags |= GS_TYPEF_SIGNED;
		return size <= 8 && s[size] ? s[size] : GS_TYPE_UNKNOWN;
	case DW_ATE_unsigned:
	case DW_ATE_UTF:
		return size <= 8 && u[size] ? u[size] : GS_TYPE_UNKNOWN;
	default:
		return GS_TYPE_UNKNOWN;
	}
}

static void set_size(struct gs_type *t, uint64_t size)
{
	t->byte_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	t->size = size >= 1 && size <= 8 ? (uint8_t)size : 0;
}

/* The referenced type DIE, or false for void. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

/* Bit field placement, little-endian: DWARF 4+ DW_AT_data_bit_offset, or
 * DWARF 2-3 DW_AT_bit_offset counted from the storage unit's top bit. */
static void member_place(Dwarf_Die *m, struct gs_type_member *out)
{
	Dwarf_Attribute a;
	Dwarf_Word off = 0, bits = attr_udata(m, DW_AT_bit_size, 0);
	uint64_t total;

	if (dwarf_attr(m, DW_AT_data_member_location, &a)) {
		if (dwarf_formudata(&a, &off) != 0) {
			Dwarf_Op *ops;
			size_t n;

			off = 0;
			if (dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
			    ops[0].atom == DW_OP_plus_uconst)
				off = ops[0].number;
		}
	}
	if (!bits) {
		out->offset = (uint32_t)off;
		return;
	}
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a)) {
		total = attr_udata(m, DW_AT_data_bit_offset, 0);
	} else {
		uint64_t unit = attr_udata(m, DW_AT_byte_size, 0);
		uint64_t from_top = attr_udata(m, DW_AT_bit_offset, 0);

		if (!unit) {
			Dwarf_Die t;

			unit = type_of(m, &t) ? attr_udata(&t, DW_AT_byte_size, 4) : 4;
		}
		total = off * 8 + unit * 8 - from_top - bits;
	}
	out->offset = (uint32_t)(total / 8);
	out->bit_offset = (uint16_t)(total % 8);
	out->bit_size = (uint16_t)bits;
}

/* A C++ base class at a constant offset (a virtual base's offset is a
 * location expression read from the vtable: not followed). */
static bool is_base(Dwarf_Die *c)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_tag(c) == DW_TAG_inheritance &&
	       dwarf_attr(c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &w) == 0;
}

static void aggregate(struct gs_dwarf *d, Dwarf_Die *die, struct gs_type *t)
{
	Dwarf_Die c;
	uint32_t n = 0, i = 0;
	struct gs_type_member *mv;

	if (dwarf_child(die, &c) != 0)
		return;
	do
		n += dwarf_tag(&c) == DW_TAG_member || is_base(&c);
	while (dwarf_siblingof(&c, &c) == 0);
	if (!n || !(mv = dwv_alloc(d, n * sizeof(*mv))))
		return;
	dwarf_child(die, &c);
	do {
		Dwarf_Die mt;
		const char *name;

		if ((dwarf_tag(&c) != DW_TAG_member && !is_base(&c)) || i == n)
			continue;
		name = dwv_die_name(&c);
		mv[i].name = name ? dwv_strdup(d, name) : NULL;
		/* a C++ base class: a member named as gdb shows it, <ns::Base> */
		if (dwarf_tag(&c) == DW_TAG_inheritance)
			mv[i].name = type_of(&c, &mt) ? dwv_spell(d, "<%s>", dwv_qualified_name(d, &mt),
								   NULL) : "<?>";
		/* a static member (C++) is not stored in the object */
		mv[i].type = type_of(&c, &mt) ? dwv_type_ref(d, &mt, !dwarf_hasattr(&c,
							    DW_AT_declaration)) : &void_type;
		member_place(&c, &mv[i]);
		i++;
	} while (dwarf_siblingof(&c, &c) == 0);
	t->members = mv;
	t->nmembers = i;
}

static void enumeration(struct gs_dwarf *d, Dwarf_Die *die, struct gs_type *t)
{
	Dwarf_Die c, ut;
	uint32_t n = 0, i = 0;
	struct gs_type_enumerator *ev;

	if (type_of(die, &ut)) {
		const struct gs_type *u = dwv_type(d, &ut);

		t->flags |= u->flags & GS_TYPEF_SIGNED;
	}
	if (dwarf_child(die, &c) != 0)
		return;
	do
		n += dwarf_tag(&c) == DW_TAG_enumerator;
	while (dwarf_siblingof(&c, &c) == 0);
	if (!n || !(ev = dwv_alloc(d, n * sizeof(*ev))))
		return;
	dwarf_child(die, &c);
	do {
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		Dwarf_Word uv;
		const char *name = dwv_die_name(&c);

		if (dwarf_tag(&c) != DW_TAG_enumerator || i == n || !name ||
		    !dwarf_attr(&c, DW_AT_const_value, &a))
			continue;
		if (a.form == DW_FORM_sdata || a.form == DW_FORM_implicit_const) {
			if (dwarf_formsdata(&a, &sv) != 0)
				continue;
			ev[i].value = sv;
		} else {
			if (dwarf_formudata(&a, &uv) != 0)
				continue;
			ev[i].value = (int64_t)uv;
			/* A signed enum's data1/2/4 negative values come zero-extended. */
			if ((t->flags & GS_TYPEF_SIGNED) && t->byte_size && t->byte_size < 8 &&
			    (uv >> (8 * t->byte_size - 1)) & 1)
				ev[i].value = (int64_t)(uv | ~0ull << (8 * t->byte_size));
		}
		ev[i++].name = dwv_strdup(d, name);
	} while (dwarf_siblingof(&c, &c) == 0);
	t->enumerators = ev;
	t->nenumerators = i;
}

/* Array dimensions outermost first: int a[2][3] is an array of 2 arrays of 3. */
static void array(struct gs_dwarf *d, Dwarf_Die *die, struct gs_type *t)
{
	Dwarf_Die c, et;
	uint64_t counts[8];
	int ndims = 0;
	const struct gs_type *elem = type_of(die, &et) ? dwv_type(d, &et) : &unknown_type;

	if (elem->flags & (GS_TYPEF_CYCLIC | GS_TYPEF_TOO_DEEP)) {
		/* an array of itself (or of a type that is): no size, no elements */
		*t = *elem;
		return;
	}
	char dims[NAME_MAX_LEN] = "";

	if (dwarf_child(die, &c) == 0) {
		do {
			Dwarf_Attribute a;
			Dwarf_Word v;
			uint64_t count = 0;

			if (dwarf_tag(&c) != DW_TAG_subrange_type || ndims == 8)
				continue;
			if (dwarf_attr(&c, DW_AT_count, &a) && dwarf_formudata(&a, &v) == 0)
				count = v;
			else if (dwarf_attr(&c, DW_AT_upper_bound, &a) &&
				 dwarf_formudata(&a, &v) == 0 && v != (Dwarf_Word)-1)
				count = v + 1 - attr_udata(&c, DW_AT_lower_bound, 0);
			counts[ndims++] = count;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!ndims)
		counts[ndims++] = 0;
	/* Inner dimensions become their own nodes, innermost built first. */
	const struct gs_type *scalar = elem;
	char sub[NAME_MAX_LEN + 32];

	for (int i = ndims - 1; i >= 0; i--) {
		struct gs_type *inner = i ? dwv_alloc(d, sizeof(*inner)) : t;

		if (!inner)
			break;
		snprintf(sub, sizeof(sub), "[%llu]%s", (unsigned long long)counts[i], dims);
		memcpy(dims, sub, sizeof(dims));
		dims[sizeof(dims) - 1] = '\0';
		inner->name = dwv_spell(d, "%s %s", scalar->name, dims);
		if (!i)
			break;
		inner->kind = GS_TYPE_ARRAY;
		inner->target = elem;
		inner->count = (uint32_t)counts[i];
		inner->flags = elem->flags & GS_TYPEF_CHAR;
		set_size(inner, (uint64_t)elem->byte_size * counts[i]);
		elem = inner;
	}
	t->target = elem;
	t->count = (uint32_t)counts[0];
	t->flags = elem->flags & GS_TYPEF_CHAR;
	set_size(t, attr_udata(die, DW_AT_byte_size, (uint64_t)elem->byte_size * counts[0]));
}

/* "ret (*)(args)" for a pointer to a subroutine type. */
static const char *function_pointer_name(struct gs_dwarf *d, Dwarf_Die *fn)
{
	char args[NAME_MAX_LEN] = "";
	size_t len = 0;
	Dwarf_Die c, rt;
	const char *ret = type_of(fn, &rt) ? dwv_type_ref(d, &rt, false)->name : "void";

	if (dwarf_child(fn, &c) == 0) {
		do {
			Dwarf_Die pt;
			const char *pn;

			if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
				pn = "...";
			else if (dwarf_tag(&c) == DW_TAG_formal_parameter)
				pn = type_of(&c, &pt) ? dwv_type_ref(d, &pt, false)->name : "?";
			else
				continue;
			len += (size_t)snprintf(args + len, len < sizeof(args) ? sizeof(args) - len : 0,
						"%s%s", len ? ", " : "", pn);
			if (len >= sizeof(args))
				len = sizeof(args) - 1;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!len && attr_udata(fn, DW_AT_prototyped, 0))
		snprintf(args, sizeof(args), "void");
	return dwv_spell(d, "%s (*)(%s)", ret, args);
}

static void pointer(struct gs_dwarf *d, Dwarf_Die *die, int tag, struct gs_type *t)
{
	Dwarf_Die target;
	const struct gs_type *tt;
	struct gs_view *ref;

	t->kind = GS_TYPE_POINTER;
	set_size(t, attr_udata(die, DW_AT_byte_size, 8));
	if (!type_of(die, &target)) {
		t->name = "void *";
		return;
	}
	if (dwarf_tag(&target) == DW_TAG_subroutine_type) {
		t->flags |= GS_TYPEF_FUNCTION;
		t->name = function_pointer_name(d, &target);
		return;
	}
	tt = dwv_type_ref(d, &target, false); /* struct node { struct node *next; } */
	t->target = tt == &void_type ? NULL : tt;
	if (tag == DW_TAG_pointer_type || !t->target) {
		t->name = pointer_name(d, tt->name, "*");
		return;
	}
	/* A C++ reference is an address in DWARF; gdb shows and uses the
	 * object it refers to: the code generator follows it where it is a
	 * value of its own, its view reads the referent where it is a part
	 * of one (a member, an element) */
	t->flags |= GS_TYPEF_REFERENCE;
	t->name = pointer_name(d, tt->name, tag == DW_TAG_reference_type ? "&" : "&&");
	if ((ref = dwv_alloc(d, sizeof(*ref)))) {
		*ref = (struct gs_view){ .kind = GS_VIEW_BOX, .style = GS_VSTYLE_CPP_REFERENCE,
					 .elem = tt };
		t->view = ref;
	}
}

static const char *tagged_name(struct gs_dwarf *d, const char *kw, Dwarf_Die *die)
{
	const char *name = dwv_die_name(die);

	return dwv_spell(d, name ? "%s %s" : "%s {...}", kw, name);
}

static void build(struct gs_dwarf *d, Dwarf_Die *die, int tag, struct gs_type *t)
{
	const char *name = dwv_die_name(die);

	switch (tag) {
	case DW_TAG_base_type:
		set_size(t, attr_udata(die, DW_AT_byte_size, 0));
		t->kind = base_kind((unsigned)attr_udata(die, DW_AT_encoding, 0), t->byte_size,
				    &t->flags);
		t->name = dwv_strdup(d, name ? name : "?");
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		pointer(d, die, tag, t);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		t->kind = tag == DW_TAG_union_type ? GS_TYPE_UNION : GS_TYPE_STRUCT;
		t->name = tagged_name(d, tag == DW_TAG_union_type ? "union" :
				      tag == DW_TAG_class_type ? "class" : "struct", die);
		set_size(t, attr_udata(die, DW_AT_byte_size, 0));
		aggregate(d, die, t);
		if (tag != DW_TAG_union_type)
			dwv_view_attach(d, die, t);
		break;
	case DW_TAG_enumeration_type:
		t->kind = GS_TYPE_ENUM;
		t->name = tagged_name(d, "enum", die);
		set_size(t, attr_udata(die, DW_AT_byte_size, 4));
		enumeration(d, die, t);
		break;
	case DW_TAG_array_type:
		t->kind = GS_TYPE_ARRAY;
		array(d, die, t);
		break;
	default: /* subroutine types, unspecified types, ... */
		*t = unknown_type;
		t->name = name ? dwv_strdup(d, name) : tag == DW_TAG_subroutine_type ?
			"function" : "?";
		set_size(t, attr_udata(die, DW_AT_byte_size, 0));
		break;
	}
	if (!t->name)
		t->name = "?";
}

const struct gs_type *dwv_type_ref(struct gs_dwarf *d, Dwarf_Die *die, bool by_value)
{
	struct gs_type *t;
	int tag;

	Dwarf_Attribute sig;
	Dwarf_Die unit_type;

	if (!die)
		return &void_type;
	/* A declaration standing for a type unit's type (-fdebug-types-section). */
	if (dwarf_attr(die, DW_AT_signature, &sig) && dwarf_formref_die(&sig, &unit_type))
		die = &unit_type;
	t = dwv_map_get(&d->types, die->addr);
	/* Held by value while it is being built: the type contains itself. A
	 * pointer being built is not such a case (struct rec * reached first:
	 * struct rec { struct rec *next; } holds the pointer, not the struct). */
	if (t)
		return by_value && t->kind != GS_TYPE_POINTER && dwv_type_building(d, t) ?
			&cyclic_type : t;
	tag = dwarf_tag(die);
	if (tag < 0)
		return &unknown_type;
	if (dwv_is_alias(tag))
		return dwv_alias_chain(d, die, by_value);
	if (d->type_depth >= MAX_TYPE_DEPTH)
		return &too_deep_type;
	if (!(t = dwv_alloc(d, sizeof(*t))))
		return &unknown_type;
	t->kind = GS_TYPE_UNKNOWN;
	t->name = "?";
	if (dwv_map_put(&d->types, die->addr, t))
		return &unknown_type;
	dwv_type_built(d, t, true);
	d->type_depth++;
	build(d, die, tag, t);
	dwv_type_built(d, t, false);
	if (--d->type_depth == 0 && d->fixups.n)
		dwv_run_fixups(d);
	return t;
}

const struct gs_type *dwv_type(struct gs_dwarf *d, Dwarf_Die *die)
{
	return dwv_type_ref(d, die, true);
}

const struct gs_type *dwv_var_type(struct gs_dwarf *d, Dwarf_Die *var)
{
	Dwarf_Die t;

	return type_of(var, &t) ? dwv_type(d, &t) : &void_type;
}

const struct gs_type *dwv_array_of(struct gs_dwarf *d, const struct gs_type *elem, uint32_t count,
				   const char *name)
{
	struct gs_type *a = dwv_alloc(d, sizeof(*a));

	if (!a)
		return &unknown_type;
	a->kind = GS_TYPE_ARRAY;
	a->target = elem;
	a->count = count;
	a->flags = elem->flags & GS_TYPEF_CHAR;
	set_size(a, (uint64_t)elem->byte_size * count);
	a->name = name ? name : "?";
	return a;
}

const struct gs_type *dwv_pointer_to(struct gs_dwarf *d, const struct gs_type *t)
{
	struct gs_type *p = dwv_alloc(d, sizeof(*p));

	if (!p)
		return &unknown_type;
	p->kind = GS_TYPE_POINTER;
	set_size(p, 8);
	p->target = t == &void_type ? NULL : t;
	p->name = pointer_name(d, t->name, "*");
	if (!p->name)
		p->name = "?";
	return p;
}
