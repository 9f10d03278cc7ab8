/* The decoder's one error, a malformed stream (docs/protocol.md): the
 * offset of the byte at fault, kept for gs_decoder_error_offset, and a
 * message naming it and the event dropped. Framing (decode.c) and the
 * payload decoders (decode_inst.c) both report through it; it sits below
 * both, so the payloads need nothing of the framing that calls them. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "decode_int.h"

int ev_decode_bad(struct gs_decoder *d, struct gs_error *err, uint64_t at, uint64_t event_at,
		  const char *fmt, ...)
{
	char reason[GS_ERROR_MSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	d->error_offset = at;
	return gs_errorf(err, -EBADMSG,
			 "malformed trace stream at offset %llu: %s; the event at offset %llu "
			 "is dropped", (unsigned long long)at, reason,
			 (unsigned long long)event_at);
}
