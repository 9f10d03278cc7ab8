/* Enumerates the FDEs of .eh_frame or .debug_frame: dwarf_next_cfi() walks
 * the entries, and the FDE's initial location and range are decoded with
 * the pointer encoding its CIE announces ('R' augmentation), since libdw
 * leaves them raw. The rows of each range are then read through libdw's
 * CFI API (cfi.c). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include <gs/unwind.h>

#include "unwind_int.h"

#define GS_CIE_CACHE 64

struct gs_cie_enc {
	Dwarf_Off offset;
	int encoding; /* DW_EH_PE_*, or -1: unusable CIE */
	bool signal;  /* 'S' in the augmentation */
};

struct gs_fde_reader {
	const unsigned char *ident;
	Elf_Data *data;
	bool eh_frame;
	uint64_t sh_addr;
	bool big_endian;
	unsigned addr_size;
	struct gs_cie_enc cies[GS_CIE_CACHE];
	size_t ncies, next_cie;
};

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0)
			return shdr->sh_type == SHT_NOBITS ? NULL : scn;
	}
	return NULL;
}

static bool read_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool read_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t u = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				u |= ~0ULL << shift;
			*v = (int64_t)u;
			return true;
		}
	}
	return false;
}

static bool read_fixed(const struct gs_fde_reader *r, const uint8_t **p, const uint8_t *end,
		       unsigned size, bool is_signed, uint64_t *v)
{
	uint64_t u = 0;

	if ((size_t)(end - *p) < size)
		return false;
	for (unsigned i = 0; i < size; i++) {
		unsigned idx = r->big_endian ? i : size - 1 - i;

		u = u << 8 | (*p)[idx];
	}
	if (is_signed && size < 8 && (u >> (size * 8 - 1)) & 1)
		u |= ~0ULL << (size * 8);
	*p += size;
	*v = u;
	return true;
}

/* Reads a value of the encoding's format (the low four bits). */
static bool read_encoded(const struct gs_fde_reader *r, const uint8_t **p, const uint8_t *end,
			 int encoding, uint64_t *v)
{
	int64_t s;

	switch (encoding & 0x0f) {
	case DW_EH_PE_absptr:
		return read_fixed(r, p, end, r->addr_size, false, v);
	case DW_EH_PE_uleb128:
		return read_uleb(p, end, v);
	case DW_EH_PE_udata2:
		return read_fixed(r, p, end, 2, false, v);
	case DW_EH_PE_udata4:
		return read_fixed(r, p, end, 4, false, v);
	case DW_EH_PE_udata8:
		return read_fixed(r, p, end, 8, false, v);
	case DW_EH_PE_sleb128:
		if (!read_sleb(p, end, &s))
			return false;
		*v = (uint64_t)s;
		return true;
	case DW_EH_PE_sdata2:
		return read_fixed(r, p, end, 2, true, v);
	case DW_EH_PE_sdata4:
		return read_fixed(r, p, end, 4, true, v);
	case DW_EH_PE_sdata8:
		return read_fixed(r, p, end, 8, true, v);
	default:
		return false;
	}
}

/* The FDE pointer encoding of a CIE: 'R' in a 'z' augmentation, absptr
 * otherwise; -1 when the augmentation cannot be understood. */
static int cie_encoding(const struct gs_fde_reader *r, const Dwarf_CIE *cie)
{
	const char *aug = cie->augmentation;
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;

	if (!aug || aug[0] == '\0')
		return DW_EH_PE_absptr;
	if (aug[0] != 'z')
		return strcmp(aug, "eh") == 0 ? DW_EH_PE_absptr : -1;
	for (const char *c = aug + 1; *c; c++) {
		uint64_t ignored;
		int enc;

		switch (*c) {
		case 'R':
			return p && p < end ? *p : -1;
		case 'L':
			if (!p || p >= end)
				return -1;
			p++;
			break;
		case 'P':
			if (!p || p >= end)
				return -1;
			enc = *p++;
			if (enc != DW_EH_PE_omit && !read_encoded(r, &p, end, enc, &ignored))
				return -1;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static int lookup_cie(struct gs_fde_reader *r, Dwarf_Off offset, bool *signal)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	int enc = -1;

	*signal = false;
	for (size_t i = 0; i < r->ncies; i++)
		if (r->cies[i].offset == offset) {
			*signal = r->cies[i].signal;
			return r->cies[i].encoding;
		}
	if (dwarf_next_cfi(r->ident, r->data, r->eh_frame, offset, &next, &entry) == 0 &&
	    dwarf_cfi_cie_p(&entry)) {
		enc = cie_encoding(r, &entry.cie);
		*signal = entry.cie.augmentation && entry.cie.augmentation[0] == 'z' &&
			  strchr(entry.cie.augmentation, 'S') != NULL;
	}
	/* A small round-robin cache: binaries use one or a few CIEs. */
	r->cies[r->next_cie] = (struct gs_cie_enc){ offset, enc, *signal };
	r->next_cie = (r->next_cie + 1) % GS_CIE_CACHE;
	if (r->ncies < GS_CIE_CACHE)
		r->ncies++;
	return enc;
}

static bool decode_fde(struct gs_fde_reader *r, const Dwarf_FDE *fde, struct uw_fde_range *out)
{
	bool signal;
	int enc = lookup_cie(r, fde->CIE_pointer, &signal);
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t loc, range, field_addr;

	if (enc < 0 || enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	field_addr = r->sh_addr + (uint64_t)(p - (const uint8_t *)r->data->d_buf);
	if (!read_encoded(r, &p, end, enc, &loc) || !read_encoded(r, &p, end, enc & 0x0f, &range))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		loc += field_addr;
		break;
	default:
		return false; /* textrel, datarel, funcrel: not produced for x86_64 code */
	}
	if ((enc & 0x0f) == DW_EH_PE_udata4 || (enc & 0x0f) == DW_EH_PE_sdata4)
		range &= 0xffffffffULL;
	if (r->addr_size == 4)
		loc &= 0xffffffffULL;
	out->lo = loc;
	out->hi = loc + range < loc ? UINT64_MAX : loc + range;
	out->signal = signal;
	return true;
}

int uw_fde_ranges_read(Elf *elf, bool eh_frame, struct uw_fde_ranges *out, struct gs_error *err)
{
	struct gs_fde_reader r = { .eh_frame = eh_frame };
	Dwarf_Off off = 0, next;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	size_t ident_size;

	memset(out, 0, sizeof(*out));
	scn = find_section(elf, eh_frame ? ".eh_frame" : ".debug_frame", &shdr);
	if (!scn)
		return 0;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return gs_errorf(err, -EINVAL, "cannot decompress .debug_frame: %s", elf_errmsg(-1));
	r.ident = (const unsigned char *)elf_getident(elf, &ident_size);
	r.data = elf_getdata(scn, NULL);
	if (!r.ident || ident_size < EI_NIDENT || !r.data || !r.data->d_buf || r.data->d_size == 0)
		return 0;
	out->section_bytes = r.data->d_size;
	r.sh_addr = shdr.sh_addr;
	r.big_endian = r.ident[EI_DATA] == ELFDATA2MSB;
	r.addr_size = r.ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;

	for (;;) {
		Dwarf_CFI_Entry entry;
		struct uw_fde_range range;
		int rc = dwarf_next_cfi(r.ident, r.data, eh_frame, off, &next, &entry);

		if (rc != 0 || next <= off) {
			/* 1: the end; -1 (or no progress): a broken entry ends the
			 * walk, as in libdw, and the section is corrupt from there */
			if (rc != 1) {
				out->broken = true;
				out->broken_at = off;
			}
			break;
		}
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		if (!decode_fde(&r, &entry.fde, &range)) {
			out->bad++;
			continue;
		}
		if (uw_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v))) {
			free(out->v);
			memset(out, 0, sizeof(*out));
			return gs_errorf(err, -ENOMEM, "out of memory reading FDEs");
		}
		out->v[out->n++] = range;
	}
	return 0;
}

int gs_signal_frame_ranges(struct Elf *elf, uint64_t **ranges, size_t *n, struct gs_error *err)
{
	struct uw_fde_ranges eh;
	size_t k = 0;
	int rc = uw_fde_ranges_read(elf, true, &eh, err);

	*ranges = NULL;
	*n = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < eh.n; i++)
		if (eh.v[i].signal)
			eh.v[k++] = eh.v[i];
	if (k) {
		*ranges = malloc(2 * k * sizeof(**ranges));
		if (!*ranges) {
			free(eh.v);
			return gs_errorf(err, -ENOMEM, "out of memory listing signal frames");
		}
		for (size_t i = 0; i < k; i++) {
			(*ranges)[2 * i] = eh.v[i].lo;
			(*ranges)[2 * i + 1] = eh.v[i].hi;
		}
		*n = k;
	}
	free(eh.v);
	return 0;
}
