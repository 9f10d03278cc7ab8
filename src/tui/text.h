/* UTF-8 as the panels need it, without the process locale: decoding one
 * character, its display width, and escaping hostile bytes (from the traced
 * program or its files) so that no control byte reaches the terminal.
 * Private to the tui layer. */
#ifndef TUI_TEXT_H
#define TUI_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The character at s[0..len): its code point in *cp and its length in
 * bytes (1..4); 0 when the bytes there are not valid UTF-8 (overlong,
 * surrogate, past U+10FFFF, cut short), then s[0] is a byte of its own. */
size_t tui_utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Display columns of cp: 2 for East Asian wide and emoji, 0 for combining
 * marks, else 1. */
unsigned tui_char_width(uint32_t cp);
/* Display columns of s[0..len) (an invalid byte counts 1). */
size_t tui_text_width(const char *s, size_t len);
/* Start of the character before s[pos] (0 when pos is 0). */
size_t tui_utf8_prev(const char *s, size_t pos);
/* End of the character at s[pos] (pos < len). */
size_t tui_utf8_next(const char *s, size_t len, size_t pos);

/* Escapes s[0..len) into a malloc'd NUL-terminated string: bytes below
 * 0x20, 0x7f, C1 controls (U+0080..U+009F) and invalid UTF-8 bytes
 * become "\xNN" (each byte of them). With tab8, a tab expands to spaces
 * up to the next multiple of 8 columns instead. NULL on ENOMEM. */
char *tui_escape(const char *s, size_t len, bool tab8);

#endif /* TUI_TEXT_H */
