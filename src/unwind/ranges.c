/* The per-process module maps (docs/unwind.md, "Map layouts"):
 * proc_module_offsets entries and the double-buffered, sorted
 * proc_module_ranges snapshot that the BPF unwinder binary-searches, written
 * through a gs_map_writer so the logic is testable without the kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/unwind.h>

#include "unwind_int.h"

/* Clearing stops here even if every key seems present: a writer whose
 * remove never fails must not loop forever. */
#define GS_RANGES_CLEAR_MAX (1u << 20)

static int cmp_range(const void *a, const void *b)
{
	const struct gs_proc_module_range *x = a, *y = b;
	uint64_t xc = (uint64_t)x->cookie_hi << 32 | x->cookie_lo;
	uint64_t yc = (uint64_t)y->cookie_hi << 32 | y->cookie_lo;

	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return xc < yc ? -1 : xc > yc;
}

size_t uw_ranges_build(const struct gs_range_item *items, size_t n,
		       struct gs_proc_module_range *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gs_range_item *it = &items[i];

		if (it->size == 0 || it->base + it->size < it->base)
			continue; /* empty or wrapping: base < base + size fails */
		out[k++] = (struct gs_proc_module_range){
			.base = it->base,
			.end = it->base + it->size,
			.text = it->bias,
			.cookie_lo = (uint32_t)it->cookie,
			.cookie_hi = (uint32_t)(it->cookie >> 32),
		};
	}
	if (k > 1)
		qsort(out, k, sizeof(*out), cmp_range);
	return k;
}

int gs_ranges_replace(const struct gs_map_writer *w, uint32_t pid,
		      const struct gs_range_item *items, size_t n, struct gs_error *err)
{
	struct gs_proc_module_range_meta meta;
	struct gs_proc_module_range *vals;
	uint32_t active = 0, inactive;
	size_t count;
	int rc;

	rc = w->lookup(w->ctx, GS_MAP_PROC_MODULE_RANGE_META, &pid, &meta);
	if (rc == 0)
		active = meta.active_slot & 1;
	else if (rc != -ENOENT)
		return gs_errorf(err, rc, "cannot read %s[%u]: %s", GS_MAP_PROC_MODULE_RANGE_META,
				 pid, strerror(-rc));
	inactive = active ^ 1;

	for (uint32_t i = 0; i < GS_RANGES_CLEAR_MAX; i++) {
		struct gs_proc_module_range_key key = { pid, inactive, i, 0 };

		rc = w->remove(w->ctx, GS_MAP_PROC_MODULE_RANGES, &key);
		if (rc == -ENOENT)
			break;
		if (rc)
			return gs_errorf(err, rc, "cannot clear %s slot %u of pid %u: %s",
					 GS_MAP_PROC_MODULE_RANGES, inactive, pid, strerror(-rc));
	}

	vals = calloc(n ? n : 1, sizeof(*vals));
	if (!vals)
		return gs_errorf(err, -ENOMEM, "out of memory sorting %zu module ranges", n);
	count = uw_ranges_build(items, n, vals);
	for (size_t i = 0; i < count; i++) {
		struct gs_proc_module_range_key key = { pid, inactive, (uint32_t)i, 0 };

		rc = w->update(w->ctx, GS_MAP_PROC_MODULE_RANGES, &key, &vals[i]);
		if (rc) {
			free(vals);
			return gs_errorf(err, rc, "cannot write %s[pid %u, slot %u, %zu]: %s; is the map large enough?",
					 GS_MAP_PROC_MODULE_RANGES, pid, inactive, i, strerror(-rc));
		}
	}
	free(vals);
	/* The flip: readers see the old slot until this single update lands. */
	meta = (struct gs_proc_module_range_meta){ inactive, (uint32_t)count };
	rc = w->update(w->ctx, GS_MAP_PROC_MODULE_RANGE_META, &pid, &meta);
	if (rc)
		return gs_errorf(err, rc, "cannot write %s[%u]: %s", GS_MAP_PROC_MODULE_RANGE_META,
				 pid, strerror(-rc));
	return 0;
}

void gs_ranges_remove(const struct gs_map_writer *w, uint32_t pid)
{
	for (uint32_t slot = 0; slot < 2; slot++)
		for (uint32_t i = 0; i < GS_RANGES_CLEAR_MAX; i++) {
			struct gs_proc_module_range_key key = { pid, slot, i, 0 };

			if (w->remove(w->ctx, GS_MAP_PROC_MODULE_RANGES, &key) != 0)
				break;
		}
	w->remove(w->ctx, GS_MAP_PROC_MODULE_RANGE_META, &pid);
}

int gs_offsets_write(const struct gs_map_writer *w, uint32_t pid, uint64_t cookie,
		     const struct gs_proc_module_offsets *offsets, struct gs_error *err)
{
	struct gs_proc_module_key key = {
		.pid = pid, .cookie_lo = (uint32_t)cookie, .cookie_hi = (uint32_t)(cookie >> 32),
	};
	int rc = w->update(w->ctx, GS_MAP_PROC_MODULE_OFFSETS, &key, offsets);

	if (rc)
		return gs_errorf(err, rc, "cannot write %s[pid %u, module 0x%016llx]: %s",
				 GS_MAP_PROC_MODULE_OFFSETS, pid, (unsigned long long)cookie,
				 strerror(-rc));
	return 0;
}
