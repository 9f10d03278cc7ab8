/* Linked into the static gstrace only (src/gstrace/meson.build): libdwfl's
 * whole-file bzip2 decompressor, replaced by the answer libdwfl itself
 * gives when elfutils is built without bzip2 (libdwfl/open.c defines
 * __libdw_bunzip2(...) as DWFL_E_BADELF then), so that libbz2.a (59 kB, its
 * compressor included) stays out of the binary (docs/cli.md, "The static
 * binary").
 *
 * libdwfl calls it from one place, open.c's decompress(), and only for a
 * file libelf finds to be neither ELF nor an ar archive: a whole file
 * compressed with bzip2, as kernel modules (*.ko.bz2) or offline files may
 * be. gstrace opens the ELF files that processes map (an executable or a
 * library the kernel or ld.so has mapped is an ELF file) and their debug
 * files (ELF files, their sections compressed with zlib or zstd at most,
 * which libelf inflates itself), so it never gets there. A bzip2 file in
 * such a place is reported as "not a valid ELF file", as by an elfutils
 * without bzip2, and not read. xz stays: MiniDebugInfo (.gnu_debugdata) is
 * xz, and gzip stays too (zlib is linked for compressed sections anyway).
 *
 * DWFL_E_BADELF is libdwfl's private error number: meson.build asks the
 * installed libdw.a's own __libdw_bunzip2 what it returns for data that is
 * not bzip2, and passes it as GS_DWFL_E_BADELF; without an answer this
 * file is not linked. Built without LTO: its caller is libdw.a's machine
 * code. */
#include <stddef.h>
#include <sys/types.h>

int __libdw_bunzip2(int fd, off_t start_offset, void *mapped, size_t mapped_size, void **whole,
		    size_t *whole_size);

int __libdw_bunzip2(int fd, off_t start_offset, void *mapped, size_t mapped_size, void **whole,
		    size_t *whole_size)
{
	(void)fd, (void)start_offset, (void)mapped, (void)mapped_size;
	(void)whole, (void)whole_size;
	return GS_DWFL_E_BADELF;
}
