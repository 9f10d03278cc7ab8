/* A small BTF writer: just the types a program's function records need
 * (INT, PTR, FUNC_PROTO, FUNC), so a program with a global subprogram or a
 * bpf_loop callback can be loaded with func_info. Errors are sticky like the
 * assembler's: the first is kept and gs_btf_finish() reports it. */
#ifndef GS_BTF_H
#define GS_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_btf_linkage {
	GS_BTF_STATIC = 0, /* BTF_FUNC_STATIC: verified with its caller */
	GS_BTF_GLOBAL = 1, /* BTF_FUNC_GLOBAL: verified once, on its own */
};

struct gs_btf {
	uint8_t *types; /* type section: struct btf_type records and their tails */
	size_t len, cap;
	char *strs;     /* string section, starting with "" */
	size_t slen, scap;
	uint32_t ntypes; /* type ids 1..ntypes are taken (0 is void) */
	/* the first error (code 0: none): what failed, a constant sentence
	 * (a plan keeps a writer per program: no message's room in each) */
	int error_code;
	const char *error_what;
};

GS_API void gs_btf_init(struct gs_btf *b);
GS_API void gs_btf_fini(struct gs_btf *b);

/* Each returns the new type's id (>= 1), or 0 after an error. */
GS_API uint32_t gs_btf_int(struct gs_btf *b, const char *name, uint32_t bytes, bool is_signed);
GS_API uint32_t gs_btf_ptr(struct gs_btf *b, uint32_t type); /* type 0: void * */
/* ret 0: void. Parameter names may be NULL (anonymous). */
GS_API uint32_t gs_btf_func_proto(struct gs_btf *b, uint32_t ret, const uint32_t *params,
				  const char *const *names, size_t nparams);
GS_API uint32_t gs_btf_func(struct gs_btf *b, const char *name, uint32_t proto,
			    enum gs_btf_linkage linkage);

/* The raw BTF (header, types, strings) in a malloc'd buffer for
 * bpf_btf_load(). 0, or the sticky error / -ENOMEM with err filled. */
GS_API int gs_btf_finish(const struct gs_btf *b, void **blob, size_t *size, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_BTF_H */
