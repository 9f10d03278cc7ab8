/* The function-name index of a module's DWARF: for each name, the DIE
 * offsets of the defining subprograms that dwarf_getfuncs finds in every
 * compile unit (nested functions and imported units included), in the
 * order of that walk, so that a lookup answers exactly what the walk of
 * every unit would, without walking them. Built by that very walk once per
 * module, then kept on disk by build id (cachefile.c): a module's later
 * runs read it instead of its DWARF. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "mf_int.h"
#include "base.h"

#define INDEX_MAGIC "GSFNX\0\0\1"
#define INDEX_VERSION 1u
#define INDEX_EXT MF_CACHE_EXT_INDEX

struct mf_funcindex {
	struct mf_funcname *names; /* sorted by strcmp of their names */
	uint64_t *offs;            /* DIE offsets, grouped by name, walk order */
	char *pool;                /* the names, each NUL-terminated */
	size_t nnames, noffs, pool_size;
	void *blob;                /* read from disk: the three arrays are in it */
};

/* What follows the pinned header on disk: the counts, then the arrays. */
struct index_counts {
	uint64_t nnames, noffs, pool_size;
};

/* What the index is computed from: the DIEs, their abbreviations, the
 * strings names come from, and the link to a dwz file (whose build id
 * .gnu_debugaltlink holds). Compressed sections count as libdw left them
 * (opened first). */
static const char *const index_sections[] = {
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_str_offsets",
	".debug_line_str", ".gnu_debugaltlink", ".debug_sup", ".zdebug_info",
	".zdebug_abbrev", ".zdebug_str",
};

struct index_header {
	char magic[8];
	uint32_t version;
	uint32_t name_size;
	uint32_t build_id_len;
	uint8_t build_id[GS_BUILD_ID_MAX];
	uint32_t pad;
	uint64_t content;
	uint64_t nnames, noffs, pool_size; /* not pinned: struct index_counts */
};

_Static_assert(sizeof(struct index_header) ==
	       offsetof(struct index_header, nnames) + sizeof(struct index_counts),
	       "the counts end the header");
_Static_assert(sizeof(struct mf_funcname) % 8 == 0 && sizeof(struct index_counts) % 8 == 0,
	       "the arrays after the counts stay 8-byte aligned");

void mf_funcindex_free(struct mf_funcindex *x)
{
	if (!x)
		return;
	if (x->blob) {
		free(x->blob);
	} else {
		free(x->names);
		free(x->offs);
		free(x->pool);
	}
	free(x);
}

/* ---- building: one walk of every unit ------------------------------------- */

struct raw {
	const char *name; /* libdw's, valid while the Dwarf is */
	uint64_t off;
	size_t seq;
};

struct walk {
	struct raw *v;
	size_t n, cap;
	int rc;
};

static int visit(Dwarf_Die *die, void *arg)
{
	struct walk *w = arg;
	const char *name = dwarf_diename(die);

	if (!name)
		return DWARF_CB_OK;
	if (base_grow((void **)&w->v, &w->cap, w->n + 1, sizeof(*w->v))) {
		w->rc = -ENOMEM;
		return DWARF_CB_ABORT;
	}
	w->v[w->n] = (struct raw){ name, dwarf_dieoffset(die), w->n };
	w->n++;
	return DWARF_CB_OK;
}

static int by_name_then_walk(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mf_funcindex_walk(Dwarf *dw, int (*cb)(Dwarf_Die *die, void *arg), void *arg)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	Dwarf_Half version;
	uint8_t unit_type;

	while (dwarf_get_units(dw, cu, &next, &version, &unit_type, &cudie, NULL) == 0) {
		cu = next;
		if ((unit_type == DW_UT_compile || unit_type == DW_UT_partial) &&
		    dwarf_getfuncs(&cudie, cb, arg, 0) > 0)
			return -ECANCELED; /* the callback stopped it */
	}
	return 0;
}

static int fill(struct mf_funcindex *x, struct raw *v, size_t n)
{
	size_t pool = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i - 1].name, v[i].name) != 0) {
			x->nnames++;
			pool += strlen(v[i].name) + 1;
		}
	if (x->nnames > UINT32_MAX || n > UINT32_MAX || pool > UINT32_MAX)
		return -E2BIG;
	x->names = malloc((x->nnames ? x->nnames : 1) * sizeof(*x->names));
	x->offs = malloc((n ? n : 1) * sizeof(*x->offs));
	x->pool = malloc(pool ? pool : 1);
	if (!x->names || !x->offs || !x->pool)
		return -ENOMEM;
	x->noffs = n;
	x->pool_size = pool;
	pool = 0;
	for (size_t i = 0, k = 0; i < n; i++) {
		if (i == 0 || strcmp(v[i - 1].name, v[i].name) != 0) {
			size_t len = strlen(v[i].name) + 1;

			x->names[k++] = (struct mf_funcname){ .name = (uint32_t)pool,
							      .first = (uint32_t)i };
			memcpy(x->pool + pool, v[i].name, len);
			pool += len;
		}
		x->names[k - 1].count++;
		x->offs[i] = v[i].off;
	}
	return 0;
}

int mf_funcindex_build(Dwarf *dw, struct mf_funcindex **out)
{
	struct mf_funcindex *x = calloc(1, sizeof(*x));
	struct walk w = { 0 };
	int rc;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	rc = mf_funcindex_walk(dw, visit, &w);
	if (w.rc)
		rc = w.rc;
	if (rc == 0 && w.n)
		qsort(w.v, w.n, sizeof(*w.v), by_name_then_walk);
	if (rc == 0)
		rc = fill(x, w.v, w.n);
	free(w.v);
	if (rc) {
		mf_funcindex_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

/* ---- lookups ---------------------------------------------------------------- */

struct name_key {
	const struct mf_funcindex *x;
	const char *name;
};

static bool name_below(const void *ctx, size_t i)
{
	const struct name_key *k = ctx;

	return strcmp(k->x->pool + k->x->names[i].name, k->name) < 0;
}

size_t mf_funcindex_find(const struct mf_funcindex *x, const char *name, const uint64_t **offs)
{
	size_t at = mf_funcindex_lower(x, name);

	*offs = NULL;
	if (at == x->nnames || strcmp(x->pool + x->names[at].name, name) != 0)
		return 0;
	*offs = x->offs + x->names[at].first;
	return x->names[at].count;
}

size_t mf_funcindex_lower(const struct mf_funcindex *x, const char *key)
{
	struct name_key k = { x, key };

	return base_lower_bound(0, x->nnames, &k, name_below);
}

size_t mf_funcindex_count(const struct mf_funcindex *x)
{
	return x->nnames;
}

const char *mf_funcindex_at(const struct mf_funcindex *x, size_t i, const uint64_t **offs,
			    size_t *n)
{
	*offs = x->offs + x->names[i].first;
	*n = x->names[i].count;
	return x->pool + x->names[i].name;
}

/* ---- on disk ------------------------------------------------------------------ */

static void header_for(struct index_header *h, Elf *elf, const uint8_t *id, size_t len)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, INDEX_MAGIC, sizeof(h->magic));
	h->version = INDEX_VERSION;
	h->name_size = sizeof(struct mf_funcname);
	h->build_id_len = (uint32_t)len;
	memcpy(h->build_id, id, len);
	h->content = mf_cache_content(elf, index_sections,
				      BASE_ARRAY_SIZE(index_sections));
}

/* Every record inside the arrays, the names in strictly increasing order
 * (binary search relies on it) and the offsets shared out in order. */
static bool well_formed(const struct mf_funcindex *x)
{
	uint64_t next = 0;

	if (x->pool_size == 0 ? x->nnames != 0 : x->pool[x->pool_size - 1] != '\0')
		return false;
	for (size_t i = 0; i < x->nnames; i++) {
		const struct mf_funcname *r = &x->names[i];

		if (r->name >= x->pool_size || r->first != next || r->count == 0 ||
		    r->count > x->noffs - next)
			return false;
		if (i && strcmp(x->pool + x->names[i - 1].name, x->pool + r->name) >= 0)
			return false;
		next += r->count;
	}
	return next == x->noffs;
}

int mf_funcindex_parse(const void *body, size_t size, struct mf_funcindex **out)
{
	struct index_counts k;
	struct mf_funcindex *x;
	uint8_t *blob;

	*out = NULL;
	if (size < sizeof(k))
		return -EINVAL;
	memcpy(&k, body, sizeof(k));
	if (k.nnames > UINT32_MAX || k.noffs > UINT32_MAX || k.pool_size > UINT32_MAX ||
	    size != sizeof(k) + k.nnames * sizeof(struct mf_funcname) +
			    k.noffs * sizeof(uint64_t) + k.pool_size)
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	blob = malloc(size);
	if (!x || !blob) {
		free(x);
		free(blob);
		return -ENOMEM;
	}
	/* the arrays stay 8-byte aligned: the counts are 24 bytes, a name 16 */
	memcpy(blob, body, size);
	x->blob = blob;
	x->nnames = k.nnames;
	x->noffs = k.noffs;
	x->pool_size = k.pool_size;
	x->names = (struct mf_funcname *)(blob + sizeof(k));
	x->offs = (uint64_t *)(blob + sizeof(k) + x->nnames * sizeof(*x->names));
	x->pool = (char *)(x->offs + x->noffs);
	if (!well_formed(x)) {
		mf_funcindex_free(x);
		return -EINVAL;
	}
	*out = x;
	return 0;
}

int mf_funcindex_load(const char *dir, Elf *elf, const uint8_t *id, size_t len,
		      struct mf_funcindex **out)
{
	const size_t pinned = offsetof(struct index_header, nnames);
	struct index_header want;
	uint64_t size;
	void *body = NULL;
	int fd, rc = -EINVAL;

	*out = NULL;
	fd = mf_cache_open(dir, id, len, INDEX_EXT, &size);
	if (fd < 0)
		return fd;
	header_for(&want, elf, id, len);
	if (mf_cache_pinned(fd, size, &want, pinned) && size - pinned <= SIZE_MAX &&
	    (body = malloc(size - pinned ? size - pinned : 1)) &&
	    mf_cache_read(fd, body, size - pinned))
		rc = mf_funcindex_parse(body, size - pinned, out);
	free(body);
	close(fd);
	return rc;
}

void mf_funcindex_store(const char *dir, Elf *elf, const uint8_t *id, size_t len,
			const struct mf_funcindex *x)
{
	struct index_header h;

	if (!dir || len == 0 || len > GS_BUILD_ID_MAX)
		return;
	header_for(&h, elf, id, len);
	h.nnames = x->nnames;
	h.noffs = x->noffs;
	h.pool_size = x->pool_size;
	mf_cache_store(dir, id, len, INDEX_EXT, (const struct mf_cache_part[]){
			       { &h, sizeof(h) },
			       { x->names, x->nnames * sizeof(*x->names) },
			       { x->offs, x->noffs * sizeof(*x->offs) },
			       { x->pool, x->pool_size },
		       }, 4);
}
