/* Internals shared by the files of src/unwind: FDE ranges of a CFI section,
 * a growable array helper, the ELF opening every reader does the same way,
 * and the module-file cache's debug-file search. Not part of the public
 * API. */
#ifndef GS_UNWIND_INT_H
#define GS_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/error.h>

struct Elf;

/* The address range of one FDE, [lo, hi) in link-time addresses. */
struct gs_fde_range {
	uint64_t lo, hi;
};

struct gs_fde_ranges {
	struct gs_fde_range *v;
	size_t n, cap;
	size_t bad; /* FDEs skipped: undecodable address or CIE */
	size_t section_bytes; /* size of the section (0: none) */
	bool broken;          /* the walk stopped at a malformed entry, */
	size_t broken_at;     /* ... at this offset in the section */
};

/* Collects every FDE range of `.eh_frame` (eh_frame true) or `.debug_frame`,
 * walking the entries with dwarf_next_cfi(). A missing section gives an
 * empty list and 0. */
int gs_fde_ranges_read(struct Elf *elf, bool eh_frame, struct gs_fde_ranges *out,
		       struct gs_error *err);

/* Grows *v (element size `size`) so that it holds at least `need`
 * elements; 0 or -ENOMEM. */
int gs_unwind_grow(void **v, size_t *cap, size_t need, size_t size);

/* Opens path read-only as an ELF; *fd and *elf on success, else -errno
 * with a message naming the path. */
int gs_elf_open(const char *path, int *fd, struct Elf **elf, struct gs_error *err);
void gs_elf_close(int fd, struct Elf *elf);

/* ---- module files (modfile.c, modfile_debug.c) ---------------------------- */

#include <elfutils/libdwfl.h>

/* libdwfl's find_debuginfo for the module-file cache: build-id directories,
 * the debug link beside the module (opened without blocking, build id and
 * CRC checked), then the debug roots and debuginfod through libdwfl. */
int uw_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      const char *file_name, const char *debuglink, GElf_Word crc,
		      char **debuginfo_file_name);
/* dirs is one or more absolute directories separated by ':'. */
bool uw_debug_dirs_valid(const char *dirs);
/* "a FIFO", "a directory", ... for an st_mode. */
const char *uw_file_kind(unsigned mode);
/* A path that may name a module: not under /proc or /sys, except a
 * process's view of its root (/proc/PID/root/...). */
bool uw_path_visible(const char *p);

#endif /* GS_UNWIND_INT_H */
