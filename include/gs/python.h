/* CPython's layouts, versions and code objects, as a tracer outside the
 * process reads them: which interpreter a module holds (its minor version
 * from Py_Version, _PyRuntime's size, the file name as a last resort),
 * the offsets of the fields the BPF walk and the namer read (from
 * libpython's DWARF when it has one, else a table per minor version that a
 * test keeps equal to the DWARF of a build of that version), and a code
 * object's name, file and line at an instruction offset, read from the
 * process's memory. Supported: CPython 3.8 to 3.13. */
#ifndef GS_PYTHON_H
#define GS_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/map_abi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_PY_MINOR_FIRST 8
#define GS_PY_MINOR_LAST 13

/* Everything gstrace reads of one minor version; GS_PY_NONE where the
 * version has no such field. `walk` is what goes to BPF (its runtime and
 * tstate_tls are per process: 0 here). */
struct gs_py_layout {
	uint8_t major, minor;
	struct gs_py_proc walk;
	/* PyCodeObject */
	uint16_t code_name;         /* co_name (PyUnicodeObject *) */
	uint16_t code_qualname;     /* co_qualname (3.11+) */
	uint16_t code_filename;     /* co_filename */
	uint16_t code_firstlineno;  /* co_firstlineno (int) */
	uint16_t code_linetable;    /* co_lnotab (3.8/3.9), co_linetable (3.10+): a bytes object */
	uint16_t code_adaptive;     /* co_code_adaptive (3.11+): where the bytecode starts */
	uint16_t code_firsttraceable; /* _co_firsttraceable (3.11, 3.12), else GS_PY_NONE */
	/* objects */
	uint16_t object_type;       /* PyObject.ob_type */
	uint16_t var_size;          /* PyVarObject.ob_size */
	uint16_t bytes_data;        /* PyBytesObject.ob_sval */
	uint16_t unicode_length;    /* PyASCIIObject.length */
	uint16_t unicode_state;     /* PyASCIIObject.state (kind bits 2-4, compact 5, ascii 6) */
	uint16_t unicode_ascii_data;   /* sizeof(PyASCIIObject): a compact ASCII string's bytes */
	uint16_t unicode_compact_data; /* sizeof(PyCompactUnicodeObject): other compact strings */
	uint32_t runtime_size;      /* sizeof(_PyRuntimeState), for identifying the version */
};

/* TEMPORARY (seam branch): the namer's API as briefed; replaced by the
 * pyuser branch's at the merge. */
struct gs_py_namer;
struct gs_py_name {
	const char *function, *file;
	int line, firstlineno;
};
int gs_py_layout_get(const char *path, uint8_t minor, struct gs_py_layout *out, bool *from_dwarf,
		     struct gs_error *err);
struct gs_py_namer *gs_py_namer_new(void);
void gs_py_namer_free(struct gs_py_namer *n);
int gs_py_name(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l, uint64_t code,
	       uint64_t instr, struct gs_py_name *out, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_PYTHON_H */
