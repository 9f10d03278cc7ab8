/* The JSON printer's pieces shared by print_json.c and view_json.c. Not
 * part of the events API. */
#ifndef GS_EVENTS_JSON_INT_H
#define GS_EVENTS_JSON_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "ev_int.h"

#define JSON_MAX_DEPTH 32
/* A value, or a part of one, that has no value at the probe. */
#define JSON_OPTIMIZED_OUT "{\"status\":\"optimized_out\"}"

/* n bytes of str as a JSON string (RFC 8259 escapes; bytes that are not
 * UTF-8 become U+FFFD). */
void ev_json_strn(FILE *f, const char *str, size_t n);
/* A string, or null. */
void ev_json_str(FILE *f, const char *s);
/* ,"key": (no comma before the first). */
void ev_json_key(FILE *f, bool *first, const char *key);
/* A value of type t from data[0, len) with its extension x. */
void ev_json_typed(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		   unsigned depth, struct ev_ext x);
/* view_json.c: t's view as JSON; false when it is shown as the plain value. */
bool ev_json_view(FILE *f, const struct gs_type *t, const uint8_t *data, size_t len,
		  unsigned depth, const struct ev_ext *x);

#endif /* GS_EVENTS_JSON_INT_H */
