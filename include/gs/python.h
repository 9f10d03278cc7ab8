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
	uint16_t code_firsttraceable; /* _co_firsttraceable (3.11+), else GS_PY_NONE */
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

/* ---- which interpreter a module file holds (pyversion.c) ---- */

/* The interpreter's frame function: a module that defines it holds the
 * interpreter, and each of its native frames runs Python frames. */
#define GS_PY_EVAL_FUNCTION "_PyEval_EvalFrameDefault"

struct gs_modfile;
/* Whether module file m defines GS_PY_EVAL_FUNCTION (its symbols, through
 * the module-file cache): the cheap test of which module of a process holds
 * the interpreter, before gs_py_identify reads it. */
GS_API bool gs_py_holds_interpreter(struct gs_modfile *m);

/* What gstrace knows of one module file holding CPython: its version and
 * the link-time addresses (before the load bias) of what a walk starts
 * from. */
struct gs_py_module {
	uint8_t minor;        /* 3.minor */
	bool has_dwarf;       /* .debug_info in the file itself */
	bool has_tss;         /* tss_tstate is known (.symtab, 3.12+) */
	uint64_t runtime;     /* &_PyRuntime */
	uint64_t runtime_size; /* its symbol's size */
	uint64_t tss_tstate;  /* _Py_tss_tstate's offset in the module's TLS block */
	uint64_t code_type;   /* &PyCode_Type, 0 when absent */
	uint64_t eval_lo, eval_hi; /* [lo, hi) of _PyEval_EvalFrameDefault */
};

/* Whether the ELF file at `path` (an executable or a libpython) holds a
 * CPython interpreter, and which: the minor version from Py_Version
 * (3.11+), else from the file name (libpython3.X.so..., python3.X)
 * confirmed by _PyRuntime's size against that version's layout. 0 and
 * *out filled: a version gstrace reads (3.8 to 3.13); -ENOENT: no
 * interpreter in this file (an executable that links libpython holds
 * none: the library does); -ENOTSUP: an interpreter gstrace cannot read
 * (another version, or one it cannot tell), err says which, as "python
 * 3.N: unsupported"; another -errno: the file cannot be read. */
GS_API int gs_py_identify(const char *path, struct gs_py_module *out, struct gs_error *err);

/* ---- layouts (pylayout.c: the table; pylayout_dwarf.c: from DWARF) ---- */

/* The built-in layout of CPython 3.minor (x86-64), or NULL for a version
 * gstrace does not read. A unit test keeps it equal to the DWARF of a
 * build of each version. */
GS_API const struct gs_py_layout *gs_py_layout_table(uint8_t minor);
/* The layout of 3.minor read from the DWARF in the file at `path`: every
 * offset, size and the FRAME_OWNED_BY_CSTACK value as that build has
 * them. -ENOENT when the file has no DWARF or lacks a type gstrace reads
 * (err names it); -ENOTSUP for a minor outside 3.8 to 3.13. */
GS_API int gs_py_layout_dwarf(const char *path, uint8_t minor, struct gs_py_layout *out,
			      struct gs_error *err);
/* The layout of the 3.minor interpreter in `path`: from its DWARF when
 * it has one (*from_dwarf true), else the table; -ENOTSUP for a minor
 * outside 3.8 to 3.13. from_dwarf may be NULL. */
GS_API int gs_py_layout_get(const char *path, uint8_t minor, struct gs_py_layout *out,
			    bool *from_dwarf, struct gs_error *err);

/* ---- line tables (pylines.c) ---- */

/* The line of the instruction at `offset` (bytes into the bytecode) of a
 * CPython 3.minor code object whose line table (co_lnotab before 3.10,
 * else co_linetable) is table[0..n), as PyCode_Addr2Line says: 0 and
 * *line, which is -1 where the interpreter has no line (3.10+); -ERANGE
 * when the table ends before the offset (3.10+), -EINVAL for a table
 * that ends mid-entry or whose numbers overflow, -ENOTSUP for a minor
 * outside 3.8 to 3.13. Reads nothing past table[n - 1]. */
GS_API int gs_py_addr2line(uint8_t minor, const uint8_t *table, size_t n, int firstlineno,
			   uint32_t offset, int *line);

/* ---- naming code objects of a live process (pycode.c, pynamer.c) ---- */

/* A cache of code objects read from processes, bounded (the least
 * recently used go first). Not thread-safe: one per reader thread. */
struct gs_py_namer;

/* A Python frame's name. The strings belong to the namer and stay valid
 * until the next call with it (a later call may evict them). */
struct gs_py_name {
	const char *function; /* co_qualname (3.11+), else co_name; "<?>" when unreadable */
	const char *file;     /* co_filename; "<?>" when unreadable */
	int line;             /* at the instruction; -1 when unknown or none */
	int firstlineno;      /* co_firstlineno */
};

/* A new, empty namer; NULL when out of memory. */
GS_API struct gs_py_namer *gs_py_namer_new(void);
/* Frees a namer and everything it cached (NULL is fine). */
GS_API void gs_py_namer_free(struct gs_py_namer *n);
/* Drops what the namer cached of process pid (it exited). */
GS_API void gs_py_namer_forget(struct gs_py_namer *n, pid_t pid);
/* Names the frame running code object `code` of process pid (CPython
 * layout l) at `instr`, as the wire carries it (struct gs_python_frame:
 * f_lasti before 3.11, else the instruction pointer; bit 63 ignored).
 * The code object is read with process_vm_readv once and cached; a
 * cached one is used only while the object at that address still has its
 * co_name and first line. 0 and *out; -errno with err when the code
 * object cannot be read (-ESRCH: no such process, -EPERM, -EFAULT). */
GS_API int gs_py_name(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l, uint64_t code,
		      uint64_t instr, struct gs_py_name *out, struct gs_error *err);
/* The byte offset into code's bytecode of a frame's instr (as above):
 * f_lasti in bytes (3.8/3.9) or code units (3.10) made bytes, else
 * instr - (code + co_code_adaptive). Negative: before the first
 * instruction (the line is then the first line, as CPython says). */
GS_API int64_t gs_py_offset(const struct gs_py_layout *l, uint64_t code, uint64_t instr);

#ifdef __cplusplus
}
#endif

#endif /* GS_PYTHON_H */
