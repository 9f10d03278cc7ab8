/* The ELF symbol tables of a module (.symtab and .dynsym), walked for the
 * names DWARF lacks: functions listed by a pattern, and the symbols at a
 * callee's entry that call sites name. */
#include "dwv_int.h"

int dwv_each_symbol(Elf *elf, int (*fn)(const GElf_Sym *sym, const char *name, void *arg),
		    void *arg)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			int rc;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			rc = fn(&sym, elf_strptr(elf, sh.sh_link, sym.st_name), arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}
