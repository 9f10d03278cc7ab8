/* Test helpers shared by the unwind tests (see fixtures.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "fixtures.h"

char *fx_path(const char *name, char *buf, size_t size)
{
	const char *dir = getenv("GS_UNWIND_FIXTURES");

	snprintf(buf, size, "%s/%s", dir ? dir : ".", name);
	return buf;
}

char *fx_run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0, cap = 0, n;

	if (!p)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			out = realloc(out, cap);
		}
		n = fread(out + len, 1, cap - len - 1, p);
		len += n;
	} while (n > 0);
	out[len] = '\0';
	pclose(p);
	return out;
}

bool fx_symbol(const char *file, const char *name, uint64_t *value, uint64_t *size)
{
	int fd = open(file, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && strcmp(n, name) == 0 && sym.st_value) {
				*value = sym.st_value;
				*size = sym.st_size;
				found = true;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

const char *fx_libc(void)
{
	static const char *const candidates[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib64/libc.so.6", "/lib64/libc.so.6",
	};

	for (size_t i = 0; i < BASE_ARRAY_SIZE(candidates); i++)
		if (access(candidates[i], R_OK) == 0)
			return candidates[i];
	return NULL;
}
