/* JSON text for the printers (print_json.c, value_json.c, view_json.c):
 * strings escaped per RFC 8259, with bytes that are not UTF-8 as U+FFFD
 * and C1 controls escaped for terminals, so every line parses whatever the
 * target's memory held; and object keys. Below every JSON writer. */
#include <string.h>

#include "json_int.h"

void ev_json_strn(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		len = gs_render_utf8_len(s + i, n - i);
		if (!len) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) /* C1 controls, for terminals */
			fprintf(f, "\\u%04x", s[i + 1]);
		else
			fwrite(s + i, 1, len, f);
		i += len;
	}
	fputc('"', f);
}

/* A string, or null. */
void ev_json_str(FILE *f, const char *s)
{
	if (s)
		ev_json_strn(f, s, strlen(s));
	else
		fputs("null", f);
}

void ev_json_key(FILE *f, bool *first, const char *key)
{
	if (!*first)
		fputc(',', f);
	*first = false;
	ev_json_str(f, key);
	fputc(':', f);
}
