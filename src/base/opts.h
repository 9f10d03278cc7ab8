/* Options structs on libbpf's model (docs/api.md), for every layer: the
 * caller's sz says how much of the struct it was compiled with. An older
 * caller's missing fields read as zero (the defaults); a newer caller's
 * fields this library does not know must be zero, else the call fails
 * rather than ignore what was asked. Header-only: the layers share no
 * archive. */
#ifndef GS_BASE_OPTS_H
#define GS_BASE_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <gs/error.h>

/* Copies the caller's opts (NULL: all defaults) into dst, a zeroed struct
 * of this library's size lib_sz whose first member is `size_t sz`, and
 * sets dst's sz to lib_sz. -EINVAL with err naming `type` when the
 * caller's sz is 0 (the struct was not declared with GS_OPTS) or smaller
 * than sz itself, or when a byte past lib_sz is not zero. */
static inline int opts_copy(void *dst, size_t lib_sz, const void *opts, const char *type,
			    struct gs_error *err)
{
	const unsigned char *bytes = (const unsigned char *)opts;
	size_t sz;

	memset(dst, 0, lib_sz);
	memcpy(dst, &lib_sz, sizeof(lib_sz));
	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz == 0)
		return gs_errorf(err, -EINVAL, "struct %s has sz 0: declare it with GS_OPTS(%s, "
				 "name, ...), or set .sz = sizeof(struct %s)", type, type, type);
	if (sz < sizeof(size_t))
		return gs_errorf(err, -EINVAL, "struct %s has sz %zu, smaller than the sz field "
				 "itself: set .sz = sizeof(struct %s)", type, sz, type);
	for (size_t i = lib_sz; i < sz; i++)
		if (bytes[i])
			return gs_errorf(err, -EINVAL, "struct %s sets byte %zu of %zu, past the %zu "
					 "bytes this libgs knows: a field of newer headers than "
					 "the library; build against this library's headers",
					 type, i, sz, lib_sz);
	memcpy((unsigned char *)dst + sizeof(sz), bytes + sizeof(sz),
	       (sz < lib_sz ? sz : lib_sz) - sizeof(sz));
	return 0;
}

/* opts_copy() with both pointers checked against the type:
 * OPTS_COPY(&o, opts, gs_plan_opts, err). */
#define OPTS_COPY(dst, opts, type, err)                                               \
	opts_copy(1 ? (dst) : (struct type *)0, sizeof(struct type),                  \
		  1 ? (opts) : (const struct type *)0, #type, err)

#endif /* GS_BASE_OPTS_H */
