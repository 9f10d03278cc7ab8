/* The dwarf layer's module handle: the caller's Dwarf, the CFI used for the
 * CFA at a probe PC, the section table DW_OP_addr plans are tagged with,
 * and the arena and pointer maps the other files allocate from. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "dwv_int.h"

static size_t map_slot(const struct dwv_map *m, const void *key)
{
	size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull);

	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
		if (!m->keys[i] || m->keys[i] == key)
			return i;
}

void *dwv_map_get(const struct dwv_map *m, const void *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = map_slot(m, key);
	return m->keys[i] ? m->values[i] : NULL;
}

int dwv_map_put(struct dwv_map *m, const void *key, void *value)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct dwv_map big = { .cap = m->cap ? 2 * m->cap : 256 };

		big.keys = calloc(big.cap, sizeof(*big.keys));
		big.values = calloc(big.cap, sizeof(*big.values));
		if (!big.keys || !big.values) {
			free(big.keys);
			free(big.values);
			return -ENOMEM;
		}
		for (size_t k = 0; k < m->cap; k++)
			if (m->keys[k]) {
				i = map_slot(&big, m->keys[k]);
				big.keys[i] = m->keys[k];
				big.values[i] = m->values[k];
				big.n++;
			}
		free(m->keys);
		free(m->values);
		*m = big;
	}
	i = map_slot(m, key);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->values[i] = value;
	return 0;
}

void dwv_map_free(struct dwv_map *m)
{
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

/* Allocated sections of the module, classified by the slot of
 * proc_module_offsets each takes its bias from (struct dwv_section). */
static void read_sections(struct gs_dwarf *d, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if (base_grow((void **)&d->sections, &cap, n + 1, sizeof(*d->sections)))
			return;
		d->sections[n++] = (struct dwv_section){
			.lo = sh.sh_addr, .hi = sh.sh_addr + sh.sh_size,
			.code = (sh.sh_flags & SHF_EXECINSTR) ? 0 : sh.sh_type == SHT_NOBITS ? 3 :
				(sh.sh_flags & SHF_WRITE) ? 2 : 1,
		};
		d->nsections = n;
	}
}

uint8_t dwv_section_of(const struct gs_dwarf *d, uint64_t addr)
{
	for (size_t i = 0; i < d->nsections; i++)
		if (addr >= d->sections[i].lo && addr < d->sections[i].hi)
			return d->sections[i].code;
	return 2; /* data: every section has the same bias in practice */
}

int dwv_cfa_at(struct gs_dwarf *d, uint64_t pc, uint8_t *reg, int64_t *off)
{
	Dwarf_CFI *cfis[2] = { d->cfi_eh, d->cfi_debug };

	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t nops;
		int rc;

		if (!cfis[i] || (d->cfi_allowed && !d->cfi_allowed(d->cfi_allowed_arg, i == 1, pc)) ||
		    dwarf_cfi_addrframe(cfis[i], pc, &frame) != 0)
			continue;
		rc = dwarf_frame_cfa(frame, &ops, &nops);
		if (rc == 0 && nops == 1 && ops[0].atom == DW_OP_bregx &&
		    ops[0].number <= GS_DWARF_REG_MAX) {
			*reg = (uint8_t)ops[0].number;
			*off = (int64_t)ops[0].number2;
			free(frame);
			return 0;
		}
		free(frame);
		return -EOPNOTSUPP;
	}
	return -ENOENT;
}

bool dwv_unit_at(Dwarf *dw, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, pc, out))
		return true;
	/* No .debug_aranges (clang's default): ask each CU's ranges. */
	while (dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, out) && dwarf_haspc(out, pc) > 0)
			return true;
		off = next;
	}
	return false;
}

bool dwv_cu_at(struct gs_dwarf *d, uint64_t pc, Dwarf_Die *out)
{
	return dwv_unit_at(d->dw, pc, out);
}

int gs_dwarf_new(Dwarf *dw, const struct gs_dwarf_opts *opts, struct gs_dwarf **out,
		 struct gs_error *err)
{
	struct gs_dwarf_opts o;
	struct gs_dwarf *d;
	Elf *elf;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&o, opts, gs_dwarf_opts, err);
	if (rc)
		return rc;
	if (!dw)
		return gs_errorf(err, -EINVAL, "gs_dwarf_new: no DWARF handle: open the module "
				 "(or its debug file) with dwarf_begin_elf() first");
	d = calloc(1, sizeof(*d));
	if (!d)
		return gs_errorf(err, -ENOMEM, "out of memory reading DWARF");
	d->dw = dw;
	d->cookie = o.cookie;
	d->cfi_allowed = o.cfi_allowed;
	d->cfi_allowed_arg = o.cfi_allowed_arg;
	elf = o.cfi_elf ? o.cfi_elf : dwarf_getelf(dw);
	if (elf)
		d->cfi_eh = dwarf_getcfi_elf(elf);
	d->cfi_debug = dwarf_getcfi(dw);
	read_sections(d, elf);
	*out = d;
	return 0;
}

static void names_free(struct dwv_names *n)
{
	free(n->v);
	free(n->heads);
}

void gs_dwarf_free(struct gs_dwarf *d)
{
	if (!d)
		return;
	if (d->cfi_eh)
		dwarf_cfi_end(d->cfi_eh);
	dwv_map_free(&d->types);
	dwv_map_free(&d->building);
	free(d->fixups.t);
	free(d->fixups.from);
	dwv_map_free(&d->scopes);
	dwv_map_free(&d->global_vars);
	names_free(&d->globals);
	names_free(&d->type_names);
	free(d->sections);
	base_arena_free(&d->arena);
	dwv_cfi_guard_free(d->guard);
	free(d);
}
