/* The module-file cache: each ELF file a run reads is opened once, found
 * again by the identity stat() gives (so a hit opens nothing), and keeps
 * its libdwfl module (one Dwfl per file, reported at bias 0), its layout,
 * its cookie and a slot for its CFI rows (one table per build id, whatever
 * file carries it; the unwind layer builds them). Opening never blocks and
 * trusts the descriptor only. */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/modfile.h>

#include "opts.h"
#include "mf_int.h"
#include "base.h"

#define DEFAULT_DEBUG_DIRS "/usr/lib/debug"

/* libdwfl asks for a main file only for modules reported without one. */
static int no_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		  char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name, (void)elfp;
	return -1;
}

int gs_modfiles_new(const struct gs_modfiles_opts *opts, struct gs_modfiles **out,
		    struct gs_error *err)
{
	struct gs_modfiles_opts o;
	struct gs_modfiles *c;
	int rc;

	*out = NULL;
	rc = OPTS_COPY(&o, opts, gs_modfiles_opts, err);
	if (rc)
		return rc;
	if (o.debug_dirs && !mf_debug_dirs_valid(o.debug_dirs))
		return gs_errorf(err, -EINVAL, "debug-file directories `%s`: give absolute "
				 "directories separated by ':'", o.debug_dirs);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return gs_errorf(err, -EINVAL, "libelf is unusable: %s", elf_errmsg(-1));
	c = calloc(1, sizeof(*c));
	if (c)
		c->debug_dirs = strdup(o.debug_dirs ? o.debug_dirs : DEFAULT_DEBUG_DIRS);
	if (c && o.cfi_cache_dir && !(c->cfi_cache_dir = strdup(o.cfi_cache_dir))) {
		free(c->debug_dirs);
		c->debug_dirs = NULL;
	}
	if (!c || !c->debug_dirs) {
		free(c);
		return gs_errorf(err, -ENOMEM, "out of memory creating the module-file cache");
	}
	c->cache_max_bytes = o.cache_max_bytes;
	mf_prefetch_init(c);
	c->cb = (Dwfl_Callbacks){
		.find_elf = no_elf,
		.find_debuginfo = mf_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &c->debug_dirs,
	};
	*out = c;
	return 0;
}

void gs_modfiles_free(struct gs_modfiles *c)
{
	if (!c)
		return;
	mf_prefetch_stop(c);
	/* after the run's stores (the worker's among them, ended above): a
	 * run adds at most what it stored to a cache at its cap, and removes
	 * it at exit; skipped when another run is trimming */
	if (c->cfi_cache_dir)
		gs_cache_trim(c->cfi_cache_dir, c->cache_max_bytes, NULL, NULL);
	for (size_t i = 0; i < c->n; i++) {
		mf_funcindex_free(c->v[i]->funcs);
		dwfl_end(c->v[i]->pre.dwfl);
		dwfl_end(c->v[i]->dwfl);
		free(c->v[i]->path);
		free(c->v[i]->open_path);
		free(c->v[i]);
	}
	for (size_t i = 0; i < c->ncfi; i++) {
		if (c->cfi[i]->fini)
			c->cfi[i]->fini(c->cfi[i]->table);
		free(c->cfi[i]->msg);
		free(c->cfi[i]);
	}
	free(c->v);
	free(c->cfi);
	free(c->debug_dirs);
	free(c->cfi_cache_dir);
	free(c);
}

struct gs_modfile *gs_modfiles_by_cookie(const struct gs_modfiles *c, uint64_t cookie)
{
	for (size_t i = 0; cookie && i < c->n; i++)
		if (c->v[i]->id.cookie == cookie)
			return c->v[i];
	return NULL;
}

size_t gs_modfiles_opened(const struct gs_modfiles *c)
{
	return c->opened;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000ll + st->st_mtim.tv_nsec;
}

static struct gs_modfile *find_file(const struct gs_modfiles *c, const struct stat *st)
{
	/* Newest first: a file rewritten in place is a new entry. */
	for (size_t i = c->n; i-- > 0;) {
		struct gs_modfile *m = c->v[i];

		if (m->dev == st->st_dev && m->ino == st->st_ino && m->size == (uint64_t)st->st_size &&
		    m->mtime_ns == mtime_ns(st))
			return m;
	}
	return NULL;
}

/* A regular file with the identity asked for, else why not. */
static int check_stat(const struct stat *st, const struct gs_modfile_src *s, const char *p,
		      struct gs_error *err)
{
	if (!S_ISREG(st->st_mode))
		return gs_errorf(err, -EINVAL, "%s is %s, not a regular file; give an executable "
				 "or a shared library", p, mf_file_kind(st->st_mode));
	if ((s->ino && st->st_ino != s->ino) || (s->dev && st->st_dev != s->dev))
		return gs_errorf(err, -ESTALE, "%s is not the file the process maps (inode %llu, "
				 "expected %llu); it was replaced or is shadowed by a mount", p,
				 (unsigned long long)st->st_ino, (unsigned long long)s->ino);
	return 0;
}

static int open_error(const char *p, int code, struct gs_error *err)
{
	return gs_errorf(err, code, "cannot open %s: %s; check the path%s", p, strerror(-code),
			 code == -EACCES || code == -EPERM ? " and its permissions" : "");
}

/* The identity the cookie falls back on, and the build id when there is one. */
static void identify(struct gs_modfile *m)
{
	const uint8_t *id;
	size_t len;

	m->id.dev = m->dev;
	m->id.ino = m->ino;
	m->id.source = GS_COOKIE_DEV_INODE;
	m->id.cookie = mf_cookie_from_dev_ino(m->dev, m->ino);
	if (mf_elf_build_id(m->elf, &id, &len) == 0 && len > 0 && len <= GS_BUILD_ID_MAX) {
		m->id.source = GS_COOKIE_BUILD_ID;
		m->id.build_id_len = (uint8_t)len;
		memcpy(m->id.build_id, id, len);
		m->id.cookie = mf_cookie_from_build_id(id, len);
	}
}

/* Hands fd to libdwfl (which owns it from then on) as the module's main file. */
static int report(struct gs_modfile *m, int fd, const char *p, struct gs_error *err)
{
	GElf_Addr bias;
	int rc = mf_modfile_dwfl_open(m, fd, &m->dwfl, &m->mod);

	if (rc == -ENOMEM)
		return gs_errorf(err, rc, "out of memory opening %s", p);
	if (rc)
		return gs_errorf(err, -EINVAL, "%s is not an ELF file gstrace can read (%s); give "
				 "an executable or a shared library", p, dwfl_errmsg(-1));
	m->elf = dwfl_module_getelf(m->mod, &bias);
	if (!m->elf)
		return gs_errorf(err, -EINVAL, "%s is not an ELF file gstrace can read (%s)", p,
				 dwfl_errmsg(-1));
	return 0;
}

static void file_free(struct gs_modfile *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->path);
	free(m->open_path);
	free(m);
}

int gs_modfile_open_src(struct gs_modfiles *c, const struct gs_modfile_src *src,
			struct gs_modfile **out, struct gs_error *err)
{
	struct gs_modfile_src s;
	struct gs_modfile *m;
	struct stat st, fst;
	const char *p;
	int fd, rc;

	*out = NULL;
	rc = OPTS_COPY(&s, src, gs_modfile_src, err);
	if (rc)
		return rc;
	if (!s.path)
		return gs_errorf(err, -EINVAL, "gs_modfile_open_src needs the file's path");
	p = s.open_path ? s.open_path : s.path;
	if (stat(p, &st) != 0)
		return open_error(p, -errno, err);
	rc = check_stat(&st, &s, p, err);
	if (rc)
		return rc;
	if ((*out = find_file(c, &st)))
		return 0;
	if (base_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", p);
	/* O_NONBLOCK: a FIFO swapped in after the stat opens at once, and
	 * fstat on the descriptor then refuses it. */
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (s.no_follow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return open_error(p, errno == ELOOP && s.no_follow ? -ESTALE : -errno, err);
	if (fstat(fd, &fst) != 0 || (rc = check_stat(&fst, &s, p, err)) != 0 ||
	    fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		return rc ? rc : gs_errorf(err, -ESTALE, "%s changed while it was opened; try again",
					   p);
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(s.path)) || !(m->open_path = strdup(p))) {
		if (m)
			free(m->path);
		free(m);
		close(fd);
		return gs_errorf(err, -ENOMEM, "out of memory opening %s", p);
	}
	m->owner = c;
	m->dev = fst.st_dev;
	m->ino = fst.st_ino;
	m->size = (uint64_t)fst.st_size;
	m->mtime_ns = mtime_ns(&fst);
	rc = report(m, fd, p, err);
	if (rc) {
		file_free(m);
		return rc;
	}
	identify(m);
	c->v[c->n++] = m;
	c->opened++;
	*out = m;
	return 0;
}

int gs_modfile_open(struct gs_modfiles *c, const char *path, struct gs_modfile **out,
		    struct gs_error *err)
{
	struct gs_modfile_src src = { .sz = sizeof(src), .path = path };

	return gs_modfile_open_src(c, &src, out, err);
}

const char *gs_modfile_path(const struct gs_modfile *m)
{
	return m->path;
}

const struct gs_module_id *gs_modfile_id(const struct gs_modfile *m)
{
	return &m->id;
}

Elf *gs_modfile_elf(struct gs_modfile *m)
{
	return m->elf;
}

struct Dwfl_Module *gs_modfile_dwfl(struct gs_modfile *m)
{
	mf_prefetch_finish(m);
	return m->pre.mod ? m->pre.mod : m->mod;
}

int mf_modfile_layout(struct gs_modfile *m, const struct mf_elf_layout **out,
		      struct gs_error *err)
{
	if (!m->layout_done) {
		m->layout_rc = mf_elf_layout_read(m->elf, &m->layout, NULL);
		m->layout_done = true;
	}
	*out = &m->layout;
	if (m->layout_rc)
		return gs_errorf(err, m->layout_rc, "%s: the ELF program headers are unreadable or "
				 "unusual (over %d PT_LOAD segments)", m->path, MF_ELF_MAX_LOADS);
	return 0;
}

struct mf_cfi_slot *mf_modfile_cfi_slot(struct gs_modfile *m, const char **cache_dir)
{
	struct gs_modfiles *c = m->owner;
	struct mf_cfi_slot *e;

	*cache_dir = c->cfi_cache_dir;
	if (m->cfi)
		return m->cfi;
	for (size_t i = 0; i < c->ncfi; i++)
		if (c->cfi[i]->cookie == m->id.cookie)
			return m->cfi = c->cfi[i];
	if (base_grow((void **)&c->cfi, &c->cfi_cap, c->ncfi + 1, sizeof(*c->cfi)))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->cookie = m->id.cookie;
	c->cfi[c->ncfi++] = e;
	return m->cfi = e;
}

struct Dwarf *gs_modfile_dwarf(struct gs_modfile *m, uint64_t *bias)
{
	if (!m->dwarf_done) {
		mf_prefetch_finish(m);
		if (m->pre.mod) {
			m->dw = m->pre.dw;
			m->dwbias = m->pre.bias;
		} else {
			m->dw = dwfl_module_getdwarf(m->mod, &m->dwbias);
		}
		m->dwarf_done = true;
	}
	if (bias)
		*bias = m->dw ? m->dwbias : 0;
	return m->dw;
}

int mf_modfile_funcs(struct gs_modfile *m, const struct mf_funcindex **out, bool *from_disk)
{
	const char *dir = m->owner->cfi_cache_dir;
	Dwarf *dw;

	if (!m->funcs_done) {
		m->funcs_done = true;
		dw = gs_modfile_dwarf(m, NULL);
		/* on disk by the module's build id, pinned to its DWARF's bytes */
		if (!dw)
			m->funcs_rc = -ENOENT;
		else if (m->id.source == GS_COOKIE_BUILD_ID && dir &&
			 mf_funcindex_load(dir, dwarf_getelf(dw), m->id.build_id,
					   m->id.build_id_len, &m->funcs) == 0)
			m->funcs_from_disk = true;
		else if ((m->funcs_rc = mf_funcindex_build(dw, &m->funcs)) == 0 &&
			 m->id.source == GS_COOKIE_BUILD_ID && dir)
			mf_funcindex_store(dir, dwarf_getelf(dw), m->id.build_id,
					   m->id.build_id_len, m->funcs);
	}
	*out = m->funcs;
	if (from_disk)
		*from_disk = m->funcs_from_disk;
	return m->funcs_rc;
}

const char *gs_modfile_debug_path(struct gs_modfile *m)
{
	const char *debug = NULL;

	dwfl_module_info(gs_modfile_dwfl(m), NULL, NULL, NULL, NULL, NULL, NULL, &debug);
	return debug;
}

/* ---- symbols ---------------------------------------------------------------- */

static bool is_code(const GElf_Sym *sym, GElf_Addr addr, GElf_Word shndx)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && shndx != SHN_UNDEF && addr != 0;
}

size_t gs_modfile_symbols_named(struct gs_modfile *m, const char *name, uint64_t *addr,
				uint64_t *size, size_t max)
{
	int nsyms = dwfl_module_getsymtab(m->mod);
	size_t n = 0;

	for (int i = 1; i < nsyms && n < max; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		GElf_Word shndx;
		const char *s = dwfl_module_getsym_info(m->mod, i, &sym, &a, &shndx, NULL, NULL);
		bool seen = false;

		if (!s || strcmp(s, name) != 0 || !is_code(&sym, a, shndx))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = addr[k] == a;
		if (seen)
			continue;
		addr[n] = a;
		size[n++] = sym.st_size;
	}
	return n;
}

const char *gs_modfile_function_at(struct gs_modfile *m, uint64_t addr)
{
	GElf_Off off;
	GElf_Sym sym;
	GElf_Word shndx;
	const char *name = dwfl_module_addrinfo(m->mod, addr, &off, &sym, &shndx, NULL, NULL);

	if (!name || !name[0] || !is_code(&sym, addr - off, shndx))
		return NULL;
	/* A symbol that ends before addr is a neighbour, not the function. */
	if (off != 0 && sym.st_size != 0 && off >= sym.st_size)
		return NULL;
	return name;
}

bool gs_modfile_is_ifunc(struct gs_modfile *m, uint64_t addr)
{
	int nsyms = dwfl_module_getsymtab(m->mod);

	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		GElf_Word shndx;

		if (dwfl_module_getsym_info(m->mod, i, &sym, &a, &shndx, NULL, NULL) && a == addr &&
		    GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC && shndx != SHN_UNDEF)
			return true;
	}
	return false;
}
