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

	if (r->jit) {
		/* JIT code: one line, the runtime's name for it (docs/jit.md). */
		lines[0] = (struct pprof_line){ .name = r->jit_name ? r->jit_name : GS_FRAME_JIT_NAME };
		lines[0].system_name = lines[0].name;
		return pprof_location(p, NULL, addr, lines, 1);
	}
	if (!r->resolved)
		return pprof_location(p, NULL, addr, lines, n);
	frame_mapping(gs_frames_modfile(f, r), r->path, addr, hex, &m);
	return pprof_location(p, &m, addr, lines, n);
}

/* A CPU sample's kernel frames (KernelStack), innermost first: each its
 * kallsyms function, in the mapping of the kernel's text. */
static size_t add_kernel_frames(struct gs_pprof *p, const struct gs_inst *ks, uint64_t *locs)
{
	static const struct pprof_map kernel = { .file = "[kernel.kallsyms]", .build_id = "",
						 .start = 0xffff800000000000ull,
						 .limit = UINT64_MAX };
	size_t n = 0;

	for (unsigned i = 0; ks && i < ks->kernel_stack.frame_count; i++) {
		struct pprof_line line = { 0 };
		uint64_t addr, off;

		memcpy(&addr, ks->kernel_stack.addrs + 8u * i, 8);
		line.name = line.system_name = gs_frames_kernel_symbol(pprof_frames(p), addr, &off);
		if (!(locs[n] = pprof_location(p, addr >= kernel.start ? &kernel : NULL, addr, &line,
					       line.name ? 1 : 0)))
			return SIZE_MAX;
		n++;
	}
	return n;
}

static int add_backtrace(struct gs_pprof *p, const struct gs_event *ev, const struct gs_inst *bt,
			 const struct gs_inst *ks, uint64_t *locs, uint64_t n)
{
	bool after_signal = false;
	size_t nk = add_kernel_frames(p, ks, locs);
	unsigned count = bt->backtrace.frame_count;

	if (nk == SIZE_MAX)
		return -ENOMEM;
	locs += nk;
	for (unsigned i = 0; i < count; i++) {
		struct gs_frame r;

		gs_frames_resolve(pprof_frames(p), ev, bt, i, &r);
		locs[i] = frame_location(p, &r, i > 0 && !after_signal);
		if (!locs[i])
			return -ENOMEM;
		after_signal = r.signal_frame;
	}
	return pprof_sample(p, locs - nk, count + nk, ev->pid, ev->tid, ev->trace_id, n);
}

int gs_pprof_add(struct gs_pprof *p, const struct gs_event *ev, uint64_t n)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < ev->ninsts; i++) {
		const struct gs_inst *in = &ev->insts[i];
		/* a CPU sample's kernel stack sits above its user stack */
		const struct gs_inst *ks = i + 1 < ev->ninsts &&
			ev->insts[i + 1].type == GS_INST_KERNEL_STACK ? &ev->insts[i + 1] : NULL;
		size_t nk = ks ? ks->kernel_stack.frame_count : 0;
		uint64_t *locs;

		if (in->type != GS_INST_BACKTRACE || !(in->backtrace.frame_count + nk))
			continue;
		if (!(locs = malloc((in->backtrace.frame_count + nk) * sizeof(*locs))))
			return -ENOMEM;
		rc = add_backtrace(p, ev, in, ks, locs, n);
		free(locs);
	}
	return rc;
}
