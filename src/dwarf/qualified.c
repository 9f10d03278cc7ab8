/* C++ and Rust qualified function names (`ns::Class::f`, `ns::f(int)`,
 * `ns::maxof<int>`, `crate::module::f`) against a function's DIE: its
 * linkage name demangled by libiberty (Itanium, Rust legacy and v0), or
 * the chain of its namespaces and classes. Spellings are compared in one
 * canonical form: a space only before a word that follows a word or a
 * closing ')', '>', '*' or '&' (`unsigned int`, `f() const`), and one
 * after each comma. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libiberty/demangle.h>

#include "dwv_int.h"

static bool word_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

char *dwv_name_canon(const char *s, size_t n)
{
	char *out = malloc(2 * n + 1);
	size_t k = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == ' ' || c == '\t') {
			size_t j = i;

			while (j + 1 < n && (s[j + 1] == ' ' || s[j + 1] == '\t'))
				j++;
			if (k && j + 1 < n && word_char((unsigned char)s[j + 1]) &&
			    (word_char((unsigned char)out[k - 1]) || strchr(")>*&", out[k - 1])))
				out[k++] = ' ';
			i = j;
			continue;
		}
		out[k++] = (char)c;
		if (c == ',')
			out[k++] = ' ';
	}
	out[k] = '\0';
	return out;
}

/* The length of "operator" and its symbol when s (a part's start) names
 * an operator, else 0: its '(' '<' and '>' are no brackets. */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {
		"->*", "<=>", "<<=", ">>=", "()", "[]", "->", "<<", ">>", "==", "!=", "<=",
		">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=",
		"+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
	};
	const char *rest = base_after_prefix(s, "operator");

	if (!rest)
		return 0;
	for (size_t k = 0; k < BASE_ARRAY_SIZE(ops); k++)
		if (base_has_prefix(rest, ops[k]))
			return (size_t)(rest - s) + strlen(ops[k]);
	return 0;
}

/* A name's shape outside its template arguments (operators' symbols are
 * no brackets): where its last part starts (past the last "::") and its
 * parameter list (the first '('; n when none). */
struct shape {
	size_t last, params;
};

static struct shape shape_of(const char *s, size_t n)
{
	struct shape sh = { 0, n };
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		size_t op = (i == 0 || s[i - 1] == ':') ? operator_len(s + i) : 0;

		if (op) {
			i += op - 1;
			continue;
		}
		depth += s[i] == '<';
		depth -= s[i] == '>' && depth > 0;
		if (depth != 0)
			continue;
		if (s[i] == '(') {
			sh.params = i;
			break;
		}
		if (s[i] == ':' && i + 1 < n && s[i + 1] == ':')
			sh.last = i + 2;
	}
	return sh;
}

/* "::" or a parameter list outside template arguments: `copy<a::b>` and
 * `operator()` are a function's own name. */
bool dwv_qname_is_qualified(const char *name)
{
	size_t n = strlen(name);
	struct shape sh = shape_of(name, n);

	return sh.last > 0 || sh.params < n;
}

int dwv_qname_parse(const char *input, struct dwv_qname *q)
{
	size_t n = strlen(input), p = shape_of(input, n).params;
	const char *base;

	memset(q, 0, sizeof(*q));
	q->path = dwv_name_canon(input, p);
	q->full = p < n ? dwv_name_canon(input, n) : NULL;
	if (!q->path || (p < n && !q->full)) {
		dwv_qname_free(q);
		return -ENOMEM;
	}
	base = q->path + shape_of(q->path, strlen(q->path)).last;
	/* Rust's turbofish (f::<u64>, v0's demangling): DWARF names it f<u64> */
	if (base[0] == '<' && base > q->path + 2) {
		base -= 2;
		while (base > q->path && base[-1] != ':')
			base--;
	}
	q->base = base;
	return 0;
}

void dwv_qname_free(struct dwv_qname *q)
{
	free(q->path);
	free(q->full);
	memset(q, 0, sizeof(*q));
}

static const char *linkage(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));

	if (!raw)
		raw = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	return raw && raw[0] == '_' && (raw[1] == 'Z' || raw[1] == 'R') ? raw : NULL;
}

/* The linkage name demangled (with params: its parameter list too), in
 * canonical spelling; NULL without one. */
static char *demangled(Dwarf_Die *die, bool params)
{
	const char *raw = linkage(die);
	char *d, *out;

	if (!raw || !(d = cplus_demangle(raw, DMGL_AUTO | DMGL_ANSI | (params ? DMGL_PARAMS : 0))))
		return NULL;
	out = dwv_name_canon(d, strlen(d));
	free(d);
	return out;
}

/* The namespaces, classes and structs around die (or the declaration it
 * completes), joined by "::" with its name: `ns::Class::f`. */
static char *scope_chain(Dwarf_Die *die)
{
	Dwarf_Die decl, *at = die, *scopes = NULL;
	Dwarf_Attribute a;
	const char *name = dwarf_diename(die);
	char buf[1024];
	size_t len = 0;
	int n;

	if (dwarf_attr(die, DW_AT_specification, &a) && dwarf_formref_die(&a, &decl))
		at = &decl;
	if (!name || (n = dwarf_getscopes_die(at, &scopes)) <= 0)
		return NULL;
	buf[0] = '\0';
	for (int i = n - 1; i > 0; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *s = dwarf_diename(&scopes[i]);

		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s::",
					s ? s : "(anonymous namespace)");
		if (len >= sizeof(buf))
			break;
	}
	free(scopes);
	if (len + strlen(name) >= sizeof(buf))
		return NULL;
	strcpy(buf + len, name);
	return dwv_name_canon(buf, strlen(buf));
}

/* d is `want`, or ends with " want" (a template's return type before),
 * a const member function's " const" after either way. */
static bool same_or_suffix(const char *d, const char *want)
{
	size_t dl = strlen(d), wl = strlen(want);

	if (dl > 6 && strcmp(d + dl - 6, " const") == 0 &&
	    (wl < 6 || strcmp(want + wl - 6, " const") != 0))
		dl -= 6;
	return (dl == wl && strncmp(d, want, wl) == 0) ||
	       (dl > wl && d[dl - wl - 1] == ' ' && strncmp(d + dl - wl, want, wl) == 0);
}

/* name is path, or path's instance <...> of a template (path written
 * without arguments: every instance). */
static bool names_path(const char *name, const struct dwv_qname *q)
{
	size_t pl = strlen(q->path), nl = strlen(name);

	if (strcmp(name, q->path) == 0)
		return true;
	if (strchr(q->base, '<') || nl <= pl || strncmp(name, q->path, pl) != 0 ||
	    name[pl] != '<' || name[nl - 1] != '>')
		return false;
	for (size_t i = pl, depth = 0; i < nl; i++) {
		depth += name[i] == '<';
		depth -= name[i] == '>';
		if (depth == 0)
			return i == nl - 1;
	}
	return false;
}

bool dwv_own_name_matches(Dwarf_Die *die, const char *want)
{
	char *d = demangled(die, false), *w;
	bool ok;

	if (!d)
		return true; /* C, or no linkage name: DW_AT_name decided */
	w = dwv_name_canon(want, strlen(want));
	ok = w && strcmp(d + shape_of(d, strlen(d)).last, w) == 0;
	free(w);
	free(d);
	return ok;
}

bool dwv_qname_matches(Dwarf_Die *die, const struct dwv_qname *q)
{
	char *d = demangled(die, false), *chain = NULL;
	bool ok = d && names_path(d, q);

	if (!ok && (chain = scope_chain(die)))
		ok = names_path(chain, q);
	free(d);
	free(chain);
	if (ok && q->full) {
		d = demangled(die, true);
		ok = d && same_or_suffix(d, q->full);
		free(d);
	}
	return ok;
}

char *dwv_qname_of(Dwarf_Die *die, bool params)
{
	char *d = demangled(die, params);

	return d ? d : scope_chain(die);
}
