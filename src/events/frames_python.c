/* Python frames named for gs_frames_stack: the interpreter's layout per
 * module file (gs_py_layout_get: its DWARF, else the table of the minor
 * version the BPF walk reported), and each code object's qualified name,
 * file and line read from the process (gs_py_name, its own cache). What
 * is shown is copied into the stack's arena, so it lives as long as the
 * stack does. A module whose layout cannot be had is remembered as such:
 * its frames are shown by code object, and the file is not read again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/python.h>

#include "base.h"
#include "ev_int.h"

#define PY_MODULES_MAX 16 /* interpreter files kept; past it, the oldest goes */

struct py_module {
	char *path;
	uint8_t minor;
	bool ok;
	struct gs_py_layout layout;
	char runtime[16]; /* "python3.11" */
};

struct ev_py {
	struct gs_py_namer *namer;
	struct py_module mods[PY_MODULES_MAX];
	size_t nmods, next_evict;
};

static struct py_module *module_get(struct ev_py *py, const char *path, uint8_t minor)
{
	struct py_module *m;
	bool from_dwarf;

	for (size_t i = 0; i < py->nmods; i++)
		if (py->mods[i].minor == minor && strcmp(py->mods[i].path, path) == 0)
			return &py->mods[i];
	if (py->nmods < PY_MODULES_MAX) {
		m = &py->mods[py->nmods++];
	} else {
		m = &py->mods[py->next_evict];
		py->next_evict = (py->next_evict + 1) % PY_MODULES_MAX;
		free(m->path);
	}
	memset(m, 0, sizeof(*m));
	if (!(m->path = strdup(path)))
		return NULL;
	m->minor = minor;
	m->ok = gs_py_layout_get(path, minor, &m->layout, &from_dwarf, NULL) == 0;
	snprintf(m->runtime, sizeof(m->runtime), "python3.%u", minor);
	return m;
}

void ev_py_name(struct gs_frames *fr, struct ev_stack_state *s, pid_t pid, const char *module,
		uint8_t minor, const struct gs_python_frame *w, struct gs_stack_frame *out)
{
	struct py_module *m;
	struct gs_py_name name;

	(void)fr;
	if (!s->py && !(s->py = calloc(1, sizeof(*s->py))))
		return;
	if (!module || !minor || !(m = module_get(s->py, module, minor)))
		return;
	out->runtime = m->runtime;
	if (!m->ok)
		return;
	if (!s->py->namer && !(s->py->namer = gs_py_namer_new()))
		return;
	if (gs_py_name(s->py->namer, pid, &m->layout, w->code, w->instr & ~GS_PY_FRAME_CALL_END,
		       &name, NULL) != 0)
		return;
	out->function = base_arena_strdup(&s->arena, name.function);
	out->file = base_arena_strdup(&s->arena, name.file);
	out->line = name.line;
	out->first_line = name.firstlineno;
}

void ev_py_free(struct ev_py *py)
{
	if (!py)
		return;
	for (size_t i = 0; i < py->nmods; i++)
		free(py->mods[i].path);
	gs_py_namer_free(py->namer);
	free(py);
}
