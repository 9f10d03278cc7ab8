/* The layouts of CPython 3.8 to 3.13 on x86-64, one row per minor version,
 * for interpreters without DWARF (Debian's python3.11). Every number here
 * is what the DWARF of a release build of that version says; the unit
 * test test_pylayout compares each field with the pyenv build's DWARF, so
 * a wrong or stale number fails there, not in a user's trace. */
#include <errno.h>

#include <gs/python.h>

#define NONE GS_PY_NONE

/* What every version from 3.8 to 3.13 shares: PyObject, PyVarObject and
 * PyBytesObject have not moved. */
#define OBJECTS .object_type = 8, .var_size = 16, .bytes_data = 32, \
	.unicode_length = 16, .unicode_state = 32

static const struct gs_py_layout layouts[] = {
	{ .major = 3, .minor = 8, OBJECTS,
	  .walk = { .runtime_interp_head = 32, .interp_next = 0, .interp_tstate_head = 8,
		    .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
		    .cframe_current = NONE, .frame_back = 24, .frame_code = 32, .frame_instr = 104,
		    .frame_entry = NONE, .instr_size = 4, .style = GS_PY_STYLE_FRAME_OBJECT,
		    .owned_by_cstack = 0, .minor = 8 },
	  .code_name = 112, .code_qualname = NONE, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = NONE, .code_firsttraceable = NONE,
	  .unicode_ascii_data = 48, .unicode_compact_data = 72, .runtime_size = 1464 },
	{ .major = 3, .minor = 9, OBJECTS,
	  .walk = { .runtime_interp_head = 32, .interp_next = 0, .interp_tstate_head = 8,
		    .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
		    .cframe_current = NONE, .frame_back = 24, .frame_code = 32, .frame_instr = 104,
		    .frame_entry = NONE, .instr_size = 4, .style = GS_PY_STYLE_FRAME_OBJECT,
		    .owned_by_cstack = 0, .minor = 9 },
	  .code_name = 112, .code_qualname = NONE, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = NONE, .code_firsttraceable = NONE,
	  .unicode_ascii_data = 48, .unicode_compact_data = 72, .runtime_size = 656 },
	{ .major = 3, .minor = 10, OBJECTS,
	  .walk = { .runtime_interp_head = 32, .interp_next = 0, .interp_tstate_head = 8,
		    .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
		    .cframe_current = NONE, .frame_back = 24, .frame_code = 32, .frame_instr = 96,
		    .frame_entry = NONE, .instr_size = 4, .style = GS_PY_STYLE_FRAME_OBJECT,
		    .owned_by_cstack = 0, .minor = 10 },
	  .code_name = 112, .code_qualname = NONE, .code_filename = 104, .code_firstlineno = 40,
	  .code_linetable = 120, .code_adaptive = NONE, .code_firsttraceable = NONE,
	  .unicode_ascii_data = 48, .unicode_compact_data = 72, .runtime_size = 672 },
	{ .major = 3, .minor = 11, OBJECTS,
	  .walk = { .runtime_interp_head = 40, .interp_next = 0, .interp_tstate_head = 16,
		    .tstate_next = 8, .tstate_thread_id = 152, .tstate_frame = 56,
		    .cframe_current = 8, .frame_back = 48, .frame_code = 32, .frame_instr = 56,
		    .frame_entry = 68, .instr_size = 8, .style = GS_PY_STYLE_IS_ENTRY,
		    .owned_by_cstack = 0, .minor = 11 },
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 72,
	  .code_linetable = 136, .code_adaptive = 184, .code_firsttraceable = 168,
	  .unicode_ascii_data = 48, .unicode_compact_data = 72, .runtime_size = 166688 },
	{ .major = 3, .minor = 12, OBJECTS,
	  .walk = { .runtime_interp_head = 40, .interp_next = 0, .interp_tstate_head = 72,
		    .tstate_next = 8, .tstate_thread_id = 136, .tstate_frame = 56,
		    .cframe_current = 0, .frame_back = 8, .frame_code = 0, .frame_instr = 56,
		    .frame_entry = 70, .instr_size = 8, .style = GS_PY_STYLE_OWNER,
		    .owned_by_cstack = 3, .minor = 12 },
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68,
	  .code_linetable = 136, .code_adaptive = 192, .code_firsttraceable = 176,
	  .unicode_ascii_data = 40, .unicode_compact_data = 56, .runtime_size = 459944 },
	{ .major = 3, .minor = 13, OBJECTS,
	  .walk = { .runtime_interp_head = 632, .interp_next = 7264, .interp_tstate_head = 7344,
		    .tstate_next = 8, .tstate_thread_id = 152, .tstate_frame = 72,
		    .cframe_current = NONE, .frame_back = 8, .frame_code = 0, .frame_instr = 56,
		    .frame_entry = 70, .instr_size = 8, .style = GS_PY_STYLE_OWNER,
		    .owned_by_cstack = 3, .minor = 13 },
	  .code_name = 120, .code_qualname = 128, .code_filename = 112, .code_firstlineno = 68,
	  .code_linetable = 136, .code_adaptive = 200, .code_firsttraceable = 184,
	  .unicode_ascii_data = 40, .unicode_compact_data = 56, .runtime_size = 283320 },
};

_Static_assert(sizeof(layouts) / sizeof(layouts[0]) == GS_PY_MINOR_LAST - GS_PY_MINOR_FIRST + 1,
	       "one layout per supported minor version");

const struct gs_py_layout *gs_py_layout_table(uint8_t minor)
{
	if (minor < GS_PY_MINOR_FIRST || minor > GS_PY_MINOR_LAST)
		return NULL;
	return &layouts[minor - GS_PY_MINOR_FIRST];
}

int gs_py_layout_get(const char *path, uint8_t minor, struct gs_py_layout *out, bool *from_dwarf,
		     struct gs_error *err)
{
	const struct gs_py_layout *t = gs_py_layout_table(minor);
	int rc;

	if (from_dwarf)
		*from_dwarf = false;
	if (!t)
		return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported (gstrace reads CPython 3.%d to "
				 "3.%d), native frames only", minor, GS_PY_MINOR_FIRST, GS_PY_MINOR_LAST);
	rc = gs_py_layout_dwarf(path, minor, out, err);
	if (rc == 0) {
		if (from_dwarf)
			*from_dwarf = true;
		return 0;
	}
	/* No DWARF (a stripped or distribution build) or DWARF without the
	 * types: the release layout of that version serves. A file that
	 * cannot be opened fails here as it would anywhere. */
	if (rc != -ENOENT)
		return rc;
	gs_error_clear(err);
	*out = *t;
	return 0;
}
