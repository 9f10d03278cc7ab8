/* Where each module's TLS block is in a process's threads (docs/tls.md),
 * read as libthread_db reads it for gdb: the dynamic linker's slotinfo
 * list (_rtld_global._dl_tls_dtv_slotinfo_list) names, per TLS module id,
 * the generation that added it and its link_map, whose l_tls_offset says
 * whether the block is static TLS (thread pointer - offset) or dynamic
 * (the thread's DTV). The layout of these private structures comes from
 * the descriptors glibc exports for libthread_db (_thread_db_*, in
 * libc.so.6's .dynsym), read from the process itself; its memory is
 * hostile: every list is bounded, every offset checked. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>
#include <gs/runtime.h>

#include "base.h"
#include "rt_int.h"

#define MAX_LISTS 64        /* slotinfo lists followed (each holds 64+ ids) */
#define MAX_LIST_LEN 4096   /* entries of one list read */
#define MAX_FIELD_OFF 65536 /* a descriptor's offset past this is not glibc's */
#define NO_TLS_OFFSET 0
#define FORCED_DYNAMIC_TLS_OFFSET (-1)

/* libthread_db's field descriptors: { bits, count, offset } (glibc's
 * nptl_db/structs.def, DB_STRUCT_FIELD). */
enum desc {
	D_LM_MODID, D_LM_OFFSET, D_RTLD_SLOTINFO, D_LIST_LEN, D_LIST_NEXT, D_LIST_SLOTINFO,
	D_SLOT_GEN, D_SLOT_MAP, D_COUNT
};

static const char *const desc_names[D_COUNT] = {
	"_thread_db_link_map_l_tls_modid", "_thread_db_link_map_l_tls_offset",
	"_thread_db_rtld_global__dl_tls_dtv_slotinfo_list", "_thread_db_dtv_slotinfo_list_len",
	"_thread_db_dtv_slotinfo_list_next", "_thread_db_dtv_slotinfo_list_slotinfo",
	"_thread_db_dtv_slotinfo_gen", "_thread_db_dtv_slotinfo_map",
};

struct layout {
	uint32_t off[D_COUNT];
	uint32_t slot_size; /* bytes of one dtv_slotinfo */
	uint64_t head;      /* address of _rtld_global._dl_tls_dtv_slotinfo_list */
};

/* The value of the defined symbol `name` in m's .dynsym. */
static bool dynsym(struct gs_modfile *m, const char *name, uint64_t *value)
{
	Elf *elf = m ? gs_modfile_elf(m) : NULL;
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(data, (int)k, &sym) && sym.st_shndx != SHN_UNDEF &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) && strcmp(n, name) == 0) {
				*value = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

static bool read_mem(int fd, uint64_t addr, void *buf, size_t n)
{
	return addr && pread(fd, buf, n, (off_t)addr) == (ssize_t)n;
}

static bool read_u64(int fd, uint64_t addr, uint64_t *v)
{
	return read_mem(fd, addr, v, sizeof(*v));
}

/* The descriptors, from the module that exports them (libc.so.6 since
 * glibc 2.34), and the slotinfo list head in the module defining
 * _rtld_global (the dynamic linker). */
static bool find_layout(int fd, const struct gs_proc_modules *mods, struct layout *l)
{
	const struct gs_proc_module *db = NULL, *rtld = NULL;
	uint64_t v, global = 0;

	for (size_t i = 0; i < mods->n && (!db || !rtld); i++) {
		if (!db && dynsym(mods->v[i].file, desc_names[D_LM_MODID], &v))
			db = &mods->v[i];
		if (!rtld && dynsym(mods->v[i].file, "_rtld_global", &global))
			rtld = &mods->v[i];
	}
	if (!db || !rtld)
		return false;
	for (int d = 0; d < D_COUNT; d++) {
		uint32_t desc[3];

		if (!dynsym(db->file, desc_names[d], &v) ||
		    !read_mem(fd, v + db->offsets.data, desc, sizeof(desc)) ||
		    desc[2] >= MAX_FIELD_OFF)
			return false;
		/* pointers and sizes are 64 bits; the slotinfo array's element
		 * is a whole dtv_slotinfo */
		if (d == D_LIST_SLOTINFO)
			l->slot_size = desc[0] / 8;
		else if (desc[0] != 64)
			return false;
		l->off[d] = desc[2];
	}
	/* BPF reads a slot as {gen, map} (protocol.h) */
	if (l->slot_size < 16 || l->slot_size > 64 || l->off[D_SLOT_GEN] != GS_TLS_SLOT_GEN ||
	    l->off[D_SLOT_MAP] != GS_TLS_SLOT_MAP)
		return false;
	l->head = global + rtld->offsets.data + l->off[D_RTLD_SLOTINFO];
	return true;
}

/* The module whose link_map says l_addr (its bias) and l_ld (its dynamic
 * section, inside its mappings). */
static const struct gs_proc_module *module_of(const struct gs_proc_modules *mods,
					      uint64_t l_addr, uint64_t l_ld)
{
	for (size_t i = 0; i < mods->n; i++) {
		const struct gs_proc_module *m = &mods->v[i];

		if (m->offsets.data == l_addr && l_ld >= m->offsets.base &&
		    l_ld - m->offsets.base < m->offsets.size)
			return m;
	}
	return NULL;
}

/* One slotinfo entry (at slot): module id `modid`, its link_map at map. */
static void add_entry(int fd, const struct layout *l, const struct gs_proc_modules *mods,
		      uint64_t modid, uint64_t slot, uint64_t gen, uint64_t map,
		      struct rt_tls_table *t)
{
	uint64_t hdr[3], lm_modid, lm_off;
	const struct gs_proc_module *m;

	/* link_map's public head: l_addr, l_name, l_ld */
	if (!read_mem(fd, map, hdr, sizeof(hdr)) || !read_u64(fd, map + l->off[D_LM_MODID], &lm_modid) ||
	    !read_u64(fd, map + l->off[D_LM_OFFSET], &lm_off) || lm_modid != modid ||
	    !(m = module_of(mods, hdr[0], hdr[2])))
		return;
	if (base_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return;
	t->v[t->n++] = (struct rt_tls_module){
		.cookie = m->id.cookie,
		.tls = { .modid = modid, .gen = gen, .slotinfo = slot, .link_map = map,
			 .static_offset = (int64_t)lm_off == NO_TLS_OFFSET ||
						  (int64_t)lm_off == FORCED_DYNAMIC_TLS_OFFSET ?
					  0 : (int64_t)lm_off },
	};
}

int rt_tls_read(pid_t pid, const struct gs_proc_modules *mods, struct rt_tls_table *t)
{
	uint8_t *slots = NULL;
	uint64_t list, first = 0;
	struct layout l = { 0 };
	char path[64];
	int fd;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!find_layout(fd, mods, &l) || !read_u64(fd, l.head, &list)) {
		close(fd);
		return -ENOENT;
	}
	t->found = true;
	for (int k = 0; list && k < MAX_LISTS; k++) {
		uint64_t len, next;

		if (!read_u64(fd, list + l.off[D_LIST_LEN], &len) ||
		    !read_u64(fd, list + l.off[D_LIST_NEXT], &next) || len > MAX_LIST_LEN)
			break;
		free(slots);
		slots = malloc(len ? len * l.slot_size : 1);
		if (!slots || !read_mem(fd, list + l.off[D_LIST_SLOTINFO], slots, len * l.slot_size))
			break;
		for (uint64_t j = 0; j < len; j++) {
			uint64_t gen, map;

			memcpy(&gen, slots + j * l.slot_size + l.off[D_SLOT_GEN], 8);
			memcpy(&map, slots + j * l.slot_size + l.off[D_SLOT_MAP], 8);
			if (first + j && map)
				add_entry(fd, &l, mods, first + j,
					  list + l.off[D_LIST_SLOTINFO] + j * l.slot_size, gen, map,
					  t);
		}
		first += len;
		list = next;
	}
	free(slots);
	close(fd);
	return 0;
}

/* The modules with a PT_TLS segment: each should have an entry. */
static bool has_tls(struct gs_modfile *m)
{
	Elf *elf = m ? gs_modfile_elf(m) : NULL;
	size_t n;

	for (size_t i = 0; elf && elf_getphdrnum(elf, &n) == 0 && i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_TLS && ph.p_memsz)
			return true;
	}
	return false;
}

bool rt_tls_missing(const struct gs_proc_modules *mods, const struct rt_tls_table *t)
{
	for (size_t i = 0; i < mods->n; i++) {
		bool found = false;

		for (size_t k = 0; k < t->n && !found; k++)
			found = t->v[k].cookie == mods->v[i].id.cookie;
		if (!found && has_tls(mods->v[i].file))
			return true;
	}
	return false;
}

void rt_tls_table_free(struct rt_tls_table *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* Once: the thread pointer's offset, and pid's tables (or that it has no
 * glibc dynamic linker to keep any). */
static void check_once(struct rt_tls_check *k, struct gs_modfiles *files)
{
	struct gs_proc_modules mods;
	uint64_t v;

	k->tried = true;
	k->fsbase_known = rt_task_fsbase_offset(&k->fsbase, NULL) == 0;
	if (k->pid <= 0 || gs_proc_modules_load(k->pid, files, &mods, NULL) != 0)
		return;
	if (rt_tls_read(k->pid, &mods, &k->t) != 0) {
		/* ld.so before it ran (a launched command) has _rtld_global: wait */
		k->no_loader = true;
		for (size_t i = 0; i < mods.n && k->no_loader; i++)
			k->no_loader = !dynsym(mods.v[i].file, "_rtld_global", &v);
	}
	gs_proc_modules_free(&mods);
}

uint8_t rt_tls_check(struct rt_tls_check *k, struct gs_modfiles *files, uint64_t cookie,
		     char *desc, size_t size)
{
	if (size)
		desc[0] = '\0';
	if (!k->tried)
		check_once(k, files);
	if (!k->fsbase_known)
		return GS_LOC_WHY_TLS_NO_THREAD_POINTER;
	if (k->no_loader)
		return GS_LOC_WHY_TLS_NO_LOADER;
	for (size_t i = 0; i < k->t.n && size; i++) {
		const struct gs_proc_module_tls *m = &k->t.v[i].tls;

		if (k->t.v[i].cookie != cookie)
			continue;
		if (m->static_offset)
			snprintf(desc, size, "; pid %d: module id %llu, static TLS at thread pointer "
				 "- 0x%llx", (int)k->pid, (unsigned long long)m->modid,
				 (unsigned long long)m->static_offset);
		else
			snprintf(desc, size, "; pid %d: module id %llu, dynamic TLS (the thread's DTV, "
				 "generation %llu)", (int)k->pid, (unsigned long long)m->modid,
				 (unsigned long long)m->gen);
	}
	return GS_LOC_WHY_NONE;
}

void rt_tls_check_fini(struct rt_tls_check *k)
{
	rt_tls_table_free(&k->t);
	memset(k, 0, sizeof(*k));
}
