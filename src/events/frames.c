/* Backtrace frames back to modules and source (docs/cli.md, "Output"): the
 * module by raw_ip in the process's module list (read again when an unknown
 * address shows up: a dlopen), else by cookie; the symbolizer at pc or
 * pc - 1; and the entry-point check that shows a walk ending in `_start`
 * as complete. gs_frames keeps what it learned per process and per file. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/frames.h>
#include <gs/internal/modfile.h>
#include <gs/modfile.h>
#include <gs/python.h>

#include "base.h"
#include "ev_int.h"
#include "opts.h"

/* The module list of one process, as last read from /proc/PID/maps. */
struct frames_pid {
	pid_t pid;
	struct gs_proc_modules mods;
	int *mod_of;       /* mods.v[i] -> index into gs_frames.mods, -1: not yet */
	int64_t loaded_ns; /* 0: never read */
};

/* What the resolver learned about one module file. */
struct frames_module {
	char *path;     /* the path it is known by */
	char *name;     /* its file name as the process maps it (shown) */
	struct gs_modfile *file; /* NULL: unreadable */
	int sym;        /* symbolizer handle; -1: unreadable */
	bool elf_read;  /* entry / start / signal frames looked up */
	bool has_entry, has_start;
	uint64_t entry, start; /* e_entry, the `_start` symbol */
	uint64_t *sig;  /* signal trampolines: [lo, hi) pairs */
	size_t nsig;
};

/* A symbolizer name and what is shown for it. */
struct frames_name {
	const char *name; /* the symbolizer's string (stable): the key */
	char *shown;      /* demangled, or NULL: shown as it is */
};

/* A binary known up front, for the cookie fallback. */
struct frames_static {
	const char *path;
	uint64_t cookie;
	int mod; /* index into gs_frames.mods once used; -1 before */
};

struct gs_frames {
	pid_t pid;
	struct gs_modfiles *files, *own_files;
	struct gs_symbolizer *sym;
	struct frames_pid *pids;
	size_t npids, pids_cap;
	struct frames_module **mods; /* each allocated once: callers keep pointers */
	size_t nmods, mods_cap;
	struct frames_static *statics;
	size_t nstatics;
	bool no_demangle;
	struct frames_name *names; /* open addressing, by pointer */
	size_t names_cap, nnames;
	struct gs_kallsyms *ksyms; /* read at the first kernel frame */
	bool ksyms_tried;
	struct ev_stack_state stack; /* gs_frames_stack's */
	struct frames_jit *jit; /* frames_jit.c: perf maps, JIT memory */
};

/* An address in no known module re-reads the module list, at most this often. */
#define REFRESH_NS 1000000ll
#define MAX_PIDS 64            /* module lists kept (target mode sees many processes) */
#define ENTRY_WINDOW 0x100     /* the entry-point rule (docs/cli.md, "Output") */

static void pid_clear(struct frames_pid *p)
{
	gs_proc_modules_free(&p->mods);
	free(p->mod_of);
	p->mod_of = NULL;
}

static void pid_load(struct gs_frames *o, struct frames_pid *p)
{
	struct gs_proc_modules fresh;
	struct gs_error err;

	p->loaded_ns = base_now_ns();
	/* A process that is gone keeps the list it had. */
	if (gs_proc_modules_load(p->pid, o->files, &fresh, &err) == 0) {
		int *mod_of = malloc((fresh.n ? fresh.n : 1) * sizeof(*mod_of));

		if (!mod_of) {
			gs_proc_modules_free(&fresh);
			return;
		}
		for (size_t i = 0; i < fresh.n; i++)
			mod_of[i] = -1;
		pid_clear(p);
		p->mods = fresh;
		p->mod_of = mod_of;
	}
}

/* The module list of pid, read on first use; NULL when out of memory. */
static struct frames_pid *pid_get(struct gs_frames *o, pid_t pid)
{
	struct frames_pid *p;

	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i].pid == pid)
			return &o->pids[i];
	if (o->npids == MAX_PIDS) {
		size_t oldest = 0;

		for (size_t i = 1; i < o->npids; i++)
			if (o->pids[i].loaded_ns < o->pids[oldest].loaded_ns)
				oldest = i;
		p = &o->pids[oldest];
		pid_clear(p);
	} else {
		if (base_grow((void **)&o->pids, &o->pids_cap, o->npids + 1, sizeof(*o->pids)))
			return NULL;
		p = &o->pids[o->npids++];
	}
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	pid_load(o, p);
	return p;
}

void gs_frames_preload(struct gs_frames *o, pid_t pid)
{
	for (size_t i = 0; i < o->npids; i++) {
		if (o->pids[i].pid == pid) {
			pid_load(o, &o->pids[i]);
			return;
		}
	}
	pid_get(o, pid);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Index into o->mods of the module file (opened by path when file is
 * NULL; added on first use), or -1 when out of memory. `mapped` is the
 * path the process maps it as: what frames show, never the
 * /proc/PID/map_files/START-END link it may be opened through. */
static int module_index(struct gs_frames *o, const char *path, const char *mapped,
			struct gs_modfile *file)
{
	struct frames_module *m;

	if (!file && gs_modfile_open(o->files, path, &file, NULL) != 0)
		file = NULL;
	for (size_t i = 0; i < o->nmods; i++)
		if (file ? o->mods[i]->file == file : strcmp(o->mods[i]->path, path) == 0)
			return (int)i;
	if (base_grow((void **)&o->mods, &o->mods_cap, o->nmods + 1, sizeof(*o->mods)))
		return -1;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	m->path = strdup(path);
	m->name = strdup(base_name(mapped));
	if (!m->path || !m->name) {
		free(m->path);
		free(m->name);
		free(m);
		return -1;
	}
	o->mods[o->nmods] = m;
	m->file = file;
	m->sym = file ? gs_symbolizer_modfile(o->sym, file, NULL) : -1;
	if (m->sym < 0)
		m->sym = -1;
	return (int)o->nmods++;
}

/* The module of a binary known up front, looked up (a stat) once. */
static struct frames_module *module_static(struct gs_frames *o, struct frames_static *st)
{
	if (st->mod < 0)
		st->mod = module_index(o, st->path, st->path, NULL);
	return st->mod < 0 ? NULL : o->mods[st->mod];
}

/* A frame's module in one module list: by raw_ip, else by cookie when the
 * frame's pc is module-relative. */
static const struct gs_proc_module *find_module(const struct gs_proc_modules *mods,
						const struct gs_backtrace_frame *f, bool normalized,
						uint64_t *pc)
{
	const struct gs_proc_module *m = gs_proc_modules_find(mods, f->raw_ip);

	/* The module the walk found is the truth of the moment of the event:
	 * a list read later (the process exec'd, or its pid was reused) may
	 * hold another file at that address. */
	if (m && normalized && f->module_cookie && m->id.cookie != f->module_cookie)
		m = NULL;
	if (m) {
		*pc = f->raw_ip - m->offsets.text;
		return m;
	}
	for (size_t i = 0; normalized && i < mods->n; i++) {
		if (mods->v[i].id.cookie == f->module_cookie && f->pc < mods->v[i].offsets.size) {
			*pc = f->pc;
			return &mods->v[i];
		}
	}
	return NULL;
}

/* The module of frame i, or NULL; fills r's module fields either way. */
static struct frames_module *locate(struct gs_frames *o, const struct gs_event *ev,
				 const struct gs_inst *bt, unsigned i, struct gs_frame *r)
{
	const struct gs_backtrace_frame *f = &bt->backtrace.frames[i];
	/* OffsetsUnavailable describes the last frame: its pc is the raw ip. */
	bool normalized = bt->backtrace.status != GS_BT_OFFSETS_UNAVAILABLE ||
			  i + 1 < bt->backtrace.frame_count;
	pid_t cands[2];
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->pc = f->pc;
	r->cookie = f->module_cookie;
	if (o->pid > 0)
		cands[n++] = o->pid;
	if (ev->pid && (pid_t)ev->pid != o->pid)
		cands[n++] = (pid_t)ev->pid;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t c = 0; c < n; c++) {
			struct frames_pid *p = pid_get(o, cands[c]);
			const struct gs_proc_module *m;
			uint64_t pc;

			if (!p)
				continue;
			/* Second pass: the address may be in a module mapped since. */
			if (pass == 1) {
				if (base_now_ns() - p->loaded_ns < REFRESH_NS)
					continue;
				pid_load(o, p);
			}
			m = find_module(&p->mods, f, normalized, &pc);
			if (m) {
				size_t k = (size_t)(m - p->mods.v);
				struct frames_module *mod;

				if (p->mod_of[k] < 0)
					p->mod_of[k] = module_index(o, m->open_path, m->path,
								    m->file);
				if (p->mod_of[k] < 0)
					return NULL;
				mod = o->mods[p->mod_of[k]];
				r->resolved = true;
				r->module = mod->name;
				r->path = mod->path;
				r->pc = pc;
				r->cookie = m->id.cookie;
				return mod;
			}
		}
	}
	for (size_t s = 0; normalized && s < o->nstatics; s++) {
		if (o->statics[s].cookie == f->module_cookie) {
			struct frames_module *mod = module_static(o, &o->statics[s]);

			if (!mod)
				return NULL;
			r->resolved = true;
			r->module = mod->name;
			r->path = mod->path;
			r->cookie = f->module_cookie;
			return mod;
		}
	}
	/* A process gone before its frames are shown (a short-lived one of
	 * a profile): the module the run read under that cookie. */
	if (normalized && f->module_cookie) {
		struct gs_modfile *file = gs_modfiles_by_cookie(o->files, f->module_cookie);
		int k = file ? module_index(o, gs_modfile_path(file), gs_modfile_path(file), file) : -1;

		if (k >= 0) {
			r->resolved = true;
			r->module = o->mods[k]->name;
			r->path = o->mods[k]->path;
			r->cookie = f->module_cookie;
			return o->mods[k];
		}
	}
	return NULL;
}

static void read_elf(struct frames_module *m);

/* Frame i is a signal trampoline: the byte before its return address (the
 * kernel's "return address" is the trampoline's first instruction, whose
 * FDE starts a byte early for that) lies in an FDE of CIE 'S'. */
static bool is_signal_frame(struct frames_module *mod, const struct gs_frame *r, unsigned i)
{
	uint64_t pc = i > 0 && r->pc > 0 ? r->pc - 1 : r->pc;

	if (!mod->elf_read)
		read_elf(mod);
	for (size_t k = 0; k < mod->nsig; k++)
		if (pc >= mod->sig[2 * k] && pc < mod->sig[2 * k + 1])
			return true;
	return false;
}

/* Frame i follows a signal frame: its pc was interrupted, not a return. */
static bool after_signal_frame(struct gs_frames *o, const struct gs_event *ev,
			       const struct gs_inst *bt, unsigned i)
{
	struct gs_frame prev;
	struct frames_module *mod;

	if (i == 0)
		return false;
	mod = locate(o, ev, bt, i - 1, &prev);
	return mod && is_signal_frame(mod, &prev, i - 1);
}

void gs_frames_resolve(struct gs_frames *o, const struct gs_event *ev, const struct gs_inst *bt,
		       unsigned i, struct gs_frame *r)
{
	struct frames_module *mod = locate(o, ev, bt, i, r);
	const struct gs_sym_info *info;
	uint64_t lookup;

	if (!mod || mod->sym < 0 || (bt->backtrace.flags & GS_BT_FLAG_RAW))
		return;
	r->signal_frame = is_signal_frame(mod, r, i);
	/* A caller's pc is a return address: its call is the byte before. */
	lookup = i > 0 && r->pc > 0 && !after_signal_frame(o, ev, bt, i) ? r->pc - 1 : r->pc;
	if (gs_symbolize(o->sym, mod->sym, lookup, &info, NULL) == 0 && info->found) {
		r->sym = info;
		r->function = gs_frames_name(o, info->function);
	}
}

static size_t name_slot(const struct gs_frames *o, const char *name)
{
	size_t h = ((uintptr_t)name >> 3) * 0x9e3779b97f4a7c15ull;

	return h & (o->names_cap - 1);
}

const char *gs_frames_name(struct gs_frames *o, const char *name)
{
	size_t k;

	if (!name || o->no_demangle)
		return name;
	if (2 * (o->nnames + 1) > o->names_cap) {
		size_t ncap = o->names_cap ? 2 * o->names_cap : 256;
		struct frames_name *nv = calloc(ncap, sizeof(*nv)), *old = o->names;
		size_t ocap = o->names_cap;

		if (!nv)
			return name;
		o->names = nv;
		o->names_cap = ncap;
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].name)
				continue;
			for (k = name_slot(o, old[i].name); nv[k].name; k = (k + 1) & (ncap - 1))
				;
			nv[k] = old[i];
		}
		free(old);
	}
	for (k = name_slot(o, name); o->names[k].name; k = (k + 1) & (o->names_cap - 1))
		if (o->names[k].name == name)
			return o->names[k].shown ? o->names[k].shown : name;
	o->names[k].name = name;
	o->names[k].shown = ev_demangle(name);
	o->nnames++;
	return o->names[k].shown ? o->names[k].shown : name;
}

struct gs_modfile *gs_frames_modfile(struct gs_frames *o, const struct gs_frame *r)
{
	/* r->path is the module's own string: the pointer names it */
	for (size_t i = 0; r->resolved && r->path && i < o->nmods; i++)
		if (o->mods[i]->path == r->path)
			return o->mods[i]->file;
	return NULL;
}

/* e_entry, `_start` and the signal trampolines of a module file, once. */
/* e_entry of an ELF, 0 when unreadable (apart: GCC 12 at -O3 takes the
 * header gelf_getehdr fills for a pointer that outlives it). */
static uint64_t elf_entry(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) ? eh.e_entry : 0;
}

static void read_elf(struct frames_module *m)
{
	uint64_t size;

	m->elf_read = true;
	if (!m->file)
		return;
	if (gs_signal_frame_ranges(gs_modfile_elf(m->file), &m->sig, &m->nsig, NULL) != 0) {
		m->sig = NULL;
		m->nsig = 0;
	}
	m->entry = elf_entry(gs_modfile_elf(m->file));
	m->has_entry = m->entry != 0;
	m->has_start = gs_modfile_symbols_named(m->file, "_start", &m->start, &size, 1) == 1;
}

uint8_t gs_frames_status(struct gs_frames *o, const struct gs_event *ev, const struct gs_inst *bt)
{
	uint8_t status = bt->backtrace.status;
	unsigned last = bt->backtrace.frame_count;
	struct frames_module *mod;
	struct gs_frame r;

	if ((status != GS_BT_UNSUPPORTED_CFI && status != GS_BT_NO_UNWIND_ROWS_FOR_PC) || !last)
		return status;
	mod = locate(o, ev, bt, last - 1, &r);
	if (!mod)
		return status;
	if (!mod->elf_read)
		read_elf(mod);
	if ((mod->has_entry && r.pc >= mod->entry && r.pc - mod->entry < ENTRY_WINDOW) ||
	    (mod->has_start && r.pc >= mod->start && r.pc - mod->start < ENTRY_WINDOW))
		return GS_BT_COMPLETE;
	return status;
}

int gs_frames_new(const struct gs_frames_opts *opts, struct gs_frames **out,
		  struct gs_error *err)
{
	struct gs_frames *f;
	struct gs_frames_opts o;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&o, opts, gs_frames_opts, err);
	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return gs_errorf(err, -ENOMEM, "out of memory creating the frame resolver");
	f->pid = o.pid;
	f->files = o.files;
	if (!f->files && gs_modfiles_new(NULL, &f->own_files, NULL) == 0)
		f->files = f->own_files;
	f->no_demangle = o.no_demangle;
	f->sym = f->files ? gs_symbolizer_new(f->files, err) : NULL;
	f->statics = calloc(o.nmodules ? o.nmodules : 1, sizeof(*f->statics));
	if (!f->sym || !f->statics) {
		gs_frames_free(f);
		return gs_errorf(err, -ENOMEM, "out of memory creating the frame resolver");
	}
	for (size_t i = 0; i < o.nmodules; i++) {
		struct gs_modfile *file;

		if (gs_modfile_open(f->files, o.modules[i], &file, NULL) == 0) {
			f->statics[f->nstatics].mod = -1;
			f->statics[f->nstatics].path = o.modules[i];
			f->statics[f->nstatics++].cookie = gs_modfile_id(file)->cookie;
		}
	}
	*out = f;
	return 0;
}

const char *gs_frames_kernel_symbol(struct gs_frames *f, uint64_t addr, uint64_t *off)
{
	if (!f->ksyms_tried) {
		f->ksyms_tried = true;
		if (gs_kallsyms_load(NULL, &f->ksyms, NULL))
			f->ksyms = NULL;
	}
	return gs_kallsyms_find(f->ksyms, addr, off);
}

const char *ev_frames_interpreter(struct gs_frames *f, pid_t pid)
{
	struct frames_pid *p = pid > 0 ? pid_get(f, pid) : NULL;

	for (size_t i = 0; p && i < p->mods.n; i++)
		if (gs_py_holds_interpreter(p->mods.v[i].file))
			return p->mods.v[i].open_path;
	return NULL;
}

bool ev_frames_jit(struct gs_frames *f, const struct gs_event *ev, uint64_t ip,
		   const char **name, uint64_t *off)
{
	return frames_jit_name(&f->jit, ev->pid ? (pid_t)ev->pid : f->pid, ip, name, off);
}

struct ev_stack_state *ev_frames_state(struct gs_frames *f)
{
	return &f->stack;
}

static void stack_state_free(struct ev_stack_state *s)
{
	free(s->v);
	base_arena_free(&s->arena);
	ev_py_free(s->py);
	memset(s, 0, sizeof(*s));
}

void gs_frames_free(struct gs_frames *f)
{
	if (!f)
		return;
	stack_state_free(&f->stack);
	for (size_t i = 0; i < f->npids; i++)
		pid_clear(&f->pids[i]);
	free(f->pids);
	for (size_t i = 0; i < f->nmods; i++) {
		free(f->mods[i]->path);
		free(f->mods[i]->name);
		free(f->mods[i]->sig);
		free(f->mods[i]);
	}
	for (size_t i = 0; i < f->names_cap; i++)
		free(f->names[i].shown);
	free(f->names);
	free(f->mods);
	free(f->statics);
	gs_symbolizer_free(f->sym);
	gs_kallsyms_free(f->ksyms);
	frames_jit_free(f->jit);
	gs_modfiles_free(f->own_files);
	free(f);
}
