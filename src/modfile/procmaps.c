/* /proc/PID/maps: the parser (paths with spaces, " (deleted)", anonymous
 * and [pseudo] mappings) and the grouping of file mappings into modules by
 * normalized path and (device, inode) (docs/unwind.md, "Process maps and
 * load bias"). Pure functions over text, except gs_maps_read(). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"
#include "base.h"

#define DELETED_SUFFIX " (deleted)"

struct cursor {
	const char *p, *end;
};

static bool hex_digit(char c, unsigned *v)
{
	int d = base_hex_digit(c);

	*v = (unsigned)d;
	return d >= 0;
}

/* A number in `base` (16 or 10) followed by `stop`, which is consumed;
 * stop '\0' accepts a space (consumed) or the end of the line. */
static bool number(struct cursor *c, unsigned base, char stop, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;
	unsigned d = 0;

	while (c->p < c->end && *c->p != (stop ? stop : ' ')) {
		if (base == 16 && !hex_digit(*c->p, &d))
			return false;
		if (base == 10) {
			if (*c->p < '0' || *c->p > '9')
				return false;
			d = (unsigned)(*c->p - '0');
		}
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
		c->p++;
		digits++;
	}
	if (!digits || (c->p >= c->end && stop))
		return false;
	if (c->p < c->end)
		c->p++; /* the stop character */
	*out = v;
	return true;
}

static int parse_line(const char *line, size_t len, struct gs_map_entry *e)
{
	struct cursor c = { line, line + len };
	uint64_t dmaj, dmin;
	char path[PATH_MAX + sizeof(DELETED_SUFFIX)];
	size_t plen, sl = strlen(DELETED_SUFFIX);

	memset(e, 0, sizeof(*e));
	if (!number(&c, 16, '-', &e->start) || !number(&c, 16, ' ', &e->end) || e->end < e->start)
		return -EINVAL;
	if (c.end - c.p < 5 || c.p[4] != ' ')
		return -EINVAL;
	memcpy(e->perms, c.p, 4);
	c.p += 5;
	if (!number(&c, 16, ' ', &e->offset) || !number(&c, 16, ':', &dmaj) ||
	    !number(&c, 16, ' ', &dmin) || dmaj > UINT32_MAX || dmin > UINT32_MAX)
		return -EINVAL;
	e->dev_major = (uint32_t)dmaj;
	e->dev_minor = (uint32_t)dmin;
	if (!number(&c, 10, '\0', &e->inode))
		return -EINVAL;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	plen = (size_t)(c.end - c.p);
	if (plen == 0)
		return 0;
	if (plen >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, c.p, plen);
	path[plen] = '\0';
	e->deleted = plen >= sl && strcmp(path + plen - sl, DELETED_SUFFIX) == 0;
	e->kind = path[0] == '/' ? GS_MAP_FILE : GS_MAP_PSEUDO;
	if (e->kind == GS_MAP_FILE) {
		char norm[PATH_MAX];

		if (mf_path_normalize(path, norm, sizeof(norm)) < 0)
			return -ENAMETOOLONG;
		e->path = strdup(norm);
	} else {
		e->path = strdup(path);
	}
	return e->path ? 0 : -ENOMEM;
}

int gs_maps_parse(const char *text, size_t len, struct gs_maps *out, struct gs_error *err)
{
	size_t lineno = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		struct gs_map_entry e;
		int rc;

		lineno++;
		if (n == 0) {
			i += 1;
			continue;
		}
		rc = parse_line(text + i, n, &e);
		if (rc == 0 && base_grow((void **)&out->entries, &out->cap, out->n + 1, sizeof(e)))
			rc = -ENOMEM;
		if (rc) {
			free(e.path);
			gs_maps_free(out);
			return gs_errorf(err, rc, "maps line %zu is not `start-end perms offset major:minor inode [path]`: %.*s",
					 lineno, (int)(n > 120 ? 120 : n), text + i);
		}
		out->entries[out->n++] = e;
		i += n + 1;
	}
	return 0;
}

int gs_maps_read(pid_t pid, struct gs_maps *out, struct gs_error *err)
{
	char path[64], *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, rc = 0;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return gs_errorf(err, rc, "cannot open %s: %s; is process %d running and visible?",
				 path, strerror(-rc), (int)pid);
	}
	for (;;) {
		ssize_t n;

		if (base_grow((void **)&buf, &cap, len + 65536, 1)) {
			rc = gs_errorf(err, -ENOMEM, "out of memory reading %s", path);
			break;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			gs_errorf(err, rc, "cannot read %s: %s", path, strerror(-rc));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!rc)
		rc = gs_maps_parse(buf, len, out, err);
	free(buf);
	return rc;
}

void gs_maps_free(struct gs_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->entries[i].path);
	free(m->entries);
	memset(m, 0, sizeof(*m));
}

static bool groupable(const struct gs_map_entry *e)
{
	if (e->kind != GS_MAP_FILE || !e->path)
		return false;
	return !base_has_prefix(e->path, "/proc/") && !base_has_prefix(e->path, "/sys/");
}

static struct mf_maps_module *find_module(struct mf_maps_module *mods, size_t n,
					  const struct gs_map_entry *e)
{
	for (size_t i = 0; i < n; i++)
		if (mods[i].inode == e->inode && mods[i].dev_major == e->dev_major &&
		    mods[i].dev_minor == e->dev_minor && strcmp(mods[i].path, e->path) == 0)
			return &mods[i];
	return NULL;
}

int mf_maps_group(const struct gs_maps *m, struct mf_maps_module **out, size_t *n,
		  struct gs_error *err)
{
	struct mf_maps_module *mods = NULL;
	size_t nmods = 0, cap = 0;
	size_t *caps = NULL, caps_cap = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct gs_map_entry *e = &m->entries[i];
		struct mf_maps_module *mod;
		size_t mi;

		if (!groupable(e))
			continue;
		mod = find_module(mods, nmods, e);
		if (!mod) {
			if (base_grow((void **)&mods, &cap, nmods + 1, sizeof(*mods)) ||
			    base_grow((void **)&caps, &caps_cap, nmods + 1, sizeof(*caps)))
				goto oom;
			mod = &mods[nmods];
			caps[nmods++] = 0;
			*mod = (struct mf_maps_module){
				.path = e->path, .dev_major = e->dev_major, .dev_minor = e->dev_minor,
				.inode = e->inode, .deleted = e->deleted, .base = e->start, .end = e->end,
			};
		}
		mi = (size_t)(mod - mods);
		if (base_grow((void **)&mod->maps, &caps[mi], mod->nmaps + 1, sizeof(*mod->maps)))
			goto oom;
		mod->maps[mod->nmaps++] = i;
		if (e->start < mod->base)
			mod->base = e->start;
		if (e->end > mod->end)
			mod->end = e->end;
	}
	free(caps);
	*out = mods;
	*n = nmods;
	return 0;
oom:
	free(caps);
	mf_maps_modules_free(mods, nmods);
	*out = NULL;
	*n = 0;
	return gs_errorf(err, -ENOMEM, "out of memory grouping %zu mappings", m->n);
}

void mf_maps_modules_free(struct mf_maps_module *mods, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(mods[i].maps);
	free(mods);
}
