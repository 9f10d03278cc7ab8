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

/* gs_btf_init() empties a writer the caller allocated (it allocates
 * nothing); gs_btf_fini() frees what the writer grew and leaves it empty
 * again (an initialized writer, finished or not). */
GS_API void gs_btf_init(struct gs_btf *b);
GS_API void gs_btf_fini(struct gs_btf *b);

/* Each appends one type and returns its id (>= 1), or 0 after an error
 * (out of memory; -EINVAL for a type id not defined yet, an INT not 1, 2,
 * 4 or 8 bytes, more than 5 parameters, a FUNC without a name): the first
 * error is kept for gs_btf_finish(), later calls do nothing. Names are
 * copied. */
GS_API uint32_t gs_btf_int(struct gs_btf *b, const char *name, uint32_t bytes, bool is_signed);
GS_API uint32_t gs_btf_ptr(struct gs_btf *b, uint32_t type); /* type 0: void * */
/* ret 0: void. names, or any of them, may be NULL: the parameter is
 * then named arg0..arg4 (a FUNC's parameters need names). */
GS_API uint32_t gs_btf_func_proto(struct gs_btf *b, uint32_t ret, const uint32_t *params,
				  const char *const *names, size_t nparams);
GS_API uint32_t gs_btf_func(struct gs_btf *b, const char *name, uint32_t proto,
			    enum gs_btf_linkage linkage);

/* The raw BTF (header, types, strings) in a new malloc'd buffer for
 * bpf_btf_load(), which the caller frees; b is unchanged. 0, or the sticky
 * error / -ENOMEM with err filled and *blob NULL. */
GS_API int gs_btf_finish(const struct gs_btf *b, void **blob, size_t *size, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_BTF_H */
