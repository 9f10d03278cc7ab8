/* Test helpers of the dwarf suites (see dwarf_fixture.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_fixture.h"

bool dfx_open(struct dfx *f, const char *name)
{
	const char *dir = getenv("GS_DWARF_FIXTURES");
	struct gs_dwarf_opts o = { .sz = sizeof(o), .cookie = 0x1234 };
	struct gs_error err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	snprintf(f->path, sizeof(f->path), "%s/%s", dir ? dir : ".", name);
	elf_version(EV_CURRENT);
	f->fd = open(f->path, O_RDONLY);
	if (f->fd < 0 || !(f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL)) ||
	    !(f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL))) {
		fprintf(stderr, "cannot open %s as ELF with DWARF\n", f->path);
		dfx_close(f);
		return false;
	}
	o.cfi_elf = f->elf;
	if (gs_dwarf_new(f->dw, &o, &f->d, &err)) {
		fprintf(stderr, "%s: %s\n", f->path, err.msg);
		dfx_close(f);
		return false;
	}
	return true;
}

void dfx_close(struct dfx *f)
{
	gs_dwarf_free(f->d);
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

const char *const *dfx_variants(void)
{
	static char buf[1024];
	static const char *v[32];
	const char *env = getenv("GS_DWARF_VARIANTS");
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", env ? env : "");
	for (char *s = strtok(buf, " "); s && n < 31; s = strtok(NULL, " "))
		v[n++] = s;
	v[n] = NULL;
	return v;
}

uint64_t dfx_breakpoint(struct dfx *f, const char *fn)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_next_unit(f->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die cu, ch;

		if (dwarf_offdie(f->dw, off + hsize, &cu) && dwarf_child(&cu, &ch) == 0) {
			do {
				Dwarf_Addr *bkpts = NULL;
				const char *name = dwarf_diename(&ch);
				int n;
				uint64_t pc;

				if (dwarf_tag(&ch) != DW_TAG_subprogram || !name ||
				    strcmp(name, fn) != 0 || !dwarf_hasattr(&ch, DW_AT_low_pc))
					continue;
				n = dwarf_entry_breakpoints(&ch, &bkpts);
				pc = n > 0 ? bkpts[0] : 0;
				free(bkpts);
				return pc;
			} while (dwarf_siblingof(&ch, &ch) == 0);
		}
		off = next;
	}
	return 0;
}

static uint64_t find_inline(Dwarf_Die *die, const char *fn, int depth)
{
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(die, &c) != 0)
		return 0;
	do {
		const char *name = dwarf_diename(&c);
		Dwarf_Addr pc;
		uint64_t found;

		if (dwarf_tag(&c) == DW_TAG_inlined_subroutine && name && strcmp(name, fn) == 0 &&
		    dwarf_entrypc(&c, &pc) == 0)
			return pc;
		if ((found = find_inline(&c, fn, depth + 1)))
			return found;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

uint64_t dfx_inline_pc(struct dfx *f, const char *fn)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_next_unit(f->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die cu;
		uint64_t pc;

		if (dwarf_offdie(f->dw, off + hsize, &cu) && (pc = find_inline(&cu, fn, 0)))
			return pc;
		off = next;
	}
	return 0;
}

uint64_t dfx_symbol(struct dfx *f, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			s = elf_strptr(f->elf, sh.sh_link, sym.st_name);
			if (s && strcmp(s, name) == 0)
				return sym.st_value;
		}
	}
	return 0;
}

const struct gs_var *dfx_var(struct dfx *f, uint64_t pc, const char *name)
{
	const struct gs_dwarf_scope *s;
	const struct gs_var *v;
	struct gs_error err;

	if (gs_dwarf_scope_at(f->d, pc, &s, &err)) {
		fprintf(stderr, "%s: %s\n", f->path, err.msg);
		return NULL;
	}
	if (gs_dwarf_lookup(f->d, s, name, &v, &err)) {
		fprintf(stderr, "%s: %s\n", f->path, err.msg);
		return NULL;
	}
	return v;
}
