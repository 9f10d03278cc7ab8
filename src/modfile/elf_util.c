/* Small helpers every reader of an ELF file needs (this layer, and unwind
 * through gs/internal/modfile.h): opening a file as an ELF the same way
 * everywhere (libelf version set once per call, messages that name the
 * path). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mf_int.h"

int mf_elf_open(const char *path, int *fd, Elf **elf, struct gs_error *err)
{
	struct stat st = { 0 };
	int f, code;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return gs_errorf(err, -EINVAL, "libelf is unusable: %s", elf_errmsg(-1));
	/* O_NONBLOCK: a FIFO must not hang us; fstat then refuses it. */
	f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f < 0) {
		code = -errno;
		return gs_errorf(err, code, "cannot open %s: %s; check the path and its permissions",
				 path, strerror(-code));
	}
	if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
		code = gs_errorf(err, -EINVAL, "%s is %s, not a regular file; give an executable or "
				 "a shared library", path, mf_file_kind(st.st_mode));
		close(f);
		return code;
	}
	*elf = elf_begin(f, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		code = gs_errorf(err, -EINVAL, "%s is not an ELF file (%s); give an executable or shared library",
				 path, *elf ? "not ELF" : elf_errmsg(-1));
		elf_end(*elf);
		close(f);
		return code;
	}
	*fd = f;
	return 0;
}

void mf_elf_close(int fd, Elf *elf)
{
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}
