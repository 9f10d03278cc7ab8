/* The listings a user finds targets with, checked against the tools they
 * would otherwise use. `gstrace -l PATTERN -t FILE`: every function gdb's
 * `info functions` shows with a line is listed with the same file:line and
 * nm's address, every symbol gdb knows without DWARF is listed as such at
 * its address, nothing else is listed, and a glob lists exactly the names
 * it matches. `gstrace --list-vars TARGET -t FILE`: at each address, each
 * parameter and local is one gdb's `info scope` shows there, with the type
 * gdb's `whatis` gives and living where gdb says (the register, the stack,
 * a global's address, a constant, optimized out); each global and static
 * at the address `info address` gives. No process: both read the file. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "e2e.h"

#define NAME_MAX_ 128
#define MAX_FUNCS 256
#define MAX_VARS 48
#define MAX_BLOCKS 16

/* Runs argv (argv[0] a path) to its end; stdout into out. */
static bool capture(struct e2e_ctx *c, char *const argv[], struct e2e_buf *out)
{
	struct e2e_run r;
	bool ok;

	if (e2e_run_start(&r, argv) != 0) {
		e2e_expect(c, false, "cannot start %s", argv[0]);
		return false;
	}
	ok = e2e_run_finish(&r, 60000) && e2e_run_exit_code(&r) == 0;
	e2e_expect(c, ok, "%s exited %d: %s", e2e_buf_str(&r.cmdline), e2e_run_exit_code(&r),
		   e2e_buf_str(&r.err));
	e2e_buf_add(out, e2e_buf_str(&r.out), r.out.len);
	e2e_run_free(&r);
	return ok;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* ---- -l ------------------------------------------------------------------------ */

struct func {
	char name[NAME_MAX_];
	char where[NAME_MAX_]; /* "file.c:12", or "-" */
	uint64_t addr;
	bool inlined_only, from_symbol;
};

struct funcs {
	struct func v[MAX_FUNCS];
	size_t n;
};

/* "  name  file:line  0x1234[  (symbol, no DWARF)]" or "... inlined only". */
static void parse_listing(const char *text, struct funcs *fs)
{
	const char *line = text;

	fs->n = 0;
	for (; *line && fs->n < MAX_FUNCS; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		struct func *f = &fs->v[fs->n];
		char addr[64] = "";

		if (strncmp(line, "  ", 2) != 0 ||
		    sscanf(line, " %127s %127s %63s", f->name, f->where, addr) != 3)
			continue;
		f->inlined_only = strcmp(addr, "inlined") == 0;
		f->from_symbol = strstr(line, "(symbol, no DWARF)") != NULL &&
				 strstr(line, "(symbol, no DWARF)") < strchr(line, '\n');
		f->addr = f->inlined_only ? 0 : strtoull(addr, NULL, 16);
		fs->n++;
	}
}

/* `info functions` of gdb: "File F:" then "LINE:\t... NAME(...);", then
 * "Non-debugging symbols:" and "0xADDR  NAME". */
static void parse_gdb_functions(const char *text, struct funcs *dwarf, struct funcs *syms)
{
	char file[NAME_MAX_] = "";
	bool nondebug = false;

	dwarf->n = syms->n = 0;
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		size_t len = strcspn(l, "\n");
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (strncmp(line, "File ", 5) == 0) {
			snprintf(file, sizeof(file), "%.127s", base_name(line + 5));
			file[strcspn(file, ":")] = '\0';
		} else if (strncmp(line, "Non-debugging symbols:", 22) == 0) {
			nondebug = true;
		} else if (nondebug && strncmp(line, "0x", 2) == 0 && syms->n < MAX_FUNCS) {
			struct func *f = &syms->v[syms->n];

			if (sscanf(line, "%" SCNx64 " %127s", &f->addr, f->name) == 2 &&
			    !strchr(f->name, '@'))
				syms->n++;
		} else if (!nondebug && isdigit((unsigned char)line[0]) && dwarf->n < MAX_FUNCS) {
			struct func *f = &dwarf->v[dwarf->n];
			char *paren = strchr(line, '('), *p;

			if (!paren)
				continue;
			for (p = paren; p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_'); p--)
				;
			snprintf(f->name, sizeof(f->name), "%.*s", (int)(paren - p), p);
			snprintf(f->where, sizeof(f->where), "%.100s:%d", file, atoi(line));
			dwarf->n++;
		}
	}
}

/* nm's defined code symbols ("ADDR T name"; t and i too). */
static void parse_nm(const char *text, struct funcs *fs)
{
	fs->n = 0;
	for (const char *l = text; *l && fs->n < MAX_FUNCS;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		struct func *f = &fs->v[fs->n];
		char type;

		if (sscanf(l, "%" SCNx64 " %c %127s", &f->addr, &type, f->name) == 3 &&
		    strchr("Tti", type))
			fs->n++;
	}
}

/* An entry of fs called name (NULL: any) at addr. */
static bool has_at(const struct funcs *fs, const char *name, uint64_t addr)
{
	for (size_t i = 0; i < fs->n; i++)
		if ((!name || strcmp(fs->v[i].name, name) == 0) && !fs->v[i].inlined_only &&
		    fs->v[i].addr == addr)
			return true;
	return false;
}

static void check_functions(struct e2e_ctx *c, const char *fixture)
{
	const char *path = e2e_fixture_path(fixture);
	char *gs[] = { (char *)e2e_gstrace_path(), "-l", "*", "-t", (char *)path, NULL };
	char *gdb[] = { "/usr/bin/env", "gdb", "-nx", "-batch", "-iex",
			"set debuginfod enabled off", "-ex", "info functions", (char *)path, NULL };
	char *nm[] = { "/usr/bin/env", "nm", (char *)path, NULL };
	static struct funcs ours, gdb_dwarf, gdb_syms, nm_syms, globbed;
	struct e2e_buf o = { 0 }, g = { 0 }, n = { 0 }, l = { 0 };
	size_t want = 0;

	if (access(path, R_OK) != 0) {
		e2e_note(c, "%s: not built here (no clang)", fixture);
		return;
	}
	if (!capture(c, gs, &o) || !capture(c, gdb, &g) || !capture(c, nm, &n))
		goto out;
	parse_listing(e2e_buf_str(&o), &ours);
	parse_gdb_functions(e2e_buf_str(&g), &gdb_dwarf, &gdb_syms);
	parse_nm(e2e_buf_str(&n), &nm_syms);
	e2e_expect(c, gdb_dwarf.n > 0 && ours.n > 0, "%s: nothing to compare:\n%s\n%s", fixture,
		   e2e_buf_str(&o), e2e_buf_str(&g));
	/* gdb's functions with a line: listed with that file:line */
	for (size_t i = 0; i < gdb_dwarf.n; i++) {
		const struct func *gf = &gdb_dwarf.v[i];
		bool found = false;

		for (size_t k = 0; k < ours.n && !found; k++)
			found = strcmp(ours.v[k].name, gf->name) == 0 && !ours.v[k].inlined_only &&
				strcmp(ours.v[k].where, gf->where) == 0;
		e2e_expect(c, found, "%s: gdb lists %s at %s, -l does not", fixture, gf->name,
			   gf->where);
	}
	/* gdb's symbols without DWARF: listed at their address */
	for (size_t i = 0; i < gdb_syms.n; i++)
		e2e_expect(c, has_at(&ours, gdb_syms.v[i].name, gdb_syms.v[i].addr),
			   "%s: gdb has symbol %s at 0x%" PRIx64 ", -l does not", fixture,
			   gdb_syms.v[i].name, gdb_syms.v[i].addr);
	/* nm's code symbols: listed by name, one of them at nm's address */
	for (size_t i = 0; i < nm_syms.n; i++)
		e2e_expect(c, has_at(&ours, nm_syms.v[i].name, nm_syms.v[i].addr),
			   "%s: nm has %s at 0x%" PRIx64 ", -l does not", fixture,
			   nm_syms.v[i].name, nm_syms.v[i].addr);
	/* nothing else: a DWARF function gdb knows, at a symbol's address */
	for (size_t i = 0; i < ours.n; i++) {
		const struct func *f = &ours.v[i];
		bool known = f->inlined_only || f->from_symbol;

		for (size_t k = 0; k < gdb_dwarf.n && !known; k++)
			known = strcmp(gdb_dwarf.v[k].name, f->name) == 0;
		e2e_expect(c, known, "%s: -l lists %s (%s), gdb does not", fixture, f->name,
			   f->where);
		e2e_expect(c, f->inlined_only || has_at(&nm_syms, NULL, f->addr),
			   "%s: -l lists %s at 0x%" PRIx64 ", where nm has no symbol", fixture,
			   f->name, f->addr);
		e2e_expect(c, !f->from_symbol || has_at(&nm_syms, f->name, f->addr),
			   "%s: -l lists symbol %s at 0x%" PRIx64 ", nm does not", fixture, f->name,
			   f->addr);
	}
	/* a glob lists exactly the names that match it */
	gs[2] = "*_*";
	if (capture(c, gs, &l)) {
		parse_listing(e2e_buf_str(&l), &globbed);
		for (size_t i = 0; i < ours.n; i++)
			want += strchr(ours.v[i].name, '_') != NULL;
		e2e_expect(c, globbed.n == want, "%s: -l '*_*' lists %zu functions, %zu of -l '*' "
			   "have a '_'", fixture, globbed.n, want);
		for (size_t i = 0; i < globbed.n; i++)
			e2e_expect(c, strchr(globbed.v[i].name, '_') != NULL,
				   "%s: -l '*_*' lists %s", fixture, globbed.v[i].name);
	}
	e2e_note(c, "%s: %zu functions listed, %zu DWARF functions and %zu symbols of gdb", fixture,
		 ours.n, gdb_dwarf.n, gdb_syms.n);
out:
	e2e_buf_free(&o);
	e2e_buf_free(&g);
	e2e_buf_free(&n);
	e2e_buf_free(&l);
}

static void s_list_functions(struct e2e_ctx *c)
{
	static const char *const fixtures[] = {
		"values_globals_gcc_O2_dw5", "values_types_gcc_O0_dw4", "values_inline_gcc_O3_dw5",
		"values_types_clang_O2_dw5", "libvalues_gcc_O2_dw4.so",
	};

	for (size_t i = 0; i < BASE_ARRAY_SIZE(fixtures); i++)
		check_functions(c, fixtures[i]);
}

/* ---- --list-vars ----------------------------------------------------------------- */

struct var {
	char scope[16], name[NAME_MAX_], type[NAME_MAX_], where[160];
};

struct block {
	char function[NAME_MAX_];
	uint64_t addr;
	bool inlined;
	struct var v[MAX_VARS];
	size_t n;
};

/* "fn at file+0x12a0[ (inlined)] in cu.c:" then "  scope  name  type...  where";
 * the type may hold spaces: it is what lies between the name and the
 * location, whose first word is one of a few. */
static size_t parse_vars(const char *text, struct block *b, size_t max)
{
	static const char *const kinds[] = { "register ", "stack ", "global ", "constant",
					     "optimized out", "composite:", "computed ",
					     "memory at ", "address ", "unavailable",
					     "implicit pointer" };
	size_t nb = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char line[512], *at;
		size_t len = strcspn(l, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (line[0] != ' ' && (at = strstr(line, " at ")) && strstr(at, "+0x") && nb < max) {
			struct block *k = &b[nb++];

			memset(k, 0, sizeof(*k));
			snprintf(k->function, sizeof(k->function), "%.*s", (int)(at - line), line);
			k->addr = strtoull(strstr(at, "+0x") + 1, NULL, 16);
			k->inlined = strstr(line, "(inlined)") != NULL;
		} else if (nb && strncmp(line, "  ", 2) == 0 && b[nb - 1].n < MAX_VARS) {
			struct var *v = &b[nb - 1].v[b[nb - 1].n];
			char *p = line, *where = NULL;
			int off = 0;

			if (sscanf(p, " %15s %127s %n", v->scope, v->name, &off) != 2 || !off)
				continue;
			p += off;
			for (size_t i = 0; i < BASE_ARRAY_SIZE(kinds); i++) {
				char *w = strstr(p, kinds[i]);

				if (w && (!where || w < where))
					where = w;
			}
			if (!where)
				continue;
			snprintf(v->where, sizeof(v->where), "%s", where);
			while (where > p && where[-1] == ' ')
				where--;
			snprintf(v->type, sizeof(v->type), "%.*s", (int)(where - p), p);
			b[nb - 1].n++;
		}
	}
	return nb;
}

/* A run of C integer keywords as gdb prints it: "long unsigned int" is
 * "unsigned long", "short int" "short", "signed char" stays. */
static size_t canon_int(const int *count, char *out, size_t size)
{
	bool sized = count[2] || count[3];
	const char *base = count[5] ? "char" : sized ? "" : "int";

	return (size_t)snprintf(out, size, "%s%s%s%s%s", count[0] ? "unsigned " : "",
				count[1] && count[5] ? "signed " : "", count[2] ? "short " : "",
				count[3] >= 2 ? "long long " : count[3] ? "long " : "", base);
}

/* A type's spelling with every run of integer keywords canonical. */
static void canon_type(const char *in, char *out, size_t size)
{
	static const char *const words[] = { "unsigned", "signed", "short", "long", "int",
					     "char" };
	int count[6] = { 0 };
	bool any = false;
	size_t used = 0;

	for (const char *p = in;; ) {
		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_");
		size_t w = 6;

		for (size_t i = 0; len && i < 6; i++)
			if (strlen(words[i]) == len && strncmp(p, words[i], len) == 0)
				w = i;
		if (w < 6) {
			count[w]++;
			any = true;
			p += len;
			p += strspn(p, " ");
			continue;
		}
		if (any && used < size) {
			used += canon_int(count, out + used, size - used);
			if (used < size && *p && *p != ' ')
				out[used++] = ' ';
			memset(count, 0, sizeof(count));
			any = false;
		}
		if (!*p || used + 1 >= size)
			break;
		if (len == 0)
			len = 1;
		used += (size_t)snprintf(out + used, size - used, "%.*s", (int)len, p);
		p += len;
	}
	out[used < size ? used : size - 1] = '\0';
	while (used && used < size && out[used - 1] == ' ')
		out[--used] = '\0';
	/* "char * const [3]" and gdb's "char * const[3]" */
	for (char *sp; (sp = strstr(out, " ["));)
		memmove(sp, sp + 1, strlen(sp));
}

/* The text gdb gives for symbol `name` in `info scope` output (from "is "
 * to ", length"), or NULL. */
static const char *scope_entry(const char *text, const char *name, char *out, size_t size)
{
	char key[NAME_MAX_ + 16];
	const char *p, *end;

	snprintf(key, sizeof(key), "Symbol %s is ", name);
	p = strstr(text, key);
	if (!p)
		return NULL;
	p += strlen(key);
	end = strstr(p, ", length ");
	if (!end)
		end = p + strcspn(p, "\n");
	snprintf(out, size, "%.*s", (int)(end - p), p);
	return out;
}

/* What gdb says about a location at addr, as the kind of ours ("register
 * rdi", "stack", "global 0x4010", "constant", "optimized out", "entry",
 * "composite", "other"). */
static void gdb_kind(const char *desc, uint64_t addr, char *out, size_t size)
{
	const char *d = desc;
	char reg[16];

	if (strncmp(d, "multi-location:", 15) == 0) {
		const char *r = d;

		d = NULL;
		while ((r = strstr(r, "Range 0x"))) {
			uint64_t lo, hi;

			if (sscanf(r, "Range %" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && lo <= addr &&
			    addr < hi) {
				d = strchr(r, ':') + 2;
				break;
			}
			r += 6;
		}
		if (!d) {
			snprintf(out, size, "optimized out");
			return;
		}
	}
	if (sscanf(d, "a variable in $%15[a-z0-9]", reg) == 1)
		snprintf(out, size, "register %s", reg);
	else if (strncmp(d, "the constant", 12) == 0 || strncmp(d, "a constant", 10) == 0 ||
		 strncmp(d, "constant", 8) == 0)
		snprintf(out, size, "constant");
	else if (strncmp(d, "optimized out", 13) == 0)
		snprintf(out, size, "optimized out");
	else if (strstr(d, "static storage at address 0x"))
		snprintf(out, size, "global 0x%" PRIx64,
			 (uint64_t)strtoull(strstr(d, "address 0x") + 8, NULL, 16));
	else if (strncmp(d, "a variable at frame base", 24) == 0 ||
		 (strstr(d, "complex DWARF") && (strstr(d, "0: DW_OP_fbreg") ||
						 strstr(d, "0: DW_OP_breg7") ||
						 strstr(d, "0: DW_OP_breg6"))))
		snprintf(out, size, "stack");
	else if (strstr(d, "complex DWARF") && strstr(d, "0: DW_OP_entry_value"))
		snprintf(out, size, "entry");
	else if (strstr(d, "DW_OP_piece"))
		snprintf(out, size, "composite");
	else if (strstr(d, "complex DWARF") && strstr(d, "0: DW_OP_addr") &&
		 strstr(d, "DW_OP_stack_value"))
		snprintf(out, size, "address 0x%" PRIx64,
			 (uint64_t)strtoull(strstr(d, "DW_OP_addr") + 11, NULL, 16));
	else if (strstr(d, "complex DWARF") && strstr(d, "0: DW_OP_addr"))
		snprintf(out, size, "global 0x%" PRIx64,
			 (uint64_t)strtoull(strstr(d, "DW_OP_addr") + 11, NULL, 16));
	else
		snprintf(out, size, "other");
}

/* Ours in the same words. */
static void our_kind(const char *where, char *out, size_t size)
{
	char reg[16];

	if (sscanf(where, "register %15[a-z0-9]", reg) == 1)
		snprintf(out, size, "register %s", reg);
	else if (strncmp(where, "stack ", 6) == 0)
		snprintf(out, size, "stack");
	else if (strncmp(where, "global 0x", 9) == 0)
		snprintf(out, size, "global 0x%" PRIx64, (uint64_t)strtoull(where + 7, NULL, 16));
	else if (strncmp(where, "address 0x", 10) == 0)
		snprintf(out, size, "address 0x%" PRIx64, (uint64_t)strtoull(where + 8, NULL, 16));
	else if (strncmp(where, "constant", 8) == 0 ||
		 (strncmp(where, "composite:", 10) == 0 && !strstr(where, "register") &&
		  !strstr(where, "stack") && !strstr(where, "global") && !strstr(where, "memory") &&
		  !strstr(where, "optimized")))
		snprintf(out, size, "constant"); /* pieces that are all constants too */
	else if (strncmp(where, "optimized out (entry value)", 27) == 0 ||
		 strstr(where, "(entry value from the caller's call site)"))
		snprintf(out, size, "entry");
	else if (strncmp(where, "optimized out", 13) == 0)
		snprintf(out, size, "optimized out");
	else if (strncmp(where, "composite:", 10) == 0)
		snprintf(out, size, "composite");
	else
		snprintf(out, size, "other");
}

/* Where gdb and gstrace agree: the same kind; or gdb reads the value
 * from the caller (DW_OP_entry_value), which gstrace cannot, and says
 * optimized out. */
static bool same_place(const char *gdb, const char *ours)
{
	return strcmp(gdb, ours) == 0 ||
	       (strcmp(gdb, "entry") == 0 && strcmp(ours, "optimized out") == 0);
}

static void check_vars(struct e2e_ctx *c, const char *fixture, const char *const *targets)
{
	const char *path = e2e_fixture_path(fixture);
	static struct block blocks[MAX_BLOCKS];
	size_t nb = 0, checked = 0;

	if (access(path, R_OK) != 0) {
		e2e_note(c, "%s: not built here (no clang)", fixture);
		return;
	}
	for (size_t t = 0; targets[t]; t++) {
		char *gs[] = { (char *)e2e_gstrace_path(), "--list-vars", (char *)targets[t], "-t",
			       (char *)path, NULL };
		struct e2e_buf o = { 0 };

		if (capture(c, gs, &o))
			nb += parse_vars(e2e_buf_str(&o), blocks + nb, MAX_BLOCKS - nb);
		e2e_buf_free(&o);
	}
	e2e_expect(c, nb > 0, "%s: --list-vars listed no address", fixture);
	for (size_t i = 0; i < nb; i++) {
		const struct block *b = &blocks[i];
		char *argv[8 + 4 * MAX_VARS + 4], cmds[4 * MAX_VARS + 4][NAME_MAX_ * 2 + 32];
		struct e2e_buf g = { 0 };
		static char scope[65536];
		size_t n = 0, k = 0;

		argv[n++] = "/usr/bin/env";
		argv[n++] = "gdb";
		argv[n++] = "-nx";
		argv[n++] = "-batch";
		snprintf(cmds[k], sizeof(cmds[k]), "info scope *0x%" PRIx64, b->addr);
		argv[n++] = "-ex";
		argv[n++] = cmds[k++];
		for (size_t v = 0; v < b->n; v++) {
			const struct var *x = &b->v[v];
			bool local = strcmp(x->scope, "param") == 0 || strcmp(x->scope, "local") == 0;

			snprintf(cmds[k], sizeof(cmds[k]), "echo @@%.127s\\n", x->name);
			argv[n++] = "-ex";
			argv[n++] = cmds[k++];
			if (local && b->inlined)
				continue; /* FN::NAME names an out-of-line function's */
			if (local)
				snprintf(cmds[k], sizeof(cmds[k]), "whatis %.127s::%.127s", b->function,
					 x->name);
			else
				snprintf(cmds[k], sizeof(cmds[k]), "whatis %.127s", x->name);
			argv[n++] = "-ex";
			argv[n++] = cmds[k++];
			if (!local) {
				snprintf(cmds[k], sizeof(cmds[k]), "info address %.127s", x->name);
				argv[n++] = "-ex";
				argv[n++] = cmds[k++];
			}
		}
		argv[n++] = (char *)path;
		argv[n] = NULL;
		if (!capture(c, argv, &g)) {
			e2e_buf_free(&g);
			continue;
		}
		for (size_t v = 0; v < b->n; v++) {
			const struct var *x = &b->v[v];
			bool local = strcmp(x->scope, "param") == 0 || strcmp(x->scope, "local") == 0;
			char mark[NAME_MAX_ + 4], desc[2048], gk[64], ok_[64], want[NAME_MAX_],
				have[NAME_MAX_], section[4096];
			const char *s = strstr(e2e_buf_str(&g), (snprintf(mark, sizeof(mark), "@@%s\n",
									    x->name), mark));
			const char *type;

			if (!s)
				continue;
			s += strlen(mark);
			snprintf(section, sizeof(section), "%.*s", (int)(strstr(s, "@@") ?
				 (size_t)(strstr(s, "@@") - s) : strlen(s)), s);
			our_kind(x->where, ok_, sizeof(ok_));
			if (local) {
				e2e_expect(c, scope_entry(e2e_buf_str(&g), x->name, desc,
							  sizeof(desc)) != NULL,
					   "%s+0x%" PRIx64 " (%s): %s %s is not in gdb's info scope",
					   fixture, b->addr, b->function, x->scope, x->name);
				if (!scope_entry(e2e_buf_str(&g), x->name, desc, sizeof(desc)))
					continue;
			} else {
				const char *a = strstr(section, "Symbol \"");

				snprintf(desc, sizeof(desc), "%s", a ? strstr(a, "\" is ") + 5 : "?");
			}
			gdb_kind(desc, b->addr, gk, sizeof(gk));
			e2e_expect(c, same_place(gk, ok_), "%s+0x%" PRIx64 " (%s): %s lives at '%s' "
				   "for gstrace, '%s' for gdb (%s)", fixture, b->addr, b->function,
				   x->name, x->where, gk, desc);
			type = strstr(section, "type = ");
			if (type) {
				char t[NAME_MAX_];

				snprintf(t, sizeof(t), "%.*s", (int)strcspn(type + 7, "\n"), type + 7);
				canon_type(t, want, sizeof(want));
				canon_type(x->type, have, sizeof(have));
				e2e_expect(c, strcmp(want, have) == 0, "%s+0x%" PRIx64 " (%s): %s is "
					   "'%s' for gstrace, '%s' for gdb", fixture, b->addr,
					   b->function, x->name, x->type, t);
			}
			checked++;
		}
		/* every variable gdb sees with a value in a function's own blocks
		 * (`info scope`, before the first marker) is listed */
		snprintf(scope, sizeof(scope), "%.*s", (int)strcspn(e2e_buf_str(&g), "@"),
			 e2e_buf_str(&g));
		for (const char *p = scope; !b->inlined && (p = strstr(p, "Symbol ")); p += 7) {
			char name[NAME_MAX_], desc[2048];
			bool found = false;

			if (sscanf(p, "Symbol %127s is ", name) != 1 ||
			    !scope_entry(p, name, desc, sizeof(desc)) ||
			    strncmp(desc, "a function", 10) == 0 ||
			    strncmp(desc, "optimized out", 13) == 0)
				continue;
			for (size_t v = 0; v < b->n && !found; v++)
				found = strcmp(b->v[v].name, name) == 0;
			e2e_expect(c, found, "%s+0x%" PRIx64 " (%s): gdb's info scope has %s, "
				   "--list-vars does not", fixture, b->addr, b->function, name);
		}
		e2e_buf_free(&g);
	}
	e2e_note(c, "%s: %zu addresses, %zu variables checked", fixture, nb, checked);
}

static void s_list_vars(struct e2e_ctx *c)
{
	static const char *const globals[] = { "read_globals", "statics", "weights", NULL };
	static const char *const types[] = { "take_record", "nested", "arrays", "pointers", NULL };
	static const char *const inl[] = { "inl_add", "outer_one", NULL };
	static const char *const lib[] = { "lib_compute", "lib_record", NULL };

	check_vars(c, "values_globals_gcc_O0_dw4", globals);
	check_vars(c, "values_globals_gcc_O2_dw5", globals);
	check_vars(c, "values_types_gcc_O0_dw5", types);
	check_vars(c, "values_types_gcc_O3_dw4", types);
	check_vars(c, "values_types_clang_O2_dw5", types);
	check_vars(c, "values_inline_gcc_O3_dw5", inl);
	check_vars(c, "libvalues_gcc_O2_dw4.so", lib);
}

const struct e2e_scenario e2e_list_scenarios[] = {
	{ "list-functions", s_list_functions, E2E_NEED_GDB },
	{ "list-vars", s_list_vars, E2E_NEED_GDB },
};
const size_t e2e_list_nscenarios = BASE_ARRAY_SIZE(e2e_list_scenarios);
