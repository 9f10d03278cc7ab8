/* Test helpers of the dwarf suites: opening a fixture variant with libdw,
 * the post-prologue breakpoint of a function (what gdb's `break fn` picks),
 * symbols, and running gdb in batch mode on a fixture. */
#ifndef GS_TEST_DWARF_FIXTURE_H
#define GS_TEST_DWARF_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/dwarf.h>

struct dfx {
	char path[512];
	int fd;
	struct Elf *elf;
	struct Dwarf *dw;
	struct gs_dwarf *d;
};

/* Opens $GS_DWARF_FIXTURES/<name>; false (and a message on stderr) when
 * it cannot. */
bool dfx_open(struct dfx *f, const char *name);
void dfx_close(struct dfx *f);
/* The variant names the build made ($GS_DWARF_VARIANTS), NULL-terminated. */
const char *const *dfx_variants(void);
/* The first breakpoint address of function `fn` after its prologue
 * (dwarf_entry_breakpoints), or 0. */
uint64_t dfx_breakpoint(struct dfx *f, const char *fn);
/* The entry of the first inlined copy of function `fn`, or 0. */
uint64_t dfx_inline_pc(struct dfx *f, const char *fn);
/* An ELF .symtab symbol's value, or 0. */
uint64_t dfx_symbol(struct dfx *f, const char *name);
/* The variable `name` at pc, or NULL (the test then fails). */
const struct gs_var *dfx_var(struct dfx *f, uint64_t pc, const char *name);

#endif /* GS_TEST_DWARF_FIXTURE_H */
