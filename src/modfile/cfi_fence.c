/* What libdw's CFI interpreter may be asked about: the ranges of the FDEs
 * that failed their checks (cfi_fde.c, cfi_scan.c) are zones it is never
 * asked about, and a refused section is never given to it. The row walk
 * skips the zones (cfi.c); the dwarf layer asks before it runs the CFI
 * for a frame base's CFA, through a fence read here. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "mf_int.h"

int mf_range_cmp(const void *a, const void *b)
{
	const struct mf_fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

size_t mf_ranges_coalesce(struct mf_fde_range *v, size_t n)
{
	size_t out = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), mf_range_cmp);
	for (size_t i = 0; i < n; i++) {
		if (out && v[i].lo <= v[out - 1].hi) {
			if (v[i].hi > v[out - 1].hi)
				v[out - 1].hi = v[i].hi;
			continue;
		}
		v[out++] = v[i];
	}
	return out;
}

struct zone_key {
	const struct mf_fde_range *zones;
	uint64_t addr;
};

static bool ends_at_or_before(const void *ctx, size_t i)
{
	const struct zone_key *k = ctx;

	return k->zones[i].hi <= k->addr;
}

const struct mf_fde_range *mf_zone_after(const struct mf_fde_range *zones, size_t n,
					 uint64_t addr)
{
	struct zone_key k = { zones, addr };
	size_t at = base_lower_bound(0, n, &k, ends_at_or_before);

	return at < n ? &zones[at] : NULL;
}

int mf_cfi_fence_read(struct Elf *elf, bool eh_frame, struct mf_cfi_fence *out,
		      struct gs_error *err)
{
	struct mf_fde_ranges r;
	int rc = mf_fde_ranges_read(elf, eh_frame, &r, err);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	out->refused = r.refused;
	out->zones = r.corrupt;
	out->nzones = mf_ranges_coalesce(r.corrupt, r.ncorrupt_v);
	r.corrupt = NULL;
	mf_fde_ranges_free(&r);
	return 0;
}

bool mf_cfi_fence_allows(const struct mf_cfi_fence *f, uint64_t pc)
{
	const struct mf_fde_range *z = mf_zone_after(f->zones, f->nzones, pc);

	return !f->refused && !(z && z->lo <= pc);
}

void mf_cfi_fence_free(struct mf_cfi_fence *f)
{
	free(f->zones);
	memset(f, 0, sizeof(*f));
}
