/* User backtraces into pprof locations (gs_pprof_add): each frame resolved
 * as every output resolves it (gs_frames), its mapping the module's
 * loadable segment holding the address (link-time addresses, the file's
 * name and GNU build id), its lines the symbolizer's function and inlined
 * calls, innermost first. Everything enters the tables through
 * pprof_location, the one door for frames of any source. */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/modfile.h>

#include "base.h"
#include "pprof_int.h"

/* A physical function and what is inlined into it at one pc. */
#define MAX_LINES 64

/* The lines of a symbolized frame, innermost first: the inlined calls
 * (the one at the pc first), then the physical function; each at the line
 * it is at in its caller's view: the pc's own line for the innermost, the
 * call's line for the others. Levels without a name are left out, as
 * folded stacks leave them out. */
static size_t frame_lines(struct gs_frames *f, const struct gs_sym_info *s, struct pprof_line *out)
{
	size_t ni = s->from_dwarf ? s->ninlines : 0, n = 0;

	if (ni > MAX_LINES - 1)
		ni = MAX_LINES - 1;
	for (size_t j = ni + 1; j-- > 0;) {
		const char *raw = j ? s->inlines[j - 1].name : s->function;

		if (!raw)
			continue;
		out[n++] = (struct pprof_line){
			.name = gs_frames_name(f, raw),
			.system_name = raw,
			.file = j < ni ? s->inlines[j].call_file : s->file,
			.line = j < ni ? s->inlines[j].call_line : s->line,
		};
	}
	return n;
}

/* The mapping of a module address: the PT_LOAD of file holding it (the
 * whole file from 0 when none does). hex holds the build id. */
static void frame_mapping(struct gs_modfile *file, const char *path, uint64_t addr,
			  char hex[2 * GS_BUILD_ID_MAX + 1], struct pprof_map *m)
{
	const struct gs_module_id *id = file ? gs_modfile_id(file) : NULL;
	Elf *elf = file ? gs_modfile_elf(file) : NULL;
	size_t phnum = 0;

	*m = (struct pprof_map){ .file = file ? gs_modfile_path(file) : path, .build_id = hex };
	hex[0] = '\0';
	for (size_t i = 0; id && i < id->build_id_len; i++) {
		hex[2 * i] = "0123456789abcdef"[id->build_id[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[id->build_id[i] & 15];
		hex[2 * i + 2] = '\0';
	}
	if (!elf || elf_getphdrnum(elf, &phnum) != 0)
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_memsz)
			continue;
		m->start = ph.p_vaddr;
		m->limit = ph.p_vaddr + ph.p_memsz;
		m->file_offset = ph.p_offset;
		return;
	}
}

/* The location of a resolved frame. call: a caller's frame, whose pc is
 * a return address; the location is the call, the byte before. */
static uint64_t frame_location(struct gs_pprof *p, const struct gs_frame *r, bool call)
{
	struct gs_frames *f = pprof_frames(p);
	struct pprof_line lines[MAX_LINES];
	char hex[2 * GS_BUILD_ID_MAX + 1];
	uint64_t addr = call && r->pc ? r->pc - 1 : r->pc;
	struct pprof_map m;
	size_t n = r->sym && r->sym->function ? frame_lines(f, r->sym, lines) : 0;

	if (!r->resolved)
		return pprof_location(p, NULL, addr, lines, n);
	frame_mapping(gs_frames_modfile(f, r), r->path, addr, hex, &m);
	return pprof_location(p, &m, addr, lines, n);
}

/* The kernel's text, where a sample's kernel frames are. */
static const struct pprof_map kernel_map = { .file = "[kernel.kallsyms]", .build_id = "",
					     .start = 0xffff800000000000ull,
					     .limit = UINT64_MAX };

/* A Python frame: its function (qualified name, file, first line) at its
 * line. It has no address of its own: the location is keyed by a hash of
 * what it shows, with the top bit set (no user address has it), so one
 * line of one function is one location in every process. */
static uint64_t python_location(struct gs_pprof *p, const struct gs_stack_frame *f)
{
	struct pprof_line line = { .name = f->function, .system_name = f->function,
				   .file = f->file, .line = f->line, .start_line = f->first_line };
	uint64_t h = 0xcbf29ce484222325ull;
	const char *parts[2] = { f->function, f->file };

	if (!f->function)
		return pprof_location(p, NULL, f->addr | 1ull << 63, NULL, 0);
	for (size_t k = 0; k < 2; k++)
		for (const char *c = parts[k] ? parts[k] : ""; ; c++) {
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
			if (!*c)
				break;
		}
	h = (h ^ (uint64_t)(uint32_t)f->line) * 0x100000001b3ull;
	return pprof_location(p, NULL, h | 1ull << 63, &line, 1);
}

static uint64_t stack_location(struct gs_pprof *p, const struct gs_stack_frame *f)
{
	struct pprof_line line = { 0 };

	switch (f->kind) {
	case GS_FRAME_KERNEL:
		line.name = line.system_name = f->function;
		return pprof_location(p, f->addr >= kernel_map.start ? &kernel_map : NULL, f->addr,
				      &line, line.name ? 1 : 0);
	case GS_FRAME_PYTHON:
		return python_location(p, f);
	case GS_FRAME_JIT:
		/* one line, the runtime's name for it (docs/jit.md) */
		line.name = line.system_name = f->function ? f->function : GS_FRAME_JIT_NAME;
		return pprof_location(p, NULL, f->caller ? f->addr - 1 : f->addr, &line, 1);
	default:
		return frame_location(p, &f->native, f->caller);
	}
}

static int add_backtrace(struct gs_pprof *p, const struct gs_event *ev, const struct gs_inst *bt,
			 uint64_t labels, uint64_t **locs, size_t *cap, uint64_t n)
{
	struct gs_stack st;

	gs_frames_stack(pprof_frames(p), ev, bt, &st);
	if (!st.count)
		return 0;
	if (base_grow((void **)locs, cap, st.count, sizeof(**locs)))
		return -ENOMEM;
	for (size_t i = 0; i < st.count; i++)
		if (!((*locs)[i] = stack_location(p, &st.frames[i])))
			return -ENOMEM;
	return pprof_sample(p, *locs, st.count, ev->pid, ev->tid, ev->trace_id, labels, n);
}

int gs_pprof_add(struct gs_pprof *p, const struct gs_event *ev, uint64_t n)
{
	uint64_t *locs = NULL, labels = 0;
	bool labelled = false;
	size_t cap = 0;
	int rc = 0;

	/* each backtrace with what goes with it (gs_frames_stack): a sample's
	 * kernel frames above its user ones, Python frames in place */
	for (size_t i = 0; rc == 0 && i < ev->ninsts; i++) {
		if (ev->insts[i].type != GS_INST_BACKTRACE)
			continue;
		if (!labelled) {
			labels = pprof_labels(p, ev);
			labelled = true;
		}
		rc = add_backtrace(p, ev, &ev->insts[i], labels, &locs, &cap, n);
	}
	free(locs);
	return rc;
}
