/* Source-level values in the trace plan (include/gs/spec.h, "from script
 * text to a built program"): for each probe address, a copy of its trace's
 * body in which every DWARF name points at its access plan there (the
 * probe module's parameters, locals, statics and globals; in -p mode the
 * globals of the process's other modules), every cast() at its type, and a
 * return probe's $retval at the function's return type in rax (rdx, or the
 * memory rax points to, as the x86-64 ABI returns it). The DWARF handles
 * stay open until the plan is built. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <gs/dwarf.h>
#include <gs/runtime.h>

#include <gs/internal/dwarf.h>
#include <gs/internal/program.h>
#include "rt_int.h"

struct chunk {
	struct chunk *next;
	max_align_t data[];
};

struct rt_values {
	pid_t pid;
	struct rt_dwarf_cache *cache;
	struct chunk *chunks;            /* copied trees and made-up variables */
	struct gs_proc_modules mods;     /* -p: the process's modules, read once */
	bool mods_loaded;
	bool read_tls;                   /* some name is a thread-local */
	struct rt_tls_check tls;         /* whether thread-locals can be read */
	char tls_note[GS_ERROR_MSG_MAX]; /* the trace's, while it is resolved */
};

/* What one probe's copy is resolved against. */
struct probe_ctx {
	struct rt_values *v;
	const struct gs_plan_trace *t;
	const struct rt_dwarf_module *m;
	const struct gs_dwarf_scope *scope;
	uint64_t pc;
	const struct gs_var *retval;     /* a return probe's typed $retval, or NULL */
	bool retval_typed;               /* retval is known */
	const struct gs_expr **at;       /* the expression an error is about */
	struct rt_copies *copies;        /* several copies: names this one lacks */
	size_t probe;                    /* which copy */
	struct gs_error *err;
	int rc;
	struct this_member *members;     /* names read as this->name, once copied */
};

/* A bare name of a C++ member function read through `this`: the copy's
 * node becomes this->name once the copy is done (the copier sets lhs
 * after the node's own visit). */
struct this_member {
	struct gs_expr *node;
	struct gs_expr *self;
	struct this_member *next;
};

int rt_values_new(pid_t pid, struct gs_modfiles *files, struct rt_values **out)
{
	struct rt_values *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v || !(v->cache = rt_dwarf_cache_new(files))) {
		free(v);
		return -ENOMEM;
	}
	v->pid = pid;
	v->tls.pid = pid;
	*out = v;
	return 0;
}

void rt_values_free(struct rt_values *v)
{
	if (!v)
		return;
	rt_dwarf_cache_free(v->cache);
	while (v->chunks) {
		struct chunk *next = v->chunks->next;

		free(v->chunks);
		v->chunks = next;
	}
	if (v->mods_loaded)
		gs_proc_modules_free(&v->mods);
	rt_tls_check_fini(&v->tls);
	free(v);
}

static void *alloc(struct probe_ctx *c, size_t n)
{
	struct chunk *k = calloc(1, sizeof(*k) + n);

	if (!k) {
		c->rc = gs_errorf(c->err, -ENOMEM, "out of memory resolving the names of trace "
				  "`%s`", c->t->pattern.text);
		return NULL;
	}
	k->next = c->v->chunks;
	c->v->chunks = k;
	return k->data;
}

uint32_t rt_values_task_fsbase(const struct rt_values *v)
{
	return v && v->read_tls && v->tls.fsbase_known ? v->tls.fsbase : 0;
}

/* "'name' is a thread-local and <why>" in the trace's note, once a name. */
static void note_tls(struct rt_values *v, const char *name, uint8_t why)
{
	static const char more[] = "; and others";
	size_t n = strlen(v->tls_note), room = sizeof(v->tls_note) - sizeof(more);
	char *quoted;
	int len;

	if (asprintf(&quoted, "'%s'", name) < 0)
		return;
	if (strstr(v->tls_note, quoted) || strstr(v->tls_note, more)) {
		free(quoted);
		return;
	}
	len = snprintf(v->tls_note + n, sizeof(v->tls_note) - n, "%s%s is a thread-local and %s",
		       n ? "; " : "", quoted, why == GS_LOC_WHY_TLS_NO_THREAD_POINTER ?
		       "the kernel's BTF does not say where the thread pointer is" :
		       "the process has no glibc dynamic linker to give its module id");
	/* a note of hundreds of names: whole sentences, then how it goes on */
	if (len < 0 || (size_t)len >= room - n)
		snprintf(v->tls_note + n, sizeof(v->tls_note) - n, "%s", n ? more : more + 2);
	free(quoted);
}

/* A thread-local that cannot be read here (no thread pointer, no module
 * ids in the process): the same variable, <optimized out> with the reason
 * (--list-vars and the events say it); else var itself. */
static const struct gs_var *tls_checked(struct probe_ctx *c, const struct gs_var *var)
{
	struct gs_var *out;
	uint8_t why;
	bool tls = false;

	for (uint32_t i = 0; var && i < var->loc.npieces; i++)
		tls |= var->loc.pieces[i].base == GS_LOC_BASE_TLS;
	if (!tls)
		return var;
	c->v->read_tls = true;
	why = rt_tls_check(&c->v->tls, rt_dwarf_cache_files(c->v->cache), var->loc.cookie, NULL, 0);
	if (why == GS_LOC_WHY_NONE || !(out = alloc(c, sizeof(*out))))
		return var;
	note_tls(c->v, var->name, why);
	*out = *var;
	out->loc.pieces = NULL;
	out->loc.npieces = 0;
	out->loc.why = why;
	return out;
}

/* ---- which bodies need DWARF -------------------------------------------------- */

static enum gs_visit needs(struct gs_visitor *v, const struct gs_expr *e)
{
	bool retprobe = v->arg != NULL;

	return e->kind == GS_EXPR_NAME || e->kind == GS_EXPR_CAST ||
	       (retprobe && e->kind == GS_EXPR_SPECIAL && e->special == GS_SPECIAL_RETVAL) ?
		       GS_VISIT_STOP : GS_VISIT_CONTINUE;
}

bool rt_body_needs_dwarf(const struct gs_stmt *body, size_t n, bool retprobe)
{
	struct gs_visitor v = { .expr = needs, .arg = retprobe ? &v : NULL };

	return gs_visit_stmts(&v, body, n);
}

/* ---- names -------------------------------------------------------------------------- */

static int fail_at(struct probe_ctx *c, const struct gs_expr *e, int rc, const char *msg)
{
	if (!c->rc) {
		c->rc = gs_errorf(c->err, rc, "%s", msg);
		*c->at = e;
	}
	return c->rc;
}

/* The process's modules other than the probe's that have DWARF (-p), one
 * by one from *i = 0; NULL after the last. *path: the module's path. */
static const struct rt_dwarf_module *next_other_module(struct probe_ctx *c, size_t *i,
						       const char **path)
{
	struct rt_values *v = c->v;
	struct gs_error ignored;

	if (v->pid <= 0)
		return NULL;
	if (!v->mods_loaded) {
		if (gs_proc_modules_load(v->pid, rt_dwarf_cache_files(v->cache), &v->mods,
					 &ignored))
			return NULL;
		v->mods_loaded = true;
	}
	while (*i < v->mods.n) {
		const struct gs_proc_module *pm = &v->mods.v[(*i)++];
		const struct rt_dwarf_module *m;

		if (pm->id.cookie == c->m->cookie ||
		    rt_dwarf_module(v->cache, pm->open_path, pm->id.cookie, &m, &ignored) || !m->d)
			continue;
		*path = pm->path;
		return m;
	}
	return NULL;
}

/* A global of another module of the process (-p), by name. */
static const struct gs_var *other_module_global(struct probe_ctx *c, const char *name)
{
	const struct rt_dwarf_module *m;
	struct gs_error ignored;
	const char *path;
	size_t i = 0;

	while ((m = next_other_module(c, &i, &path))) {
		const struct gs_var *var;

		if (gs_dwarf_lookup(m->d, NULL, name, &var, &ignored) == 0)
			return var;
	}
	return NULL;
}

/* The type a spelling names under its '*'s and bounds. */
static const struct gs_type *named_under(const struct gs_type *t)
{
	while ((t->kind == GS_TYPE_POINTER || t->kind == GS_TYPE_ARRAY) && t->target)
		t = t->target;
	return t;
}

/* Whether two modules' types of one name are laid out alike: kind, size
 * and the members' names, offsets and sizes. */
static bool same_layout(const struct gs_type *a, const struct gs_type *b)
{
	if (a->kind != b->kind || a->byte_size != b->byte_size || a->nmembers != b->nmembers ||
	    a->count != b->count || !a->target != !b->target)
		return false;
	for (uint32_t k = 0; k < a->nmembers; k++) {
		const struct gs_type_member *x = &a->members[k], *y = &b->members[k];

		if (x->offset != y->offset || x->bit_offset != y->bit_offset ||
		    x->bit_size != y->bit_size || x->type->byte_size != y->type->byte_size ||
		    strcmp(x->name ? x->name : "", y->name ? y->name : ""))
			return false;
	}
	return !a->target || same_layout(named_under(a), named_under(b));
}

/* A type the probe's module does not define, from the process's other
 * modules: the one definition, or an error naming two that differ. */
static const struct gs_type *other_module_type(struct probe_ctx *c, const struct gs_expr *e,
					       struct gs_error *why)
{
	const struct rt_dwarf_module *m;
	const struct gs_type *found = NULL, *t;
	const char *found_in = NULL, *path;
	struct gs_error ignored;
	size_t i = 0;

	while ((m = next_other_module(c, &i, &path))) {
		if (gs_dwarf_find_type(m->d, NULL, e->type_name, &t, &ignored))
			continue;
		if (!found) {
			found = t;
			found_in = path;
		} else if (!same_layout(found, t)) {
			const struct gs_type *x = named_under(found), *y = named_under(t);

			gs_errorf(why, -EINVAL, "type '%s' is ambiguous: defined differently in %s "
				  "(%s, %u bytes) and in %s (%s, %u bytes%s): cast to a type of the "
				  "probe's module, or one that only one module defines", e->type_name,
				  found_in, x->name, x->byte_size, path, y->name, y->byte_size,
				  x->byte_size == y->byte_size ? ", other members" : "");
			return NULL;
		}
	}
	return found;
}

static const struct gs_var *lookup(struct probe_ctx *c, struct gs_expr *e)
{
	const struct gs_var *var;
	struct gs_error why;
	char msg[2 * GS_ERROR_MSG_MAX];

	if (gs_dwarf_lookup(c->m->d, c->scope, e->name, &var, &why) == 0) {
		if (!c->t->spec.retprobe || var->scope >= GS_SCOPE_STATIC)
			return var;
		/* A return probe fires in the caller: the callee's frame is gone. */
		snprintf(msg, sizeof(msg), "'%s' is a %s of %s, and a return probe runs after "
			 "%s's frame is gone (its registers and stack hold other things); read it "
			 "at the entry, trace %s { ... }, or print $retval and globals here",
			 e->name, var->scope == GS_SCOPE_PARAM ? "parameter" : "local",
			 c->scope && c->scope->function ? c->scope->function : c->t->pattern.text,
			 c->t->pattern.text, c->t->pattern.text);
		fail_at(c, e, -EINVAL, msg);
		return NULL;
	}
	if (why.code == -ENOENT && (var = other_module_global(c, e->name)))
		return var;
	if (why.code == -ENOENT && c->copies) {
		/* settled once every copy is resolved (plan_copies.c) */
		snprintf(msg, sizeof(msg), "in no copy of %s: %s, in %s%s", c->t->pattern.text,
			 why.msg, c->t->target.module, c->v->pid > 0 ? ", nor among the globals "
			 "of the process's other modules" : "");
		gs_errorf(&why, -ENOENT, "%s", msg);
		if (rt_copies_add(c->copies, c->probe, e, &why))
			c->rc = gs_errorf(c->err, -ENOMEM, "out of memory resolving the names of "
					  "trace `%s`", c->t->pattern.text);
		return NULL;
	}
	if (why.code == -ENOENT)
		snprintf(msg, sizeof(msg), "%s, in %s%s", why.msg, c->t->target.module,
			 c->v->pid > 0 ? ", nor among the globals of the process's other modules" :
			 "");
	else
		snprintf(msg, sizeof(msg), "%s", why.msg);
	fail_at(c, e, why.code ? why.code : -EINVAL, msg);
	return NULL;
}

static const struct gs_type *cast_type(struct probe_ctx *c, const struct gs_expr *e)
{
	const struct gs_type *t;
	struct gs_error why;

	if (gs_dwarf_find_type(c->m->d, c->scope, e->type_name, &t, &why) == 0)
		return t;
	if (why.code == -ENOENT) {
		struct gs_error other = { 0 };

		t = other_module_type(c, e, &other);
		if (t)
			return t;
		if (other.code)
			why = other;
	}
	fail_at(c, e, why.code ? why.code : -EINVAL, why.msg);
	return NULL;
}

/* gdb's rule for a bare name in a C++ member function: parameters and
 * locals first, then the members of *this, then statics and globals. The
 * `this` parameter when name is a member of *this that no parameter or
 * local hides, else NULL. */
static const struct gs_var *this_holding(const struct gs_dwarf_scope *s, const char *name)
{
	const struct gs_var *self = NULL;
	const struct gs_type *t;
	uint32_t off = 0;

	if (!s || strcmp(name, "this") == 0)
		return NULL;
	for (size_t i = 0; i < s->nlocals; i++) {
		if (strcmp(s->vars[i].name, name) == 0)
			return NULL;
		if (!self && strcmp(s->vars[i].name, "this") == 0)
			self = &s->vars[i];
	}
	if (!self || !(t = self->type) || t->kind != GS_TYPE_POINTER || !(t = t->target) ||
	    (t->kind != GS_TYPE_STRUCT && t->kind != GS_TYPE_UNION))
		return NULL;
	return gs_type_find_member(t, name, &off) ? self : NULL;
}

/* n (a bare name) as this->name: its `this` node is attached after the
 * copy (this_members_attach). */
static void read_through_this(struct probe_ctx *c, struct gs_expr *n, const struct gs_var *self)
{
	struct this_member *m = alloc(c, sizeof(*m));
	struct gs_expr *lhs = alloc(c, sizeof(*lhs));

	if (!m || !lhs)
		return;
	*lhs = (struct gs_expr){ .kind = GS_EXPR_NAME, .text = "this", .name = "this",
				 .dvar = self, .pos = n->pos };
	n->kind = GS_EXPR_MEMBER;
	n->dvar = NULL;
	*m = (struct this_member){ .node = n, .self = lhs, .next = c->members };
	c->members = m;
}

static void this_members_attach(struct probe_ctx *c)
{
	for (struct this_member *m = c->members; m; m = m->next)
		m->node->lhs = m->self;
	c->members = NULL;
}

/* ---- $retval ---------------------------------------------------------------------- */

/* $retval of the function at c->pc as a variable in rax (and rdx), or in
 * the memory rax points to, as the dwarf layer places it by the ABI; NULL
 * (with no error) to keep it the raw rax of a function DWARF does not
 * describe, or that returns void. */
static const struct gs_var *typed_retval(struct probe_ctx *c, const struct gs_expr *e)
{
	const struct gs_type *t;
	const char *fn;
	struct gs_var *var;
	struct gs_loc_piece *pc;
	char msg[2 * GS_ERROR_MSG_MAX];
	struct gs_error why;

	if (gs_dwarf_return_type(c->m->d, c->pc, &t, &fn, &why) || !t)
		return NULL;
	var = alloc(c, sizeof(*var) + 2 * sizeof(*pc));
	if (!var)
		return NULL;
	pc = (struct gs_loc_piece *)(var + 1);
	var->loc.cookie = c->m->cookie;
	if (dwv_retval_place(t, fn ? fn : c->t->pattern.text, var, pc, msg, sizeof(msg))) {
		fail_at(c, e, -EINVAL, msg);
		return NULL;
	}
	return var;
}

/* ---- the copy ------------------------------------------------------------------------ */

/* Each node of the copy: a name at its variable here, a cast at its type,
 * a typed return probe's $retval at the function's return value. */
static int resolve(struct gs_spec_copier *copier, struct gs_expr *n)
{
	struct probe_ctx *c = copier->arg;
	const struct gs_var *self;

	switch (n->kind) {
	case GS_EXPR_NAME:
		if (!c->t->spec.retprobe && (self = this_holding(c->scope, n->name)))
			read_through_this(c, n, self);
		else
			n->dvar = tls_checked(c, lookup(c, n));
		break;
	case GS_EXPR_CAST:
		n->cast_type = cast_type(c, n);
		break;
	case GS_EXPR_SPECIAL:
		if (n->special == GS_SPECIAL_RETVAL && c->t->spec.retprobe && !c->retval_typed) {
			c->retval = typed_retval(c, n);
			c->retval_typed = true;
		}
		if (n->special == GS_SPECIAL_RETVAL && c->t->spec.retprobe && c->retval) {
			n->kind = GS_EXPR_NAME;
			n->name = "$retval";
			n->dvar = c->retval;
		}
		break;
	default:
		break;
	}
	return c->rc;
}

static void *copy_alloc(struct gs_spec_copier *copier, size_t n)
{
	return alloc(copier->arg, n);
}

static void *var_alloc(void *arg, size_t n)
{
	return alloc(arg, n);
}

static bool retval_used(const struct gs_plan_trace *t)
{
	return t->spec.retprobe && rt_body_needs_dwarf(t->spec.body, t->spec.nbody, true) &&
	       !rt_body_needs_dwarf(t->spec.body, t->spec.nbody, false);
}

int rt_values_resolve(struct rt_values *v, struct gs_plan_trace *t, const struct gs_expr **at,
		      struct gs_error *err)
{
	const struct rt_dwarf_module *m;
	const struct gs_dwarf_scope **scopes;
	bool function = t->pattern.kind == GS_TARGET_FUNCTION;
	/* A function traced in several copies: a copy lacking a name reads it
	 * as optimized out, unless every copy lacks it. */
	bool several = function && t->nprobes > 1;
	struct rt_copies copies = { 0 };
	int rc;

	*at = NULL;
	v->tls_note[0] = '\0';
	rc = rt_dwarf_module(v->cache, t->target.module, 0, &m, err);
	if (rc)
		return rc;
	if (!m->d) {
		/* Without DWARF a return probe keeps $retval as rax. */
		if (retval_used(t))
			return 0;
		return gs_errorf(err, -ENOENT, "trace `%s` reads variables, and %s", t->pattern.text,
				 rt_dwarf_module_why(m));
	}
	scopes = calloc(t->nprobes ? t->nprobes : 1, sizeof(*scopes));
	if (!scopes)
		return gs_errorf(err, -ENOMEM, "out of memory planning trace `%s`", t->pattern.text);
	for (size_t i = 0; i < t->nprobes && rc == 0; i++) {
		struct probe_ctx c = { .v = v, .t = t, .m = m, .pc = t->probes[i].loc->addr,
				       .at = at, .err = err, .probe = i,
				       .copies = several ? &copies : NULL };
		struct gs_error why;

		/* A function's probe reads names in the function's frame, as gdb's
		 * `break FN` shows it, even where the address after the prologue
		 * starts a call inlined into it. */
		rc = function ? gs_dwarf_frame_scope_at(m->d, c.pc, t->pattern.name, &c.scope, &why)
			      : gs_dwarf_scope_at(m->d, c.pc, &c.scope, &why);
		if (rc == -ENOMEM) {
			rc = gs_errorf(err, rc, "%s", why.msg);
			break;
		}
		/* No CU there: globals only (the lookup takes a NULL scope). */
		c.scope = rc ? NULL : c.scope;
		scopes[i] = c.scope;
		struct gs_spec_copier copier = { .alloc = copy_alloc, .expr = resolve, .arg = &c };

		t->probes[i].body = gs_spec_copy_body(&copier, t->spec.body, t->spec.nbody);
		this_members_attach(&c);
		rc = c.rc;
		if (rc == 0 && i + 1 == t->nprobes)
			rc = rt_copies_finish(&copies, t, m->d, m->file, scopes, var_alloc, &c, at,
					      err);
	}
	rt_copies_free(&copies);
	free(scopes);
	free(t->tls_note);
	t->tls_note = NULL;
	if (rc == 0 && v->tls_note[0] &&
	    asprintf(&t->tls_note, "%s; %s <optimized out> (docs/tls.md)", v->tls_note,
		     strchr(v->tls_note, ';') ? "they print" : "it prints") < 0)
		rc = gs_errorf(err, -ENOMEM, "out of memory describing trace `%s`", t->pattern.text);
	return rc;
}
