/* py_procs (gs/map_abi.h "Python"): for each process a session fills that
 * runs CPython 3.8 to 3.13, what the BPF walk of its Python frames reads:
 * the interpreter's layout (its DWARF, else the table of its version:
 * gs_py_layout_get), where _PyRuntime is in the process, and where the
 * thread's state pointer is when the interpreter keeps one in static TLS
 * (3.12+: _Py_tss_tstate, at the thread pointer minus the module's TLS
 * offset plus the variable's). The module holding the interpreter is the
 * one with _PyEval_EvalFrameDefault: an executable with libpython linked
 * in (Debian's python3.11) or the library. A process whose interpreter
 * gstrace cannot read keeps no entry: its frames stay native, and the
 * reason is kept for the session to say once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gs/python.h>

#include "rt_int.h"

/* The module of mods holding the interpreter, or NULL. */
static const struct gs_proc_module *interpreter(const struct gs_proc_modules *mods)
{
	for (size_t i = 0; i < mods->n; i++)
		if (gs_py_holds_interpreter(mods->v[i].file))
			return &mods->v[i];
	return NULL;
}

/* &_Py_tss_tstate - the thread pointer, when the module's TLS block is
 * static; 0 (find the thread's state in the interpreter's lists) else. */
static int64_t tstate_tls(pid_t pid, const struct gs_proc_modules *mods,
			  const struct gs_proc_module *m, const struct gs_py_module *py)
{
	struct rt_tls_table t;
	int64_t off = 0;

	if (!py->has_tss || rt_tls_read(pid, mods, &t) != 0)
		return 0;
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].cookie == m->id.cookie && t.v[i].tls.static_offset > 0)
			off = (int64_t)py->tss_tstate - t.v[i].tls.static_offset;
	rt_tls_table_free(&t);
	return off;
}

int rt_py_write(pid_t pid, struct gs_bpf_maps *maps, const struct gs_proc_modules *mods,
		char *note, size_t note_size, struct gs_error *err)
{
	const struct gs_proc_module *m;
	struct gs_map_writer w;
	struct gs_py_module py;
	struct gs_py_layout layout;
	struct gs_error why;
	uint32_t key = (uint32_t)pid;
	int rc;

	if (!gs_bpf_maps_find(maps, GS_MAP_NAME_PY_PROCS))
		return 0;
	gs_bpf_maps_writer(maps, &w);
	m = interpreter(mods);
	rc = m ? gs_py_identify(m->open_path, &py, &why) : -ENOENT;
	if (rc == 0)
		rc = gs_py_layout_get(m->open_path, py.minor, &layout, NULL, &why);
	if (rc) {
		if (m && note && note_size)
			snprintf(note, note_size, "pid %d: %s", (int)pid, why.msg);
		/* an exec may have left another program's entry */
		w.remove(w.ctx, GS_MAP_NAME_PY_PROCS, &key);
		return 0;
	}
	layout.walk.runtime = py.runtime + m->offsets.text;
	layout.walk.tstate_tls = tstate_tls(pid, mods, m, &py);
	rc = w.update(w.ctx, GS_MAP_NAME_PY_PROCS, &key, &layout.walk);
	if (rc)
		return gs_errorf(err, rc, "cannot write %s[pid %d]: %s", GS_MAP_NAME_PY_PROCS,
				 (int)pid, strerror(-rc));
	return 0;
}
