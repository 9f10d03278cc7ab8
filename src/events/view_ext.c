/* A value's extension (struct ev_ext, ev_int.h): the bytes its views read
 * after its own, split among its parts as the capture wrote them. Moving
 * past a member's or element's extension and taking a part's own are
 * asked by the value renderer (value.c), the JSON writers, the views'
 * parts (view_parts.c) and their walks alike; they sit below all of them,
 * so the parts of a view need nothing of the renderer that shows them. */
#include <gs/view.h>

#include "ev_int.h"

void ev_ext_skip(struct ev_ext *x, const struct gs_type *t)
{
	size_t n;

	/* a value without views (every C value) has nothing to skip: no
	 * walk of its type's tree for each member and element shown */
	if (!x->p)
		return;
	n = gs_view_ext_size(x->caps, t, x->depth);
	if (n > x->n) {
		x->p = NULL;
		x->n = 0;
		return;
	}
	x->p += n;
	x->n -= n;
}

struct ev_ext ev_ext_sub(const struct ev_ext *x, size_t off, const struct gs_type *t, bool inner)
{
	struct ev_ext s = *x;
	size_t n = 0;

	s.depth += inner;
	if (x->p)
		n = gs_view_ext_size(x->caps, t, s.depth);
	if (!x->p || off > x->n || n > x->n - off) {
		s.p = NULL;
		s.n = 0;
	} else {
		s.p = x->p + off;
		s.n = n;
	}
	return s;
}
