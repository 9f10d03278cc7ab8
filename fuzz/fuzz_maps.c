/* libFuzzer target for the /proc/PID/maps parser and what consumes its
 * output: any bytes either parse (then group into modules, get offsets
 * against a fixed ELF layout and a sorted range snapshot) or fail with a
 * message, without crashing, reading out of bounds or leaking. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "mf_int.h"     /* the steps checked one by one */
#include "unwind_int.h" /* uw_ranges_build */

#include "smoke.h"

static const struct mf_elf_layout layout = {
	.type = 3, /* ET_DYN */
	.nloads = 3,
	.loads = { { 0x0, 0x0, 0x1000, 0x1000 }, { 0x1000, 0x1000, 0x2000, 0x2000 },
		   { 0x3de8, 0x4de8, 0x300, 0x400 } },
	.has_anchor = true,
	.anchor = 0x1040,
};

static void consume(const struct gs_maps *m)
{
	struct mf_maps_module *mods;
	struct gs_range_item *items;
	struct gs_proc_module_range *ranges;
	size_t n, nmods;

	if (mf_maps_group(m, &mods, &nmods, NULL))
		return;
	n = nmods;
	items = calloc(n + 1, sizeof(*items));
	ranges = calloc(n + 1, sizeof(*ranges));
	if (!items || !ranges)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct mf_map_candidate cand[8];
		struct gs_proc_module_offsets o;
		size_t k = 0;

		for (size_t j = 0; j < mods[i].nmaps && k < 8; j++) {
			const struct gs_map_entry *e = &m->entries[mods[i].maps[j]];

			cand[k++] = (struct mf_map_candidate){ e->start, e->end, e->offset };
		}
		if (mf_module_offsets_compute(&layout, cand, k, &o, NULL) == 0)
			items[i] = (struct gs_range_item){ o.base, o.size, o.text, i };
		if (mods[i].base > mods[i].end)
			abort();
	}
	n = uw_ranges_build(items, n, ranges);
	for (size_t i = 1; i < n; i++)
		if (ranges[i - 1].base > ranges[i].base)
			abort();
	free(ranges);
	free(items);
	mf_maps_modules_free(mods, nmods);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly size bytes, so a read past the end is caught. */
	char *text = malloc(size + 1), norm[256];
	struct gs_maps m;
	struct gs_error err;
	int rc;

	if (!text)
		abort();
	memcpy(text, data, size);
	rc = gs_maps_parse(text, size, &m, &err);
	if (rc == 0) {
		for (size_t i = 0; i < m.n; i++)
			if (m.entries[i].start > m.entries[i].end)
				abort();
		consume(&m);
		gs_maps_free(&m);
	} else if (rc != -EINVAL && rc != -ENAMETOOLONG && rc != -ENOMEM) {
		abort();
	} else if (!err.msg[0]) {
		abort();
	}
	text[size] = '\0';
	mf_path_normalize(text, norm, sizeof(norm));
	free(text);
	return 0;
}
