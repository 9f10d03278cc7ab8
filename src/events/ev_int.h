/* Shared by the renderers of src/events: an snprintf-style text sink, the
 * escaping of text that comes from the target, and the value renderer the
 * instruction renderer calls. Not part of the events API (render.h). */
#ifndef GS_EVENTS_EV_INT_H
#define GS_EVENTS_EV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/render.h>

/* Counts everything put, stores what fits (and a NUL at done). */
struct ev_out {
	char *buf;
	size_t size;
	size_t len;
};

void ev_put(struct ev_out *o, const char *s, size_t n);
void ev_put_str(struct ev_out *o, const char *s);
void ev_put_char(struct ev_out *o, char c);
void ev_put_udec(struct ev_out *o, uint64_t v);
void ev_put_sdec(struct ev_out *o, int64_t v);
/* Hex digits of v, at least `digits` of them. */
void ev_put_hex(struct ev_out *o, uint64_t v, bool upper, size_t digits);
void ev_put_0x(struct ev_out *o, uint64_t v);
/* Shortest decimal that reads back as the same double (float when is_float). */
void ev_put_float(struct ev_out *o, double v, bool is_float);
/* NUL-terminates the buffer; the length the whole text has. */
size_t ev_done(struct ev_out *o);

/* Bytes from the target, safe for a terminal: C0 controls, DEL, the C1
 * controls (raw or as UTF-8 C2 80..C2 9F) and bytes that are not UTF-8
 * become \xNN; printable ASCII and valid UTF-8 stay. Inside quotes
 * (quote '"' or '\'') the quote, the backslash, \n, \t and \r get C
 * escapes. GS_RENDER_KEEP_NEWLINES keeps '\n' as it is. */
void ev_put_text(struct ev_out *o, const uint8_t *s, size_t n, char quote, unsigned flags);

/* value.c: one captured value as `{}` (conv 0), `{:x}`, `{:X}`, `{:p}` or
 * `{:s}` render it; statuses replace it (render.h). */
void ev_put_value(struct ev_out *o, const struct gs_value *v, char conv);
/* The bytes of a dump ({:x.N}, {:s.N}, with a run-time length): the first
 * n of v's data, as hex pairs (conv 'x' / 'X') or as text (conv 's'). */
void ev_put_dump(struct ev_out *o, const struct gs_value *v, char conv, uint64_t n);

#endif /* GS_EVENTS_EV_INT_H */
