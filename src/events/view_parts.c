/* The parts of a standard-library value, read from its bytes and its
 * extension (view_parts.h): what the text renderer (view.c) and the JSON
 * printer (print_json.c) both show, read here once. */
#include <string.h>

#include "view_parts.h"

uint64_t ev_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

bool ev_view_u(const uint8_t *data, size_t len, uint32_t off, size_t n, uint64_t *out)
{
	if (off > len || n > len - off)
		return false;
	*out = ev_le(data + off, n);
	return true;
}

struct ev_ext ev_value_ext(const struct gs_type *t, const struct gs_value *v, size_t *len)
{
	static const struct gs_view_caps dflt;
	struct ev_ext x = { .caps = v->view_caps ? v->view_caps : &dflt };
	uint32_t ext = gs_view_ext_size(x.caps, t, 0);

	*len = v->data_len;
	if (ext && t->byte_size && *len == (size_t)t->byte_size + ext) {
		x.p = v->data + t->byte_size;
		x.n = ext;
		*len = t->byte_size;
	}
	return x;
}

enum ev_ext_state ev_ext_state(const struct ev_ext *x, uint64_t addr, uint64_t *fault)
{
	if (!x->p || !x->n)
		return EV_EXT_NO_ROOM;
	if (x->p[0] == GS_VAR_OK)
		return EV_EXT_OK;
	if (x->p[0] == GS_VAR_OPTIMIZED_OUT)
		return EV_EXT_OPTIMIZED_OUT;
	*fault = x->p[0] == GS_VAR_NULL_DEREF ? 0 : addr;
	return EV_EXT_FAILED;
}

/* The length a string or sequence view holds (signed: garbage in a
 * vector's pointers can make it negative, and gdb shows it so). */
static bool view_len(const struct gs_view *v, const uint8_t *data, size_t len, int64_t *out)
{
	uint64_t n, p;
	uint32_t size = v->elem && v->elem->byte_size ? v->elem->byte_size : 1;

	if (!ev_view_u(data, len, v->len_off, 8, &n))
		return false;
	if (v->len_how == GS_VLEN_END) {
		if (!ev_view_u(data, len, v->ptr_off, 8, &p))
			return false;
		*out = (int64_t)(n - p) / (int64_t)size;
		return true;
	}
	*out = (int64_t)n;
	return true;
}

bool ev_view_seq(const struct gs_view *v, const uint8_t *data, size_t len, const struct ev_ext *x,
		 struct ev_seq *s)
{
	s->ptr = 0;
	s->cap = gs_view_cap(x->caps, v);
	if (!view_len(v, data, len, &s->n) || !ev_view_u(data, len, v->ptr_off, 8, &s->ptr))
		return false;
	s->shown = s->n <= 0 ? 0 : s->n > (int64_t)s->cap ? s->cap : (uint64_t)s->n;
	return true;
}

bool ev_view_cstring(const struct gs_view *v, const uint8_t *data, size_t len,
		     const struct ev_ext *x, struct ev_cstring *s)
{
	uint32_t cap = gs_view_cap(x->caps, v);
	uint32_t room = GS_VIEW_CSTRING_READ(cap);
	const uint8_t *nul;

	memset(s, 0, sizeof(*s));
	if (!ev_view_u(data, len, v->ptr_off, 8, &s->ptr))
		return false;
	if (!s->ptr)
		return true;
	s->state = ev_ext_state(x, s->ptr, &s->fault);
	if (s->state != EV_EXT_OK || x->n < 1 + (size_t)room)
		return true;
	s->text = x->p + 1;
	nul = memchr(s->text, 0, room);
	s->n = nul ? (size_t)(nul - s->text) : room;
	s->cut = s->n > cap;
	if (s->cut)
		s->n = cap;
	return true;
}

bool ev_view_referent(const struct gs_view *v, const uint8_t *data, size_t len,
		      const struct ev_ext *x, struct ev_referent *r)
{
	memset(r, 0, sizeof(*r));
	if (!ev_view_u(data, len, v->ptr_off, 8, &r->ptr))
		return false;
	r->state = ev_ext_state(x, r->ptr, &r->fault);
	if (r->state == EV_EXT_OK && x->n < 1 + (size_t)v->elem->byte_size)
		r->state = EV_EXT_NO_ROOM;
	if (r->state == EV_EXT_OK) {
		r->value = x->p + 1;
		r->ext = ev_ext_sub(x, 1 + (size_t)v->elem->byte_size, v->elem, true);
	}
	return true;
}

const uint8_t *ev_seq_elem(const struct gs_view *v, const struct ev_ext *x, uint64_t i,
			   struct ev_ext *ex)
{
	uint32_t cap = gs_view_cap(x->caps, v);
	uint32_t size = v->elem->byte_size;
	uint32_t inner = gs_view_ext_size(x->caps, v->elem, x->depth + 1);

	*ex = ev_ext_sub(x, 1 + (size_t)cap * size + (size_t)i * inner, v->elem, true);
	return x->p + 1 + i * size;
}

struct ev_ext ev_view_field_ext(const struct gs_view *v, uint32_t i, const struct ev_ext *x)
{
	size_t off = 0;

	for (uint32_t j = 0; j < i; j++)
		off += gs_view_ext_size(x->caps, v->fields[j].type, x->depth + 1);
	return ev_ext_sub(x, off, v->fields[i].type, true);
}

bool ev_view_engaged(const struct gs_view *v, const uint8_t *data, size_t len)
{
	uint64_t d;

	return ev_view_u(data, len, v->discr_off, 1, &d) && d;
}

bool ev_view_variant(const struct gs_view *v, const uint8_t *data, size_t len, uint64_t *d)
{
	return ev_view_u(data, len, v->discr_off, v->discr_size, d) && *d < v->nfields;
}

int64_t ev_view_borrow(const struct gs_view *v, const uint8_t *data, size_t len)
{
	uint64_t d;

	return v->nfields > 1 && ev_view_u(data, len, v->fields[1].offset, 8, &d) ? (int64_t)d : 0;
}

bool ev_view_enum_pick(const struct gs_view *v, const uint8_t *data, size_t len, uint64_t *d,
		       uint32_t *pick)
{
	*d = 0;
	*pick = v->nfields;
	if (v->discr_size && !ev_view_u(data, len, v->discr_off, v->discr_size, d))
		return false;
	for (uint32_t i = 0; i < v->nfields && *pick == v->nfields; i++) {
		uint64_t want = (uint64_t)v->fields[i].discr;

		if (v->discr_size < 8)
			want &= (1ull << 8 * v->discr_size) - 1;
		if (!v->discr_size || (!v->fields[i].is_default && want == *d))
			*pick = i;
	}
	for (uint32_t i = 0; i < v->nfields && *pick == v->nfields; i++)
		if (v->fields[i].is_default)
			*pick = i;
	return true;
}

enum ev_shared_state ev_view_shared(const struct gs_view *v, const uint8_t *data, size_t len,
				    const struct ev_ext *x, struct ev_counts *c)
{
	c->ptr = 0;
	c->use = c->weak = 0;
	if (!ev_view_u(data, len, v->ptr_off, 8, &c->ptr))
		return EV_SHARED_UNCAPTURED;
	if (!c->ptr)
		return EV_SHARED_EMPTY;
	/* the control block: vtable, _M_use_count, _M_weak_count */
	if (!x->p || x->n < 17 || x->p[0] != GS_VAR_OK)
		return EV_SHARED_UNREAD;
	c->use = (int32_t)ev_le(x->p + 1 + 8, 4);
	c->weak = (int32_t)ev_le(x->p + 1 + 12, 4) - 1;
	return EV_SHARED_COUNTS;
}

bool ev_view_rc(const struct gs_view *v, const struct ev_ext *x, struct ev_rc *rc)
{
	size_t size = v->elem->byte_size;
	const struct gs_view_field *f = &v->fields[0];
	uint64_t weak;

	if (v->nfields < 3 || x->n < 1 + size ||
	    !ev_view_u(x->p + 1, size, v->fields[1].offset, 8, &rc->strong) ||
	    !ev_view_u(x->p + 1, size, v->fields[2].offset, 8, &weak))
		return false;
	rc->weak = (int64_t)weak - 1;
	rc->value = NULL;
	rc->value_len = 0;
	rc->value_ext = ev_ext_sub(x, 1 + size, v->elem, true);
	if (f->offset <= size) {
		rc->value = x->p + 1 + f->offset;
		rc->value_len = size - f->offset;
	}
	return true;
}

bool ev_view_bits(const struct gs_view *v, const uint8_t *data, size_t len,
		  const struct ev_ext *x, struct ev_bits *b)
{
	uint64_t start, finish, bit, eos, max = 64 * (uint64_t)gs_view_bits_words(x->caps);

	memset(b, 0, sizeof(*b));
	if (!ev_view_u(data, len, v->ptr_off, 8, &start) ||
	    !ev_view_u(data, len, v->len_off, 8, &finish) ||
	    !ev_view_u(data, len, v->head_off, 4, &bit) || !ev_view_u(data, len, v->cap_off, 8, &eos))
		return false;
	b->ptr = start;
	b->n = (int64_t)(finish - start) / 8 * 64 + (int64_t)bit;
	b->cap = (int64_t)(eos - start) / 8 * 64;
	if (b->n > 0)
		b->shown = (uint64_t)b->n < max ? (uint64_t)b->n : max;
	if (b->shown > gs_view_cap(x->caps, v))
		b->shown = gs_view_cap(x->caps, v);
	return true;
}

bool ev_bit(const struct ev_ext *x, uint64_t i)
{
	return (x->p[1 + i / 8] >> (i % 8)) & 1;
}

bool ev_pair(const struct gs_type *t, const struct ev_ext *ex, struct ev_part *key,
	     struct ev_part *val)
{
	const struct gs_view *v = t->view;
	const struct gs_type_member *m[2];
	uint32_t n = 0;

	if (v && v->style == GS_VSTYLE_CPP_PAIR && v->nfields == 2) {
		*key = (struct ev_part){ v->fields[0].type, v->fields[0].offset,
					 ev_view_field_ext(v, 0, ex) };
		*val = (struct ev_part){ v->fields[1].type, v->fields[1].offset,
					 ev_view_field_ext(v, 1, ex) };
		return key->type && val->type;
	}
	/* the first two members that are not base classes */
	for (uint32_t i = 0; i < t->nmembers && n < 2; i++)
		if (t->members[i].type && (!t->members[i].name || t->members[i].name[0] != '<'))
			m[n++] = &t->members[i];
	if (n < 2)
		return false;
	*key = (struct ev_part){ m[0]->type, m[0]->offset, *ex };
	*val = (struct ev_part){ m[1]->type, m[1]->offset, *ex };
	ev_ext_skip(&val->ext, m[0]->type);
	return true;
}
