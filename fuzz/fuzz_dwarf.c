/* libFuzzer target for the dwarf layer on mutated ELF files. An input that
 * is an ELF image is read whole (and kept as the base of later edits); any
 * other input is a list of byte edits (u32 offset, u8 value) applied to the
 * last image seen, so the smoke run (corpus first, then random bytes)
 * mutates the seed's DWARF. Every function's entry and a few addresses
 * inside it get a scope; every variable is described, looked up by name
 * and typed; types are searched by name; functions are listed. Nothing
 * may crash, hang or read out of bounds, whatever the DWARF says. */
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/dwarf.h>

#include "base.h"
#include "smoke.h"

#define MAX_IMAGE (1 << 20)
#define MAX_PCS 64

static uint8_t base[MAX_IMAGE];
static size_t base_len;

/* Walks a type tree a bounded number of steps, as a renderer would. */
static size_t walk_type(const struct gs_type *t, unsigned depth)
{
	size_t n;

	if (!t || depth > 6)
		return 0;
	n = t->name ? strlen(t->name) : 0;
	for (uint32_t i = 0; i < t->nmembers && i < 64; i++)
		n += walk_type(t->members[i].type, depth + 1) + t->members[i].offset;
	for (uint32_t i = 0; i < t->nenumerators && i < 64; i++)
		n += strlen(t->enumerators[i].name);
	if (t->target)
		n += walk_type(t->target, depth + 1);
	return n;
}

static size_t function_pcs(Dwarf *dw, uint64_t *pcs)
{
	Dwarf_Off off = 0, next;
	size_t hsize, n = 0;

	while (n < MAX_PCS && dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL,
					      NULL, NULL) == 0) {
		Dwarf_Die cu, ch;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &ch) == 0) {
			do {
				Dwarf_Addr lo, hi;

				if (dwarf_tag(&ch) != DW_TAG_subprogram || dwarf_lowpc(&ch, &lo) != 0)
					continue;
				pcs[n++] = lo;
				if (n < MAX_PCS && dwarf_highpc(&ch, &hi) == 0 && hi > lo)
					pcs[n++] = lo + (hi - lo) / 2;
			} while (n < MAX_PCS && dwarf_siblingof(&ch, &ch) == 0);
		}
		if (next <= off)
			break;
		off = next;
	}
	return n;
}

static void exercise(uint8_t *img, size_t len)
{
	static const char *const types[] = { "int", "struct node", "node_t *", "enum e", "u32",
					     "struct nosuch" };
	struct gs_dwarf_opts o = { .sz = sizeof(o), .cookie = 1 };
	Elf *elf = elf_memory((char *)img, len);
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	struct gs_dwarf *d = NULL;
	uint64_t pcs[MAX_PCS];
	size_t npcs, sink = 0;

	if (!dw)
		goto out;
	o.cfi_elf = elf;
	if (gs_dwarf_new(dw, &o, &d, NULL))
		goto out;
	npcs = function_pcs(dw, pcs);
	for (size_t i = 0; i < npcs; i++) {
		const struct gs_dwarf_scope *s;
		char buf[256];

		if (gs_dwarf_scope_at(d, pcs[i], &s, NULL))
			continue;
		for (size_t k = 0; k < s->nvars; k++) {
			const struct gs_var *v;

			sink += gs_dwarf_describe_location(&s->vars[k].loc, buf, sizeof(buf));
			sink += walk_type(s->vars[k].type, 0);
			if (gs_dwarf_lookup(d, s, s->vars[k].name, &v, NULL) == 0)
				sink += v->loc.npieces;
		}
		for (size_t k = 0; k < BASE_ARRAY_SIZE(types); k++) {
			const struct gs_type *t;

			if (gs_dwarf_find_type(d, s, types[k], &t, NULL) == 0)
				sink += walk_type(t, 0);
		}
	}
	{
		const struct gs_var *v;
		struct gs_dwarf_function *fns;
		size_t n;

		if (gs_dwarf_lookup(d, NULL, "g_head", &v, NULL) == 0)
			sink += walk_type(v->type, 0);
		if (gs_dwarf_list_functions(d, elf, "*", &fns, &n, NULL) == 0)
			free(fns);
	}
	(void)sink;
out:
	gs_dwarf_free(d);
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
		/* edits land past the ELF header and section table in most cases */
		img[off % base_len] = data[i + 4];
	}
	exercise(img, base_len);
	return 0;
}
