/* Load bias, base and size of a mapped module (docs/unwind.md, "Process
 * maps and load bias"): what the ELF says about its PT_LOAD segments and
 * sections, matched against the process's mappings of the file. Pure
 * functions except for libelf reads. */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include <gs/modfile.h>

#include "base.h"
#include "mf_int.h"

#define PAGE_MASK_4K (~(uint64_t)0xfff)

/* Address of the first section named .text*, else .rodata*, .data*, .bss*. */
static bool find_anchor(Elf *elf, uint64_t *addr)
{
	static const char *const prefixes[] = { ".text", ".rodata", ".data", ".bss" };
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	for (size_t k = 0; k < BASE_ARRAY_SIZE(prefixes); k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && base_has_prefix(name, prefixes[k])) {
				*addr = sh.sh_addr;
				return true;
			}
		}
	}
	return false;
}

int mf_elf_layout_read(Elf *elf, struct mf_elf_layout *out, struct gs_error *err)
{
	GElf_Ehdr eh;
	size_t phnum;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0)
		return gs_errorf(err, -EINVAL, "ELF headers unreadable: %s", elf_errmsg(-1));
	out->type = eh.e_type;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (out->nloads == MF_ELF_MAX_LOADS)
			return gs_errorf(err, -E2BIG, "more than %d PT_LOAD segments; not a usual executable or library",
					 MF_ELF_MAX_LOADS);
		out->loads[out->nloads++] = (struct mf_elf_load){
			ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz,
		};
	}
	out->has_anchor = find_anchor(elf, &out->anchor);
	return 0;
}

/* Bias of a segment through a mapping that holds its first page. In
 * general form, so a segment whose p_vaddr is not page aligned (RELRO
 * data) gets the same bias as the text segment. */
static bool segment_bias(const struct mf_elf_load *l, const struct mf_map_candidate *maps,
			 size_t n, uint64_t *bias)
{
	for (size_t i = 0; i < n; i++) {
		if ((maps[i].file_offset & PAGE_MASK_4K) != (l->offset & PAGE_MASK_4K))
			continue;
		*bias = maps[i].start - maps[i].file_offset + l->offset - l->vaddr;
		return true;
	}
	return false;
}

/* A mapping of the module's file bytes somewhere else than the load bias
 * puts them: V8 maps its embedded builtins (node's .text) a second time
 * beside its JIT code. It is not the module's: counting it would stretch
 * [base, base + size) over gigabytes of anonymous memory (the JIT code
 * between), whose pcs would all read as the module's. */
bool mf_mapping_remapped(const struct mf_elf_layout *layout, const struct mf_map_candidate *m,
			 uint64_t bias)
{
	for (size_t i = 0; i < layout->nloads; i++) {
		const struct mf_elf_load *l = &layout->loads[i];

		if (m->file_offset < (l->offset & PAGE_MASK_4K) ||
		    m->file_offset >= l->offset + l->filesz)
			continue;
		if (m->start - m->file_offset == bias + l->vaddr - l->offset)
			return false;
	}
	for (size_t i = 0; i < layout->nloads; i++) {
		const struct mf_elf_load *l = &layout->loads[i];

		if (m->file_offset >= (l->offset & PAGE_MASK_4K) &&
		    m->file_offset < l->offset + l->filesz)
			return true; /* file bytes of a segment, at another bias */
	}
	return false;
}

bool mf_remap_offsets(const struct mf_elf_layout *layout, const struct mf_map_candidate *m,
		      struct gs_proc_module_offsets *out)
{
	for (size_t i = 0; i < layout->nloads; i++) {
		const struct mf_elf_load *l = &layout->loads[i];
		uint64_t bias;

		if (m->file_offset < (l->offset & PAGE_MASK_4K) ||
		    m->file_offset >= l->offset + l->filesz)
			continue;
		bias = m->start - m->file_offset + l->offset - l->vaddr;
		*out = (struct gs_proc_module_offsets){
			.text = bias, .rodata = bias, .data = bias, .bss = bias,
			.base = m->start, .size = m->end - m->start,
		};
		return true;
	}
	return false;
}

int mf_module_offsets_compute(const struct mf_elf_layout *layout,
			      const struct mf_map_candidate *maps, size_t n,
			      struct gs_proc_module_offsets *out, struct gs_error *err)
{
	uint64_t base = UINT64_MAX, end = 0, bias = 0, b;
	bool matched = false, anchored = false;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return gs_errorf(err, -ENOENT, "module has no mappings");
	for (size_t i = 0; i < layout->nloads; i++) {
		const struct mf_elf_load *l = &layout->loads[i];
		bool holds_anchor = layout->has_anchor && layout->anchor >= l->vaddr &&
				    layout->anchor - l->vaddr < (l->memsz ? l->memsz : 1);

		if (!segment_bias(l, maps, n, &b))
			continue;
		if (holds_anchor && !anchored) {
			bias = b;
			anchored = true;
		} else if (!matched && !anchored) {
			bias = b; /* until the anchor's segment shows up */
		}
		matched = true;
	}
	if (!matched)
		return gs_errorf(err, -ENOENT, "no PT_LOAD segment of the module matches a mapping's file offset; the file on disk may differ from the one mapped");
	for (size_t i = 0; i < n; i++) {
		if (mf_mapping_remapped(layout, &maps[i], bias))
			continue;
		if (maps[i].start < base)
			base = maps[i].start;
		if (maps[i].end > end)
			end = maps[i].end;
	}
	*out = (struct gs_proc_module_offsets){
		.text = bias, .rodata = bias, .data = bias, .bss = bias,
		.base = base, .size = end - base,
	};
	return 0;
}
