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

#include <gs/modfile.h>

#include "mf_int.h"
#include "base.h"

#define GS_CIE_CACHE 64

/* How libdw reads the FDEs of a CIE (libdw's intern_new_cie, mirrored so
 * that the instructions checked here are the ones libdw will run). */
struct gs_cie_info {
	Dwarf_Off offset;
	int encoding;      /* FDE pointer encoding, absptr widened as libdw does;
			    * CIE_UNUSABLE or CIE_UNKNOWN */
	bool sized;        /* 'z': an FDE's augmentation data has its length */
	bool signal;       /* 'S' in a 'z' augmentation */
	uint32_t aug_size; /* not 'z': bytes of an FDE's augmentation data */
	int scan;          /* MF_CFA_* of its initial instructions */
	struct mf_cfa_scan_out counts;
};

#define CIE_UNUSABLE (-1) /* not a CIE, or one libdw cannot use either */
#define CIE_UNKNOWN (-2)  /* libdw may read it in a way not known here */

struct gs_fde_reader {
	const unsigned char *ident;
	Elf_Data *data;
	bool eh_frame;
	uint64_t sh_addr;
	bool big_endian;
	unsigned addr_size;
	struct gs_cie_info cies[GS_CIE_CACHE];
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
		return mf_read_uleb(p, end, v);
	case DW_EH_PE_udata2:
		return read_fixed(r, p, end, 2, false, v);
	case DW_EH_PE_udata4:
		return read_fixed(r, p, end, 4, false, v);
	case DW_EH_PE_udata8:
		return read_fixed(r, p, end, 8, false, v);
	case DW_EH_PE_sleb128:
		if (!mf_read_sleb(p, end, &s))
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

/* Bytes of a DW_EH_PE_* value as libdw's encoded_value_size counts them
 * without a pointer to the value: -1 when it cannot (LEB128, unknown). */
static int fixed_size(const struct gs_fde_reader *r, int encoding)
{
	if (encoding == DW_EH_PE_omit)
		return 0;
	switch (encoding & 0x07) {
	case DW_EH_PE_absptr:
		return (int)r->addr_size;
	case DW_EH_PE_udata2:
		return 2;
	case DW_EH_PE_udata4:
		return 4;
	case DW_EH_PE_udata8:
		return 8;
	default:
		return -1;
	}
}

/* The CIE's augmentation read the way libdw reads it: letters it does not
 * know are skipped in a 'z' augmentation and end a plain one. */
static void cie_augmentation(const struct gs_fde_reader *r, const Dwarf_CIE *cie,
			     struct gs_cie_info *out)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = (const uint8_t *)r->data->d_buf + r->data->d_size;
	const char *aug = cie->augmentation ? cie->augmentation : "";
	int enc = DW_EH_PE_absptr, size;

	for (const char *c = aug; *c; c++) {
		switch (*c) {
		case 'z':
			out->sized = true;
			continue;
		case 'S':
			out->signal = aug[0] == 'z';
			continue;
		case 'L':
		case 'R':
		case 'P':
			if (!p || p >= end)
				goto unknown; /* libdw would read past the section */
			if (*c == 'R') {
				enc = *p++;
				continue;
			}
			size = fixed_size(r, *p++);
			if (size < 0)
				goto unknown;
			if (*c == 'P')
				p += size;
			else if (!out->sized)
				out->aug_size += (uint32_t)size;
			continue;
		default:
			if (out->sized)
				continue;
		}
		break;
	}
	if ((enc & 0x0f) == DW_EH_PE_absptr)
		enc |= r->addr_size == 4 ? DW_EH_PE_udata4 : DW_EH_PE_udata8;
	out->encoding = enc;
	return;
unknown:
	out->encoding = CIE_UNKNOWN;
}

static const struct gs_cie_info *lookup_cie(struct gs_fde_reader *r, Dwarf_Off offset)
{
	struct gs_cie_info *c;
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;

	for (size_t i = 0; i < r->ncies; i++)
		if (r->cies[i].offset == offset)
			return &r->cies[i];
	/* A small round-robin cache: binaries use one or a few CIEs. */
	c = &r->cies[r->next_cie];
	r->next_cie = (r->next_cie + 1) % GS_CIE_CACHE;
	if (r->ncies < GS_CIE_CACHE)
		r->ncies++;
	*c = (struct gs_cie_info){ .offset = offset, .encoding = CIE_UNUSABLE };
	if (dwarf_next_cfi(r->ident, r->data, r->eh_frame, offset, &next, &entry) != 0 ||
	    !dwarf_cfi_cie_p(&entry))
		return c;
	cie_augmentation(r, &entry.cie, c);
	if (c->encoding >= 0)
		c->scan = mf_cfa_scan(entry.cie.initial_instructions,
				      entry.cie.initial_instructions_end,
				      &(struct mf_cfa_scan_in){ .cie = true, .fde_encoding = c->encoding,
								.addr_size = r->addr_size },
				      &c->counts);
	return c;
}

/* A value format libdw reads (the low four bits; absptr was widened). */
static bool valid_format(int encoding)
{
	switch (encoding & 0x0f) {
	case DW_EH_PE_uleb128:
	case DW_EH_PE_udata2:
	case DW_EH_PE_udata4:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sleb128:
	case DW_EH_PE_sdata2:
	case DW_EH_PE_sdata4:
	case DW_EH_PE_sdata8:
		return true;
	default:
		return false;
	}
}

/* What an FDE is to the walk. */
enum fde_kind {
	FDE_GOOD,    /* its range is walked */
	FDE_BAD,     /* libdw cannot run it either, or it is harmless but its
		      * address cannot be decoded here: left out */
	FDE_CORRUPT, /* instructions libdw must not run, over a known range */
	FDE_UNKNOWN, /* the same over a range not known here, or an entry libdw
		      * may read otherwise: the whole section is refused */
};

/* The FDE's range (out->lo, hi, signal, ops) and instructions checked. */
static enum fde_kind decode_fde(struct gs_fde_reader *r, const Dwarf_FDE *fde,
				struct mf_fde_range *out)
{
	const struct gs_cie_info *cie = lookup_cie(r, fde->CIE_pointer);
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t loc, range, field_addr, len;
	struct mf_cfa_scan_out counts;
	int enc = cie->encoding, reason;
	bool known = true;

	if (enc == CIE_UNUSABLE)
		return FDE_BAD;
	if (enc == CIE_UNKNOWN || (enc & 0x70) == DW_EH_PE_aligned)
		return FDE_UNKNOWN; /* where libdw starts the instructions is unsure */
	if ((enc & 0x70) > DW_EH_PE_aligned || !valid_format(enc))
		return FDE_BAD; /* libdw refuses these encodings */
	field_addr = r->sh_addr + (uint64_t)(p - (const uint8_t *)r->data->d_buf);
	if (!read_encoded(r, &p, end, enc, &loc) || !read_encoded(r, &p, end, enc & 0x0f, &range))
		return FDE_BAD;
	if (cie->sized) {
		if (!mf_read_uleb(&p, end, &len) || (uint64_t)(end - p) < len)
			return FDE_BAD; /* libdw: invalid */
		p += len;
	} else {
		p = (uint64_t)(end - p) < cie->aug_size ? end : p + cie->aug_size;
	}
	reason = cie->scan;
	if (reason == MF_CFA_OK)
		reason = mf_cfa_scan(p, end, &(struct mf_cfa_scan_in){ .fde_encoding = enc,
								       .addr_size = r->addr_size },
				     &counts);
	if (reason == MF_CFA_OK)
		reason = mf_cfa_scan_pair(&cie->counts, &counts);
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		loc += field_addr;
		break;
	default:
		known = false; /* textrel, datarel, funcrel: not produced for x86_64 code */
	}
	if (enc & DW_EH_PE_indirect)
		known = false;
	if (!known)
		return reason == MF_CFA_OK ? FDE_BAD : FDE_UNKNOWN;
	if ((enc & 0x0f) == DW_EH_PE_udata4 || (enc & 0x0f) == DW_EH_PE_sdata4)
		range &= 0xffffffffULL;
	if (r->addr_size == 4)
		loc &= 0xffffffffULL;
	out->lo = loc;
	out->hi = loc + range < loc ? UINT64_MAX : loc + range;
	out->signal = cie->signal;
	out->ops = reason == MF_CFA_OK ? cie->counts.ops + counts.ops : 0;
	return reason == MF_CFA_OK ? FDE_GOOD : FDE_CORRUPT;
}

static int push_range(struct mf_fde_range **v, size_t *n, size_t *cap, struct mf_fde_range r)
{
	if (base_grow((void **)v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = r;
	return 0;
}

/* Offsets of the FDE entries met, in section order (rising). */
static int push_off(struct mf_fde_ranges *out, size_t at)
{
	if (base_grow((void **)&out->offs, &out->offs_cap, out->noffs + 1, sizeof(*out->offs)))
		return -ENOMEM;
	out->offs[out->noffs++] = at;
	return 0;
}

int mf_fde_ranges_read(Elf *elf, bool eh_frame, struct mf_fde_ranges *out, struct gs_error *err)
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
		struct mf_fde_range range = { 0 };
		enum fde_kind kind;
		size_t at = off;
		int rc;

		next = off;
		rc = dwarf_next_cfi(r.ident, r.data, eh_frame, off, &next, &entry);
		if (rc == 1)
			break;
		if (rc != 0 || next <= off) {
			/* A broken entry ends the ranges (the section is corrupt
			 * from there), but libdw reads on past it when the length
			 * lets it: the checks go on as far as libdw can get. */
			if (!out->broken) {
				out->broken = true;
				out->broken_at = off;
			}
			if (rc == 0 || next <= off)
				break;
			off = next;
			continue;
		}
		off = next;
		if (dwarf_cfi_cie_p(&entry))
			continue;
		if (push_off(out, at))
			goto oom;
		kind = decode_fde(&r, &entry.fde, &range);
		if (kind == FDE_UNKNOWN) {
			out->refused = true;
			continue;
		}
		if (kind == FDE_CORRUPT) {
			out->ncorrupt++;
			if (push_range(&out->corrupt, &out->ncorrupt_v, &out->corrupt_cap, range))
				goto oom;
			continue;
		}
		if (out->broken)
			continue;
		if (kind == FDE_BAD) {
			out->bad++;
			continue;
		}
		if (push_range(&out->v, &out->n, &out->cap, range))
			goto oom;
	}
	/* libdw looks an address up in .eh_frame_hdr's table first */
	if (eh_frame && !out->refused)
		out->refused = !mf_eh_frame_hdr_matches(elf, r.sh_addr, out->offs, out->noffs);
	free(out->offs);
	out->offs = NULL;
	out->noffs = out->offs_cap = 0;
	return 0;
oom:
	mf_fde_ranges_free(out);
	return gs_errorf(err, -ENOMEM, "out of memory reading FDEs");
}

void mf_fde_ranges_free(struct mf_fde_ranges *r)
{
	free(r->v);
	free(r->corrupt);
	free(r->offs);
	memset(r, 0, sizeof(*r));
}

int gs_signal_frame_ranges(struct Elf *elf, uint64_t **ranges, size_t *n, struct gs_error *err)
{
	struct mf_fde_ranges eh;
	size_t k = 0;
	int rc = mf_fde_ranges_read(elf, true, &eh, err);

	*ranges = NULL;
	*n = 0;
	if (rc)
		return rc;
	for (size_t i = 0; i < eh.n && !eh.refused; i++)
		if (eh.v[i].signal)
			eh.v[k++] = eh.v[i];
	if (k) {
		*ranges = malloc(2 * k * sizeof(**ranges));
		if (!*ranges) {
			mf_fde_ranges_free(&eh);
			return gs_errorf(err, -ENOMEM, "out of memory listing signal frames");
		}
		for (size_t i = 0; i < k; i++) {
			(*ranges)[2 * i] = eh.v[i].lo;
			(*ranges)[2 * i + 1] = eh.v[i].hi;
		}
		*n = k;
	}
	mf_fde_ranges_free(&eh);
	return 0;
}
