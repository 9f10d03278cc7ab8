/* The script's tokens: identifiers, integer literals (decimal, 0x, 0o, 0b,
 * with '_' digit separators),
 * strings with a few escapes, $special names and C operators, with `//`
 * and block comments skipped; plus the one-token-lookahead stream the
 * parser reads. A lexical error fails the parser and reads as end of input. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "script_int.h"

bool sp_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool sp_ident_char(int c)
{
	return sp_ident_start(c) || (c >= '0' && c <= '9');
}

static int at_char(const struct parser *p, size_t i)
{
	return i < p->len ? (unsigned char)p->src[i] : -1;
}

bool sp_lex_skip(struct parser *p, size_t *pos)
{
	size_t i = *pos;

	while (i < p->len) {
		int c = at_char(p, i);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			i++;
		} else if (c == '/' && at_char(p, i + 1) == '/') {
			while (i < p->len && p->src[i] != '\n')
				i++;
		} else if (c == '/' && at_char(p, i + 1) == '*') {
			size_t open = i;

			i += 2;
			while (i < p->len && !(p->src[i] == '*' && at_char(p, i + 1) == '/'))
				i++;
			if (i >= p->len) {
				sp_err(p, open, "unterminated comment: '/*' has no matching '*/'");
				*pos = p->len;
				return false;
			}
			i += 2;
		} else {
			break;
		}
	}
	*pos = i;
	return true;
}

/* ---- numbers ------------------------------------------------------------------ */

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
		return (c | 0x20) - 'a' + 10;
	return 99;
}

/* Digit separators as GhostScope's docs write them (1_048_576,
 * 0xffff_ffff): an underscore only between two digits of the literal's
 * base. A misplaced one is an error at the first bad '_' whose message
 * spells the literal without the bad ones (a doubled one kept once).
 * `digits` is where the digits start, past 0x, 0o or 0b. */
static bool separators_ok(struct parser *p, size_t start, size_t digits, unsigned base,
			  const char *base_name)
{
	size_t end = digits, bad = SIZE_MAX, n = 0;
	bool any_digit = false;
	char fix[128];

	while (sp_ident_char(at_char(p, end)) &&
	       (digit_value(at_char(p, end)) < (int)base || at_char(p, end) == '_'))
		any_digit |= p->src[end++] != '_';
	for (size_t i = digits; i < end && bad == SIZE_MAX; i++)
		if (p->src[i] == '_' && (i == digits || i + 1 == end || p->src[i + 1] == '_'))
			bad = i;
	/* 0b1_2: the digit the base lacks is the error, said after this */
	if (bad == SIZE_MAX || (bad + 1 == end && digit_value(at_char(p, end)) < 10))
		return true;
	if (!any_digit) {
		sp_err(p, start, "%s literal '%.*s' has no digits", base_name, (int)(end - start),
		       p->src + start);
		return false;
	}
	for (size_t i = start; i < end && n + 1 < sizeof(fix); i++)
		if (p->src[i] != '_' || (n > digits - start && fix[n - 1] != '_'))
			fix[n++] = p->src[i];
	while (n > 0 && fix[n - 1] == '_')
		n--;
	fix[n] = '\0';
	sp_err(p, bad, "a digit separator '_' goes between two digits%s: write %s",
	       bad == digits ? ", not right after the base prefix" :
	       bad + 1 == end ? ", not at the end" : ", one at a time", fix);
	return false;
}

/* Integers are any 64-bit pattern: 0xffffffffffffffff is -1 as an i64. */
static void lex_number(struct parser *p, size_t start, struct token *t)
{
	static const struct { char letter; unsigned base; const char *name; } prefixes[] = {
		{ 'x', 16, "hex" }, { 'o', 8, "octal" }, { 'b', 2, "binary" },
	};
	unsigned base = 10;
	const char *base_name = "decimal";
	size_t i = start, digits;
	uint64_t v = 0;

	if (at_char(p, i) == '0') {
		for (size_t k = 0; k < BASE_ARRAY_SIZE(prefixes); k++) {
			if ((at_char(p, i + 1) | 0x20) == prefixes[k].letter) {
				base = prefixes[k].base;
				base_name = prefixes[k].name;
				i += 2;
				break;
			}
		}
	}
	if (base == 10 && at_char(p, i) == '0' &&
	    (digit_value(at_char(p, i + 1)) < 10 || at_char(p, i + 1) == '_')) {
		size_t end = i, z = i;

		while (sp_ident_char(at_char(p, end)))
			end++;
		while (z + 1 < end && (p->src[z] == '0' || p->src[z] == '_'))
			z++;
		sp_err(p, start, "a leading zero is ambiguous ('%.*s' is octal in C): write 0o%.*s "
		       "for octal or %.*s for decimal", (int)(end - start), p->src + start,
		       (int)(end - z), p->src + z, (int)(end - z), p->src + z);
		return;
	}
	digits = i;
	if (!separators_ok(p, start, digits, base, base_name))
		return;
	while (sp_ident_char(at_char(p, i)) &&
	       (digit_value(at_char(p, i)) < (int)base || at_char(p, i) == '_')) {
		unsigned d = (unsigned)digit_value(at_char(p, i));

		if (at_char(p, i) == '_') { /* checked: between two digits */
			i++;
			continue;
		}

		if (v > (UINT64_MAX - d) / base) {
			while (sp_ident_char(at_char(p, i)))
				i++;
			sp_err(p, start, "integer literal '%.*s' does not fit in 64 bits",
			       (int)(i - start), p->src + start);
			return;
		}
		v = v * base + d;
		i++;
	}
	if (base == 10 && at_char(p, i) == '.' && digit_value(at_char(p, i + 1)) < 10) {
		sp_err(p, start, "floating point numbers are not supported: script values are "
		       "64-bit integers");
		return;
	}
	if (digit_value(at_char(p, i)) < 10) { /* a decimal digit the base lacks */
		size_t end = i;

		while (sp_ident_char(at_char(p, end)))
			end++;
		sp_err(p, i, "invalid digit '%c' in %s literal '%.*s'", p->src[i], base_name,
		       (int)(end - start), p->src + start);
		return;
	}
	if (i == digits || sp_ident_char(at_char(p, i))) {
		size_t end = i;

		while (sp_ident_char(at_char(p, end)))
			end++;
		if (i == digits)
			sp_err(p, start, "%s literal '%.*s' has no digits", base_name,
			       (int)(end - start), p->src + start);
		else
			sp_err(p, i, "invalid suffix '%.*s' on integer literal '%.*s'",
			       (int)(end - i), p->src + i, (int)(end - start), p->src + start);
		return;
	}
	t->kind = T_INT;
	t->len = i - start;
	t->value = v;
	t->decimal = base == 10;
}

/* ---- strings ------------------------------------------------------------------ */

#define KNOWN_ESCAPES "\\n \\t \\r \\\\ \\\""

static int escape_char(int c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '\\': return '\\';
	case '"': return '"';
	default: return -1;
	}
}

static void lex_string(struct parser *p, size_t start, struct token *t)
{
	size_t i = start + 1;

	for (;;) {
		int c = at_char(p, i);

		if (c < 0 || c == '\n') {
			sp_err(p, start, "unterminated string: close it with '\"' on the same line "
			       "(write \\n for a line break)");
			return;
		}
		if (c == '"')
			break;
		if (c == '\\') {
			int e = at_char(p, i + 1);

			if (e < 0 || e == '\n') {
				i++;
				continue; /* unterminated */
			}
			if (escape_char(e) < 0) {
				sp_err(p, i, e > 0x20 && e < 0x7f ?
				       "unknown escape '\\%c' in string: the escapes are " KNOWN_ESCAPES :
				       "unknown escape in string (byte 0x%02x): the escapes are "
				       KNOWN_ESCAPES, e);
				return;
			}
			i += 2;
			continue;
		}
		if (c < 0x20 && c != '\t') {
			sp_err(p, i, "control character 0x%02x in string: write \\n, \\t or \\r", c);
			return;
		}
		i++;
	}
	t->kind = T_STRING;
	t->len = i + 1 - start;
}

char *sp_string_value(struct parser *p, const struct token *t, bool unbrace)
{
	const char *s = p->src + t->off + 1;
	size_t n = t->len - 2, k = 0;
	char *out = base_arena_alloc(p->arena, n + 1);

	if (!out) {
		sp_nomem(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			out[k++] = (char)escape_char((unsigned char)s[++i]);
		} else if (unbrace && (s[i] == '{' || s[i] == '}') && i + 1 < n && s[i + 1] == s[i]) {
			out[k++] = s[i++];
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
	return out;
}

/* ---- operators ---------------------------------------------------------------- */

static const struct { const char *text; enum tok_kind kind; } operators[] = {
	/* two characters first: the longest match wins */
	{ "==", T_EQ }, { "!=", T_NE }, { "<=", T_LE }, { ">=", T_GE }, { "<<", T_SHL },
	{ ">>", T_SHR }, { "&&", T_ANDAND }, { "||", T_OROR }, { "->", T_ARROW },
	{ "{", T_LBRACE }, { "}", T_RBRACE }, { "(", T_LPAREN }, { ")", T_RPAREN },
	{ "[", T_LBRACKET }, { "]", T_RBRACKET }, { ";", T_SEMI }, { ",", T_COMMA },
	{ ".", T_DOT }, { ":", T_COLON }, { "=", T_ASSIGN }, { "<", T_LT }, { ">", T_GT },
	{ "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR }, { "/", T_SLASH },
	{ "%", T_PERCENT }, { "&", T_AMP }, { "|", T_PIPE }, { "^", T_CARET },
	{ "!", T_BANG }, { "~", T_TILDE },
};

void sp_lex_token(struct parser *p, size_t *pos, struct token *t)
{
	size_t i = *pos;
	int c;

	memset(t, 0, sizeof(*t));
	t->kind = T_EOF;
	if (!sp_lex_skip(p, &i) || p->code) {
		t->off = p->len;
		*pos = p->len;
		return;
	}
	t->off = i;
	c = at_char(p, i);
	if (c < 0) {
		*pos = i;
		return;
	}
	if (sp_ident_start(c)) {
		while (sp_ident_char(at_char(p, i)))
			i++;
		t->kind = T_IDENT;
		t->len = i - t->off;
	} else if (c >= '0' && c <= '9') {
		lex_number(p, i, t);
	} else if (c == '"') {
		lex_string(p, i, t);
	} else if (c == '@') {
		i++;
		while (sp_ident_char(at_char(p, i)))
			i++;
		t->kind = T_AGG;
		t->len = i - t->off;
	} else if (c == '$') {
		i++;
		while (sp_ident_char(at_char(p, i)))
			i++;
		if (i == t->off + 1)
			sp_err(p, t->off, "expected a special variable name after '$' "
			       "($pid, $tid, $timestamp, ...)");
		t->kind = T_SPECIAL;
		t->len = i - t->off;
	} else {
		for (size_t k = 0; k < BASE_ARRAY_SIZE(operators); k++) {
			size_t n = strlen(operators[k].text);

			if (i + n <= p->len && !memcmp(p->src + i, operators[k].text, n)) {
				t->kind = operators[k].kind;
				t->len = n;
				break;
			}
		}
		if (!t->len) {
			if (c >= 0x21 && c < 0x7f)
				sp_err(p, i, "unexpected character '%c'", c);
			else
				sp_err(p, i, "unexpected byte 0x%02x (outside a string, a script is "
				       "ASCII)", c);
		}
	}
	if (p->code) {
		memset(t, 0, sizeof(*t));
		t->kind = T_EOF;
		t->off = p->len;
		*pos = p->len;
		return;
	}
	*pos = t->off + t->len;
}

void sp_tok_describe(const struct parser *p, const struct token *t, char *buf, size_t size)
{
	switch (t->kind) {
	case T_EOF:
		snprintf(buf, size, "the end of the script");
		break;
	case T_STRING:
		snprintf(buf, size, "a string");
		break;
	default:
		snprintf(buf, size, "'%.*s'", t->len > 32 ? 32 : (int)t->len, p->src + t->off);
		break;
	}
}

/* ---- the token stream ----------------------------------------------------------- */

const struct token *sp_peek(struct parser *p)
{
	if (!p->have_tok) {
		sp_lex_token(p, &p->pos, &p->tok);
		p->have_tok = true;
	}
	return &p->tok;
}

struct token sp_peek2(struct parser *p)
{
	struct token t;
	size_t pos;

	sp_peek(p);
	pos = p->pos;
	sp_lex_token(p, &pos, &t);
	return t;
}

void sp_next(struct parser *p)
{
	const struct token *t = sp_peek(p);

	if (t->kind == T_EOF)
		return;
	p->prev_end = t->off + t->len;
	p->have_tok = false;
}

bool sp_at(struct parser *p, enum tok_kind k)
{
	return sp_peek(p)->kind == k;
}

bool sp_accept(struct parser *p, enum tok_kind k)
{
	if (!sp_at(p, k))
		return false;
	sp_next(p);
	return true;
}

bool sp_tok_is(const struct parser *p, const struct token *t, const char *word)
{
	size_t n = strlen(word);

	return t->kind == T_IDENT && t->len == n && !memcmp(p->src + t->off, word, n);
}

bool sp_expect(struct parser *p, enum tok_kind k, const char *what, const char *context)
{
	char desc[64];

	if (sp_accept(p, k))
		return true;
	if (p->code)
		return false;
	sp_tok_describe(p, sp_peek(p), desc, sizeof(desc));
	sp_err(p, p->prev_end, "expected %s %s, found %s", what, context, desc);
	return false;
}
