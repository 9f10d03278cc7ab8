/* The BTF writer (include/gs/btf.h): records appended to a type buffer and
 * names to a string buffer, laid out at finish as the kernel's
 * `struct btf_header` + types + strings. Only the kinds func_info needs. */
#include <errno.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/asm.h>
#include <gs/btf.h>

#include "mem.h"

/* The encodings of uapi linux/btf.h's comments (the kernel's macros are not
 * exported there). */
#define INFO_ENC(kind, kind_flag, vlen) \
	((uint32_t)(kind_flag) << 31 | (uint32_t)(kind) << 24 | ((vlen) & 0xffff))
#define INT_ENC(encoding, offset, bits) ((uint32_t)(encoding) << 24 | (offset) << 16 | (bits))

void gs_btf_init(struct gs_btf *b)
{
	memset(b, 0, sizeof(*b));
}

void gs_btf_fini(struct gs_btf *b)
{
	free(b->types);
	free(b->strs);
	memset(b, 0, sizeof(*b));
}

static void fail(struct gs_btf *b, int code, const char *what)
{
	if (!b->error_code) {
		b->error_code = code;
		b->error_what = what;
	}
}

/* Offset of name in the string section (0 for NULL or ""). */
static uint32_t str(struct gs_btf *b, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	uint32_t off;

	if (b->error_code)
		return 0;
	if (b->slen == 0) { /* the section starts with the empty string */
		if (base_grow((void **)&b->strs, &b->scap, 1, 1))
			return fail(b, -ENOMEM, "out of memory for the string section"), 0;
		b->strs[b->slen++] = '\0';
	}
	if (n == 0)
		return 0;
	if (base_grow((void **)&b->strs, &b->scap, b->slen + n + 1, 1))
		return fail(b, -ENOMEM, "out of memory for the string section"), 0;
	off = (uint32_t)b->slen;
	memcpy(b->strs + b->slen, name, n + 1);
	b->slen += n + 1;
	return off;
}

static void put(struct gs_btf *b, const void *data, size_t n)
{
	if (b->error_code)
		return;
	if (base_grow((void **)&b->types, &b->cap, b->len + n, 1))
		return fail(b, -ENOMEM, "out of memory for the type section");
	memcpy(b->types + b->len, data, n);
	b->len += n;
}

static uint32_t type(struct gs_btf *b, const char *name, uint32_t kind, uint32_t vlen,
		     uint32_t size_or_type)
{
	struct btf_type t = {
		.name_off = str(b, name),
		.info = INFO_ENC(kind, 0, vlen),
		.size = size_or_type,
	};

	put(b, &t, sizeof(t));
	return b->error_code ? 0 : ++b->ntypes;
}

uint32_t gs_btf_int(struct gs_btf *b, const char *name, uint32_t bytes, bool is_signed)
{
	uint32_t id, enc = INT_ENC(is_signed ? BTF_INT_SIGNED : 0, 0, bytes * 8);

	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
		return fail(b, -EINVAL, "an INT is 1, 2, 4 or 8 bytes"), 0;
	id = type(b, name, BTF_KIND_INT, 0, bytes);
	put(b, &enc, sizeof(enc));
	return b->error_code ? 0 : id;
}

uint32_t gs_btf_ptr(struct gs_btf *b, uint32_t to)
{
	if (to > b->ntypes)
		return fail(b, -EINVAL, "PTR to a type id not defined yet"), 0;
	return type(b, NULL, BTF_KIND_PTR, 0, to);
}

uint32_t gs_btf_func_proto(struct gs_btf *b, uint32_t ret, const uint32_t *params,
			   const char *const *names, size_t nparams)
{
	uint32_t id;

	if (ret > b->ntypes || nparams > 5)
		return fail(b, -EINVAL, "FUNC_PROTO: unknown return type or more than 5 parameters"),
		       0;
	id = type(b, NULL, BTF_KIND_FUNC_PROTO, (uint32_t)nparams, ret);
	for (size_t i = 0; i < nparams; i++) {
		/* A FUNC's parameters need names: arg0.. when the caller gives none. */
		static const char *const dflt[] = { "arg0", "arg1", "arg2", "arg3", "arg4" };
		struct btf_param p = { .name_off = str(b, names && names[i] ? names[i] : dflt[i]),
				       .type = params[i] };

		if (params[i] == 0 || params[i] > b->ntypes)
			return fail(b, -EINVAL, "FUNC_PROTO: a parameter has no type"), 0;
		put(b, &p, sizeof(p));
	}
	return b->error_code ? 0 : id;
}

uint32_t gs_btf_func(struct gs_btf *b, const char *name, uint32_t proto,
		     enum gs_btf_linkage linkage)
{
	if (!name || !*name || proto == 0 || proto > b->ntypes)
		return fail(b, -EINVAL, "FUNC: a function needs a name and a FUNC_PROTO"), 0;
	return type(b, name, BTF_KIND_FUNC, (uint32_t)linkage, proto);
}

int gs_btf_finish(const struct gs_btf *b, void **blob, size_t *size, struct gs_error *err)
{
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h),
		.type_off = 0, .type_len = (uint32_t)b->len,
		.str_off = (uint32_t)b->len, .str_len = (uint32_t)(b->slen ? b->slen : 1),
	};
	uint8_t *out;

	*blob = NULL;
	*size = 0;
	if (b->error_code)
		return gs_errorf(err, b->error_code, "BTF writer: %s", b->error_what);
	out = calloc(1, sizeof(h) + h.type_len + h.str_len);
	if (!out)
		return gs_errorf(err, -ENOMEM, "out of memory laying out %zu bytes of BTF", b->len);
	memcpy(out, &h, sizeof(h));
	if (b->len)
		memcpy(out + sizeof(h), b->types, b->len);
	if (b->slen)
		memcpy(out + sizeof(h) + b->len, b->strs, b->slen);
	*blob = out;
	*size = sizeof(h) + h.type_len + h.str_len;
	return 0;
}
