/* What the CLI lists: functions matching a glob (DWARF subprograms, then
 * ELF symbols DWARF does not name; through a module file's function index
 * when it has one) and, for a variable, where it lives in
 * words a user reads ("register rdi", "stack CFA-20"). */
#include <errno.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/modfile.h>

#include "dwv_int.h"
#include <gs/internal/modfile.h>
#include <gs/internal/dwarf.h>
#include "base.h"

static const char *const reg_names[GS_DWARF_REG_MAX + 1] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
};

const char *gs_dwarf_reg_name(unsigned reg)
{
	return reg <= GS_DWARF_REG_MAX ? reg_names[reg] : "r?";
}

struct list {
	struct gs_dwarf_function *v;
	size_t n, cap;
};

static int push(struct list *l, struct gs_dwarf_function f)
{
	if (base_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = f;
	return 0;
}

static bool listed(const struct list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return true;
	return false;
}

/* The listing record of a subprogram DIE whose name matches glob: a
 * definition with code, or an inline function known only by its copies. */
static int from_die(Dwarf_Die *die, const char *glob, struct list *l)
{
	struct gs_dwarf_function f = { 0 };
	Dwarf_Die cu;
	Dwarf_Addr lo;
	int line = 0;

	if (dwarf_tag(die) != DW_TAG_subprogram || dwarf_hasattr(die, DW_AT_declaration) ||
	    !(f.name = dwarf_diename(die)) || fnmatch(glob, f.name, 0) != 0)
		return 0;
	if (dwarf_entrypc(die, &lo) == 0)
		f.addr = lo;
	else if (dwarf_hasattr(die, DW_AT_inline))
		f.inlined_only = true;
	if (!f.addr && !f.inlined_only)
		return 0;
	/* libdw misreads file 0 of clang's DWARF 5 line tables: that file is
	 * the CU's own. */
	f.file = dwarf_decl_file(die);
	if (!f.file && dwarf_diecu(die, &cu, NULL, NULL))
		f.file = dwarf_diename(&cu);
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		f.line = (uint32_t)line;
	return push(l, f);
}

/* The subprograms directly under each unit. */
static int from_dwarf(struct gs_dwarf *d, const char *glob, struct list *l)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_next_unit(d->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die cu, ch;

		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_child(&cu, &ch) == 0) {
			do
				if (from_die(&ch, glob, l))
					return -ENOMEM;
			while (dwarf_siblingof(&ch, &ch) == 0);
		}
		off = next;
	}
	return 0;
}

struct symbol_walk {
	struct gs_dwarf *d;
	const char *glob;
	struct list *l;
	size_t dwarf_n; /* the functions DWARF gave, listed before */
};

static int from_symbol(const GElf_Sym *sym, const char *name, void *arg)
{
	struct symbol_walk *w = arg;
	struct list *l = w->l;
	struct list dw = { l->v, w->dwarf_n, w->dwarf_n };
	bool dup;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_value || !name || !*name ||
	    fnmatch(w->glob, name, 0) != 0)
		return 0;
	dup = listed(&dw, name);
	for (size_t k = w->dwarf_n; k < l->n && !dup; k++)
		dup = strcmp(l->v[k].name, name) == 0;
	if (dup)
		return 0;
	return push(l, (struct gs_dwarf_function){ .name = w->d ? dwv_strdup(w->d, name) : name,
						   .addr = sym->st_value, .from_symbol = true }) ?
		       -ENOMEM : 0;
}

static int from_symbols(struct gs_dwarf *d, Elf *elf, const char *glob, struct list *l)
{
	struct symbol_walk w = { d, glob, l, l->n };

	return dwv_each_symbol(elf, from_symbol, &w);
}

static int by_name(const void *a, const void *b)
{
	const struct gs_dwarf_function *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The DWARF part (the offsets' DIEs, or a walk when offs is NULL), then the
 * symbols DWARF does not name, by name. */
static int list_functions(struct gs_dwarf *d, Elf *symtab_elf, const char *glob,
			  const uint64_t *offs, size_t noffs, struct gs_dwarf_function **out,
			  size_t *n, struct gs_error *err)
{
	struct list l = { 0 };
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (d && !offs)
		rc = from_dwarf(d, glob, &l);
	for (size_t i = 0; d && rc == 0 && i < noffs; i++) {
		Dwarf_Die die;

		if (dwarf_offdie(d->dw, offs[i], &die))
			rc = from_die(&die, glob, &l);
	}
	if (rc || (symtab_elf && from_symbols(d, symtab_elf, glob, &l))) {
		free(l.v);
		return gs_errorf(err, -ENOMEM, "out of memory listing functions matching '%s'",
				 glob);
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_name);
	*out = l.v;
	*n = l.n;
	return 0;
}

int gs_dwarf_list_functions(struct gs_dwarf *d, Elf *symtab_elf, const char *glob,
			    struct gs_dwarf_function **out, size_t *n, struct gs_error *err)
{
	return list_functions(d, symtab_elf, glob, NULL, 0, out, n, err);
}

int gs_dwarf_list_functions_at(struct gs_dwarf *d, Elf *symtab_elf, const char *glob,
			       const uint64_t *offs, size_t noffs, struct gs_dwarf_function **out,
			       size_t *n, struct gs_error *err)
{
	static const uint64_t none;

	return list_functions(d, symtab_elf, glob, offs ? offs : &none, offs ? noffs : 0, out, n,
			      err);
}

static const char *const why_text[] = {
	[GS_LOC_WHY_NONE] = "optimized out",
	[GS_LOC_WHY_NO_LOCATION] = "optimized out",
	[GS_LOC_WHY_NOT_AT_PC] = "optimized out here",
	[GS_LOC_WHY_ENTRY_VALUE] = "optimized out (entry value)",
	[GS_LOC_WHY_UNSUPPORTED] = "unavailable (unsupported DWARF expression)",
	[GS_LOC_WHY_NO_CFA] = "unavailable (no CFA at this address)",
	[GS_LOC_WHY_TLS_NO_THREAD_POINTER] = "optimized out (thread-local: the kernel's BTF "
		"does not say where the thread pointer is)",
	[GS_LOC_WHY_TLS_NO_LOADER] = "optimized out (thread-local: the process has no glibc "
		"dynamic linker to give its module id)",
	[GS_LOC_WHY_NO_CALL_SITE] = "optimized out (entry value: no call site in the module "
				    "passes it)",
	[GS_LOC_WHY_TOO_COMPLEX] = "unavailable (DWARF expression too long, too deep or "
				   "looping)",
};

static const char *const section_names[] = { ".text", ".rodata", ".data", ".bss" };

struct out {
	char *buf;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put_offset(struct out *o, int64_t off)
{
	if (off)
		put(o, "%c%llu", off < 0 ? '-' : '+',
		    (unsigned long long)(off < 0 ? -(uint64_t)off : (uint64_t)off));
}

static void describe_piece(struct out *o, const struct gs_var_loc *loc,
			   const struct gs_loc_piece *p)
{
	switch (p->kind) {
	case GS_LOC_REGISTER:
		put(o, "register %s", gs_dwarf_reg_name(p->reg));
		break;
	case GS_LOC_MEMORY:
	case GS_LOC_VALUE:
		if (p->base == GS_LOC_BASE_TLS) {
			put(o, "%sthread-local +0x%llx (the hit thread's TLS block)",
			    p->kind == GS_LOC_VALUE ? "address of " : "",
			    (unsigned long long)p->offset);
		} else if (p->base == GS_LOC_BASE_PROGRAM) {
			put(o, "%s (DWARF expression, %u ops)", p->kind == GS_LOC_VALUE ? "computed" :
			    "memory at a computed address", p->prog ? p->prog->nops : 0);
		} else if (p->base == GS_LOC_BASE_MODULE) {
			put(o, "%s0x%llx (%s)", p->kind == GS_LOC_VALUE ? "address " : "global ",
			    (unsigned long long)p->offset, section_names[loc->section & 3]);
		} else if (p->base == GS_LOC_BASE_REG) {
			put(o, "%s%s", p->kind == GS_LOC_VALUE ? "computed " :
			    loc->cfa_relative || p->reg == GS_DWARF_REG_RSP ||
			    p->reg == GS_DWARF_REG_RBP ? "stack " : "memory at ",
			    gs_dwarf_reg_name(p->reg));
			put_offset(o, p->offset);
		} else {
			put(o, "%s0x%llx", p->kind == GS_LOC_VALUE ? "constant " : "memory at ",
			    (unsigned long long)p->offset);
		}
		break;
	case GS_LOC_IMPLICIT:
		put(o, "constant");
		break;
	default:
		put(o, "optimized out");
		break;
	}
}

size_t gs_dwarf_describe_location(const struct gs_var_loc *loc, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	if (!loc->npieces) {
		put(&o, "%s", why_text[loc->why < BASE_ARRAY_SIZE(why_text) ?
					loc->why : GS_LOC_WHY_UNSUPPORTED]);
	} else if (loc->implicit_pointer) {
		put(&o, "implicit pointer (no address: <synthetic pointer>)");
	} else if (loc->npieces == 1) {
		describe_piece(&o, loc, &loc->pieces[0]);
	} else {
		uint64_t at = 0;

		put(&o, "composite:");
		for (uint32_t i = 0; i < loc->npieces; i++) {
			put(&o, " [%llu..%llu) ", (unsigned long long)at,
			    (unsigned long long)(at + loc->pieces[i].size));
			describe_piece(&o, loc, &loc->pieces[i]);
			at += loc->pieces[i].size;
		}
	}
	if (loc->entry_value && loc->npieces)
		put(&o, " (entry value from the caller's call site)");
	if (loc->from_list && loc->npieces)
		put(&o, " (location list)");
	return o.len;
}

int dwv_module_functions(struct gs_dwarf *d, struct gs_modfile *file, const char *glob,
			 struct gs_dwarf_function **v, size_t *n, struct gs_error *err)
{
	const struct mf_funcindex *x = NULL;
	uint64_t *offs = NULL;
	size_t noffs = 0, cap = 0;
	int rc;

	if (!d || mf_modfile_funcs(file, &x, NULL) != 0)
		return gs_dwarf_list_functions(d, gs_modfile_elf(file), glob, v, n, err);
	for (size_t i = 0; i < mf_funcindex_count(x); i++) {
		const uint64_t *dies;
		size_t k;
		const char *name = mf_funcindex_at(x, i, &dies, &k);

		if (fnmatch(glob, name, 0) != 0)
			continue;
		if (base_grow((void **)&offs, &cap, noffs + k, sizeof(*offs))) {
			free(offs);
			return gs_errorf(err, -ENOMEM, "out of memory listing functions");
		}
		memcpy(offs + noffs, dies, k * sizeof(*dies));
		noffs += k;
	}
	rc = gs_dwarf_list_functions_at(d, gs_modfile_elf(file), glob, offs, noffs, v, n,
					err);
	free(offs);
	return rc;
}
