/* Internals shared by the files of src/runtime: an ELF module opened with
 * its DWARF and symbols (elfmod.c), the line-table queries target
 * resolution needs (srclines.c), and what the session borrows from the
 * plan (plan.c). Not part of the public API. */
#ifndef GS_RT_INT_H
#define GS_RT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include <gs/error.h>

struct rt_module {
	const char *path;
	int fd, debug_fd;  /* -1 when not open */
	Elf *elf;
	Elf *debug_elf;    /* /usr/lib/debug/.build-id/xx/yyy.debug, or NULL */
	Dwarf *dw;         /* NULL: no DWARF anywhere */
};

/* Opens path as an ELF, and the debug file its build id names when the
 * file lacks DWARF (or .symtab); with `dwarf`, DWARF from either (libdw
 * decompresses debug sections at open: skip it when symbols suffice).
 * -ENOENT/-EACCES/-EINVAL with a message naming the path. */
int rt_module_open(const char *path, bool dwarf, struct rt_module *m, struct gs_error *err);
void rt_module_close(struct rt_module *m);

#define RT_SYMS_MAX 16

/* Function symbols (STT_FUNC, STT_GNU_IFUNC, defined) called `name`. */
struct rt_syms {
	const char *name;
	uint64_t addr[RT_SYMS_MAX], size[RT_SYMS_MAX];
	size_t n;
};

/* Fills s from the first of .symtab, the debug file's .symtab, .dynsym
 * that has the name (distinct addresses, at most RT_SYMS_MAX). */
void rt_symbols_named(const struct rt_module *m, struct rt_syms *s);
/* The function symbol containing addr, or NULL; valid while m is open. */
const char *rt_function_at(const struct rt_module *m, uint64_t addr);

/* Where a function's body starts: the first line-table entry of [low, high)
 * flagged prologue_end, else the first whose line differs from the line at
 * low (gdb's "second line"), else low. */
uint64_t rt_skip_prologue(Dwarf *dw, uint64_t low, uint64_t high);

/* Statement-start addresses of `file:line` (the file matched by path
 * suffix); *used_line is the line they belong to: `line`, or the next line
 * with code when it has none. 0 with the addresses (malloc'd, sorted,
 * unique), -ENOENT with a message naming `input` and the module when the
 * file or the line is not there. */
int rt_line_addrs(Dwarf *dw, const char *module, const char *input, const char *file, int line,
		  uint64_t **addrs, size_t *n, int *used_line, struct gs_error *err);

struct gs_plan;
struct gs_cfi_cache;
/* The CFI cache the plan read its rows through: the session's refresh adds
 * the rows of modules mapped later through it (the plan outlives it). */
struct gs_cfi_cache *rt_plan_cache(const struct gs_plan *p);

#endif /* GS_RT_INT_H */
