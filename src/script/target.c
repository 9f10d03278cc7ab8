/* Trace targets as written after `trace` (docs/cli.md, "Script"): one
 * classifier of the four forms (a function name qualified as C++ and Rust
 * write it, `ns::Class::f(int)`, `ns::maxof<int>`, `crate::module::f`,
 * included), used by the script parser (which reports errors with line,
 * column and caret) and by gs_target_pattern_parse() (a target given alone,
 * e.g. by an embedder), so both read a pattern by the same rules. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_int.h"

#define TARGET_FORMS "a function name, 0xADDR, module:0xADDR or file:line"
#define QUALIFIED_FORM "ns::Class::f, ns::f(int), ns::maxof<int> or crate::module::f"

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool sp_target_char(int c)
{
	return sp_ident_char(c) || c == '/' || c == '.' || c == '-' || c == '+' || c == ':' ||
	       c == '*' || c == '<' || c == '(' || c == '~';
}

/* The C++ operator symbol at s (after the word "operator"): its length,
 * 0 when none. Longest first: "->*" before "->", "<<=" before "<<". */
static size_t operator_token(const char *s, size_t n)
{
	static const char *const ops[] = {
		"->*", "<=>", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "==", "!=", "<=",
		">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=",
		"+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
	};

	for (size_t k = 0; k < BASE_ARRAY_SIZE(ops); k++) {
		size_t len = strlen(ops[k]);

		if (len <= n && memcmp(s, ops[k], len) == 0)
			return len;
	}
	return 0;
}

/* Where a part of a name that started at `start` is the word "operator":
 * the length of the operator symbol following it at i, else 0. */
static size_t operator_at(const char *s, size_t n, size_t start, size_t i)
{
	if (i - start != 8 || memcmp(s + start, "operator", 8) != 0)
		return 0;
	return operator_token(s + i, n - i);
}

/* Inside a qualified name's <template arguments> or (parameters): what C++
 * types are spelled with, spaces included. */
static bool bracketed_char(int c)
{
	return sp_target_char(c) || c == '>' || c == ')' || c == ',' || c == ' ' || c == '&' ||
	       c == '[' || c == ']';
}

/* How many bytes of s (n) a target spans: target characters, and inside
 * brackets opened by '<' or '(' the characters of C++ types too. */
size_t sp_target_span(const char *s, size_t n)
{
	size_t i = 0, part = 0, op;
	int depth = 0;

	for (; i < n; i++) {
		int c = (unsigned char)s[i];

		/* `operator==`, `Class::operator()`: the symbol is the name's */
		if (depth == 0 && (op = operator_at(s, n, part, i)) != 0) {
			i += op - 1;
			continue;
		}
		if (depth == 0 && c == ':')
			part = i + 1;
		if (depth == 0 ? !sp_target_char(c) : !bracketed_char(c))
			break;
		if (c == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*'))
			break; /* a comment right after the target */
		depth += c == '<' || c == '(';
		depth -= depth > 0 && (c == '>' || c == ')');
	}
	return i;
}

static bool all_of(const char *s, size_t n, bool (*pred)(int))
{
	for (size_t i = 0; i < n; i++)
		if (!pred((unsigned char)s[i]))
			return false;
	return n > 0;
}

static bool is_identifier(const char *s, size_t n)
{
	return n > 0 && sp_ident_start((unsigned char)s[0]) && all_of(s, n, sp_ident_char);
}

/* `main.c` is a source file written without its line, not a function. */
static bool source_suffix(const char *s, size_t n)
{
	static const char *const ext[] = { "c", "h", "cc", "cp", "cpp", "cxx", "hh", "hpp",
					   "hxx", "rs", "go", "s", "S", "m", "mm", "f", "f90",
					   "d", "zig", "C", "H", "inc" };

	for (size_t k = 0; k < BASE_ARRAY_SIZE(ext); k++)
		if (strlen(ext[k]) == n && memcmp(ext[k], s, n) == 0)
			return true;
	return false;
}

/* A function's own name without "::": an identifier, a destructor's
 * `~name`, an `operator<symbol>`, or the name gcc gives a part or copy of
 * a function (`f.cold`, `f.constprop.0.isra.0`), which only its ELF
 * symbol carries. */
static bool plain_name(const char *s, size_t n)
{
	size_t i = s[0] == '~';
	size_t word = i;

	while (i < n && sp_ident_char((unsigned char)s[i]))
		i++;
	if (i == word || !sp_ident_start((unsigned char)s[word]))
		return false;
	if (word == 0 && operator_at(s, n, 0, i) == n - i)
		return true;
	while (i < n && s[i] == '.' && word == 0) {
		size_t seg = ++i;

		while (i < n && sp_ident_char((unsigned char)s[i]))
			i++;
		if (i == seg || (i == n && source_suffix(s + seg, n - seg)))
			return false;
	}
	return i == n;
}

static bool is_hex_prefix(const char *s, size_t n)
{
	return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

static bool fail(struct sp_target_error *e, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(struct sp_target_error *e, size_t at, const char *fmt, ...)
{
	va_list ap;

	e->at = at;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return false;
}

/* A name C++ or Rust qualifies (it has "::", or a parameter list): parts
 * joined by "::", each an identifier (a destructor's '~' first) with
 * balanced <template arguments>, then at most one (parameter list). The
 * characters of the brackets are left to the demangler to compare. */
static bool qualified_name(const char *s, size_t n, struct sp_target *out,
			   struct sp_target_error *e)
{
	size_t i = 0;

	while (i < n) {
		size_t start = i + (s[i] == '~');
		int depth = 0;
		bool turbofish;

		i = start;
		while (i < n && sp_ident_char((unsigned char)s[i]))
			i++;
		i += operator_at(s, n, start, i);
		/* Rust's turbofish, as v0 demangling writes it: f::<u64> */
		turbofish = i == start && start > 0 && s[i] == '<';
		if (!turbofish && (i == start || !sp_ident_start((unsigned char)s[start])))
			return fail(e, start, "invalid qualified name '%.*s': each part between "
				    "'::' is an identifier; write " QUALIFIED_FORM, (int)n, s);
		for (; i < n && (depth > 0 || s[i] == '<'); i++) {
			depth += s[i] == '<' || s[i] == '(';
			depth -= s[i] == '>' || s[i] == ')';
			if (depth < 0 || (s[i] == ':' && depth == 0))
				break;
		}
		if (depth != 0)
			return fail(e, i, "unbalanced '<' in qualified name '%.*s': close every "
				    "template argument list", (int)n, s);
		if (i < n && s[i] == '(') {
			size_t open = i;

			for (depth = 0; i < n; i++) {
				depth += s[i] == '(' || s[i] == '<';
				depth -= s[i] == ')' || s[i] == '>';
				if (depth == 0)
					break;
			}
			if (i + 1 != n)
				return fail(e, open, "the parameter list of '%.*s' must close it and "
					    "end the target: write ns::f(int, char const*)",
					    (int)n, s);
			break;
		}
		if (i == n)
			break;
		if (n - i < 2 || s[i] != ':' || s[i + 1] != ':')
			return fail(e, i, "invalid qualified name '%.*s': parts are joined by '::' "
				    "(a module or file is never qualified); write " QUALIFIED_FORM,
				    (int)n, s);
		i += 2;
		if (i == n)
			return fail(e, i, "invalid qualified name '%.*s': each part between '::' "
				    "is an identifier; write " QUALIFIED_FORM, (int)n, s);
	}
	out->kind = GS_TARGET_FUNCTION;
	out->name_len = n;
	return true;
}

/* "0x..." at s (at offset `at` of the pattern). */
static bool hex_address(const char *s, size_t n, size_t at, uint64_t *out,
			struct sp_target_error *e)
{
	uint64_t v = 0;

	if (n < 3 || !all_of(s + 2, n - 2, is_hex)) {
		size_t bad = 2;

		while (bad < n && is_hex((unsigned char)s[bad]))
			bad++;
		return fail(e, at + bad, "invalid address '%.*s': write 0x followed by hex digits",
			    (int)n, s);
	}
	for (size_t i = 2; i < n; i++) {
		int c = (unsigned char)s[i];
		unsigned d = is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);

		if (v >> 60)
			return fail(e, at, "address '%.*s' does not fit in 64 bits", (int)n, s);
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

bool sp_target_classify(const char *s, size_t n, struct sp_target *out, struct sp_target_error *e)
{
	const char *colon = memchr(s, ':', n);
	size_t head = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return fail(e, 0, "empty trace target: write " TARGET_FORMS);
	if (sp_target_span(s, n) != n)
		return fail(e, sp_target_span(s, n), "invalid character in trace target '%.*s': "
			    "write " TARGET_FORMS, (int)n, s);
	if (plain_name(s, n)) {
		out->kind = GS_TARGET_FUNCTION;
		out->name_len = n;
		return true;
	}
	/* '*' of a pointer parameter or template argument is no wildcard */
	while (head < n && s[head] != '(' && s[head] != '<')
		head++;
	if (memchr(s, '*', head)) {
		if (s[n - 1] == '*' && is_identifier(s, n - 1))
			return fail(e, 0, "wildcard trace patterns ('%.*s') are not supported yet: "
				    "name one function", (int)n, s);
		return fail(e, 0, "invalid trace target '%.*s': write " TARGET_FORMS, (int)n, s);
	}
	/* A module or file name never holds "::" nor '(': such a target is a
	 * C++ or Rust name. */
	if (memmem(s, n, "::", 2) || memchr(s, '(', n) || memchr(s, '<', n))
		return qualified_name(s, n, out, e);
	if (colon && memchr(colon + 1, ':', n - (size_t)(colon - s) - 1))
		return fail(e, 0, "invalid trace target '%.*s': only one ':' may separate a module "
			    "or file from its 0xADDR or line; a C++ or Rust name is joined by '::'",
			    (int)n, s);
	if (colon) {
		size_t at = (size_t)(colon - s) + 1, nafter = n - at;
		const char *after = s + at;

		if (at == 1)
			return fail(e, 0, "missing module or file before ':' in trace target '%.*s'",
				    (int)n, s);
		out->name_len = at - 1;
		if (is_hex_prefix(after, nafter)) {
			out->kind = GS_TARGET_MODULE_ADDRESS;
			return hex_address(after, nafter, at, &out->address, e);
		}
		if (all_of(after, nafter, is_digit)) {
			uint64_t v = 0;

			for (size_t i = 0; i < nafter && v <= UINT32_MAX; i++)
				v = v * 10 + (uint64_t)(after[i] - '0');
			if (v == 0 || v > UINT32_MAX)
				return fail(e, at, "line number %.*s is out of range (1..%u)",
					    (int)nafter, after, UINT32_MAX);
			out->kind = GS_TARGET_FILE_LINE;
			out->line = (uint32_t)v;
			return true;
		}
		return fail(e, at, "expected a line number or 0xADDR after ':' in trace target "
			    "'%.*s'", (int)n, s);
	}
	if (is_hex_prefix(s, n)) {
		out->kind = GS_TARGET_ADDRESS;
		return hex_address(s, n, 0, &out->address, e);
	}
	if (is_identifier(s, n)) {
		out->kind = GS_TARGET_FUNCTION;
		out->name_len = n;
		return true;
	}
	if (all_of(s, n, is_digit))
		return fail(e, 0, "'%.*s' is not a trace target: addresses are hex (0x%.*s), "
			    "source lines are file:line", (int)n, s, (int)n, s);
	return fail(e, 0, "'%.*s' is not a function name: write " TARGET_FORMS
		    " (a source line is file:line)", (int)n, s);
}

int gs_target_pattern_parse(const char *text, struct gs_target_pattern **out,
			    struct gs_error *err)
{
	struct sp_target_error e;
	struct sp_target t;
	struct gs_target_pattern *p;
	size_t n;
	char *copy;

	*out = NULL;
	if (!text)
		return gs_errorf(err, -EINVAL, "gs_target_pattern_parse: no target text");
	n = strlen(text);
	if (!sp_target_classify(text, n, &t, &e))
		return gs_errorf(err, -EINVAL, "trace target '%s' (at byte %zu): %s", text, e.at,
				 e.msg);
	/* One block: the struct, then its text (the name is a prefix of it). */
	p = malloc(sizeof(*p) + 2 * n + 2);
	if (!p)
		return gs_errorf(err, -ENOMEM, "out of memory parsing trace target '%s'", text);
	copy = (char *)(p + 1);
	memcpy(copy, text, n + 1);
	*p = (struct gs_target_pattern){ .kind = t.kind, .text = copy, .address = t.address,
					 .line = t.line };
	if (t.name_len) {
		memcpy(copy + n + 1, text, t.name_len);
		copy[n + 1 + t.name_len] = '\0';
		p->name = copy + n + 1;
	}
	*out = p;
	return 0;
}
