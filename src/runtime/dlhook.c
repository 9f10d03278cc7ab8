/* Learning about dlopen and dlclose when they happen (issue 11): a uprobe
 * on the dynamic linker's debugger hook, _dl_debug_state (the r_brk of
 * r_debug, where gdb puts its shared-library breakpoint), runs a four
 * instruction program that counts calls in a one-entry array. The session
 * reads the count on every poll and refreshes the process's module maps as
 * soon as it moves, instead of waiting for the 1 s timer (kept as the
 * fallback). The probe runs after the linker maps or unmaps a library;
 * a backtrace whose probe is in the library itself does not need it (frame
 * 0's module comes from the probe), the others gain the refresh latency. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <gs/asm.h>
#include <gs/insn.h>
#include <gs/runtime.h>

#include "rt_int.h"

#define HOOK_SYMBOL "_dl_debug_state"

struct rt_dlhook {
	struct gs_bpf_maps maps; /* one map: the call count */
	struct gs_bpf_map map;
	int prog_fd;
	struct gs_uprobe *probe;
	uint64_t seen;
};

/* File offset of a function symbol of the ELF at path (.dynsym, then
 * .symtab), through the PT_LOAD that holds it. */
static int symbol_offset(const char *path, const char *name, uint64_t *off, struct gs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -ENOENT;
	uint64_t value = 0;
	Elf_Scn *scn = NULL;
	size_t nph;
	Elf *elf;

	if (fd < 0)
		return gs_errorf(err, -errno, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !value && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize && !value; k++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(data, (int)k, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    sym.st_value && (n = elf_strptr(elf, sh.sh_link, sym.st_name)) &&
			    strcmp(n, name) == 0)
				value = sym.st_value;
		}
	}
	for (size_t i = 0; elf && value && elf_getphdrnum(elf, &nph) == 0 && i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && value >= ph.p_vaddr &&
		    value < ph.p_vaddr + ph.p_filesz) {
			*off = value - ph.p_vaddr + ph.p_offset;
			rc = 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc ? gs_errorf(err, rc, "%s has no %s to probe", path, name) : 0;
}

int rt_dlhook_program(struct gs_asm *a, struct gs_error *err)
{
	gs_asm_note(a, "dl hook: " RT_DLHOOK_MAP "[0] += 1");
	gs_asm_ld_map_value(a, GS_R1, gs_asm_map(a, RT_DLHOOK_MAP), 0);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R2, 1));
	gs_asm_emit(a, GS_ATOMIC_ADD(BPF_DW, GS_R1, GS_R2, 0));
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
	return gs_asm_finish(a, err);
}

/* The dynamic linker among the process's modules: the one defining the hook. */
static const struct gs_proc_module *find_linker(const struct gs_proc_modules *mods,
						uint64_t *off)
{
	for (size_t i = 0; i < mods->n; i++) {
		const char *base = strrchr(mods->v[i].path, '/');

		base = base ? base + 1 : mods->v[i].path;
		if (strncmp(base, "ld-", 3) != 0 && strncmp(base, "ld.so", 5) != 0)
			continue;
		if (symbol_offset(mods->v[i].open_path, HOOK_SYMBOL, off, NULL) == 0)
			return &mods->v[i];
	}
	return NULL;
}

int rt_dlhook_locate(pid_t pid, char **path, uint64_t *off, struct gs_error *err)
{
	struct gs_proc_modules mods;
	const struct gs_proc_module *ld;
	int rc = gs_proc_modules_load(pid, NULL, &mods, err);

	*path = NULL;
	if (rc)
		return rc;
	ld = find_linker(&mods, off);
	if (ld && !(*path = strdup(ld->open_path)))
		rc = gs_errorf(err, -ENOMEM, "out of memory");
	else if (!ld)
		rc = gs_errorf(err, -ENOENT, "pid %d maps no dynamic linker with %s", (int)pid,
			       HOOK_SYMBOL);
	gs_proc_modules_free(&mods);
	return rc;
}

void rt_dlhook_free(struct rt_dlhook *h)
{
	if (!h)
		return;
	gs_uprobe_detach(h->probe);
	if (h->prog_fd >= 0)
		close(h->prog_fd);
	if (h->map.fd >= 0)
		close(h->map.fd);
	free(h);
}

int rt_dlhook_new(const struct gs_procfill *f, bool force_tracefs, struct rt_dlhook **out,
		  struct gs_error *err)
{
	struct gs_uprobe_opts uo = { .sz = sizeof(uo), .pid = f->pid, .force_tracefs = force_tracefs };
	const struct gs_proc_module *ld;
	struct rt_dlhook *h;
	struct gs_asm a;
	uint64_t off = 0;
	int rc;

	*out = NULL;
	ld = find_linker(&f->mods, &off);
	if (!ld)
		return gs_errorf(err, -ENOENT, "pid %d maps no dynamic linker with %s", (int)f->pid,
				 HOOK_SYMBOL);
	h = calloc(1, sizeof(*h));
	if (!h)
		return gs_errorf(err, -ENOMEM, "out of memory for the dlopen hook");
	h->prog_fd = -1;
	h->map = (struct gs_bpf_map){ .name = RT_DLHOOK_MAP, .type = BPF_MAP_TYPE_ARRAY,
				      .key_size = 4, .value_size = 8, .max_entries = 1 };
	h->map.fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, h->map.name, 4, 8, 1, NULL);
	if (h->map.fd < 0) {
		rc = h->map.fd;
		rt_dlhook_free(h);
		return gs_errorf(err, rc, "cannot create the dlopen hook's map: %s", strerror(-rc));
	}
	h->maps = (struct gs_bpf_maps){ .v = &h->map, .n = 1 };
	gs_asm_init(&a);
	rc = rt_dlhook_program(&a, err);
	if (rc == 0)
		rc = gs_asm_load(&a, RT_DLHOOK_PROG, &h->maps, NULL, &h->prog_fd, NULL, err);
	gs_asm_fini(&a);
	if (rc == 0)
		rc = gs_uprobe_attach(h->prog_fd, ld->open_path, off, &uo, &h->probe, err);
	if (rc) {
		rt_dlhook_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int rt_dlhook_changed(struct rt_dlhook *h)
{
	uint32_t key = 0;
	uint64_t n;

	if (!h || bpf_map_lookup_elem(h->map.fd, &key, &n) != 0 || n == h->seen)
		return 0;
	h->seen = n;
	return 1;
}
