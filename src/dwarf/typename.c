/* Type names as a script writes them in cast(e, "T"): C's type names
 * without functions. Qualifiers (const, volatile, restrict) are read and
 * dropped: they change no value. A base is a struct, union or enum tag, a
 * typedef or base type name, one of C's integer spellings in any word
 * order ("unsigned long", "long unsigned int", "short"), bool or _Bool, or
 * the script's u8..i64; '*'s and array bounds "[4]" follow. A C integer or
 * _Bool the module's DWARF does not spell so (gcc names "long int", clang
 * "long") is made from the x86-64 LP64 rules: C defines it completely. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwv_int.h"

#define MAX_WORDS 8
#define MAX_DIMS 8
#define WORD_MAX 200

struct spelling {
	const char *kw;             /* "struct", "union", "enum", or "" */
	char words[MAX_WORDS][WORD_MAX];
	int nwords;
	int stars;
	uint32_t dims[MAX_DIMS];    /* outermost first */
	int ndims;
};

static bool is_qualifier(const char *w)
{
	return !strcmp(w, "const") || !strcmp(w, "volatile") || !strcmp(w, "restrict");
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits s into words, '*'s and bounds; 0, or -EINVAL with the message. */
static int split(const char *s, struct spelling *sp, struct gs_error *err)
{
	const char *p = s;

	memset(sp, 0, sizeof(*sp));
	sp->kw = "";
	while (*p) {
		if (is_space(*p)) {
			p++;
		} else if (*p == '*') {
			if (sp->ndims)
				return gs_errorf(err, -EINVAL, "type '%s': a '*' after an array bound "
						 "is a pointer to an array, which cast does not take", s);
			sp->stars++;
			p++;
		} else if (*p == '[') {
			char *end;
			unsigned long n = strtoul(p + 1, &end, 0);

			if (end == p + 1 || *end != ']' || !n || n > UINT32_MAX)
				return gs_errorf(err, -EINVAL, "type '%s': an array bound is a number "
						 "of elements, 1 or more, in brackets: \"int[4]\"", s);
			if (sp->ndims == MAX_DIMS)
				return gs_errorf(err, -EINVAL, "type '%s': more than %d array "
						 "dimensions", s, MAX_DIMS);
			sp->dims[sp->ndims++] = (uint32_t)n;
			p = end + 1;
		} else {
			size_t n = strcspn(p, " \t*[]");

			if (!n)
				return gs_errorf(err, -EINVAL, "type '%s': unexpected '%c'", s, *p);
			if (sp->stars || sp->ndims)
				return gs_errorf(err, -EINVAL, "type '%s': a name after '*' or ']' "
						 "(write qualifiers before the '*')", s);
			if (n >= WORD_MAX)
				return gs_errorf(err, -EINVAL, "type '%s': a name of %zu characters is "
						 "too long", s, n);
			if (sp->nwords == MAX_WORDS)
				return gs_errorf(err, -EINVAL, "type '%s': too many words", s);
			memcpy(sp->words[sp->nwords], p, n);
			sp->words[sp->nwords][n] = '\0';
			p += n;
			if (is_qualifier(sp->words[sp->nwords]))
				continue;
			if (sp->nwords == 0 && (!strcmp(sp->words[0], "struct") ||
						!strcmp(sp->words[0], "union") ||
						!strcmp(sp->words[0], "enum") ||
						!strcmp(sp->words[0], "class"))) {
				sp->kw = !strcmp(sp->words[0], "class") ? "struct" :
					 !strcmp(sp->words[0], "union") ? "union" :
					 !strcmp(sp->words[0], "enum") ? "enum" : "struct";
				continue;
			}
			sp->nwords++;
		}
	}
	if (!sp->nwords)
		return gs_errorf(err, -EINVAL, "type '%s' names no type: write one, e.g. \"int\" or "
				 "\"struct foo *\"", s);
	if (*sp->kw && sp->nwords != 1)
		return gs_errorf(err, -EINVAL, "type '%s': a %s tag is one name", s, sp->kw);
	return 0;
}

/* ---- C's integer spellings ------------------------------------------------ */

struct cint {
	uint8_t size;      /* 1, 2, 4, 8 */
	bool is_signed;
	bool is_char;      /* char, signed char, unsigned char */
	bool plain_char;   /* char without signed or unsigned */
	const char *dwarf[2]; /* gcc's and clang's DWARF names */
	const char *c;     /* the name a made type gets */
};

/* Words of an integer spelling (or "bool", "_Bool") into *ci; false when
 * the words are something else; -EINVAL when they are integer words that
 * make no C type ("short long"). */
static int c_integer(const struct spelling *sp, struct cint *ci, struct gs_error *err,
		     const char *s)
{
	int nlong = 0, nshort = 0, nchar = 0, nint = 0, nsigned = 0, nunsigned = 0;

	for (int i = 0; i < sp->nwords; i++) {
		const char *w = sp->words[i];

		if (!strcmp(w, "long")) nlong++;
		else if (!strcmp(w, "short")) nshort++;
		else if (!strcmp(w, "char")) nchar++;
		else if (!strcmp(w, "int")) nint++;
		else if (!strcmp(w, "signed")) nsigned++;
		else if (!strcmp(w, "unsigned")) nunsigned++;
		else return 0;
	}
	if (*sp->kw)
		return 0;
	if (nlong > 2 || nshort > 1 || nchar > 1 || nint > 1 || nsigned + nunsigned > 1 ||
	    (nchar && (nlong || nshort || nint)) || (nshort && nlong))
		return gs_errorf(err, -EINVAL, "type '%s' is not a C type", s);
	memset(ci, 0, sizeof(*ci));
	ci->is_signed = !nunsigned;
	if (nchar) {
		static const struct cint chars[3] = {
			{ 1, true, true, true, { "char", NULL }, "char" },
			{ 1, true, true, false, { "signed char", NULL }, "signed char" },
			{ 1, false, true, false, { "unsigned char", NULL }, "unsigned char" },
		};

		*ci = chars[nunsigned ? 2 : nsigned ? 1 : 0];
		return 1;
	}
	if (nshort) {
		ci->size = 2;
		ci->dwarf[0] = nunsigned ? "short unsigned int" : "short int";
		ci->dwarf[1] = nunsigned ? "unsigned short" : "short";
		ci->c = ci->dwarf[1];
	} else if (nlong == 2) {
		ci->size = 8;
		ci->dwarf[0] = nunsigned ? "long long unsigned int" : "long long int";
		ci->dwarf[1] = nunsigned ? "unsigned long long" : "long long";
		ci->c = ci->dwarf[1];
	} else if (nlong == 1) {
		ci->size = 8;
		ci->dwarf[0] = nunsigned ? "long unsigned int" : "long int";
		ci->dwarf[1] = nunsigned ? "unsigned long" : "long";
		ci->c = ci->dwarf[1];
	} else {
		ci->size = 4;
		ci->dwarf[0] = nunsigned ? "unsigned int" : "int";
		ci->c = ci->dwarf[0];
	}
	return 1;
}

static const struct gs_type *make_scalar(struct gs_dwarf *d, uint8_t kind, uint8_t size,
					 uint8_t flags, const char *name)
{
	struct gs_type *t = dwv_alloc(d, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->size = size;
	t->byte_size = size;
	t->flags = flags;
	t->name = name;
	return t;
}

static const struct gs_type *made_integer(struct gs_dwarf *d, const struct cint *ci)
{
	static const uint8_t u[9] = { 0, GS_TYPE_U8, GS_TYPE_U16, 0, GS_TYPE_U32, 0, 0, 0,
				      GS_TYPE_U64 };
	static const uint8_t s[9] = { 0, GS_TYPE_I8, GS_TYPE_I16, 0, GS_TYPE_I32, 0, 0, 0,
				      GS_TYPE_I64 };

	if (ci->is_char)
		return make_scalar(d, GS_TYPE_CHAR, 1, GS_TYPEF_CHAR |
				   (ci->is_signed ? GS_TYPEF_SIGNED : 0), ci->c);
	return make_scalar(d, ci->is_signed ? s[ci->size] : u[ci->size], ci->size,
			   ci->is_signed ? GS_TYPEF_SIGNED : 0, ci->c);
}

/* ---- lookup ------------------------------------------------------------------ */

/* A named type among the top-level DIEs of a CU. */
static bool cu_type(Dwarf_Die *cudie, const char *kw, const char *name, Dwarf_Die *out)
{
	Dwarf_Die ch;

	if (dwarf_child(cudie, &ch) != 0)
		return false;
	do {
		int tag = dwarf_tag(&ch);
		const char *n = dwarf_diename(&ch);
		const char *k = tag == DW_TAG_structure_type || tag == DW_TAG_class_type ? "struct" :
				tag == DW_TAG_union_type ? "union" :
				tag == DW_TAG_enumeration_type ? "enum" :
				tag == DW_TAG_base_type || tag == DW_TAG_typedef ? "" : NULL;

		if (!k || !n || strcmp(k, kw) != 0 || strcmp(n, name) != 0 ||
		    dwarf_hasattr(&ch, DW_AT_declaration))
			continue;
		*out = ch;
		return true;
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* kw name in s's CU, then in the module; NULL when neither has it. */
static const struct gs_type *named(struct gs_dwarf *d, const struct gs_dwarf_scope *s,
				   const char *kw, const char *name)
{
	Dwarf_Die die, cudie;
	char key[2 * WORD_MAX + 8];

	if (s && dwv_cu_at(d, s->pc, &cudie) && cu_type(&cudie, kw, name, &die))
		return dwv_type(d, &die);
	snprintf(key, sizeof(key), "%s%s%s", kw, *kw ? " " : "", name);
	if (dwv_index_find_type(d, key, &die) == 0)
		return dwv_type(d, &die);
	return NULL;
}

static const struct { const char *name; uint8_t kind, size, flags; } script_types[] = {
	{ "u8", GS_TYPE_U8, 1, 0 }, { "u16", GS_TYPE_U16, 2, 0 },
	{ "u32", GS_TYPE_U32, 4, 0 }, { "u64", GS_TYPE_U64, 8, 0 },
	{ "i8", GS_TYPE_I8, 1, GS_TYPEF_SIGNED }, { "i16", GS_TYPE_I16, 2, GS_TYPEF_SIGNED },
	{ "i32", GS_TYPE_I32, 4, GS_TYPEF_SIGNED }, { "i64", GS_TYPE_I64, 8, GS_TYPEF_SIGNED },
};

/* The base type of sp (no '*', no bounds): 0 and *out, or an error. */
static int base(struct gs_dwarf *d, const struct gs_dwarf_scope *s, const struct spelling *sp,
		const char *spelled, const struct gs_type **out, struct gs_error *err)
{
	const char *w = sp->words[0];
	const struct gs_type *t = NULL;
	struct cint ci;
	int rc;

	if (sp->nwords == 1 && !*sp->kw) {
		for (size_t i = 0; !t && i < BASE_ARRAY_SIZE(script_types); i++)
			if (!strcmp(w, script_types[i].name))
				t = make_scalar(d, script_types[i].kind, script_types[i].size,
						script_types[i].flags, script_types[i].name);
		if (!t && !strcmp(w, "void"))
			t = dwv_void_type();
		if (!t && (!strcmp(w, "bool") || !strcmp(w, "_Bool"))) {
			t = named(d, s, "", "_Bool");
			if (!t)
				t = named(d, s, "", "bool");
			if (!t)
				t = make_scalar(d, GS_TYPE_BOOL, 1, 0, "_Bool");
		}
		if (t)
			goto found;
	}
	rc = c_integer(sp, &ci, err, spelled);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		for (int i = 0; !t && i < 2; i++)
			if (ci.dwarf[i])
				t = named(d, s, "", ci.dwarf[i]);
		if (!t)
			t = made_integer(d, &ci);
		goto found;
	}
	if (sp->nwords != 1)
		return gs_errorf(err, -ENOENT, "unknown type '%s': its words name no C type",
				 spelled);
	t = named(d, s, sp->kw, w);
	if (!t)
		return gs_errorf(err, -ENOENT, "unknown type '%s': no type of that name in the "
				 "module's DWARF (write struct/union/enum tags as in C)", spelled);
found:
	if (!t)
		return gs_errorf(err, -ENOMEM, "out of memory");
	*out = t;
	return 0;
}

/* The element name under every array dimension of t. */
static const char *base_name(const struct gs_type *t)
{
	while (t->kind == GS_TYPE_ARRAY && t->target)
		t = t->target;
	return t->name;
}

int gs_dwarf_find_type(struct gs_dwarf *d, const struct gs_dwarf_scope *s,
		       const char *spelling, const struct gs_type **out, struct gs_error *err)
{
	struct spelling sp;
	const struct gs_type *t = NULL;
	int rc;

	*out = NULL;
	if (strlen(spelling) > 256)
		return gs_errorf(err, -EINVAL, "type name '%.40s...' is too long", spelling);
	rc = split(spelling, &sp, err);
	if (rc)
		return rc;
	rc = base(d, s, &sp, spelling, &t, err);
	if (rc)
		return rc;
	if (t == dwv_void_type() && !sp.stars)
		return gs_errorf(err, -EINVAL, "type '%s': void has no value; cast to \"void *\"",
				 spelling);
	while (sp.stars--)
		t = dwv_pointer_to(d, t);
	if (sp.ndims && !t->byte_size)
		return gs_errorf(err, -EINVAL, "type '%s': an array of %s, whose size DWARF does not "
				 "give", spelling, t->name);
	/* int[2][3]: an array of 2 arrays of 3, built from the inside */
	for (int i = sp.ndims - 1; i >= 0; i--) {
		char dims[MAX_DIMS * 14] = "";
		size_t used = 0;

		for (int k = i; k < sp.ndims; k++)
			used += (size_t)snprintf(dims + used, sizeof(dims) - used, "[%u]", sp.dims[k]);
		t = dwv_array_of(d, t, sp.dims[i], dwv_spell(d, "%s %s", base_name(t), dims));
	}
	*out = t;
	return 0;
}
