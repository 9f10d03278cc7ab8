/* The symbolizer: (module file, link-time pc) -> function, parameters,
 * file:line:col and the chain of inlined calls, through the libdwfl module
 * of the module-file cache (reported at bias 0, so Dwfl addresses are ELF
 * addresses), with the ELF symbol table as fallback for modules without
 * DWARF. Every answer is cached per (module, pc). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>
#include <gs/unwind.h>

#include "symbolize_int.h"
#include "unwind_int.h"
#include "base.h"

#define GS_PARAMS_MAX 1024


struct cache_slot {
	int module; /* -1: empty */
	uint64_t pc;
	struct gs_sym_info *info;
};

struct gs_symbolizer {
	struct gs_modfiles *files, *own;
	struct gs_modfile **mods;
	size_t nmods, mods_cap;
	struct cache_slot *slots;
	size_t nslots, used; /* nslots is a power of two */
};

struct gs_symbolizer *gs_symbolizer_new(struct gs_modfiles *files, struct gs_error *err)
{
	struct gs_symbolizer *s = calloc(1, sizeof(*s));

	if (s) {
		s->nslots = 1024;
		s->slots = malloc(s->nslots * sizeof(*s->slots));
		s->files = files;
	}
	if (!s || !s->slots || (!files && gs_modfiles_new(NULL, &s->own, NULL) != 0)) {
		if (s)
			free(s->slots);
		free(s);
		gs_errorf(err, -ENOMEM, "out of memory creating the symbolizer");
		return NULL;
	}
	if (!files)
		s->files = s->own;
	for (size_t i = 0; i < s->nslots; i++)
		s->slots[i].module = -1;
	return s;
}

static void info_free(struct gs_sym_info *info)
{
	free((char *)info->params);
	free(info->inlines);
	free(info);
}

void gs_symbolizer_free(struct gs_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i].module >= 0)
			info_free(s->slots[i].info);
	free(s->mods);
	free(s->slots);
	gs_modfiles_free(s->own);
	free(s);
}

int gs_symbolizer_modfile(struct gs_symbolizer *s, struct gs_modfile *file,
			  struct gs_error *err)
{
	for (size_t i = 0; i < s->nmods; i++)
		if (s->mods[i] == file)
			return (int)i;
	if (s->nmods >= 0x7fffffff ||
	    base_grow((void **)&s->mods, &s->mods_cap, s->nmods + 1, sizeof(*s->mods)))
		return gs_errorf(err, -ENOMEM, "out of memory adding module %s",
				 gs_modfile_path(file));
	s->mods[s->nmods] = file;
	return (int)s->nmods++;
}

int gs_symbolizer_module(struct gs_symbolizer *s, const char *path, struct gs_error *err)
{
	struct gs_modfile *file;
	int rc = gs_modfile_open(s->files, path, &file, err);

	return rc ? rc : gs_symbolizer_modfile(s, file, err);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	return n ? n : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static int die_udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (dwarf_formudata(dwarf_attr(die, name, &attr), &v) != 0 || v > 0x7fffffff)
		return 0;
	return (int)v;
}

/* Formal parameters of a function DIE: artificial ones and consecutive
 * duplicates dropped, joined by ", " (docs/unwind.md, "Symbolizer"). */
static char *render_params(Dwarf_Die *fn)
{
	char buf[GS_PARAMS_MAX], one[256], prev[256] = "";
	size_t len = 0;
	Dwarf_Die child, origin;
	Dwarf_Attribute attr;

	buf[0] = '\0';
	/* A concrete out-of-line copy may list no parameters of its own. */
	if (dwarf_child(fn, &child) != 0 &&
	    dwarf_formref_die(dwarf_attr(fn, DW_AT_abstract_origin, &attr), &origin))
		fn = &origin;
	if (dwarf_child(fn, &child) == 0) {
		do {
			Dwarf_Attribute a;
			bool artificial = false;

			if (dwarf_tag(&child) != DW_TAG_formal_parameter)
				continue;
			if (dwarf_formflag(dwarf_attr_integrate(&child, DW_AT_artificial, &a),
					   &artificial) == 0 && artificial)
				continue;
			uw_sym_param(&child, one, sizeof(one));
			if (strcmp(one, prev) == 0)
				continue;
			strcpy(prev, one);
			len += (size_t)snprintf(buf + len, len < sizeof(buf) ? sizeof(buf) - len : 0,
						"%s%s", len ? ", " : "", one);
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return strdup(buf);
}

/* Fills the DWARF part of info: the physical function and its params, and
 * the inlined calls in the scope chain from the innermost scope at pc. */
static bool from_dwarf(Dwfl_Module *mod, uint64_t pc, struct gs_sym_info *info)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL, *chain = NULL;
	Dwarf_Die innermost;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, k = 0;
	int nscopes, nchain;

	if (!cu)
		return false;
	nscopes = dwarf_getscopes(cu, pc - bias, &scopes);
	if (nscopes <= 0) {
		free(scopes);
		return false;
	}
	/* dwarf_getscopes continues an inlined scope into its abstract
	 * definition; the physical parents come from dwarf_getscopes_die. */
	innermost = scopes[0];
	free(scopes);
	nchain = dwarf_getscopes_die(&innermost, &chain);
	if (nchain <= 0) {
		free(chain);
		return false;
	}
	dwarf_getsrcfiles(cu, &files, &nfiles);
	for (int i = 0; i < nchain; i++)
		if (dwarf_tag(&chain[i]) == DW_TAG_inlined_subroutine)
			info->ninlines++;
	info->inlines = info->ninlines ? calloc(info->ninlines, sizeof(*info->inlines)) : NULL;
	if (info->ninlines && !info->inlines) {
		free(chain);
		info->ninlines = 0;
		return false;
	}
	/* Innermost first in the chain; the info lists inlines outermost first. */
	for (int i = 0; i < nchain; i++) {
		Dwarf_Die *d = &chain[i];

		if (dwarf_tag(d) == DW_TAG_inlined_subroutine) {
			struct gs_sym_inline *in = &info->inlines[info->ninlines - 1 - k++];
			int file = die_udata(d, DW_AT_call_file);

			in->name = die_name(d);
			/* libdw numbers DWARF 4 files from 1 too, so the index is direct. */
			in->call_file = files && (size_t)file < nfiles
					? dwarf_filesrc(files, (size_t)file, NULL, NULL) : NULL;
			in->call_line = die_udata(d, DW_AT_call_line);
			in->call_col = die_udata(d, DW_AT_call_column);
		} else if (is_function(d) && !info->function) {
			info->function = die_name(d);
			info->params = render_params(d);
		}
	}
	free(chain);
	return info->function != NULL;
}

/* ELF symbol + offset, for modules (or code) without DWARF. */
static bool from_symtab(Dwfl_Module *mod, uint64_t pc, struct gs_sym_info *info)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);

	if (!name)
		return false;
	info->function = name;
	info->sym_offset = off;
	return true;
}

static void line_of(Dwfl_Module *mod, uint64_t pc, struct gs_sym_info *info)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, pc);
	Dwarf_Addr addr;

	if (line)
		info->file = dwfl_lineinfo(line, &addr, &info->line, &info->col, NULL, NULL);
}

static struct gs_sym_info *lookup(Dwfl_Module *mod, uint64_t pc)
{
	struct gs_sym_info *info = calloc(1, sizeof(*info));

	if (!info)
		return NULL;
	if (mod && from_dwarf(mod, pc, info)) {
		info->from_dwarf = true;
		line_of(mod, pc, info);
	} else if (mod) {
		free(info->inlines);
		free((char *)info->params);
		memset(info, 0, sizeof(*info));
		if (from_symtab(mod, pc, info))
			line_of(mod, pc, info); /* assembly with line info, no DIEs */
	}
	if (!info->params)
		info->params = strdup("");
	if (!info->params) {
		free(info->inlines);
		free(info);
		return NULL;
	}
	info->found = info->function != NULL || info->file != NULL;
	return info;
}

static size_t slot_of(const struct gs_symbolizer *s, int module, uint64_t pc)
{
	uint64_t h = (pc ^ (uint64_t)module << 48) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 20) & (s->nslots - 1);
}

static struct cache_slot *probe(struct gs_symbolizer *s, int module, uint64_t pc)
{
	size_t i = slot_of(s, module, pc);

	while (s->slots[i].module >= 0 && (s->slots[i].module != module || s->slots[i].pc != pc))
		i = (i + 1) & (s->nslots - 1);
	return &s->slots[i];
}

static int grow_cache(struct gs_symbolizer *s)
{
	struct cache_slot *old = s->slots;
	size_t nold = s->nslots;

	s->slots = malloc(2 * nold * sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		return -ENOMEM;
	}
	s->nslots = 2 * nold;
	for (size_t i = 0; i < s->nslots; i++)
		s->slots[i].module = -1;
	for (size_t i = 0; i < nold; i++)
		if (old[i].module >= 0)
			*probe(s, old[i].module, old[i].pc) = old[i];
	free(old);
	return 0;
}

int gs_symbolize(struct gs_symbolizer *s, int module, uint64_t pc,
		 const struct gs_sym_info **out, struct gs_error *err)
{
	struct cache_slot *slot;

	if (module < 0 || (size_t)module >= s->nmods)
		return gs_errorf(err, -EINVAL, "no module %d in the symbolizer; add it with gs_symbolizer_module()",
				 module);
	slot = probe(s, module, pc);
	if (slot->module < 0) {
		struct gs_sym_info *info;

		if (2 * (s->used + 1) > s->nslots) {
			if (grow_cache(s))
				return gs_errorf(err, -ENOMEM, "out of memory growing the symbol cache");
			slot = probe(s, module, pc);
		}
		info = lookup(gs_modfile_dwfl(s->mods[module]), pc);
		if (!info)
			return gs_errorf(err, -ENOMEM, "out of memory symbolizing 0x%llx",
					 (unsigned long long)pc);
		*slot = (struct cache_slot){ module, pc, info };
		s->used++;
	}
	*out = slot->info;
	return 0;
}
