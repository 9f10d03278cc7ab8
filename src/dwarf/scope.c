/* The names visible at a probe PC: the blocks and inlined calls covering it
 * (dwarf_getscopes), up to the innermost function, then the PC's CU; later
 * names of the same spelling are shadowed. Lookups fall back to the lazy
 * module index; cast() types are found the same way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/dwarf.h>

#include "dwv_int.h"

struct collect {
	struct gs_dwarf *d;
	uint64_t pc;
	Dwarf_Die *scope_fn;
	struct gs_var *v;
	size_t n, cap;
	int failed;
};

static bool seen(const struct collect *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].name, name) == 0)
			return true;
	return false;
}

static struct gs_var *add(struct collect *c, Dwarf_Die *die, uint8_t scope, uint16_t depth,
			  bool located)
{
	const char *name = dwarf_diename(die);
	struct gs_var *v;
	int line = 0;

	if (!name || seen(c, name))
		return NULL;
	if (base_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v))) {
		c->failed = -ENOMEM;
		return NULL;
	}
	v = &c->v[c->n++];
	memset(v, 0, sizeof(*v));
	v->name = name;
	v->type = dwv_var_type(c->d, die);
	v->scope = scope;
	v->depth = depth;
	v->decl_file = dwarf_decl_file(die);
	if (dwarf_decl_line(die, &line) == 0 && line > 0)
		v->decl_line = (uint32_t)line;
	if (located) {
		dwv_location(c->d, die, c->scope_fn, c->pc, &v->loc);
		v->type = dwv_partial_type(c->d, v->type, &v->loc);
	} else {
		v->loc.why = GS_LOC_WHY_NO_LOCATION;
		v->loc.cookie = c->d->cookie;
	}
	return v;
}

static bool is_var_tag(int tag)
{
	return tag == DW_TAG_formal_parameter || tag == DW_TAG_variable;
}

/* The DIE an abstract_origin attribute names, compared by address. */
static const void *origin_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &o))
		return NULL;
	return o.addr;
}

static void scope_vars(struct collect *c, Dwarf_Die *scope, uint16_t depth)
{
	Dwarf_Die ch;

	if (dwarf_child(scope, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);

		if (!is_var_tag(tag) || dwarf_hasattr(&ch, DW_AT_declaration))
			continue;
		add(c, &ch, tag == DW_TAG_formal_parameter ? GS_SCOPE_PARAM : GS_SCOPE_LOCAL,
		    depth, true);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

/* Parameters and top-level locals the abstract definition of an inlined
 * (or out-of-line concrete) function has but this instance dropped: the
 * compiler optimized them out entirely, or (a static) they are the same in
 * every instance. */
static void dropped_vars(struct collect *c, Dwarf_Die *scope, uint16_t depth)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, ch;
	const void *have[128];
	size_t nhave = 0;

	if (!dwarf_attr(scope, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin))
		return;
	if (dwarf_child(scope, &ch) == 0) {
		do {
			const void *o = is_var_tag(dwarf_tag(&ch)) ? origin_of(&ch) : NULL;

			if (o && nhave < 128)
				have[nhave++] = o;
		} while (dwarf_siblingof(&ch, &ch) == 0);
	}
	if (dwarf_child(&origin, &ch) != 0)
		return;
	do {
		int tag = dwarf_tag(&ch);
		bool found = false;

		if (!is_var_tag(tag) || dwarf_hasattr(&ch, DW_AT_declaration))
			continue;
		for (size_t i = 0; i < nhave && !found; i++)
			found = have[i] == ch.addr;
		/* A function's static lives only in the abstract definition, with
		 * its fixed address: that location holds in every instance. */
		if (!found)
			add(c, &ch, tag == DW_TAG_formal_parameter ? GS_SCOPE_PARAM :
			    GS_SCOPE_LOCAL, depth, dwarf_hasattr(&ch, DW_AT_location) ||
			    dwarf_hasattr(&ch, DW_AT_const_value));
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

static void cu_vars(struct collect *c, Dwarf_Die *cudie, uint16_t depth)
{
	Dwarf_Die ch;

	if (dwarf_child(cudie, &ch) != 0)
		return;
	do {
		if (dwarf_tag(&ch) != DW_TAG_variable || dwarf_hasattr(&ch, DW_AT_declaration))
			continue;
		add(c, &ch, dwarf_hasattr_integrate(&ch, DW_AT_external) ? GS_SCOPE_GLOBAL :
		    GS_SCOPE_STATIC, depth, true);
	} while (dwarf_siblingof(&ch, &ch) == 0);
}

/* The out-of-line function of the CU whose ranges hold pc (with a frame
 * base), searching nested scopes of C++ namespaces and classes too. */
static bool outer_function(Dwarf_Die *parent, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Die ch;

	if (dwarf_child(parent, &ch) != 0)
		return false;
	do {
		int tag = dwarf_tag(&ch);

		if (tag == DW_TAG_subprogram && dwarf_hasattr(&ch, DW_AT_frame_base) &&
		    dwarf_haspc(&ch, pc) > 0) {
			*out = ch;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) && outer_function(&ch, pc, out))
			return true;
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return false;
}

/* The concrete scopes from fn down to the innermost holding pc (blocks and
 * inlined calls, as they nest in fn's tree, not the abstract definitions
 * dwarf_getscopes gives inside an inlined call): outermost first. */
static int concrete_chain(Dwarf_Die *fn, uint64_t pc, Dwarf_Die *out, int max)
{
	int n = 0;
	bool deeper = true;

	out[n++] = *fn;
	while (deeper && n < max) {
		Dwarf_Die ch;

		deeper = false;
		if (dwarf_child(&out[n - 1], &ch) != 0)
			break;
		do {
			int tag = dwarf_tag(&ch);

			if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
			    dwarf_haspc(&ch, pc) > 0) {
				out[n++] = ch;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&ch, &ch) == 0);
	}
	return n;
}

/* A function DIE named by `function` as a trace names it: the same, or a
 * qualified name ending in ::name (a parameter list after it aside). */
static bool names_function(Dwarf_Die *die, const char *function)
{
	const char *name = dwarf_diename(die);
	size_t fl, nl;

	if (!name || !function)
		return false;
	fl = strcspn(function, "(");
	nl = strlen(name);
	return (fl == nl && strncmp(name, function, nl) == 0) ||
	       (fl > nl + 2 && strncmp(function + fl - nl, name, nl) == 0 &&
		function[fl - nl - 1] == ':' && function[fl - nl - 2] == ':');
}

#define CHAIN_MAX 64

/* gdb's frame at `break function` when pc starts a call inlined into it:
 * the function's own, so its parameters and the locals of its blocks
 * holding pc come first, innermost block first (they win over the callee's
 * names of the same spelling). Returns the depth after them, or -1 when pc
 * is not inside a call inlined into `function` (the plain scope serves). */
static int frame_vars(struct collect *c, struct gs_dwarf_scope *s, Dwarf_Die *fn,
		      const char *function)
{
	Dwarf_Die chain[CHAIN_MAX];
	int n = fn ? concrete_chain(fn, c->pc, chain, CHAIN_MAX) : 0, k = -1, m;
	uint16_t depth = 0;

	for (int i = n - 1; i >= 0 && k < 0; i--) {
		int tag = dwarf_tag(&chain[i]);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    names_function(&chain[i], function))
			k = i;
	}
	for (m = k + 1; k >= 0 && m < n; m++)
		if (dwarf_tag(&chain[m]) == DW_TAG_inlined_subroutine)
			break;
	if (k < 0 || m >= n)
		return -1;
	for (int i = m - 1; i >= k; i--, depth++)
		scope_vars(c, &chain[i], depth);
	dropped_vars(c, &chain[k], depth - 1);
	s->function = dwarf_diename(&chain[k]);
	return depth;
}

static int build(struct gs_dwarf *d, uint64_t pc, const char *function,
		 struct gs_dwarf_scope *s, struct gs_error *err)
{
	struct collect c = { .d = d, .pc = pc };
	Dwarf_Die cudie, outer, *scopes = NULL, *fn = NULL;
	int n;
	uint16_t depth = 0;

	if (!dwv_cu_at(d, pc, &cudie))
		return gs_errorf(err, -ENOENT, "no DWARF compilation unit covers address 0x%llx: "
				 "the module was built without -g there, or its debug file is "
				 "missing", (unsigned long long)pc);
	s->pc = pc;
	s->cu_name = dwarf_diename(&cudie);
	n = dwarf_getscopes(&cudie, pc, &scopes);
	/* The frame base belongs to the out-of-line function holding the PC.
	 * Inside an inlined call libdw lists the scopes of the inline
	 * function's abstract definition, not the function it was inlined
	 * into: look that one up among the CU's functions. */
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram &&
		    dwarf_hasattr(&scopes[i], DW_AT_frame_base)) {
			fn = &scopes[i];
			break;
		}
	if (!fn && outer_function(&cudie, pc, &outer)) {
		fn = &outer;
		/* libdw prunes a namespace without ranges, and Rust nests its
		 * definitions in them: the scopes are fn's, innermost first. */
		if (n <= 0) {
			Dwarf_Die chain[CHAIN_MAX];
			int k = concrete_chain(fn, pc, chain, CHAIN_MAX);

			free(scopes);
			scopes = malloc((size_t)k * sizeof(*scopes));
			n = scopes ? k : 0;
			for (int i = 0; i < n; i++)
				scopes[i] = chain[k - 1 - i];
		}
	}
	c.scope_fn = fn;
	if (function) {
		int fd = frame_vars(&c, s, fn, function);

		/* the innermost inlined call's names after the frame's own */
		depth = fd < 0 ? 0 : (uint16_t)fd;
		if (fd >= 0)
			function = s->function;
	}
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit)
			break;
		scope_vars(&c, &scopes[i], depth);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			dropped_vars(&c, &scopes[i], depth);
			if (!function || !s->function)
				s->function = dwarf_diename(&scopes[i]);
			depth++;
			break;
		}
		depth++;
	}
	s->nlocals = c.n;
	cu_vars(&c, &cudie, depth);
	free(scopes);
	if (c.failed) {
		free(c.v);
		return gs_errorf(err, c.failed, "out of memory reading the variables at 0x%llx",
				 (unsigned long long)pc);
	}
	s->nvars = c.n;
	if (c.n) {
		struct gs_var *v = dwv_alloc(d, c.n * sizeof(*v));

		if (!v) {
			free(c.v);
			return gs_errorf(err, -ENOMEM, "out of memory reading the variables at "
					 "0x%llx", (unsigned long long)pc);
		}
		memcpy(v, c.v, c.n * sizeof(*v));
		s->vars = v;
	}
	free(c.v);
	return 0;
}

int gs_dwarf_scope_at(struct gs_dwarf *d, uint64_t pc, const struct gs_dwarf_scope **out,
		      struct gs_error *err)
{
	const void *key = (const void *)(uintptr_t)(pc + 1 ? pc + 1 : pc);
	struct gs_dwarf_scope *s = dwv_map_get(&d->scopes, key);
	int rc;

	*out = NULL;
	if (s) {
		*out = s;
		return 0;
	}
	s = dwv_alloc(d, sizeof(*s));
	if (!s)
		return gs_errorf(err, -ENOMEM, "out of memory reading DWARF");
	rc = build(d, pc, NULL, s, err);
	if (rc)
		return rc;
	dwv_map_put(&d->scopes, key, s);
	*out = s;
	return 0;
}

int gs_dwarf_frame_scope_at(struct gs_dwarf *d, uint64_t pc, const char *function,
			    const struct gs_dwarf_scope **out, struct gs_error *err)
{
	struct gs_dwarf_scope *s;
	int rc = gs_dwarf_scope_at(d, pc, out, err);

	/* Not in a call inlined into `function`: the plain scope is its frame. */
	if (rc || !function || ((*out)->function && strcmp((*out)->function, function) == 0))
		return rc;
	s = dwv_alloc(d, sizeof(*s));
	if (!s)
		return gs_errorf(err, -ENOMEM, "out of memory reading DWARF");
	rc = build(d, pc, function, s, err);
	if (rc == 0)
		*out = s;
	return rc;
}

int gs_dwarf_lookup(struct gs_dwarf *d, const struct gs_dwarf_scope *s, const char *name,
		    const struct gs_var **out, struct gs_error *err)
{
	Dwarf_Die die;
	struct gs_var *v;

	*out = NULL;
	for (size_t i = 0; s && i < s->nvars; i++)
		if (strcmp(s->vars[i].name, name) == 0) {
			*out = &s->vars[i];
			return 0;
		}
	if (dwv_index_find_global(d, name, &die) == 0) {
		v = dwv_map_get(&d->global_vars, die.addr);
		if (!v) {
			struct collect c = { .d = d, .pc = s ? s->pc : 0 };

			if (!add(&c, &die, GS_SCOPE_GLOBAL, UINT16_MAX, true)) {
				free(c.v);
				return gs_errorf(err, -ENOMEM, "out of memory reading %s", name);
			}
			v = dwv_alloc(d, sizeof(*v));
			if (v)
				*v = c.v[0];
			free(c.v);
			if (!v)
				return gs_errorf(err, -ENOMEM, "out of memory reading %s", name);
			dwv_map_put(&d->global_vars, die.addr, v);
		}
		*out = v;
		return 0;
	}
	if (s && s->function)
		return gs_errorf(err, -ENOENT, "no variable named '%s' is visible in %s at 0x%llx "
				 "(parameters, locals, statics of %s and the module's globals "
				 "were searched)", name, s->function, (unsigned long long)s->pc,
				 s->cu_name ? s->cu_name : "its file");
	return gs_errorf(err, -ENOENT, "no variable named '%s' in the module's DWARF", name);
}

int gs_dwarf_return_type(struct gs_dwarf *d, uint64_t pc, const struct gs_type **out,
			 const char **function, struct gs_error *err)
{
	Dwarf_Die cudie, *scopes = NULL, t;
	Dwarf_Attribute a;
	int n, rc = -ENOENT;

	*out = NULL;
	if (function)
		*function = NULL;
	if (!dwv_cu_at(d, pc, &cudie))
		return gs_errorf(err, -ENOENT, "no DWARF compilation unit covers address 0x%llx",
				 (unsigned long long)pc);
	n = dwarf_getscopes(&cudie, pc, &scopes);
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (function)
			*function = dwarf_diename(&scopes[i]);
		if (dwarf_attr_integrate(&scopes[i], DW_AT_type, &a) && dwarf_formref_die(&a, &t))
			*out = dwv_type(d, &t);
		rc = 0;
		break;
	}
	free(scopes);
	if (rc)
		return gs_errorf(err, rc, "no DWARF function covers address 0x%llx",
				 (unsigned long long)pc);
	return 0;
}
