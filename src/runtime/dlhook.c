/* Learning about dlopen and dlclose when they happen: a uprobe
 * on the dynamic linker's debugger hook, _dl_debug_state (the r_brk of
 * r_debug, where gdb puts its shared-library breakpoint), runs a small
 * program that counts calls in a one-entry array. The session reads the
 * count on every poll and refreshes the process's module maps when it
 * moves, instead of waiting for the 1 s timer (kept as the fallback).
 * Holding (a launched command): once the linker says the change is made
 * (r_state RT_CONSISTENT), the program also stops the process (SIGSTOP)
 * and rings a doorbell that wakes the reader; the session refreshes and
 * sends SIGCONT, so no frame runs in a library the maps do not know yet,
 * as gdb's stop at its own breakpoint there. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/insn.h>
#include <gs/protocol.h>
#include <gs/runtime.h>

#include "base.h"
#include "rt_int.h"

#define HOOK_SYMBOL "_dl_debug_state"
#define STATE_SYMBOL "_r_debug"

struct rt_dlhook {
	struct gs_bpf_maps maps; /* the call count, then the doorbell (holding) */
	struct gs_bpf_map map[2];
	struct ring_buffer *doorbell;
	int prog_fd;
	struct gs_uprobe *probe;
	pid_t pid;
	bool hold;
	bool owed; /* a stop was seen: SIGCONT once the maps are refreshed */
	uint64_t seen;
};

/* The hook's file offset in the linker at path (through the PT_LOAD that
 * holds it) and, when the linker defines _r_debug, the distance from the
 * hook to r_debug.r_state: the same in every image of the file. */
static int linker_symbols(const char *path, struct rt_dlhook_site *site, struct gs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -ENOENT;
	uint64_t hook = 0, state = 0;
	Elf_Scn *scn = NULL;
	size_t nph;
	Elf *elf;

	if (fd < 0)
		return gs_errorf(err, -errno, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !(hook && state) && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize && !(hook && state); k++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)k, &sym) || !sym.st_value ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && strcmp(n, HOOK_SYMBOL) == 0)
				hook = sym.st_value;
			else if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && strcmp(n, STATE_SYMBOL) == 0)
				state = sym.st_value + offsetof(struct r_debug, r_state);
		}
	}
	for (size_t i = 0; elf && hook && elf_getphdrnum(elf, &nph) == 0 && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && hook >= ph.p_vaddr &&
		    hook < ph.p_vaddr + ph.p_filesz) {
			site->off = hook - ph.p_vaddr + ph.p_offset;
			rc = 0;
		}
	}
	site->has_state = rc == 0 && state && (int64_t)(state - hook) == (int32_t)(state - hook);
	site->state_delta = site->has_state ? (int32_t)(state - hook) : 0;
	if (elf)
		elf_end(elf);
	close(fd);
	return rc ? gs_errorf(err, rc, "%s has no %s to probe", path, HOOK_SYMBOL) : 0;
}

/* Counts a call; holding, first stops the process (before the count: a
 * count the session sees always has its stop sent, so its SIGCONT never
 * comes before the SIGSTOP) and rings the doorbell after. */
int rt_dlhook_program(struct gs_asm *a, const struct rt_dlhook_site *site, bool hold,
		      bool doorbell, struct gs_error *err)
{
	uint32_t count = gs_asm_map(a, RT_DLHOOK_MAP);
	bool check = hold && site->has_state;
	struct gs_label done = { 0 };
	int16_t slot;

	if (check) {
		struct gs_label stop = gs_asm_label(a, "dl_hook_stop");

		done = gs_asm_label(a, "dl_hook_done");
		gs_asm_note(a, "dl hook: r_debug.r_state, from the hook's own address");
		slot = gs_asm_slot(a, "r_state", 4, 4);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R3, GS_R1, GS_PT_REGS_IP));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, site->state_delta));
		gs_asm_emit(a, GS_MOV64_REG(GS_R1, GS_R10));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R1, slot));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 4));
		gs_asm_call(a, BPF_FUNC_probe_read_user);
		gs_asm_jmp_imm(a, BPF_JNE, GS_R0, 0, stop);
		gs_asm_note(a, "dl hook: RT_ADD or RT_DELETE: the change is still to come");
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R10, slot));
		gs_asm_jmp_imm(a, BPF_JNE, GS_R1, RT_CONSISTENT, done);
		gs_asm_bind(a, stop);
	}
	if (hold) {
		gs_asm_note(a, "dl hook: hold the process until its modules are refreshed");
		gs_asm_emit(a, GS_MOV64_IMM(GS_R1, SIGSTOP));
		gs_asm_call(a, BPF_FUNC_send_signal);
	}
	gs_asm_note(a, "dl hook: " RT_DLHOOK_MAP "[0] += 1");
	gs_asm_ld_map_value(a, GS_R1, count, 0);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 1));
	gs_asm_emit(a, GS_ATOMIC_ADD(BPF_DW, GS_R1, GS_R2, 0));
	if (hold && doorbell) {
		gs_asm_note(a, "dl hook: wake the reader (" RT_DLHOOK_DOORBELL ")");
		slot = gs_asm_slot(a, "doorbell", 8, 8);
		gs_asm_emit(a, GS_ST_MEM(BPF_DW, GS_R10, slot, 0));
		gs_asm_ld_map(a, GS_R1, gs_asm_map(a, RT_DLHOOK_DOORBELL));
		gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R10));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, slot));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R3, 8));
		gs_asm_emit(a, GS_MOV64_IMM(GS_R4, BPF_RB_FORCE_WAKEUP));
		gs_asm_call(a, BPF_FUNC_ringbuf_output);
	}
	if (check) {
		gs_asm_bind(a, done);
		gs_asm_note(a, "dl hook: done");
	}
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	return gs_asm_finish(a, err);
}

/* The dynamic linker among the process's modules: the one defining the hook. */
static int find_linker(const struct gs_proc_modules *mods, struct rt_dlhook_site *site)
{
	for (size_t i = 0; i < mods->n; i++) {
		const char *base = strrchr(mods->v[i].path, '/');

		base = base ? base + 1 : mods->v[i].path;
		if (!base_has_prefix(base, "ld-") && !base_has_prefix(base, "ld.so"))
			continue;
		if (linker_symbols(mods->v[i].open_path, site, NULL) == 0)
			return (site->path = strdup(mods->v[i].open_path)) ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

static int locate_in(const struct gs_proc_modules *mods, pid_t pid, struct rt_dlhook_site *site,
		     struct gs_error *err)
{
	int rc;

	memset(site, 0, sizeof(*site));
	rc = find_linker(mods, site);
	if (rc == -ENOMEM)
		return gs_errorf(err, rc, "out of memory");
	if (rc)
		return gs_errorf(err, rc, "pid %d maps no dynamic linker with %s", (int)pid,
				 HOOK_SYMBOL);
	return 0;
}

int rt_dlhook_locate(pid_t pid, struct rt_dlhook_site *site, struct gs_error *err)
{
	struct gs_proc_modules mods;
	int rc = gs_proc_modules_load(pid, NULL, &mods, err);

	memset(site, 0, sizeof(*site));
	if (rc)
		return rc;
	rc = locate_in(&mods, pid, site, err);
	gs_proc_modules_free(&mods);
	return rc;
}

void rt_dlhook_site_free(struct rt_dlhook_site *site)
{
	free(site->path);
	site->path = NULL;
}

static int ignore_ring(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

static void unload_hook(struct rt_dlhook *h)
{
	ring_buffer__free(h->doorbell);
	h->doorbell = NULL;
	if (h->prog_fd >= 0)
		close(h->prog_fd);
	h->prog_fd = -1;
	for (size_t i = 0; i < h->maps.n; i++)
		close(h->map[i].fd);
	h->maps.n = 0;
}

void rt_dlhook_free(struct rt_dlhook *h)
{
	if (!h)
		return;
	gs_uprobe_detach(h->probe);
	/* no stop comes any more: one not answered yet is answered now */
	if (h->probe && h->hold && (rt_dlhook_changed(h) || h->owed))
		kill(h->pid, SIGCONT);
	unload_hook(h);
	free(h);
}

static int add_map(struct rt_dlhook *h, const char *name, uint32_t type, uint32_t key_size,
		   uint32_t value_size, uint32_t entries, struct gs_error *err)
{
	struct gs_bpf_map *m = &h->map[h->maps.n];

	*m = (struct gs_bpf_map){ .type = type, .key_size = key_size, .value_size = value_size,
				  .max_entries = entries };
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->fd = bpf_map_create(type, name, key_size, value_size, entries, NULL);
	if (m->fd < 0)
		return gs_errorf(err, m->fd, "cannot create the dlopen hook's map %s: %s", name,
				 strerror(-m->fd));
	h->maps.n++;
	return 0;
}

/* The maps and the program of one kind of hook, loaded. */
static int load_hook(struct rt_dlhook *h, const struct rt_dlhook_site *site, bool doorbell,
		     struct gs_error *err)
{
	struct gs_asm a;
	int rc = add_map(h, RT_DLHOOK_MAP, BPF_MAP_TYPE_ARRAY, 4, 8, 1, err);

	if (rc == 0 && h->hold && doorbell)
		rc = add_map(h, RT_DLHOOK_DOORBELL, BPF_MAP_TYPE_RINGBUF, 0, 0,
			     RT_DLHOOK_DOORBELL_SIZE, err);
	if (rc == 0 && h->hold && doorbell) {
		h->doorbell = ring_buffer__new(h->map[1].fd, ignore_ring, NULL, NULL);
		if (!h->doorbell)
			rc = gs_errorf(err, -errno, "cannot read the dlopen hook's ring: %s",
				       strerror(errno));
	}
	gs_asm_init(&a);
	if (rc == 0)
		rc = rt_dlhook_program(&a, site, h->hold, doorbell, err);
	if (rc == 0)
		rc = gs_asm_load(&a, RT_DLHOOK_PROG, &h->maps, NULL, &h->prog_fd, NULL, err);
	gs_asm_fini(&a);
	return rc;
}

int rt_dlhook_new(const struct gs_procfill *f, bool hold, bool force_tracefs,
		  struct rt_dlhook **out, struct gs_error *err)
{
	struct gs_uprobe_opts uo = { .sz = sizeof(uo), .pid = f->pid, .force_tracefs = force_tracefs };
	struct rt_dlhook_site site;
	struct rt_dlhook *h;
	int rc;

	*out = NULL;
	rc = locate_in(&f->mods, f->pid, &site, err);
	if (rc)
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h) {
		rt_dlhook_site_free(&site);
		return gs_errorf(err, -ENOMEM, "out of memory for the dlopen hook");
	}
	h->prog_fd = -1;
	h->pid = f->pid;
	h->maps.v = h->map;
	/* Holding needs bpf_send_signal (Linux 5.3); the doorbell a ring
	 * buffer (5.8): without it the poll's tick finds the count. A kernel
	 * that refuses both counts, as for -p. */
	h->hold = hold;
	rc = load_hook(h, &site, hold && gs_ringbuf_supported(), err);
	if (rc && hold) {
		unload_hook(h);
		h->hold = false;
		rc = load_hook(h, &site, false, err);
	}
	if (rc == 0)
		rc = gs_uprobe_attach(h->prog_fd, site.path, site.off, &uo, &h->probe, err);
	rt_dlhook_site_free(&site);
	if (rc) {
		rt_dlhook_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int rt_dlhook_doorbell_fd(const struct rt_dlhook *h)
{
	return h && h->doorbell ? ring_buffer__epoll_fd(h->doorbell) : -1;
}

int rt_dlhook_changed(struct rt_dlhook *h)
{
	uint32_t key = 0;
	uint64_t n;

	if (!h || !h->maps.n)
		return 0;
	if (h->doorbell)
		ring_buffer__consume(h->doorbell);
	if (bpf_map_lookup_elem(h->map[0].fd, &key, &n) != 0 || n == h->seen)
		return 0;
	h->seen = n;
	h->owed = h->hold;
	return 1;
}

void rt_dlhook_release(struct rt_dlhook *h)
{
	if (!h || !h->owed)
		return;
	h->owed = false;
	kill(h->pid, SIGCONT);
}
