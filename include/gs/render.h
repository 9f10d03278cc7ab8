/* Plain-text rendering of decoded events without symbolization (the
 * event format: docs/protocol.md): values by type, format placeholders, the
 * protocol-default backtrace text, and the pretty / plain event layouts.
 *
 * Every gs_render_* function works like snprintf: it writes at most `size`
 * bytes including a NUL (nothing when size is 0) and returns the length the
 * whole text has, so a return >= size means it was cut short.
 *
 * Values (status Ok) by their type, C-like and whole, as a C debugger shows
 * them (scalars from the first N data bytes, N the type's size, else the
 * kind's natural size):
 *   integers           decimal, signed or not  Bool     true / false
 *   Char               97 'a', -56 '\xc8'       Enum     the enumerator, else
 *   Pointer            0x<lower hex>                     the number
 *   NullPointer        NULL                    F32, F64 the shortest decimal
 *   struct, union      {x = 1, p = {a = 2}}             that reads back the same
 *   array              {1, 2, 3}; of chars:    CString, String  "text"
 *                      "text" up to the NUL    OptimizedOut  <optimized out>
 *   bit field          its bits, signed or not as its type
 *   anything else, or fewer bytes than the type: the bytes in hex {01 02 ff};
 *   no data: <no data>; a type the dwarf layer gave up on (GS_TYPEF_CYCLIC,
 *   GS_TYPEF_TOO_DEEP): <cyclic type>, <type too deep>, as the value or a
 *   member. Members and elements past the captured bytes show
 *   as `...`. Strings and names from the target are escaped
 *   (gs_render_escaped; in quotes also \" \\ \n \t \r).
 * Statuses other than Ok replace the value:
 *   NullDeref          <null pointer dereference>
 *   ReadError          <read error: errno=-14 at 0x7ffd0000> (no payload:
 *                      <read error>)
 *   AccessError        <address computation failed>
 *   Truncated          the value captured, then ` <truncated>` (no data:
 *                      <truncated>)
 *   OffsetsUnavailable <offsets unavailable>
 *   ZeroLength         <zero length>
 *   DivByZero          <division by zero>
 *   other              <bad status N>
 *
 * Instructions: PrintString -> the text; PrintComplexVariable and legacy
 * PrintVariableIndex -> `name = value`, `name.path = value` with an access
 * path; PrintComplexFormat -> the format (gs/format.h) with `{}` (value as
 * above), `{:x}` / `{:X}` (hex without prefix: scalars by value, other data
 * as space-separated bytes), `{:p}` (0x<hex> of the first 8 bytes), `{:s}`
 * (the bytes up to the NUL, escaped, no quotes), `{:x.N}` / `{:s.N}` (the
 * first N bytes of the dump, as hex pairs or text), `.*` and `.name$` (the
 * argument before the dump gives N; a failed length or dump shows its
 * status), `{{` and `}}` escaped; `<missing arg>` when args run out,
 * `<unsupported {:...}>` for other specs (it consumes an arg),
 * `<malformed placeholder>` for an unclosed `{`. Backtrace -> the
 * protocol-default text:
 *   backtrace(max_depth=5, frames=2, status=truncated)
 *     #0 cookie=0x0123456789abcdef pc=0x1189 raw=0x555555555189
 *     stopped: truncated (next-ip-kernel-like, code=4)
 * (frames with a non-zero flags field get ` flags=0x<f>`; the stopped line
 * appears when status is not complete; ` (code=n)` for unknown codes.)
 * ExprError -> `ExprError: <expr> (<reason> at 0x<016x>[, flags: <names>])`,
 * `at NULL` when the address is 0; reasons are the status labels below, flag
 * names `first-arg read-fail`, `second-arg read-fail`, `len-clamped`, `len=0`
 * (other bits as 0x<hex>). End -> nothing; its
 * debugging form is `end(<n> instructions, success|partial_failure|
 * complete_failure|unknown)`. */
#ifndef GS_RENDER_H
#define GS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/decode.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_render_style {
	/* `[<ts>] TraceID:<id> PID:<pid> TID:<tid>`, then each item indented
	 * two spaces (continuation lines of an item two more). */
	GS_RENDER_PRETTY = 0,
	/* No header; items verbatim, one per line. */
	GS_RENDER_PLAIN = 1,
};

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_render_opts {
	size_t sz;
	enum gs_render_style style;
	const char *timestamp; /* pretty: header timestamp text; NULL omits `[...] ` */
	bool show_end;         /* also render the EndInstruction's debugging form */
};

/* A whole event, every line ending in '\n' (opts may be NULL: pretty, no
 * timestamp). Options that fail the check of docs/api.md (sz 0, fields
 * past sz this library does not know) render nothing: 0, errno EINVAL. */
GS_API size_t gs_render_event(const struct gs_event *ev, const struct gs_render_opts *opts,
			      char *buf, size_t size);
/* `[<timestamp>] TraceID:<id> PID:<pid> TID:<tid>`, no newline; without the
 * bracket when timestamp is NULL. */
GS_API size_t gs_render_header(const struct gs_event *ev, const char *timestamp, char *buf,
			       size_t size);
/* One instruction in normal rendering, no trailing newline (a backtrace is
 * several lines; an EndInstruction is empty). */
GS_API size_t gs_render_inst(const struct gs_inst *in, char *buf, size_t size);
/* `end(<n> instructions, <status>)`. */
GS_API size_t gs_render_end(const struct gs_inst *in, char *buf, size_t size);
/* One value as a format placeholder renders it: conv is 0 for `{}`, or
 * 'x', 'X', 'p', 's'. */
GS_API size_t gs_render_value(const struct gs_value *v, char conv, char *buf, size_t size);

/* Text that came from the target (a function, file or module name, a
 * path) made safe to print on a terminal: C0 controls, DEL, the C1
 * controls U+0080..U+009F (UTF-8 C2 80..C2 9F) and bytes that are not
 * UTF-8 become `\xNN` (ESC is `\x1b`); printable ASCII and valid UTF-8 are
 * kept. Every renderer here escapes this way what comes from the target
 * (names, string and char values, access paths); script text is shown as
 * written. */
enum {
	GS_RENDER_KEEP_NEWLINES = 1, /* '\n' stays a line break (messages) */
};
/* That escaping of len bytes of s (which may hold NULs), like snprintf;
 * flags: GS_RENDER_* bits. */
GS_API size_t gs_render_escaped(const char *s, size_t len, unsigned flags, char *buf, size_t size);
/* The length of the valid UTF-8 sequence at s (n bytes left): 1 for
 * ASCII, 2..4, or 0 when the bytes are not one (overlong forms, surrogates
 * and code points past U+10FFFF are not). */
GS_API size_t gs_render_utf8_len(const uint8_t *s, size_t n);
/* That escaping of the NUL-terminated s, written to f (its errors are
 * f's: check ferror). */
GS_API void gs_render_fputs(FILE *f, const char *s, unsigned flags);

/* One scalar of a captured value, decoded by its type, for renderers of
 * their own (JSON): integers, bool, char, enum and pointer in bits (sign-
 * extended when is_signed), floats also in f, an enum's matching
 * enumerator (NULL when none). */
struct gs_scalar {
	uint8_t kind;           /* enum gs_type_kind */
	bool is_signed;
	uint64_t bits;
	double f;               /* F32, F64 */
	const char *enumerator; /* ENUM */
};
/* Decodes t's scalar from data[0, len): a bit field when bit_size is not 0
 * (bit_size bits from bit bit_offset of data[0]). false when t is not a
 * scalar kind or len is too short. */
GS_API bool gs_value_scalar(const struct gs_type *t, const uint8_t *data, size_t len,
			    unsigned bit_offset, unsigned bit_size, struct gs_scalar *out);

/* Labels of the statuses (enum gs_var_status, gs_bt_status, the backtrace
 * error codes, gs_exec_status, gs_py_status: gs/wire.h), for symbolizing renderers too;
 * constant strings. */
GS_API const char *gs_var_status_label(uint8_t status);  /* "null deref", ... "ok" */
GS_API const char *gs_bt_status_label(uint8_t status);   /* unknown -> "internal error" */
GS_API const char *gs_bt_error_label(uint16_t code);     /* 0 -> NULL; unknown -> "unknown" */
GS_API const char *gs_exec_status_label(uint8_t status); /* "success", ... "unknown" */
/* enum gs_py_status: "complete", ... "read error"; unknown -> "unknown". */
GS_API const char *gs_py_status_label(uint8_t status);

#ifdef __cplusplus
}
#endif

#endif /* GS_RENDER_H */
