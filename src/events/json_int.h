/* The JSON printer's pieces: strings and keys (json.c), typed values
 * (value_json.c) and standard-library views (view_json.c), which
 * print_json.c puts in events. Not part of the events API. */
#ifndef GS_EVENTS_JSON_INT_H
#define GS_EVENTS_JSON_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "ev_int.h"

#define JSON_MAX_DEPTH 32
/* A value, or a part of one, that has no value at the probe. */
#define JSON_OPTIMIZED_OUT "{\"status\":\"optimized_out\"}"

/* json.c: n bytes of str as a JSON string (RFC 8259 escapes; bytes that
 * are not UTF-8 become U+FFFD). */
void ev_json_strn(FILE *f, const char *str, size_t n);
/* A string, or null. */
void ev_json_str(FILE *f, const char *s);
/* ,"key": (no comma before the first). */
void ev_json_key(FILE *f, bool *first, const char *key);
/* value_json.c: a value of type t from data[0, len) with its extension
 * x. */
void ev_json_typed(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		   unsigned depth, struct ev_ext x);
/* view_json.c: t's view as JSON; false when it is shown as the plain value. */
bool ev_json_view(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		  unsigned depth, const struct ev_ext *x);

#endif /* GS_EVENTS_JSON_INT_H */
