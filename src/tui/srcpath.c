/* Build-time source paths to the files on this machine. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "srcpath.h"

void tui_srcpath_init(struct tui_srcpath *p)
{
	memset(p, 0, sizeof(*p));
}

void tui_srcpath_fini(struct tui_srcpath *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		free(p->maps[i].from);
		free(p->maps[i].to);
	}
	for (size_t i = 0; i < p->ndirs; i++)
		free(p->dirs[i]);
	free(p->maps);
	free(p->dirs);
	memset(p, 0, sizeof(*p));
}

/* An absolute path without its trailing '/' (the root stays "/"). */
static char *dir_copy(const char *s)
{
	size_t n = strlen(s);
	char *c;

	if (n == 0 || s[0] != '/')
		return NULL;
	while (n > 1 && s[n - 1] == '/')
		n--;
	c = malloc(n + 1);
	if (c) {
		memcpy(c, s, n);
		c[n] = '\0';
	}
	return c;
}

int tui_srcpath_map(struct tui_srcpath *p, const char *from, const char *to)
{
	char *f, *t;

	if (!from[0] || from[0] != '/' || !to[0] || to[0] != '/')
		return -EINVAL;
	f = dir_copy(from);
	t = dir_copy(to);
	if (!f || !t) {
		free(f);
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nmaps; i++) {
		if (strcmp(p->maps[i].from, f) == 0) {
			free(f);
			free(p->maps[i].to);
			p->maps[i].to = t;
			return 0;
		}
	}
	if (base_grow((void **)&p->maps, &p->maps_cap, p->nmaps + 1, sizeof(*p->maps))) {
		free(f);
		free(t);
		return -ENOMEM;
	}
	p->maps[p->nmaps++] = (struct tui_srcpath_map){ f, t };
	return 0;
}

int tui_srcpath_add(struct tui_srcpath *p, const char *dir)
{
	char *d;

	if (!dir[0] || dir[0] != '/')
		return -EINVAL;
	if (!(d = dir_copy(dir)))
		return -ENOMEM;
	for (size_t i = 0; i < p->ndirs; i++) {
		if (strcmp(p->dirs[i], d) == 0) {
			free(d);
			return 0;
		}
	}
	if (base_grow((void **)&p->dirs, &p->dirs_cap, p->ndirs + 1, sizeof(*p->dirs))) {
		free(d);
		return -ENOMEM;
	}
	p->dirs[p->ndirs++] = d;
	return 0;
}

int tui_srcpath_arg(struct tui_srcpath *p, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *from;
	int rc;

	if (!eq)
		return tui_srcpath_add(p, arg);
	from = strndup(arg, (size_t)(eq - arg));
	if (!from)
		return -ENOMEM;
	rc = tui_srcpath_map(p, from, eq + 1);
	free(from);
	return rc;
}

/* path under prefix: prefix equal to path or followed by '/' in it. */
static const char *under(const char *path, const char *prefix)
{
	const char *rest = base_after_prefix(path, prefix);

	if (!rest)
		return NULL;
	if (*rest == '/' || *rest == '\0')
		return rest;
	return strcmp(prefix, "/") == 0 ? rest : NULL; /* prefix "/" */
}

static char *joined(const char *a, const char *b)
{
	char *s;

	if (asprintf(&s, "%s%s%s", a, b[0] == '/' || !b[0] ? "" : "/", b) < 0)
		return NULL;
	return s;
}

/* Calls fn with each candidate in order until it returns true; each
 * candidate is malloc'd and handed over to fn. */
static void each_candidate(const struct tui_srcpath *p, const char *path,
			   bool (*fn)(void *arg, char *cand), void *arg)
{
	const char *rest, *tail;
	char *c;

	for (size_t i = 0; i < p->nmaps; i++)
		if ((rest = under(path, p->maps[i].from)) && (c = joined(p->maps[i].to, rest)) &&
		    fn(arg, c))
			return;
	if ((c = strdup(path)) && fn(arg, c))
		return;
	/* Each directory with ever shorter tails: a/b/c.c, b/c.c, c.c. */
	for (size_t i = 0; i < p->ndirs; i++) {
		for (tail = path; tail; tail = strchr(tail + 1, '/')) {
			const char *t = tail[0] == '/' ? tail + 1 : tail;

			if (!*t)
				break;
			if ((c = joined(p->dirs[i], t)) && fn(arg, c))
				return;
		}
	}
}

struct find_state {
	int (*exists)(const char *path);
	char *found;
};

static int readable(const char *path)
{
	return access(path, R_OK);
}

static bool try_exists(void *arg, char *cand)
{
	struct find_state *st = arg;

	if (st->exists(cand) == 0) {
		st->found = cand;
		return true;
	}
	free(cand);
	return false;
}

char *tui_srcpath_find(const struct tui_srcpath *p, const char *path,
		       int (*exists)(const char *path))
{
	struct find_state st = { exists ? exists : readable, NULL };

	each_candidate(p, path, try_exists, &st);
	return st.found;
}

struct list_state {
	char **out;
	size_t n, max;
};

static bool collect(void *arg, char *cand)
{
	struct list_state *st = arg;

	if (st->n == st->max) {
		free(cand);
		return true;
	}
	st->out[st->n++] = cand;
	return false;
}

size_t tui_srcpath_candidates(const struct tui_srcpath *p, const char *path, char **out,
			      size_t max)
{
	struct list_state st = { out, 0, max };

	if (max)
		each_candidate(p, path, collect, &st);
	return st.n;
}
