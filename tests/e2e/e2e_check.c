/* Checks of the e2e scenarios: expectations collected with the output they
 * were made on, the reference's block assertions, the comparison of each
 * backtrace with gdb's, and running gstrace itself. */
#define _GNU_SOURCE /* vasprintf */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

void e2e_expect(struct e2e_ctx *c, bool ok, const char *fmt, ...)
{
	va_list ap;
	char *t = NULL;

	if (ok)
		return;
	c->failures++;
	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	e2e_buf_printf(&c->log, "FAIL: %s\n", t ? t : fmt);
	free(t);
}

bool e2e_fixture_start_or_skip(struct e2e_ctx *c, struct e2e_fixture *f, const char *name)
{
	if (access(e2e_fixture_path(name), X_OK) != 0) {
		c->skip = "this fixture build needs a compiler this machine lacks (clang)";
		return false;
	}
	if (!e2e_fixture_start(f, name)) {
		e2e_expect(c, false, "fixture %s did not start", name);
		return false;
	}
	return true;
}

void e2e_note(struct e2e_ctx *c, const char *fmt, ...)
{
	va_list ap;
	char *t = NULL;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	e2e_buf_printf(&c->log, "%s", t ? t : fmt);
	free(t);
}

/* ---- blocks ---------------------------------------------------------------- */

bool e2e_block_has(const struct e2e_block *b, const char *needle)
{
	return strstr(e2e_buf_str(&b->text), needle) != NULL;
}

bool e2e_block_ordered(const struct e2e_block *b, const char *const *names, size_t n)
{
	const struct e2e_frame *v[E2E_MAX_FRAMES];
	size_t np = e2e_block_physical(b, v, E2E_MAX_FRAMES);

	if (np < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i]->index != i || strcmp(v[i]->func, names[i]) != 0)
			return false;
	return true;
}

bool e2e_block_error_stop(const struct e2e_block *b)
{
	static const char *const errors[] = {
		"invalid frame", "read error", "unsupported CFI", "no unwind rows for PC",
	};

	for (size_t i = 0; i < BASE_ARRAY_SIZE(errors); i++)
		if (strncmp(b->stopped, errors[i], strlen(errors[i])) == 0)
			return true;
	return false;
}

bool e2e_block_adjacent_dup(const struct e2e_block *b)
{
	const struct e2e_frame *v[E2E_MAX_FRAMES];
	size_t np = e2e_block_physical(b, v, E2E_MAX_FRAMES);

	for (size_t i = 0; i + 1 < np; i++)
		if (v[i]->has_module && v[i + 1]->has_module &&
		    strcmp(v[i]->module, v[i + 1]->module) == 0 && v[i]->offset == v[i + 1]->offset)
			return true;
	return false;
}

/* ---- addresses: [module+off] back to a runtime pc ------------------------- */

/* Lowest PT_LOAD vaddr (page aligned) of an ELF file, or false. */
static bool elf_first_vaddr(const char *path, uint64_t *vaddr)
{
	Elf64_Ehdr eh;
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (unsigned i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * (uint64_t)eh.e_phentsize)) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (!found || (ph.p_vaddr & ~0xfffULL) < *vaddr)) {
				*vaddr = ph.p_vaddr & ~0xfffULL;
				found = true;
			}
		}
	}
	close(fd);
	return found;
}

/* Load bias of the module whose file name is `base` in pid's maps. */
bool e2e_module_bias(pid_t pid, const char *base, uint64_t *bias)
{
	char path[64], line[4096];
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	while (f && !ok && fgets(line, sizeof(line), f)) {
		uint64_t start, end, off, vaddr;
		char file[4096] = "";
		const char *slash;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %4095s", &start, &end,
			   &off, file) != 4 || off != 0 || file[0] != '/')
			continue;
		slash = strrchr(file, '/');
		if (strcmp(slash + 1, base) != 0 || !elf_first_vaddr(file, &vaddr))
			continue;
		*bias = start - vaddr;
		ok = true;
	}
	if (f)
		fclose(f);
	return ok;
}

/* ---- gdb comparison ---------------------------------------------------------- */

/* gdb's frames grouped like gstrace's: inline ones, then the physical. */
struct group {
	const struct e2e_gdb_frame *inl[16];
	size_t ninl;
	const struct e2e_gdb_frame *phys;
};

static size_t gdb_groups(const struct e2e_gdb_bt *g, struct group *out, size_t max)
{
	size_t n = 0;
	struct group cur = { .ninl = 0 };

	for (size_t i = 0; i < g->n && n < max; i++) {
		if (g->f[i].inline_frame) {
			if (cur.ninl < 16)
				cur.inl[cur.ninl++] = &g->f[i];
			continue;
		}
		cur.phys = &g->f[i];
		out[n++] = cur;
		cur.ninl = 0;
	}
	return n;
}

/* glibc's assembly functions have several ELF names at one address
 * (kill, __kill, __GI_kill; clone3, __clone3) and gdb and libdwfl pick
 * different ones: compared without the __GI_ and __ prefixes. The
 * address is compared as well (compare_frame). */
static const char *glibc_base_name(const char *s)
{
	if (strncmp(s, "__GI_", 5) == 0)
		s += 5;
	while (s[0] == '_' && s[1] == '_')
		s += 2;
	return s;
}

static bool same_name(const char *gs, const char *gdb)
{
	return strcmp(gs, gdb) == 0 || strcmp(glibc_base_name(gs), glibc_base_name(gdb)) == 0;
}

static void compare_frame(struct e2e_ctx *c, size_t bi, const struct e2e_frame *f,
			  const struct e2e_gdb_frame *gf, pid_t pid)
{
	if (f->raw) {
		e2e_expect(c, f->raw_ip == gf->pc,
			   "event %zu frame #%u: raw=0x%" PRIx64 " but gdb's frame is at 0x%" PRIx64
			   " (%s)", bi, f->index, f->raw_ip, gf->pc, gf->func);
		return;
	}
	if (strcmp(f->func, "<unknown function>") == 0) {
		/* gstrace may lack a name only where gdb has no DWARF either;
		 * then the module must agree when gdb names one. */
		e2e_expect(c, !gf->has_line,
			   "event %zu frame #%u: gstrace has no function where gdb has %s with "
			   "source: %s", bi, f->index, gf->func, f->line);
		if (gf->from[0])
			e2e_expect(c, f->has_module && strcmp(f->module, gf->from) == 0,
				   "event %zu frame #%u: module %s, gdb says from %s", bi, f->index,
				   f->module, gf->from);
	} else {
		e2e_expect(c, same_name(f->func, gf->func),
			   "event %zu frame #%u: gstrace %s, gdb %s", bi, f->index, f->func,
			   gf->func);
	}
	if (pid > 0 && f->has_module) {
		uint64_t bias;

		if (e2e_module_bias(pid, f->module, &bias))
			e2e_expect(c, f->offset + bias == gf->pc,
				   "event %zu frame #%u (%s): [%s+0x%" PRIx64 "] is 0x%" PRIx64
				   " in pid %d, gdb's frame is at 0x%" PRIx64, bi, f->index, f->func,
				   f->module, f->offset, f->offset + bias, (int)pid, gf->pc);
		else
			e2e_expect(c, false, "event %zu frame #%u: module %s not in pid %d's maps",
				   bi, f->index, f->module, (int)pid);
	}
}

void e2e_compare_gdb(struct e2e_ctx *c, const struct e2e_block *b, const struct e2e_gdb_bt *g,
		     bool inline_shown, pid_t pid)
{
	static struct group groups[E2E_MAX_FRAMES];
	size_t ng = gdb_groups(g, groups, E2E_MAX_FRAMES);
	size_t bi = b->event;
	size_t gi = 0, fi = 0, nphys = 0;
	const struct e2e_frame *inl[16];
	size_t ninl = 0;

	for (fi = 0; fi < b->nf; fi++) {
		const struct e2e_frame *f = &b->frames[fi];

		if (f->inline_frame) {
			if (ninl < 16)
				inl[ninl++] = f;
			continue;
		}
		nphys++;
		if (gi >= ng) {
			e2e_expect(c, false, "event %zu: frame #%u (%s) is past gdb's %zu frames", bi,
				   f->index, f->func, ng);
			ninl = 0;
			continue;
		}
		if (inline_shown && !f->raw) {
			bool same = ninl == groups[gi].ninl, rev = same;

			for (size_t k = 0; k < ninl && (same || rev); k++) {
				same = same && same_name(inl[k]->func, groups[gi].inl[k]->func);
				rev = rev && same_name(inl[k]->func, groups[gi].inl[ninl - 1 - k]->func);
			}
			e2e_expect(c, same || rev,
				   "event %zu frame #%u: %zu inline pseudo-frames (%s), gdb has %zu "
				   "(%s) inlined there", bi, f->index, ninl,
				   ninl ? inl[0]->func : "-", groups[gi].ninl,
				   groups[gi].ninl ? groups[gi].inl[0]->func : "-");
		} else {
			e2e_expect(c, ninl == 0, "event %zu frame #%u: inline pseudo-frames in a "
				   "block that should have none", bi, f->index);
		}
		compare_frame(c, bi, f, groups[gi].phys, pid);
		gi++;
		ninl = 0;
	}
	if (strcmp(b->status, "complete") == 0)
		e2e_expect(c, nphys == ng,
			   "event %zu: complete backtrace of %zu frames, gdb has %zu", bi, nphys, ng);
	else if (strcmp(b->status, "truncated") == 0)
		e2e_expect(c, nphys == b->max && ng >= nphys,
			   "event %zu: truncated at %zu frames (max %u), gdb has %zu", bi, nphys,
			   b->max, ng);
}

/* ---- running gstrace ---------------------------------------------------------- */

bool e2e_trace_start(struct e2e_ctx *c, const struct e2e_trace *t, struct e2e_run *r)
{
	char pid[16], depth[16], maxev[16], dur[16];
	const char *argv[48];
	size_t n = 0;

	argv[n++] = e2e_gstrace_path();
	if (t->pid > 0) {
		snprintf(pid, sizeof(pid), "%d", (int)t->pid);
		argv[n++] = "-p";
		argv[n++] = pid;
	}
	if (t->target) {
		argv[n++] = "-t";
		argv[n++] = t->target;
	}
	if (t->depth) {
		snprintf(depth, sizeof(depth), "%u", t->depth);
		argv[n++] = "--backtrace-depth";
		argv[n++] = depth;
	}
	if (t->output) {
		argv[n++] = "--script-output";
		argv[n++] = t->output;
	}
	if (t->max_events) {
		snprintf(maxev, sizeof(maxev), "%u", t->max_events);
		argv[n++] = "--max-events";
		argv[n++] = maxev;
	}
	if (t->duration) {
		snprintf(dur, sizeof(dur), "%u", t->duration);
		argv[n++] = "--duration";
		argv[n++] = dur;
	}
	if (t->perf)
		argv[n++] = "--force-perf-event-array";
	/* The same scenarios over the other walker (meson's e2e-tailcall-*). */
	if (getenv("GS_E2E_UNWINDER") && *getenv("GS_E2E_UNWINDER")) {
		argv[n++] = "--unwinder";
		argv[n++] = getenv("GS_E2E_UNWINDER");
	}
	argv[n++] = "--emit-ready-marker";
	argv[n++] = E2E_READY;
	for (size_t i = 0; i < 8 && t->extra[i]; i++)
		argv[n++] = t->extra[i];
	if (t->script) {
		argv[n++] = "-s";
		argv[n++] = t->script;
	}
	if (t->command) {
		argv[n++] = "--";
		argv[n++] = t->command;
	}
	argv[n] = NULL;
	if (e2e_run_start(r, (char *const *)argv)) {
		e2e_expect(c, false, "cannot start %s", argv[0]);
		return false;
	}
	return true;
}

void e2e_trace_finish(struct e2e_ctx *c, struct e2e_run *r, int timeout_ms, struct e2e_output *out)
{
	const char *so;
	size_t lines = 0, cut;

	e2e_run_finish(r, timeout_ms);
	e2e_note(c, "$ %s\n  exit %d after %.2f s%s\n", e2e_buf_str(&r->cmdline),
		 e2e_run_exit_code(r), r->secs, r->killed ? " (stopped by the harness)" : "");
	so = e2e_buf_str(&r->out);
	/* the log keeps the first 60 lines of stdout */
	for (cut = 0; so[cut] && lines < 60; cut++)
		lines += so[cut] == '\n';
	e2e_note(c, "  --- stdout (%zu bytes) ---\n%.*s%s  --- stderr ---\n%s", r->out.len, (int)cut,
		 so, so[cut] ? "  [...]\n" : "", e2e_buf_str(&r->err));
	e2e_parse(so, out);
}

void e2e_trace_run(struct e2e_ctx *c, const struct e2e_trace *t, struct e2e_run *r,
		   struct e2e_output *out)
{
	memset(out, 0, sizeof(*out));
	if (!e2e_trace_start(c, t, r))
		return;
	e2e_trace_finish(c, r, 30000, out);
}

bool e2e_frame_runtime_pc(pid_t pid, const struct e2e_frame *f, uint64_t *pc)
{
	uint64_t bias;

	if (f->raw && f->raw_ip) {
		*pc = f->raw_ip;
		return true;
	}
	if (!f->has_module || !e2e_module_bias(pid, f->module, &bias))
		return false;
	*pc = f->offset + bias;
	return true;
}
