/* Print format strings (docs/cli.md), read the same way by the script
 * parser (to check them where the user wrote them), the code generator (to
 * capture each argument) and the renderer (to substitute the values):
 *   {}            the value, typed          {:x} {:X}  hex       {:p}  address
 *   {:s}          a char * / char[N] as a NUL-terminated string
 *   {:x.N} {:X.N} {:s.N}   N bytes from the value's address (N decimal,
 *                 0x hex, 0o octal or 0b binary, 1..65535)
 *   {:x.*} ...    the length is the argument before the value
 *   {:x.name$}    the length is the `let` variable `name`
 * `{{` and `}}` are literal braces. A placeholder with a run-time length
 * takes two arguments on the wire: the length (an integer), then the value. */
#ifndef GS_FORMAT_H
#define GS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_fmt_kind {
	GS_FMT_TEXT,      /* literal bytes fmt[off, off + len) */
	GS_FMT_VALUE,     /* a placeholder, fmt[off, off + len) with its braces */
	GS_FMT_BAD_CLOSE, /* a '}' that closes nothing, at off */
	GS_FMT_BAD_SPEC,  /* a placeholder not understood, fmt[off, off + len) */
	GS_FMT_UNCLOSED,  /* a '{' never closed, at off (the rest of fmt) */
};

enum gs_fmt_len {
	GS_FMT_LEN_NONE,  /* no length */
	GS_FMT_LEN_CONST, /* .N: length */
	GS_FMT_LEN_ARG,   /* .*: the argument before the value */
	GS_FMT_LEN_VAR,   /* .name$: fmt[name_off, name_off + name_len) */
};

#define GS_FMT_LEN_MAX 65535

struct gs_fmt_item {
	uint8_t kind;     /* enum gs_fmt_kind */
	size_t off, len;
	char conv;        /* VALUE: 0, 'x', 'X', 'p' or 's' */
	uint8_t len_kind; /* VALUE: enum gs_fmt_len */
	uint32_t length;  /* GS_FMT_LEN_CONST */
	size_t name_off, name_len;
	const char *why;  /* BAD_*, UNCLOSED: what is wrong, for a message */
};

/* The item of fmt at *pos, and *pos past it: true, or false at the end.
 * `{{` and `}}` are TEXT items of one brace (two bytes consumed). */
GS_API bool gs_fmt_next(const char *fmt, size_t *pos, struct gs_fmt_item *item);

/* Wire arguments a VALUE item takes: 2 with a run-time length, else 1. */
static inline unsigned gs_fmt_args(const struct gs_fmt_item *item)
{
	return item->len_kind == GS_FMT_LEN_ARG || item->len_kind == GS_FMT_LEN_VAR ? 2 : 1;
}

#ifdef __cplusplus
}
#endif

#endif /* GS_FORMAT_H */
