/* One table of flags (options_table.c) feeds the parser and --help; the
 * man page and docs/cli.md are written by hand beside it. Each of the
 * three must name every long option of the table and no other, so a flag
 * added to the table but not documented (or documented but gone) fails
 * here: --no-demangle was parsed and in the man page, yet missing from a
 * --help written by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"
#include "options.h"
#include "options_table.h"

#define MAX_NAMES 256
#define MAX_NAME 48

/* Long options of other programs that docs/cli.md cites, not gstrace's. */
static const char *const foreign[] = {
	"fork",        /* unshare --pid --fork: a process in its own PID namespace */
	"gc-sections", /* the linker's, in the static binary's size notes */
};

/* The long options a text names, each once. */
struct names {
	char v[MAX_NAMES][MAX_NAME];
	size_t n;
};

static bool has_name(const struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return true;
	return false;
}

static void add_name(struct names *s, const char *name, size_t len)
{
	char buf[MAX_NAME];

	assert_true(len < MAX_NAME);
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (has_name(s, buf))
		return;
	assert_true(s->n < MAX_NAMES);
	memcpy(s->v[s->n++], buf, len + 1);
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* The long options text names: `--name` starting a word (after a space,
 * a code span's backquote, a bracket, a table's bar or a quote; not
 * `-Wl,--gc-sections`). A `--` alone is the end of gstrace's flags: what
 * follows to the end of the code span or line is the command's
 * (`-- ./server --port 80`). Markdown's `|---|` rules are no option. */
static void scan(const char *text, struct names *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p; p++) {
		size_t len = 0;

		if (p[0] != '-' || p[1] != '-' || (p > text && !strchr(" \t\n`([|\"'*", p[-1])))
			continue;
		if (p[2] == '\0' || strchr(" \t\n`\"", p[2])) {
			p += 2;
			while (*p && *p != '\n' && *p != '`')
				p++;
			if (!*p)
				break;
			continue;
		}
		if (p[2] < 'a' || p[2] > 'z')
			continue;
		while (is_name_char(p[2 + len]))
			len++;
		while (p[2 + len - 1] == '-')
			len--;
		add_name(out, p + 2, len);
		p += 2 + len - 1;
	}
}

/* A man page as it reads: `\-` is `-`, font changes (`\fB`, `\fR`, ...)
 * and the zero-width `\&` are nothing. Caller frees. */
static char *untroff(const char *src)
{
	char *out = malloc(strlen(src) + 1), *q = out;

	assert_non_null(out);
	for (const char *p = src; *p; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			*q++ = '-';
			p++;
		} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
		} else if (p[0] == '\\' && p[1] == '&') {
			p++;
		} else {
			*q++ = *p;
		}
	}
	*q = '\0';
	return out;
}

static char *read_doc(const char *rel)
{
	const char *root = getenv("GS_SOURCE_DIR");
	char path[4096], *text = NULL;
	size_t size = 0;
	FILE *f, *m;
	int c;

	assert_non_null(root);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (!(f = fopen(path, "r")))
		fail_msg("cannot read %s", path);
	assert_non_null(m = open_memstream(&text, &size));
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return text;
}

static char *help_text(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	assert_non_null(m);
	cli_usage(m);
	fclose(m);
	return text;
}

static bool in_table(const char *name)
{
	for (size_t i = 0; i < cli_nopts; i++)
		if (strcmp(cli_opts[i].name, name) == 0)
			return true;
	return false;
}

static bool is_foreign(const char *name)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(foreign); i++)
		if (strcmp(foreign[i], name) == 0)
			return true;
	return false;
}

/* Every row's long option named in text, and nothing else but another
 * program's options; each miss is named before the test fails. */
static void check_names_the_table(const char *text, const char *what)
{
	struct names found;
	int misses = 0;

	scan(text, &found);
	for (size_t i = 0; i < cli_nopts; i++)
		if (!has_name(&found, cli_opts[i].name)) {
			print_error("%s lacks --%s (a flag of the option table)\n", what,
				    cli_opts[i].name);
			misses++;
		}
	for (size_t i = 0; i < found.n; i++)
		if (!in_table(found.v[i]) && !is_foreign(found.v[i])) {
			print_error("%s names --%s, which the option table lacks\n", what,
				    found.v[i]);
			misses++;
		}
	assert_int_equal(misses, 0);
}

static void test_scan_reads_each_documents_form(void **state)
{
	struct names s;
	char *man = untroff(".BI \\-p \" PID\" \"\\fR, \\fP\\-\\-pid \" PID\n"
			    "gstrace \\-\\-max\\-events 5 \\-\\- ./server \\-\\-port 80\n");

	(void)state;
	scan(man, &s);
	assert_int_equal(s.n, 2);
	assert_true(has_name(&s, "pid"));
	assert_true(has_name(&s, "max-events"));
	free(man);

	scan("| `--unwinder loop\\|tailcall` | the walker (`--fault-in`) |\n"
	     "|---|---|\n"
	     "| `-- CMD --not-ours` | launch it; see --dry-run's summary |\n"
	     "linked with -Wl,--gc-sections, options end with --.\n"
	     "      --tui                  browse\n", &s);
	assert_int_equal(s.n, 4);
	assert_true(has_name(&s, "unwinder"));
	assert_true(has_name(&s, "fault-in"));
	assert_true(has_name(&s, "dry-run"));
	assert_true(has_name(&s, "tui"));
}

static void test_every_row_has_a_group_and_one_help_line(void **state)
{
	(void)state;
	assert_true(cli_nopts > 40);
	for (size_t i = 0; i < cli_nopts; i++) {
		const struct opt *o = &cli_opts[i];

		assert_non_null(o->help);
		if (strlen(o->help) > CLI_HELP_WIDTH || strchr(o->help, '\n'))
			fail_msg("--%s's help line is not one line of at most %d columns", o->name,
				 CLI_HELP_WIDTH);
		assert_true(o->group < G_COUNT);
		assert_false(o->value_optional && !o->value);
		for (size_t k = 0; k < i; k++)
			if (strcmp(cli_opts[k].name, o->name) == 0 ||
			    (o->letter && cli_opts[k].letter == o->letter))
				fail_msg("--%s is in the table twice", o->name);
	}
}

static void test_help_fits_80_columns(void **state)
{
	char *text = help_text();

	(void)state;
	for (char *line = text, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end); /* every line ends */
		if (end - line > 80)
			fail_msg("--help line over 80 columns: %.*s", (int)(end - line), line);
	}
	free(text);
}

static void test_help_names_every_flag_and_no_other(void **state)
{
	char *text = help_text();

	(void)state;
	check_names_the_table(text, "--help");
	free(text);
}

static void test_man_page_names_every_flag_and_no_other(void **state)
{
	char *raw = read_doc("docs/gstrace.1");
	char *text = untroff(raw);

	(void)state;
	check_names_the_table(text, "docs/gstrace.1");
	free(text);
	free(raw);
}

static void test_cli_md_names_every_flag_and_no_other(void **state)
{
	char *text = read_doc("docs/cli.md");

	(void)state;
	check_names_the_table(text, "docs/cli.md");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_reads_each_documents_form),
		cmocka_unit_test(test_every_row_has_a_group_and_one_help_line),
		cmocka_unit_test(test_help_fits_80_columns),
		cmocka_unit_test(test_help_names_every_flag_and_no_other),
		cmocka_unit_test(test_man_page_names_every_flag_and_no_other),
		cmocka_unit_test(test_cli_md_names_every_flag_and_no_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
