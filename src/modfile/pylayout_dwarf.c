/* CPython's layout read from libpython's own DWARF with libdw: each
 * member offset the walk and the namer use (nested ones such as
 * interpreters.head by path), the sizes of the unicode structs and of
 * _PyRuntimeState, and FRAME_OWNED_BY_CSTACK's value. The build at hand
 * says where its fields are, so a distribution's patch or an odd
 * configure option cannot mislead us the way a table would. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <gs/python.h>

#include "mf_int.h"

/* The types read, found by their typedef names. */
enum py_type {
	T_RUNTIME, T_INTERP, T_TSTATE, T_CFRAME, T_FRAME_OBJECT, T_IFRAME, T_CODE,
	T_OBJECT, T_VAROBJECT, T_BYTES, T_ASCII, T_COMPACT, T_COUNT
};

static const char *const type_names[T_COUNT] = {
	[T_RUNTIME] = "_PyRuntimeState",
	[T_INTERP] = "PyInterpreterState",
	[T_TSTATE] = "PyThreadState",
	[T_CFRAME] = "_PyCFrame",
	[T_FRAME_OBJECT] = "PyFrameObject",
	[T_IFRAME] = "_PyInterpreterFrame",
	[T_CODE] = "PyCodeObject",
	[T_OBJECT] = "PyObject",
	[T_VAROBJECT] = "PyVarObject",
	[T_BYTES] = "PyBytesObject",
	[T_ASCII] = "PyASCIIObject",
	[T_COMPACT] = "PyCompactUnicodeObject",
};

#define CSTACK_ENUMERATOR "FRAME_OWNED_BY_CSTACK"

/* One uint16_t of struct gs_py_layout, the member it holds in the minor
 * versions [lo, hi] (a dotted path for a nested one). */
struct field {
	size_t dst;
	enum py_type type;
	const char *path;
	uint8_t lo, hi;
};

#define W(f) (offsetof(struct gs_py_layout, walk) + offsetof(struct gs_py_proc, f))
#define L(f) offsetof(struct gs_py_layout, f)

static const struct field fields[] = {
	{ W(runtime_interp_head), T_RUNTIME, "interpreters.head", 8, 13 },
	{ W(interp_next), T_INTERP, "next", 8, 13 },
	{ W(interp_tstate_head), T_INTERP, "tstate_head", 8, 10 },
	{ W(interp_tstate_head), T_INTERP, "threads.head", 11, 13 },
	{ W(tstate_next), T_TSTATE, "next", 8, 13 },
	{ W(tstate_thread_id), T_TSTATE, "thread_id", 8, 13 },
	{ W(tstate_frame), T_TSTATE, "frame", 8, 10 },
	{ W(tstate_frame), T_TSTATE, "cframe", 11, 12 },
	{ W(tstate_frame), T_TSTATE, "current_frame", 13, 13 },
	{ W(cframe_current), T_CFRAME, "current_frame", 11, 12 },
	{ W(frame_back), T_FRAME_OBJECT, "f_back", 8, 10 },
	{ W(frame_back), T_IFRAME, "previous", 11, 13 },
	{ W(frame_code), T_FRAME_OBJECT, "f_code", 8, 10 },
	{ W(frame_code), T_IFRAME, "f_code", 11, 12 },
	{ W(frame_code), T_IFRAME, "f_executable", 13, 13 },
	{ W(frame_instr), T_FRAME_OBJECT, "f_lasti", 8, 10 },
	{ W(frame_instr), T_IFRAME, "prev_instr", 11, 12 },
	{ W(frame_instr), T_IFRAME, "instr_ptr", 13, 13 },
	{ W(frame_entry), T_IFRAME, "is_entry", 11, 11 },
	{ W(frame_entry), T_IFRAME, "owner", 12, 13 },
	{ L(code_name), T_CODE, "co_name", 8, 13 },
	{ L(code_qualname), T_CODE, "co_qualname", 11, 13 },
	{ L(code_filename), T_CODE, "co_filename", 8, 13 },
	{ L(code_firstlineno), T_CODE, "co_firstlineno", 8, 13 },
	{ L(code_linetable), T_CODE, "co_lnotab", 8, 9 },
	{ L(code_linetable), T_CODE, "co_linetable", 10, 13 },
	{ L(code_adaptive), T_CODE, "co_code_adaptive", 11, 13 },
	{ L(code_firsttraceable), T_CODE, "_co_firsttraceable", 11, 13 },
	{ L(object_type), T_OBJECT, "ob_type", 8, 13 },
	{ L(var_size), T_VAROBJECT, "ob_size", 8, 13 },
	{ L(bytes_data), T_BYTES, "ob_sval", 8, 13 },
	{ L(unicode_length), T_ASCII, "length", 8, 13 },
	{ L(unicode_state), T_ASCII, "state", 8, 13 },
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* Every uint16_t field of the layout, so that each starts as GS_PY_NONE
 * and a version without the member keeps it. */
static const size_t all_u16[] = {
	W(runtime_interp_head), W(interp_next), W(interp_tstate_head), W(tstate_next),
	W(tstate_thread_id), W(tstate_frame), W(cframe_current), W(frame_back), W(frame_code),
	W(frame_instr), W(frame_entry), L(code_name), L(code_qualname), L(code_filename),
	L(code_firstlineno), L(code_linetable), L(code_adaptive), L(code_firsttraceable),
	L(object_type), L(var_size), L(bytes_data), L(unicode_length), L(unicode_state),
	L(unicode_ascii_data), L(unicode_compact_data),
};

/* Nesting a hostile DWARF could loop through (a typedef of itself, an
 * anonymous member holding itself) ends here. */
#define MAX_PEEL 16

struct found {
	Dwarf_Die die[T_COUNT];
	bool have[T_COUNT];
	bool need[T_COUNT];
	bool need_cstack, have_cstack;
	int64_t cstack;
};

/* A type with its typedefs and qualifiers taken off. */
static bool type_peel(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	int i;

	*out = *die;
	for (i = 0; i < MAX_PEEL; i++) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			return true;
		if (!dwarf_attr(out, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return false;
	}
	return false;
}

static bool is_complete_struct(Dwarf_Die *d)
{
	return (dwarf_tag(d) == DW_TAG_structure_type || dwarf_tag(d) == DW_TAG_union_type) &&
	       !dwarf_hasattr(d, DW_AT_declaration);
}

static void note_typedef(Dwarf_Die *d, struct found *f)
{
	const char *name = dwarf_diename(d);
	Dwarf_Die st;
	int t;

	if (!name)
		return;
	for (t = 0; t < T_COUNT; t++) {
		if (!f->need[t] || f->have[t] || strcmp(name, type_names[t]) != 0)
			continue;
		/* In a unit that only declares the struct the typedef names an
		 * incomplete type; the unit defining it comes later. */
		if (type_peel(d, &st) && is_complete_struct(&st)) {
			f->die[t] = st;
			f->have[t] = true;
		}
	}
}

static void note_enum(Dwarf_Die *e, struct found *f)
{
	Dwarf_Die c;
	Dwarf_Attribute a;
	Dwarf_Sword v;

	if (dwarf_child(e, &c) != 0)
		return;
	do {
		const char *name = dwarf_diename(&c);

		if (dwarf_tag(&c) == DW_TAG_enumerator && name && strcmp(name, CSTACK_ENUMERATOR) == 0 &&
		    dwarf_attr(&c, DW_AT_const_value, &a) && dwarf_formsdata(&a, &v) == 0) {
			f->cstack = v;
			f->have_cstack = true;
			return;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static bool all_found(const struct found *f)
{
	int t;

	for (t = 0; t < T_COUNT; t++)
		if (f->need[t] && !f->have[t])
			return false;
	return !f->need_cstack || f->have_cstack;
}

/* One pass over the top-level entries of every unit, until everything
 * needed is found: the typedefs live at the top of a C unit. */
static void types_find(Dwarf *dw, struct found *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!all_found(f) && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				int tag = dwarf_tag(&c);

				if (tag == DW_TAG_typedef)
					note_typedef(&c, f);
				else if (tag == DW_TAG_enumeration_type && f->need_cstack && !f->have_cstack)
					note_enum(&c, f);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
}

/* The member `name` of struct st, looking into anonymous members too:
 * its offset from the start of st and its DIE. */
static bool member_find(Dwarf_Die *st, const char *name, size_t len, int depth, uint64_t *off,
			Dwarf_Die *member)
{
	Dwarf_Die c;

	if (depth > MAX_PEEL || dwarf_child(st, &c) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&c);
		Dwarf_Attribute a;
		Dwarf_Word here = 0;
		Dwarf_Die t;

		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		/* a bit field's location may be absent (offset 0 in a union) */
		if (dwarf_attr(&c, DW_AT_data_member_location, &a) && dwarf_formudata(&a, &here) != 0)
			continue;
		if (n && strlen(n) == len && memcmp(n, name, len) == 0) {
			*off = here;
			*member = c;
			return true;
		}
		if (!n && dwarf_attr(&c, DW_AT_type, &a) && dwarf_formref_die(&a, &t) && type_peel(&t, &t) &&
		    is_complete_struct(&t) && member_find(&t, name, len, depth + 1, off, member)) {
			*off += here;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The offset of a dotted member path (interpreters.head) in st, and the
 * last member's DIE. */
static bool path_offset(Dwarf_Die *st, const char *path, uint64_t *off, Dwarf_Die *member)
{
	Dwarf_Die cur = *st;
	uint64_t total = 0;

	for (;;) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		Dwarf_Attribute a;
		uint64_t here;

		if (!member_find(&cur, path, len, 0, &here, member))
			return false;
		total += here;
		if (!dot)
			break;
		if (!dwarf_attr(member, DW_AT_type, &a) || !dwarf_formref_die(&a, &cur) ||
		    !type_peel(&cur, &cur) || !is_complete_struct(&cur))
			return false;
		path = dot + 1;
	}
	*off = total;
	return true;
}

/* The size of a member's type: 4 for f_lasti, 8 for a pointer. */
static int member_size(Dwarf_Die *member)
{
	Dwarf_Attribute a;
	Dwarf_Die t;
	Dwarf_Word size;

	if (!dwarf_attr(member, DW_AT_type, &a) || !dwarf_formref_die(&a, &t) || !type_peel(&t, &t))
		return -1;
	if (dwarf_tag(&t) == DW_TAG_pointer_type)
		return 8;
	if (dwarf_aggregate_size(&t, &size) != 0 || size > 8)
		return -1;
	return (int)size;
}

static void set_u16(struct gs_py_layout *out, size_t dst, uint16_t v)
{
	memcpy((uint8_t *)out + dst, &v, sizeof(v));
}

static int fields_read(struct found *f, uint8_t minor, struct gs_py_layout *out, const char *path,
		       struct gs_error *err)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		const struct field *fl = &fields[i];
		Dwarf_Die member;
		uint64_t off;

		if (minor < fl->lo || minor > fl->hi)
			continue;
		if (!path_offset(&f->die[fl->type], fl->path, &off, &member) || off >= GS_PY_NONE)
			return gs_errorf(err, -ENOENT, "%s: the DWARF of python 3.%u has no %s.%s gstrace "
					 "can read", path, minor, type_names[fl->type], fl->path);
		set_u16(out, fl->dst, (uint16_t)off);
		if (fl->dst == W(frame_instr)) {
			int size = member_size(&member);

			if (size != 4 && size != 8)
				return gs_errorf(err, -ENOENT, "%s: %s.%s is %d bytes, neither an int nor a "
						 "pointer", path, type_names[fl->type], fl->path, size);
			out->walk.instr_size = (uint8_t)size;
		}
	}
	return 0;
}

static int sizes_read(struct found *f, struct gs_py_layout *out, const char *path, struct gs_error *err)
{
	Dwarf_Word ascii, compact, runtime;

	if (dwarf_aggregate_size(&f->die[T_ASCII], &ascii) != 0 ||
	    dwarf_aggregate_size(&f->die[T_COMPACT], &compact) != 0 ||
	    dwarf_aggregate_size(&f->die[T_RUNTIME], &runtime) != 0 ||
	    ascii >= GS_PY_NONE || compact >= GS_PY_NONE || runtime > UINT32_MAX)
		return gs_errorf(err, -ENOENT, "%s: the DWARF gives no size gstrace can use for "
				 "PyASCIIObject, PyCompactUnicodeObject or _PyRuntimeState", path);
	out->unicode_ascii_data = (uint16_t)ascii;
	out->unicode_compact_data = (uint16_t)compact;
	out->runtime_size = (uint32_t)runtime;
	return 0;
}

static void needs_of(uint8_t minor, struct found *f)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (minor >= fields[i].lo && minor <= fields[i].hi)
			f->need[fields[i].type] = true;
	f->need[T_COMPACT] = f->need[T_RUNTIME] = true;
	f->need_cstack = minor >= 12;
}

static int layout_from(Dwarf *dw, const char *path, uint8_t minor, struct gs_py_layout *out,
		       struct gs_error *err)
{
	struct found f = { 0 };
	size_t i;
	int t, rc;

	needs_of(minor, &f);
	types_find(dw, &f);
	for (t = 0; t < T_COUNT; t++)
		if (f.need[t] && !f.have[t])
			return gs_errorf(err, -ENOENT, "%s: its DWARF defines no %s (python 3.%u)", path,
					 type_names[t], minor);
	if (f.need_cstack && (!f.have_cstack || f.cstack < 0 || f.cstack > 255))
		return gs_errorf(err, -ENOENT, "%s: its DWARF has no usable %s (python 3.%u)", path,
				 CSTACK_ENUMERATOR, minor);
	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(all_u16) / sizeof(all_u16[0]); i++)
		set_u16(out, all_u16[i], GS_PY_NONE);
	out->major = 3;
	out->minor = out->walk.minor = minor;
	out->walk.style = minor <= 10 ? GS_PY_STYLE_FRAME_OBJECT
			: minor == 11 ? GS_PY_STYLE_IS_ENTRY : GS_PY_STYLE_OWNER;
	out->walk.owned_by_cstack = f.need_cstack ? (uint8_t)f.cstack : 0;
	rc = fields_read(&f, minor, out, path, err);
	return rc ? rc : sizes_read(&f, out, path, err);
}

int gs_py_layout_dwarf(const char *path, uint8_t minor, struct gs_py_layout *out,
		       struct gs_error *err)
{
	Elf *elf = NULL;
	Dwarf *dw;
	int fd = -1, rc;

	if (minor < GS_PY_MINOR_FIRST || minor > GS_PY_MINOR_LAST)
		return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported (gstrace reads CPython 3.%d to "
				 "3.%d)", minor, GS_PY_MINOR_FIRST, GS_PY_MINOR_LAST);
	rc = mf_elf_open(path, &fd, &elf, err);
	if (rc)
		return rc;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw) {
		mf_elf_close(fd, elf);
		return gs_errorf(err, -ENOENT, "%s has no DWARF of its own", path);
	}
	rc = layout_from(dw, path, minor, out, err);
	dwarf_end(dw);
	mf_elf_close(fd, elf);
	return rc;
}
