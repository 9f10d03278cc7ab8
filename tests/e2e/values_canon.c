/* The comparison of the values differential test (values_canon.h): a small
 * tokenizer of the C-like value syntax gdb and gstrace share, the few
 * things only one of them prints dropped, strings by their bytes and
 * floats by their value. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values_canon.h"

#define MAX_TOKENS 4096

enum tok { T_NUM, T_STR, T_CHAR, T_ANGLE, T_PUNCT };

struct token {
	enum tok kind;
	char text[512]; /* T_STR, T_CHAR: the bytes as hex pairs */
};

struct tokens {
	struct token v[MAX_TOKENS];
	size_t n;
};

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* A quoted string or char from s (at its quote): its bytes as hex. */
static const char *quoted(const char *s, struct token *t)
{
	char q = *s++;
	size_t k = 0;

	while (*s && *s != q) {
		unsigned c = (unsigned char)*s++;

		if (c == '\\' && *s) {
			char e = *s++;

			if (e >= '0' && e <= '7') { /* gdb: octal, up to 3 digits */
				c = (unsigned)(e - '0');
				for (int i = 0; i < 2 && *s >= '0' && *s <= '7'; i++)
					c = c * 8 + (unsigned)(*s++ - '0');
			} else if (e == 'x') { /* gstrace: \xNN */
				c = 0;
				for (int i = 0; i < 2 && isxdigit((unsigned char)*s); i++)
					c = c * 16 + (unsigned)hexval(*s++);
			} else {
				c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' :
				    e == 'a' ? '\a' : e == 'b' ? '\b' : e == 'f' ? '\f' :
				    e == 'v' ? '\v' : e == 'e' ? 033 : (unsigned char)e;
			}
		}
		if (k + 3 < sizeof(t->text))
			k += (size_t)snprintf(t->text + k, sizeof(t->text) - k, "%02x", c & 0xff);
	}
	return *s ? s + 1 : s;
}

static void tokenize(const char *s, struct tokens *out)
{
	out->n = 0;
	while (*s && out->n < MAX_TOKENS) {
		struct token *t = &out->v[out->n];

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		memset(t, 0, sizeof(*t));
		if (*s == '"' || *s == '\'') {
			t->kind = *s == '"' ? T_STR : T_CHAR;
			s = quoted(s, t);
		} else if (*s == '<') {
			const char *end = strchr(s, '>');
			size_t n = end ? (size_t)(end - s + 1) : strlen(s);

			t->kind = T_ANGLE;
			snprintf(t->text, sizeof(t->text), "%.*s", (int)n, s);
			s += n;
		} else if (strchr("{},=()@", *s)) {
			t->kind = T_PUNCT;
			t->text[0] = *s++;
		} else {
			size_t n = 0;

			while (s[n] && !isspace((unsigned char)s[n]) && !strchr("{},=()<\"'", s[n]))
				n++;
			if (!n)
				n = 1;
			t->kind = T_NUM;
			snprintf(t->text, sizeof(t->text), "%.*s", (int)n, s);
			s += n;
		}
		out->n++;
	}
}

static bool is_hex(const struct token *t)
{
	return t->kind == T_NUM && t->text[0] == '0' && t->text[1] == 'x';
}

static bool is_float(const char *s)
{
	const char *p = s + (*s == '-');

	if (p[0] == '0' && p[1] == 'x')
		return false;
	return strchr(s, '.') || strstr(s, "e+") || strstr(s, "e-") || !strcmp(p, "inf") ||
	       !strcmp(p, "nan") || !strncmp(p, "nan(", 4);
}

/* The index past the `)` or `}` matching the opener at i, or i. */
static size_t skip_group(const struct tokens *t, size_t i, char open, char close)
{
	int depth = 0;

	for (size_t k = i; k < t->n; k++) {
		if (t->v[k].kind != T_PUNCT)
			continue;
		if (t->v[k].text[0] == open)
			depth++;
		else if (t->v[k].text[0] == close && --depth == 0)
			return k + 1;
	}
	return i;
}

void vc_canon(const char *text, bool from_gdb, char *out, size_t size)
{
	static struct tokens t;
	size_t k = 0, i = 0;

	tokenize(text, &t);
	out[0] = '\0';
	/* gdb: `(record_t *) 0x...`, `{int (int)} 0x... <fn>` */
	if (from_gdb && t.n > 1 && t.v[0].kind == T_PUNCT && t.v[0].text[0] == '(') {
		size_t j = skip_group(&t, 0, '(', ')');

		if (j > 0 && j < t.n && t.v[j].kind != T_PUNCT)
			i = j;
	}
	if (from_gdb && t.n > 1 && t.v[0].kind == T_PUNCT && t.v[0].text[0] == '{') {
		size_t j = skip_group(&t, 0, '{', '}');

		if (j > 0 && j < t.n && is_hex(&t.v[j]))
			i = j;
	}
	for (; i < t.n; i++) {
		const struct token *v = &t.v[i];
		char tok[600];

		if (v->kind == T_CHAR && i > 0 && t.v[i - 1].kind == T_NUM)
			continue; /* 97 'a': the number says it */
		if (from_gdb && i > 0 && is_hex(&t.v[i - 1]) && v->kind == T_ANGLE &&
		    strcmp(v->text, "<optimized out>") && strncmp(v->text, "<error:", 7))
			continue; /* 0x... <symbol> */
		if (v->kind == T_NUM && is_float(v->text))
			snprintf(tok, sizeof(tok), "%.6g", strtod(v->text, NULL));
		else if (v->kind == T_STR)
			snprintf(tok, sizeof(tok), "S:%s", v->text);
		else if (v->kind == T_CHAR)
			snprintf(tok, sizeof(tok), "C:%s", v->text);
		else
			snprintf(tok, sizeof(tok), "%s", v->text);
		if (k + strlen(tok) + 2 < size)
			k += (size_t)snprintf(out + k, size - k, "%s%s", k ? " " : "", tok);
	}
}

static const char *const labels[VC_KINDS] = {
	[VC_MATCH] = "match", [VC_BOTH_OPTIMIZED] = "both-optimized-out",
	[VC_PARTIAL] = "partial", [VC_ENTRY_VALUE] = "entry-value",
	[VC_UNSUPPORTED] = "unsupported-expr", [VC_MISMATCH] = "MISMATCH",
	[VC_GDB_ONLY] = "GDB-ONLY", [VC_OURS_ONLY] = "OURS-ONLY", [VC_KNOWN] = "known-exception",
};

const char *vc_label(enum vc_kind k)
{
	return k < VC_KINDS ? labels[k] : "?";
}

bool vc_failure(enum vc_kind k)
{
	return k != VC_MATCH && k != VC_BOTH_OPTIMIZED && k != VC_KNOWN && k < VC_KINDS;
}

enum vc_kind vc_classify(const char *gdb, const char *ours, const char *where)
{
	static char a[16384], b[16384];

	if (!ours)
		return VC_GDB_ONLY;
	if (!gdb)
		return VC_OURS_ONLY;
	if (!strcmp(ours, "<optimized out>")) {
		vc_canon(gdb, true, a, sizeof(a));
		if (!strcmp(a, "<optimized out>"))
			return VC_BOTH_OPTIMIZED;
		if (strstr(gdb, "<optimized out>"))
			return VC_PARTIAL;
		if (where && strstr(where, "entry value"))
			return VC_ENTRY_VALUE;
		if (where && strstr(where, "unsupported"))
			return VC_UNSUPPORTED;
		return VC_GDB_ONLY;
	}
	if (!strncmp(ours, "<read error", 11) && strstr(gdb, "Cannot access memory"))
		return VC_MATCH;
	vc_canon(gdb, true, a, sizeof(a));
	vc_canon(ours, false, b, sizeof(b));
	return strcmp(a, b) ? VC_MISMATCH : VC_MATCH;
}
