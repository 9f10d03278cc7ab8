/* What the public headers share: GS_API marks every declaration libgs
 * exports (the library is built with -fvisibility=hidden, so a function
 * without it stays internal even when its name starts with gs_, and the
 * symbol check in tests/lib compares the exports with these markers), and
 * GS_OPTS declares an options struct the way every libgs call expects it
 * (docs/api.md). */
#ifndef GS_API_H
#define GS_API_H

#include <string.h> /* memset, for GS_OPTS */

#if defined(__GNUC__) || defined(__clang__)
#define GS_API __attribute__((visibility("default")))
#else
#define GS_API
#endif

/* Declares `struct TYPE NAME` with sz = sizeof(struct TYPE), the given
 * fields, and every other byte zero (padding too: a newer library checks
 * that the bytes past its own size are zero), as libbpf's LIBBPF_OPTS:
 *
 *	GS_OPTS(gs_plan_opts, opts, .pid = pid);
 *	rc = gs_plan_new(&opts, &plan, &err);
 *
 * A call given options whose sz is 0 fails with -EINVAL; NULL options are
 * the defaults. Needs GNU C (statement expressions), as libbpf does. */
#define GS_OPTS(TYPE, NAME, ...)                                                   \
	struct TYPE NAME = __extension__({                                         \
		memset(&NAME, 0, sizeof(struct TYPE));                             \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };           \
	})

#endif /* GS_API_H */
