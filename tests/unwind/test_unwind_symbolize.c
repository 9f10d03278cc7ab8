/* The symbolizer against binutils: for every address inside the fixtures'
 * functions, the function, line and inline chain equal what `addr2line -f -i`
 * prints; parameters render as docs/unwind.md's "Symbolizer" says; modules
 * without DWARF fall back to ELF symbol + offset; answers are cached per
 * (module, pc). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/unwind.h>

#include "base.h"
#include "fixtures.h"

#define MAX_ADDRS 4096
#define MAX_CHAIN 8
#define REPORT_MAX 8

static const char *const functions[] = {
	"dummy_touch", "hot_bt_leaf", "hot_bt_mid", "hot_bt_probe", "main",
};

struct frame_ref {
	char name[128], file[256];
	int line;
};

struct chain {
	struct frame_ref f[MAX_CHAIN];
	int n;
};

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "??";
}

/* addr2line -a -f -i: an address line, then (function, file:line) pairs. */
static size_t addr2line_chains(const char *file, const uint64_t *addrs, size_t n,
			       struct chain *out)
{
	const char *tool = getenv("GS_ADDR2LINE") ? getenv("GS_ADDR2LINE") : "addr2line";
	size_t cap = 64 + n * 20, len, k = (size_t)-1;
	char *cmd = malloc(cap), *text, *save, *line;

	len = (size_t)snprintf(cmd, cap, "'%s' -a -f -i -e '%s'", tool, file);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(cmd + len, cap - len, " 0x%llx", (unsigned long long)addrs[i]);
	text = fx_run(cmd);
	free(cmd);
	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct chain *c;
		char *colon, *disc;

		if (strncmp(line, "0x", 2) == 0) {
			k++;
			assert_true(k < n);
			out[k].n = 0;
			continue;
		}
		c = &out[k];
		assert_true(c->n < MAX_CHAIN);
		snprintf(c->f[c->n].name, sizeof(c->f[0].name), "%s", line);
		line = strtok_r(NULL, "\n", &save);
		assert_non_null(line);
		disc = strstr(line, " (discriminator");
		if (disc)
			*disc = '\0';
		colon = strrchr(line, ':');
		c->f[c->n].line = colon && colon[1] != '?' ? atoi(colon + 1) : 0;
		if (colon)
			*colon = '\0';
		snprintf(c->f[c->n].file, sizeof(c->f[0].file), "%s", base_name(line));
		c->n++;
	}
	free(text);
	return k + 1;
}

/* Our answer in addr2line's order: innermost inlined function first, with
 * pc's line; each outer function with the call site of the one inside it. */
static void our_chain(const struct gs_sym_info *info, struct chain *c)
{
	const char *file = info->file;
	int line = info->line;

	c->n = 0;
	for (size_t i = info->ninlines; i-- > 0 && c->n < MAX_CHAIN - 1;) {
		const struct gs_sym_inline *in = &info->inlines[i];

		snprintf(c->f[c->n].name, sizeof(c->f[0].name), "%s", in->name ? in->name : "??");
		snprintf(c->f[c->n].file, sizeof(c->f[0].file), "%s", base_name(file));
		c->f[c->n++].line = line;
		file = in->call_file;
		line = in->call_line;
	}
	snprintf(c->f[c->n].name, sizeof(c->f[0].name), "%s", info->function ? info->function : "??");
	snprintf(c->f[c->n].file, sizeof(c->f[0].file), "%s", base_name(file));
	c->f[c->n++].line = line;
}

static bool same_chain(const struct chain *a, const struct chain *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->f[i].name, b->f[i].name) || strcmp(a->f[i].file, b->f[i].file) ||
		    a->f[i].line != b->f[i].line)
			return false;
	return true;
}

static void print_chain(const char *who, const struct chain *c)
{
	print_message("    %s:", who);
	for (int i = 0; i < c->n; i++)
		print_message(" %s@%s:%d", c->f[i].name, c->f[i].file, c->f[i].line);
	print_message("\n");
}

static void test_fixture_chains_equal_addr2line(void **state)
{
	static uint64_t addrs[MAX_ADDRS];
	static struct chain want[MAX_ADDRS];
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	char path[4096];
	size_t n = 0, bad = 0, inlined = 0;
	int mod;

	fx_path(*state, path, sizeof(path));
	for (size_t f = 0; f < BASE_ARRAY_SIZE(functions); f++) {
		uint64_t value, size;

		assert_true(fx_symbol(path, functions[f], &value, &size));
		for (uint64_t a = value; a < value + size && n < MAX_ADDRS; a++)
			addrs[n++] = a;
	}
	assert_int_equal(addr2line_chains(path, addrs, n, want), n);
	mod = gs_symbolizer_module(s, path, NULL);
	assert_true(mod >= 0);
	for (size_t i = 0; i < n; i++) {
		const struct gs_sym_info *info;
		struct chain got;

		assert_int_equal(gs_symbolize(s, mod, addrs[i], &info, NULL), 0);
		assert_true(info->from_dwarf);
		our_chain(info, &got);
		inlined += got.n > 1;
		if (same_chain(&got, &want[i]))
			continue;
		if (bad++ < REPORT_MAX) {
			print_message("  0x%llx differs\n", (unsigned long long)addrs[i]);
			print_chain("ours", &got);
			print_chain("addr2line", &want[i]);
		}
	}
	print_message("%s: %zu addresses (%zu in inlined code), %zu differ\n", path, n, inlined, bad);
	assert_int_equal(bad, 0);
	if (strstr(path, "O2") || strstr(path, "O3"))
		assert_true(inlined > 0);
	gs_symbolizer_free(s);
}

static const struct gs_sym_info *symbolize_symbol(struct gs_symbolizer *s, const char *fixture,
						  const char *fn, uint64_t off)
{
	const struct gs_sym_info *info;
	char path[4096];
	uint64_t value, size;
	int mod;

	fx_path(fixture, path, sizeof(path));
	assert_true(fx_symbol(path, fn, &value, &size));
	mod = gs_symbolizer_module(s, path, NULL);
	assert_true(mod >= 0);
	assert_int_equal(gs_symbolize(s, mod, value + off, &info, NULL), 0);
	return info;
}

static void test_params_render_type_then_name(void **state)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);

	(void)state;
	assert_string_equal(symbolize_symbol(s, "bt_O0_nofp", "dummy_touch", 4)->params,
			    "long unsigned int value");
	assert_string_equal(symbolize_symbol(s, "bt_O0_nofp", "hot_bt_mid", 4)->params,
			    "const char *name, int depth, long unsigned int value");
	assert_string_equal(symbolize_symbol(s, "bt_O0_nofp", "main", 4)->params,
			    "int argc, char **argv");
	assert_string_equal(symbolize_symbol(s, "bt_O2_nofp", "hot_bt_leaf", 0)->function,
			    "hot_bt_leaf");
	assert_string_equal(symbolize_symbol(s, "bt_O2_nofp", "hot_bt_leaf", 0)->params,
			    "long unsigned int value");
	gs_symbolizer_free(s);
}

/* Inside the always-inlined inl_scale, the physical function stays
 * hot_bt_leaf with its own parameters, and the inline carries its call site. */
static void test_inline_chain_keeps_physical_function(void **state)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	const struct gs_sym_info *info = NULL;
	char path[4096];
	uint64_t value, size;
	int mod;

	(void)state;
	fx_path("bt_O2_nofp", path, sizeof(path));
	assert_true(fx_symbol(path, "hot_bt_leaf", &value, &size));
	mod = gs_symbolizer_module(s, path, NULL);
	for (uint64_t a = value; a < value + size; a++) {
		assert_int_equal(gs_symbolize(s, mod, a, &info, NULL), 0);
		if (info->ninlines)
			break;
	}
	assert_int_equal(info->ninlines, 1);
	assert_string_equal(info->inlines[0].name, "inl_scale");
	assert_string_equal(base_name(info->inlines[0].call_file), "bt_fixture.c");
	assert_true(info->inlines[0].call_line > 0);
	assert_string_equal(info->function, "hot_bt_leaf");
	assert_string_equal(info->params, "long unsigned int value");
	gs_symbolizer_free(s);
}

static void test_module_without_dwarf_falls_back_to_symbol_offset(void **state)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	const struct gs_sym_info *info = symbolize_symbol(s, "bt_nodwarf", "hot_bt_leaf", 3);

	(void)state;
	assert_true(info->found);
	assert_false(info->from_dwarf);
	assert_string_equal(info->function, "hot_bt_leaf");
	assert_int_equal(info->sym_offset, 3);
	assert_null(info->file);
	assert_string_equal(info->params, "");
	gs_symbolizer_free(s);
}

static void test_answers_are_cached_per_module_and_pc(void **state)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	const struct gs_sym_info *a = symbolize_symbol(s, "bt_O2_nofp", "main", 1);
	const struct gs_sym_info *b = symbolize_symbol(s, "bt_O2_nofp", "main", 1);
	const struct gs_sym_info *c = symbolize_symbol(s, "bt_O0_nofp", "main", 1);

	(void)state;
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	gs_symbolizer_free(s);
}

static void test_unknown_pc_and_bad_module_are_reported(void **state)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	const struct gs_sym_info *info;
	struct gs_error err = { 0 };
	char path[4096];
	int mod;

	(void)state;
	assert_int_equal(gs_symbolizer_module(s, "/nonexistent/x.so", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.so"));
	assert_int_equal(gs_symbolize(s, 5, 0x1000, &info, &err), -EINVAL);
	mod = gs_symbolizer_module(s, fx_path("bt_O2_nofp", path, sizeof(path)), NULL);
	assert_int_equal(gs_symbolize(s, mod, 0xdead0000, &info, NULL), 0);
	assert_false(info->found);
	gs_symbolizer_free(s);
}

#define CHAIN_TEST(name) cmocka_unit_test_prestate(test_fixture_chains_equal_addr2line, (void *)(name))

int main(void)
{
	const struct CMUnitTest tests[] = {
		CHAIN_TEST("bt_O0_fp"),
		CHAIN_TEST("bt_O2_nofp"),
		CHAIN_TEST("bt_O3_nofp"),
		CHAIN_TEST("bt_nopie"),
		CHAIN_TEST("bt_debug_frame"),
		cmocka_unit_test(test_params_render_type_then_name),
		cmocka_unit_test(test_inline_chain_keeps_physical_function),
		cmocka_unit_test(test_module_without_dwarf_falls_back_to_symbol_offset),
		cmocka_unit_test(test_answers_are_cached_per_module_and_pc),
		cmocka_unit_test(test_unknown_pc_and_bad_module_are_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
