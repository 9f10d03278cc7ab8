/* Which CPython a module file holds: its minor version (Py_Version's value
 * read from the file, else the file name confirmed by _PyRuntime's size)
 * and the link-time addresses a walk starts from. Never a guess: a file
 * whose version cannot be told is refused, not read with a nearby layout. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include <gs/python.h>

#include "mf_int.h"

/* The symbols looked up, by index into found[]. */
enum py_sym { SYM_VERSION, SYM_RUNTIME, SYM_TSTATE, SYM_CODE_TYPE, SYM_EVAL, SYM_COUNT };

static const char *const sym_names[SYM_COUNT] = {
	[SYM_VERSION] = "Py_Version",
	[SYM_RUNTIME] = "_PyRuntime",
	[SYM_TSTATE] = "_Py_tss_tstate",
	[SYM_CODE_TYPE] = "PyCode_Type",
	[SYM_EVAL] = GS_PY_EVAL_FUNCTION,
};

struct py_syms {
	bool found[SYM_COUNT];
	GElf_Sym sym[SYM_COUNT];
};

/* A defined symbol of the wanted type: _Py_tss_tstate must be thread-local
 * (its value is then an offset in the TLS block), the rest must not. */
static bool sym_wanted(enum py_sym which, const GElf_Sym *s)
{
	bool tls = GELF_ST_TYPE(s->st_info) == STT_TLS;

	if (s->st_shndx == SHN_UNDEF)
		return false;
	return which == SYM_TSTATE ? tls : !tls;
}

static void syms_scan(Elf_Scn *scn, const GElf_Shdr *sh, Elf *elf, struct py_syms *out)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, i;

	if (!d || sh->sh_entsize == 0)
		return;
	n = d->d_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int k;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || name[0] == '\0')
			continue;
		for (k = 0; k < SYM_COUNT; k++)
			if (!out->found[k] && strcmp(name, sym_names[k]) == 0 && sym_wanted(k, &s)) {
				out->found[k] = true;
				out->sym[k] = s;
			}
	}
}

/* .dynsym first (what a stripped file keeps), then .symtab for the rest
 * (_Py_tss_tstate is local: only .symtab has it). Reports whether the
 * file has DWARF of its own on the way. */
static void syms_find(Elf *elf, struct py_syms *out, bool *has_dwarf)
{
	size_t shstrndx;
	int pass;

	*has_dwarf = false;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	for (pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			if (pass == 0 && sh.sh_type == SHT_DYNSYM)
				syms_scan(scn, &sh, elf, out);
			if (pass == 1 && sh.sh_type == SHT_SYMTAB)
				syms_scan(scn, &sh, elf, out);
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (pass == 0 && name && strcmp(name, ".debug_info") == 0 &&
			    sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
				*has_dwarf = true;
		}
	}
}

/* Py_Version's value (PY_VERSION_HEX, 0x030B07F0 for 3.11.7), read from
 * its section in the file; false when it is not there to read. */
static bool version_read(Elf *elf, const GElf_Sym *s, uint64_t *hex)
{
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	GElf_Shdr sh;
	Elf_Data *d;
	uint64_t off;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || s->st_size != 8)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || s->st_value < sh.sh_addr)
		return false;
	off = s->st_value - sh.sh_addr;
	if (off > d->d_size || d->d_size - off < 8)
		return false;
	memcpy(hex, (const uint8_t *)d->d_buf + off, 8);
	return true;
}

/* 3.X from a file name: libpython3.X.so..., libpython3.Xm.so...,
 * python3.X; 0 when the name says no version. */
static unsigned minor_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *p;
	char *end;
	unsigned long m;

	base = base ? base + 1 : path;
	if (strncmp(base, "libpython3.", 11) == 0)
		p = base + 11;
	else if (strncmp(base, "python3.", 8) == 0)
		p = base + 8;
	else
		return 0;
	if (*p < '0' || *p > '9')
		return 0;
	m = strtoul(p, &end, 10);
	if (m > 255 || (*end != '\0' && *end != '.' && *end != 'm' && *end != 'd' && *end != 'u'))
		return 0;
	return (unsigned)m;
}

static int unsupported(struct gs_error *err, const char *path, unsigned minor)
{
	return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported (%s; gstrace reads CPython 3.%d to "
			 "3.%d), native frames only", minor, path, GS_PY_MINOR_FIRST, GS_PY_MINOR_LAST);
}

/* The version of an interpreter without Py_Version (3.8 to 3.10): its
 * file name says it, and _PyRuntime's size must agree with that
 * version's layout, or the file is some other build we cannot read. */
static int minor_from_name_checked(const char *path, const struct py_syms *s, unsigned *minor,
				   struct gs_error *err)
{
	const struct gs_py_layout *l;

	*minor = minor_from_name(path);
	if (*minor == 0)
		return gs_errorf(err, -ENOTSUP, "python 3.?: unsupported (%s holds a CPython interpreter "
				 "but neither Py_Version nor its file name says which), native frames only",
				 path);
	l = gs_py_layout_table((uint8_t)*minor);
	if (!l)
		return unsupported(err, path, *minor);
	if (!s->found[SYM_RUNTIME] || s->sym[SYM_RUNTIME].st_size != l->runtime_size)
		return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported build (%s: _PyRuntime is %llu "
				 "bytes, 3.%u's is %u: a build gstrace has no layout for), native frames only",
				 *minor, path, s->found[SYM_RUNTIME] ?
				 (unsigned long long)s->sym[SYM_RUNTIME].st_size : 0ull, *minor,
				 l->runtime_size);
	return 0;
}

static int minor_find(Elf *elf, const char *path, const struct py_syms *s, unsigned *minor,
		      struct gs_error *err)
{
	uint64_t hex;

	if (!s->found[SYM_VERSION])
		return minor_from_name_checked(path, s, minor, err);
	if (!version_read(elf, &s->sym[SYM_VERSION], &hex))
		return gs_errorf(err, -ENOTSUP, "python 3.?: unsupported (%s: Py_Version cannot be read "
				 "from the file), native frames only", path);
	if (((hex >> 24) & 0xff) != 3)
		return gs_errorf(err, -ENOTSUP, "python %u.%u: unsupported (%s), native frames only",
				 (unsigned)((hex >> 24) & 0xff), (unsigned)((hex >> 16) & 0xff), path);
	*minor = (hex >> 16) & 0xff;
	if (!gs_py_layout_table((uint8_t)*minor))
		return unsupported(err, path, *minor);
	return 0;
}

static int identify_elf(Elf *elf, const char *path, struct gs_py_module *out, struct gs_error *err)
{
	struct py_syms s = { 0 };
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	unsigned minor = 0;
	int rc;

	syms_find(elf, &s, &out->has_dwarf);
	/* A program that only links libpython refers to these symbols
	 * without defining them: the interpreter is in the library. */
	if (!s.found[SYM_RUNTIME] && !s.found[SYM_VERSION] && !s.found[SYM_EVAL])
		return gs_errorf(err, -ENOENT, "%s holds no CPython interpreter", path);
	if (!ident || ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB)
		return gs_errorf(err, -ENOTSUP, "python 3.?: unsupported (%s is not a 64-bit "
				 "little-endian file; gstrace's layouts are x86-64's), native frames only", path);
	rc = minor_find(elf, path, &s, &minor, err);
	if (rc)
		return rc;
	if (!s.found[SYM_RUNTIME])
		return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported (%s defines no _PyRuntime), "
				 "native frames only", minor, path);
	/* Without DWARF the table's row will be used: it must be this build's
	 * (a free-threaded or debug build of the same version is not). */
	if (!out->has_dwarf && s.sym[SYM_RUNTIME].st_size != gs_py_layout_table((uint8_t)minor)->runtime_size)
		return gs_errorf(err, -ENOTSUP, "python 3.%u: unsupported build (%s: _PyRuntime is %llu "
				 "bytes, 3.%u's is %u, and no DWARF says where its fields are), native "
				 "frames only", minor, path, (unsigned long long)s.sym[SYM_RUNTIME].st_size,
				 minor, gs_py_layout_table((uint8_t)minor)->runtime_size);
	out->minor = (uint8_t)minor;
	out->runtime = s.sym[SYM_RUNTIME].st_value;
	out->runtime_size = s.sym[SYM_RUNTIME].st_size;
	out->has_tss = s.found[SYM_TSTATE];
	out->tss_tstate = s.found[SYM_TSTATE] ? s.sym[SYM_TSTATE].st_value : 0;
	out->code_type = s.found[SYM_CODE_TYPE] ? s.sym[SYM_CODE_TYPE].st_value : 0;
	if (s.found[SYM_EVAL]) {
		out->eval_lo = s.sym[SYM_EVAL].st_value;
		out->eval_hi = out->eval_lo + s.sym[SYM_EVAL].st_size;
	}
	return 0;
}

int gs_py_identify(const char *path, struct gs_py_module *out, struct gs_error *err)
{
	Elf *elf = NULL;
	int fd = -1, rc;

	memset(out, 0, sizeof(*out));
	rc = mf_elf_open(path, &fd, &elf, err);
	if (rc)
		return rc;
	rc = identify_elf(elf, path, out, err);
	mf_elf_close(fd, elf);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

bool gs_py_holds_interpreter(struct gs_modfile *m)
{
	uint64_t addr, size;

	return m && gs_modfile_symbols_named(m, GS_PY_EVAL_FUNCTION, &addr, &size, 1) == 1;
}
