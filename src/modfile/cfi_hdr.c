/* .eh_frame_hdr's search table against the FDEs of .eh_frame: libdw finds
 * an address's FDE through this table when there is one, at whatever
 * offset an entry names, so an entry pointing anywhere but at an FDE of
 * the section's chain of entries (all of them checked before libdw runs
 * any, cfi_fde.c) would let it run instructions nobody checked. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <string.h>

#include "base.h"
#include "mf_int.h"

struct hdr {
	const uint8_t *base, *end;
	uint64_t vaddr;
	bool big_endian;
	unsigned addr_size;
};

/* A value of a fixed-size format, the way libdw's read_encoded_value
 * reads it in the header (datarel and pcrel relative to the header);
 * false when cut short or in a form libdw may read differently. */
static bool read_value(const struct hdr *h, const uint8_t **p, int enc, uint64_t *out)
{
	uint64_t v = 0, base;
	unsigned size;

	switch (enc & 0x07) {
	case DW_EH_PE_absptr:
		size = h->addr_size;
		break;
	case DW_EH_PE_udata2:
		size = 2;
		break;
	case DW_EH_PE_udata4:
		size = 4;
		break;
	case DW_EH_PE_udata8:
		size = 8;
		break;
	default:
		return false; /* LEB128 or unknown */
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_textrel: /* libdw's textrel and funcrel are 0 here */
	case DW_EH_PE_funcrel:
		base = 0;
		break;
	case DW_EH_PE_pcrel:
		base = h->vaddr + (uint64_t)(*p - h->base);
		break;
	case DW_EH_PE_datarel:
		base = h->vaddr;
		break;
	default:
		return false;
	}
	if ((enc & DW_EH_PE_indirect) || (size_t)(h->end - *p) < size)
		return false;
	for (unsigned i = 0; i < size; i++)
		v = v << 8 | (*p)[h->big_endian ? i : size - 1 - i];
	if ((enc & 0x08) && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	*p += size;
	*out = base + v;
	return true;
}

struct off_key {
	const size_t *offs;
	uint64_t off;
};

static bool off_below(const void *ctx, size_t i)
{
	const struct off_key *k = ctx;

	return k->offs[i] < k->off;
}

static bool has_offset(const size_t *offs, size_t n, uint64_t off)
{
	struct off_key k = { offs, off };
	size_t at = base_lower_bound(0, n, &k, off_below);

	return at < n && offs[at] == off;
}

bool mf_eh_frame_hdr_matches(Elf *elf, uint64_t eh_addr, const size_t *offs, size_t n)
{
	size_t shstrndx, ident_size;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, &ident_size);
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	Elf_Data *data = NULL;
	struct hdr h;
	const uint8_t *p;
	uint64_t eh_ptr, count;
	int ptr_enc, count_enc, table_enc;

	if (!ident || ident_size < EI_NIDENT || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && strcmp(name, ".eh_frame_hdr") == 0) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	/* No table, or one libdw refuses (and with it the whole .eh_frame). */
	if (!data || !data->d_buf || data->d_size < 4 || ((const uint8_t *)data->d_buf)[0] != 1)
		return true;
	h = (struct hdr){ .base = data->d_buf, .end = (const uint8_t *)data->d_buf + data->d_size,
			  .vaddr = shdr.sh_addr, .big_endian = ident[EI_DATA] == ELFDATA2MSB,
			  .addr_size = ident[EI_CLASS] == ELFCLASS32 ? 4 : 8 };
	ptr_enc = h.base[1];
	count_enc = h.base[2];
	table_enc = h.base[3];
	p = h.base + 4;
	if (ptr_enc == DW_EH_PE_omit || count_enc == DW_EH_PE_omit)
		return true;
	if (!read_value(&h, &p, ptr_enc, &eh_ptr) || !read_value(&h, &p, count_enc, &count))
		return false; /* a header libdw might read otherwise */
	if (count == 0 || table_enc == DW_EH_PE_omit || eh_ptr != eh_addr)
		return true; /* libdw searches no table */
	for (uint64_t i = 0; i < count; i++) {
		uint64_t loc, fde;

		/* an entry past the section: libdw would read outside it */
		if (!read_value(&h, &p, table_enc, &loc) || !read_value(&h, &p, table_enc, &fde))
			return false;
		if (fde < eh_addr || !has_offset(offs, n, fde - eh_addr))
			return false;
	}
	return true;
}
