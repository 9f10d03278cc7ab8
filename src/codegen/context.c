/* String, variable-name and type tables of a trace, indexed by u16 on the
 * wire. Lookups of existing strings are linear: a trace has tens of
 * strings, and the tables are built once per compile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/context.h>

void gs_context_init(struct gs_trace_context *c)
{
	memset(c, 0, sizeof(*c));
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void gs_context_fini(struct gs_trace_context *c)
{
	free_strings(c->strings, c->nstrings);
	free_strings(c->var_names, c->nvar_names);
	for (size_t i = 0; i < c->ntypes; i++)
		free((char *)c->types[i].name);
	free(c->types);
	memset(c, 0, sizeof(*c));
}

/* Makes room for one more element; 0 or -ENOMEM. */
static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

static int intern(char ***v, size_t *n, size_t *cap, const char *s, const char *what,
		  struct gs_error *err)
{
	char *copy;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return (int)i;
	if (*n > GS_CONTEXT_MAX_INDEX)
		return gs_errorf(err, -E2BIG, "a trace may use at most %d %s; \"%.40s\" is one "
				 "too many: split the script into more traces",
				 GS_CONTEXT_MAX_INDEX + 1, what, s);
	if (grow((void **)v, cap, *n, sizeof(**v)) || !(copy = strdup(s)))
		return gs_errorf(err, -ENOMEM, "out of memory adding %s \"%.40s\"", what, s);
	(*v)[*n] = copy;
	return (int)(*n)++;
}

int gs_context_string(struct gs_trace_context *c, const char *s, struct gs_error *err)
{
	return intern(&c->strings, &c->nstrings, &c->strings_cap, s, "strings", err);
}

int gs_context_var_name(struct gs_trace_context *c, const char *name, struct gs_error *err)
{
	return intern(&c->var_names, &c->nvar_names, &c->var_names_cap, name, "variable names",
		      err);
}

int gs_context_type(struct gs_trace_context *c, uint8_t kind, uint8_t size, const char *name,
		    struct gs_error *err)
{
	char *copy;

	if (c->ntypes > GS_CONTEXT_MAX_INDEX)
		return gs_errorf(err, -E2BIG, "a trace may use at most %d value types",
				 GS_CONTEXT_MAX_INDEX + 1);
	if (grow((void **)&c->types, &c->types_cap, c->ntypes, sizeof(*c->types)) ||
	    !(copy = strdup(name ? name : "")))
		return gs_errorf(err, -ENOMEM, "out of memory adding type %s", name ? name : "");
	c->types[c->ntypes] = (struct gs_type){ .kind = kind, .size = size, .name = copy };
	return (int)c->ntypes++;
}

const char *gs_context_get_string(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->nstrings ? c->strings[index] : NULL;
}

const char *gs_context_get_var_name(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->nvar_names ? c->var_names[index] : NULL;
}

const struct gs_type *gs_context_get_type(const struct gs_trace_context *c, uint32_t index)
{
	return index < c->ntypes ? &c->types[index] : NULL;
}
