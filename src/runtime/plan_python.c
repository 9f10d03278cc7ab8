/* Whether a plan's backtraces walk Python frames too
 * (gs_plan_opts.python_frames, gs_program_opts.python_frames): asked for,
 * never, or (the default) when its target runs CPython: the process (-p)
 * maps a module holding the interpreter (_PyEval_EvalFrameDefault), the
 * binary (-t) holds it or links libpython, and every process may (--all).
 * The walk needs the loop unwinder (bpf_loop) and the thread pointer's
 * offset in the kernel's task (its BTF). */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include <gs/python.h>

#include "base.h"
#include "rt_int.h"

/* A DT_NEEDED entry of the file names libpython. */
static bool links_libpython(struct gs_modfile *m)
{
	Elf *elf = gs_modfile_elf(m);
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Dyn dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (name && base_has_prefix(name, "libpython3"))
				return true;
		}
	}
	return false;
}

static bool runs_python(struct gs_plan *p)
{
	struct gs_proc_modules mods;
	struct gs_modfile *m;
	bool found = false;

	if (p->opts.pid > 0) {
		if (gs_proc_modules_load(p->opts.pid, p->files, &mods, NULL) != 0)
			return false;
		for (size_t i = 0; i < mods.n && !found; i++)
			found = gs_py_holds_interpreter(mods.v[i].file);
		gs_proc_modules_free(&mods);
		return found;
	}
	if (p->module)
		return gs_modfile_open(p->files, p->module, &m, NULL) == 0 &&
		       (gs_py_holds_interpreter(m) || links_libpython(m));
	return true;
}

int rt_plan_python(struct gs_plan *p, struct gs_error *err)
{
	enum gs_python_frames want = p->opts.python_frames;
	uint32_t off;
	int rc;

	p->program.python_frames = false;
	if (want == GS_PYTHON_FRAMES_OFF || (want == GS_PYTHON_FRAMES_AUTO && !runs_python(p)))
		return 0;
	if (p->program.unwinder != GS_UNWINDER_LOOP) {
		if (want == GS_PYTHON_FRAMES_ON)
			return gs_errorf(err, -EINVAL, "Python frames are walked by the loop unwinder "
					 "only (bpf_loop, Linux 5.17+): drop the tail-call unwinder");
		return 0;
	}
	if (!p->program.task_fsbase_offset) {
		rc = rt_task_fsbase_offset(&off, err);
		if (rc && want == GS_PYTHON_FRAMES_ON)
			return rc;
		if (rc)
			return 0;
		p->program.task_fsbase_offset = off;
	}
	p->program.python_frames = true;
	return 0;
}
