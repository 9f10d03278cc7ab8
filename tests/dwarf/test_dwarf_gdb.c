/* The dwarf layer against gdb on the same fixture files: member offsets and
 * bit fields of `ptype/o`, the address of `info address` for globals, and
 * for every range of `info scope` that gdb calls "a variable in $reg" or
 * optimized out, the plan at that range's first address. Skips (exit 77)
 * when gdb is not installed. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "dwarf_fixture.h"
#include "unwind/fixtures.h"

static char *gdb(const char *file, const char *cmds)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "'%s' -nx -batch %s '%s' 2>&1", getenv("GS_GDB"), cmds,
		 file);
	return fx_run(cmd);
}

static const struct gs_type *global_type(struct dfx *f, const char *var)
{
	const struct gs_var *v = dfx_var(f, dfx_breakpoint(f, "main"), var);

	assert_non_null(v);
	return v->type;
}

/* Top-level members of `ptype/o` output, one a line: offset[: bit], size, declaration. */
/* Checks member k of t against gdb's name, offset and bit. */
static void check_member(const char *variant, const struct gs_type *t, uint32_t k,
			 const char *name, unsigned off, unsigned bit)
{
	if (k >= t->nmembers)
		fail_msg("%s: gdb lists more members of %s than we do (%s)", variant, t->name, name);
	if (strcmp(t->members[k].name, name) != 0 || t->members[k].offset != off ||
	    t->members[k].bit_offset != bit)
		fail_msg("%s: %s member %u: gdb says %s at %u:%u, we say %s at %u:%u", variant,
			 t->name, k, name, off, bit, t->members[k].name, t->members[k].offset,
			 t->members[k].bit_offset);
}

/* The identifier before `end` ("values" of "int values[4]", "c" of "int c : 7"). */
static void member_name(const char *start, const char *end, char *buf, size_t size)
{
	const char *name;

	for (const char *p = start; p + 2 < end; p++)
		if (p[0] == ' ' && p[1] == ':' && p[2] == ' ') {
			end = p;
			break;
		}
	while (end > start && end[-1] == ']') {
		while (end > start && end[-1] != '[')
			end--;
		end--;
	}
	name = end;
	while (name > start && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	snprintf(buf, size, "%.*s", (int)(end - name), name);
}

/* Top-level members of `ptype/o` output, one a line: offset[: bit], size,
 * declaration; a nested aggregate opens with "struct x {" and its member
 * name comes on the closing "} name;" line. */
static void compare_ptype(const char *variant, char *out, const struct gs_type *t)
{
	int depth = 0;
	uint32_t k = 0;
	unsigned pending = 0;
	char *save = NULL, name[64];

	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned off, bit = 0, size;
		const char *close = strstr(line, "*/");
		const char *text = close ? close + 2 : line;
		const char *semi = strchr(text, ';');

		if (strstr(line, "type =") || strstr(line, "XXX") || strstr(line, "total size"))
			continue;
		if (!close && strchr(line, '}') && semi) {
			if (--depth == 0) {
				member_name(text, semi, name, sizeof(name));
				check_member(variant, t, k++, name, pending, 0);
			}
			continue;
		}
		if (!close || strncmp(line, "/*", 2) != 0)
			continue;
		if (sscanf(line, "/* %u: %u | %u */", &off, &bit, &size) != 3) {
			bit = 0;
			if (sscanf(line, "/* %u | %u */", &off, &size) != 2)
				continue;
		}
		if (strchr(text, '{')) {
			if (depth++ == 0)
				pending = off;
			continue;
		}
		if (depth || !semi)
			continue;
		member_name(text, semi, name, sizeof(name));
		check_member(variant, t, k++, name, off, bit);
	}
	if (k != t->nmembers)
		fail_msg("%s: %s: gdb lists %u members, we %u", variant, t->name, k, t->nmembers);
}

static void test_member_offsets_and_bit_fields_match_ptype(void **state)
{
	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;
		char *out;

		assert_true(dfx_open(&f, *v));
		out = gdb(f.path, "-ex 'ptype/o struct flags'");
		compare_ptype(*v, out, global_type(&f, "g_record")->members[5].type);
		free(out);
		out = gdb(f.path, "-ex 'ptype/o struct record'");
		compare_ptype(*v, out, global_type(&f, "g_record"));
		free(out);
		dfx_close(&f);
	}
}

static void test_global_addresses_match_info_address(void **state)
{
	static const char *const globals[] = { "g_counter", "g_record", "g_name", "g_color" };

	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;

		assert_true(dfx_open(&f, *v));
		for (size_t i = 0; i < BASE_ARRAY_SIZE(globals); i++) {
			char cmds[128], *out, *at;
			const struct gs_var *var = dfx_var(&f, dfx_breakpoint(&f, "main"), globals[i]);

			snprintf(cmds, sizeof(cmds), "-ex 'info address %s'", globals[i]);
			out = gdb(f.path, cmds);
			at = out ? strstr(out, "at address 0x") : NULL;
			assert_non_null(at);
			assert_non_null(var);
			assert_int_equal((uint64_t)var->loc.pieces[0].offset,
					 strtoull(at + strlen("at address "), NULL, 16));
			free(out);
		}
		dfx_close(&f);
	}
}

static int reg_number(const char *name)
{
	for (unsigned r = 0; r <= 16; r++)
		if (strcmp(gs_dwarf_reg_name(r), name) == 0)
			return (int)r;
	return -1;
}

/* One checked claim of gdb's: at pc, `sym` is in register reg (or, for
 * reg -1, has no value). */
static void check_claim(struct dfx *f, const char *variant, const char *fn, const char *sym,
			uint64_t pc, int reg, size_t *checked)
{
	const struct gs_dwarf_scope *s;
	struct gs_error err;
	const struct gs_var *v = NULL;

	if (gs_dwarf_scope_at(f->d, pc, &s, &err))
		fail_msg("%s: %s", variant, err.msg);
	for (size_t i = 0; i < s->nlocals; i++)
		if (strcmp(s->vars[i].name, sym) == 0)
			v = &s->vars[i];
	if (!v)
		return; /* a variable of a block that does not cover this pc */
	if (reg < 0) {
		if (v->loc.npieces)
			fail_msg("%s: %s: gdb says %s is optimized out at 0x%llx, we have %u pieces",
				 variant, fn, sym, (unsigned long long)pc, v->loc.npieces);
	} else if (v->loc.npieces != 1 || v->loc.pieces[0].kind != GS_LOC_REGISTER ||
		   v->loc.pieces[0].reg != reg) {
		fail_msg("%s: %s: gdb says %s is in %s at 0x%llx; our plan differs", variant, fn,
			 sym, gs_dwarf_reg_name((unsigned)reg), (unsigned long long)pc);
	}
	(*checked)++;
}

static void compare_scope(struct dfx *f, const char *variant, const char *fn, size_t *checked)
{
	char cmds[128], *out, sym[64] = "";
	uint64_t bkpt = dfx_breakpoint(f, fn);

	snprintf(cmds, sizeof(cmds), "-ex 'info scope %s'", fn);
	out = gdb(f->path, cmds);
	assert_non_null(out);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long lo, hi;
		char reg[16];
		const char *r;

		if (sscanf(line, "Symbol %63s is ", sym) == 1) {
			if (strstr(line, "optimized out"))
				check_claim(f, variant, fn, sym, bkpt, -1, checked);
			else if ((r = strstr(line, "a variable in $")) && sscanf(r, "a variable in $%15[a-z0-9]", reg) == 1)
				check_claim(f, variant, fn, sym, bkpt, reg_number(reg), checked);
			continue;
		}
		r = strstr(line, "Range 0x");
		if (!r || sscanf(r, "Range 0x%llx-0x%llx:", &lo, &hi) != 2 || !*sym)
			continue;
		/* gdb itself calls DW_OP_GNU_uninit expressions corrupted */
		if ((r = strstr(line, "a variable in $")) && !strstr(line, "Corrupted") &&
		    sscanf(r, "a variable in $%15[a-z0-9]", reg) == 1 && reg_number(reg) >= 0)
			check_claim(f, variant, fn, sym, lo, reg_number(reg), checked);
	}
	free(out);
}

static void test_register_ranges_match_info_scope(void **state)
{
	static const char *const fns[] = { "use_record", "caller", "by_value", "strings" };
	size_t checked = 0;

	(void)state;
	for (const char *const *v = dfx_variants(); *v; v++) {
		struct dfx f;

		assert_true(dfx_open(&f, *v));
		for (size_t i = 0; i < BASE_ARRAY_SIZE(fns); i++)
			compare_scope(&f, *v, fns[i], &checked);
		dfx_close(&f);
	}
	print_message("%zu register / optimized-out claims of gdb checked\n", checked);
	assert_true(checked >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_offsets_and_bit_fields_match_ptype),
		cmocka_unit_test(test_global_addresses_match_info_address),
		cmocka_unit_test(test_register_ranges_match_info_scope),
	};

	if (!getenv("GS_GDB")) {
		printf("skipped: gdb is not installed (the dwarf-gdb suite compares with it)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
