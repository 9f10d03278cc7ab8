/* A member of an aggregate type by name, as `a.name` finds it: the type
 * questions about a gs_type that every layer asks (the code generator
 * compiling `a.name`, the runtime's plan looking for a C++ method's
 * members in *this) answered once, here, beside the types themselves. */
#include <stdint.h>
#include <string.h>

#include <gs/context.h>
#include <gs/wire.h>

/* Anonymous members nest: a struct in a union in a struct. Eight levels is
 * past any real declaration and stops a hostile type's cycle. */
#define MEMBER_DEPTH_MAX 8

static const struct gs_type_member *find(const struct gs_type *t, const char *name, uint32_t *off,
					 unsigned depth)
{
	for (uint32_t i = 0; depth < MEMBER_DEPTH_MAX && i < t->nmembers; i++) {
		const struct gs_type_member *m = &t->members[i];

		if (m->name && strcmp(m->name, name) == 0) {
			*off += m->offset;
			return m;
		}
		/* an anonymous struct or union, or a C++ base class (<Base>),
		 * lends its members */
		if ((!m->name || m->name[0] == '<') &&
		    (m->type->kind == GS_TYPE_STRUCT || m->type->kind == GS_TYPE_UNION)) {
			uint32_t inner = *off + m->offset;
			const struct gs_type_member *f = find(m->type, name, &inner, depth + 1);

			if (f) {
				*off = inner;
				return f;
			}
		}
	}
	return NULL;
}

const struct gs_type_member *gs_type_find_member(const struct gs_type *t, const char *name,
						 uint32_t *off)
{
	return find(t, name, off, 0);
}
