/* IFUNC resolution: a GNU indirect function's symbol is its resolver,
 * which the dynamic linker runs once when the symbol is bound; the
 * implementation it chose lands in the GOT slot the module's
 * R_X86_64_IRELATIVE relocation names, which a live process's memory
 * shows (/proc/PID/mem). */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"

/* The GOT slot the module's R_X86_64_IRELATIVE relocation for the resolver
 * at `resolver` fills (libc calls its own IFUNCs through these), or 0. */
static uint64_t irelative_slot(Elf *elf, uint64_t resolver)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Rela r;

			if (gelf_getrela(data, (int)k, &r) && GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
			    (uint64_t)r.r_addend == resolver)
				return r.r_offset;
		}
	}
	return 0;
}

bool mf_ifunc_selected(struct gs_modfile *file, const char *path, pid_t pid, uint64_t resolver,
		       uint64_t *impl)
{
	uint64_t slot = irelative_slot(gs_modfile_elf(file), resolver), value = 0;
	const struct gs_proc_module *m = NULL;
	struct gs_proc_modules mods;
	char mem[64];
	int fd;

	*impl = 0;
	if (!slot || pid <= 0 || gs_proc_modules_load(pid, NULL, &mods, NULL) != 0)
		return false;
	for (size_t i = 0; i < mods.n && !m; i++)
		if (strcmp(mods.v[i].open_path, path) == 0 || strcmp(mods.v[i].path, path) == 0)
			m = &mods.v[i];
	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = m ? open(mem, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && pread(fd, &value, sizeof(value), (off_t)(slot + m->offsets.text)) !=
			       (ssize_t)sizeof(value))
		value = 0;
	if (fd >= 0)
		close(fd);
	if (m && value > m->offsets.text)
		*impl = value - m->offsets.text;
	gs_proc_modules_free(&mods);
	return *impl && gs_modfile_function_at(file, *impl);
}

