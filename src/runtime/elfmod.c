/* A module opened for target resolution: its ELF, the debug file its build
 * id names when it lacks DWARF or a full symbol table, and its symbol
 * tables searched by name and by address. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "rt_int.h"

#define DEBUG_ROOT "/usr/lib/debug/.build-id"

static int open_elf(const char *path, int *fd, Elf **elf)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		close(*fd);
		*fd = -1;
		*elf = NULL;
		return -EINVAL;
	}
	return 0;
}

static bool has_section(Elf *elf, Elf64_Word type, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (n && strcmp(n, name) == 0))
			return true;
	}
	return false;
}

/* The debug file named by the build id, when one is installed. */
static void open_debug_file(struct rt_module *m)
{
	const uint8_t *id;
	size_t len, off;
	char path[sizeof(DEBUG_ROOT) + 2 * GS_BUILD_ID_MAX + 16];

	if (gs_elf_build_id(m->elf, &id, &len) != 0 || len < 2 || len > GS_BUILD_ID_MAX)
		return;
	off = (size_t)snprintf(path, sizeof(path), DEBUG_ROOT "/%02x/", id[0]);
	for (size_t i = 1; i < len; i++)
		off += (size_t)snprintf(path + off, sizeof(path) - off, "%02x", id[i]);
	snprintf(path + off, sizeof(path) - off, ".debug");
	open_elf(path, &m->debug_fd, &m->debug_elf);
}

int rt_module_open(const char *path, bool dwarf, struct rt_module *m, struct gs_error *err)
{
	bool has_info;
	int rc;

	memset(m, 0, sizeof(*m));
	m->path = path;
	m->fd = m->debug_fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return gs_errorf(err, -EINVAL, "libelf is unusable: %s", elf_errmsg(-1));
	rc = open_elf(path, &m->fd, &m->elf);
	if (rc == -EINVAL)
		return gs_errorf(err, rc, "%s is not an ELF file; give an executable or a shared "
				 "library", path);
	if (rc)
		return gs_errorf(err, rc, "cannot open %s: %s; check the path%s", path,
				 strerror(-rc), rc == -EACCES ? " and its permissions" : "");
	has_info = has_section(m->elf, SHT_PROGBITS, ".debug_info");
	if (!has_info || !has_section(m->elf, SHT_SYMTAB, NULL))
		open_debug_file(m);
	if (dwarf && has_info)
		m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	if (dwarf && !m->dw && m->debug_elf)
		m->dw = dwarf_begin_elf(m->debug_elf, DWARF_C_READ, NULL);
	return 0;
}

void rt_module_close(struct rt_module *m)
{
	if (m->dw)
		dwarf_end(m->dw);
	elf_end(m->debug_elf);
	elf_end(m->elf);
	if (m->debug_fd >= 0)
		close(m->debug_fd);
	if (m->fd >= 0)
		close(m->fd);
	memset(m, 0, sizeof(*m));
	m->fd = m->debug_fd = -1;
}

/* ---- symbol tables ------------------------------------------------------- */

static bool is_code_symbol(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF &&
	       sym->st_value != 0;
}

typedef bool (*sym_fn)(void *arg, const char *name, const GElf_Sym *sym);

/* Calls fn for each symbol of the first table of `type` until it returns
 * true. */
static void walk_symbols(Elf *elf, Elf64_Word type, sym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && fn(arg, name, &sym))
				return;
		}
		return;
	}
}

static bool match_name(void *arg, const char *name, const GElf_Sym *sym)
{
	struct rt_syms *s = arg;

	if (!is_code_symbol(sym) || strcmp(name, s->name) != 0)
		return false;
	for (size_t i = 0; i < s->n; i++)
		if (s->addr[i] == sym->st_value)
			return false;
	s->addr[s->n] = sym->st_value;
	s->size[s->n] = sym->st_size;
	return ++s->n == RT_SYMS_MAX;
}

struct sym_by_addr {
	uint64_t addr;
	const char *name;
};

static bool match_addr(void *arg, const char *name, const GElf_Sym *sym)
{
	struct sym_by_addr *s = arg;

	if (!is_code_symbol(sym) || !name[0])
		return false;
	if (s->addr == sym->st_value ||
	    (s->addr > sym->st_value && s->addr - sym->st_value < sym->st_size)) {
		s->name = name;
		return true;
	}
	return false;
}

/* m's symbol tables in order of preference: .symtab, the debug file's
 * .symtab (a stripped binary's full table), .dynsym. */
struct symtab_ref {
	Elf *elf;
	Elf64_Word type;
};

static size_t symbol_tables(const struct rt_module *m, struct symtab_ref out[3])
{
	size_t n = 0;

	out[n++] = (struct symtab_ref){ m->elf, SHT_SYMTAB };
	if (m->debug_elf)
		out[n++] = (struct symtab_ref){ m->debug_elf, SHT_SYMTAB };
	out[n++] = (struct symtab_ref){ m->elf, SHT_DYNSYM };
	return n;
}

void rt_symbols_named(const struct rt_module *m, struct rt_syms *s)
{
	struct symtab_ref t[3];
	size_t n = symbol_tables(m, t);

	for (size_t i = 0; i < n && s->n == 0; i++)
		walk_symbols(t[i].elf, t[i].type, match_name, s);
}

const char *rt_function_at(const struct rt_module *m, uint64_t addr)
{
	struct sym_by_addr s = { .addr = addr };
	struct symtab_ref t[3];
	size_t n = symbol_tables(m, t);

	for (size_t i = 0; i < n && !s.name; i++)
		walk_symbols(t[i].elf, t[i].type, match_addr, &s);
	return s.name;
}
