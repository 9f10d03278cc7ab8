/* libFuzzer target for the source-file index on mutated ELF files, the
 * pattern of fuzz_dwarf.c: an ELF input is read whole (and kept as the base
 * of later edits), any other input is a list of byte edits (u32 offset, u8
 * value) applied to the last image. The image's DWARF is added as a module;
 * every file's lines are read, and the function of each line (and of one
 * line past the last) asked for, and each file found by its path. Nothing
 * may crash, hang or read out of bounds, whatever the line tables and DIEs
 * say. Seeds: a C++ library (namespaced method, header code, a path with
 * "./" and "..") and a C one. */
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdint.h>
#include <string.h>

#include <gs/sources.h>

#include "dwv_int.h"
#include "smoke.h"

#define MAX_IMAGE (1 << 20)
#define MAX_LINES_ASKED 4096

static uint8_t base[MAX_IMAGE];
static size_t base_len;

static size_t browse(struct gs_sources *s, size_t i)
{
	const uint32_t *lines;
	uint32_t first, last;
	size_t n, sink = 0;
	const char *fn;

	sink += gs_sources_find(s, gs_sources_path(s, i)) == (long)i;
	sink += strlen(gs_sources_module(s, i));
	if (gs_sources_lines(s, i, &lines, &n, NULL))
		return sink;
	for (size_t k = 0; k <= n && k < MAX_LINES_ASKED; k++) {
		fn = gs_sources_function_at(s, i, k < n ? lines[k] : UINT32_MAX, &first, &last);
		if (fn)
			sink += strlen(fn) + (last - first);
	}
	return sink;
}

static void exercise(uint8_t *img, size_t len)
{
	Elf *elf = elf_memory((char *)img, len);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	struct gs_sources *s = NULL;
	size_t sink = 0;

	if (!dw || gs_sources_new(&s, NULL))
		goto out;
	if (dwv_sources_add_dwarf(s, dw, "fuzz.so", NULL) == 0)
		for (size_t i = 0; i < gs_sources_count(s); i++)
			sink += browse(s, i);
	sink += gs_sources_find(s, "seed.cc") >= 0;
	(void)sink;
out:
	gs_sources_free(s);
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t img[MAX_IMAGE];

	elf_version(EV_CURRENT);
	if (size >= 4 && memcmp(data, ELFMAG, 4) == 0 && size <= MAX_IMAGE) {
		memcpy(base, data, size);
		base_len = size;
		memcpy(img, data, size);
		exercise(img, size);
		return 0;
	}
	if (!base_len)
		return 0;
	memcpy(img, base, base_len);
	for (size_t i = 0; i + 5 <= size; i += 5) {
		uint32_t off;

		memcpy(&off, data + i, 4);
		img[off % base_len] = data[i + 4];
	}
	exercise(img, base_len);
	return 0;
}
