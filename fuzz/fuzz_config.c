/* libFuzzer target for --config FILE's reader (config.c): any bytes, as
 * they are and as YAML made of entries `key: value` (keys of the option
 * table, values of every kind) and pieces of structure (indentation,
 * lists, anchors, documents) and noise, either
 * become words `--name[=value]` naming rows of the option table, or are
 * refused with one line `fuzz.yaml:LINE: ...` whose line is in the text.
 * Never a crash or a leak. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "options_table.h"
#include "smoke.h"

#define FUZZ_YAML_MAX 16384

/* Values the generator gives keys: of every kind a row takes, and YAML
 * that is none. */
static const char *const values[] = {
	"true", "false", "42", "0.5", "127.0.0.1:9464", ":9464", "[env=prod, team=db]",
	"\n  - a=b\n  - c=d", "on", "auto", "json", "folded", "/tmp/x", "'quoted'",
	"\"dq\\tx\"", "~", "", "{a: 1}", "*a", "&a 7", "4M", "1G", "loop", "|\n  text\n",
	"yes", "0", "-1", "99999999999999999999", "env=", "le=1", "\xc3\xa9", "\"\\0\"",
};

/* Pieces of YAML put between entries: structure and noise. */
static const char *const pieces[] = {
	"\n  ", "\n- ", "[", "]", "{", "}", ", ", "'", "\"", " # c\n", "---\n", "...\n", "\t",
	"? ", "!!str ", "\xff", "\r\n", "=", ":", "&a ", "*a",
};

/* A value row o takes, as its placeholder says (most of the time: a
 * run of entries then goes deep into the table before one is refused). */
static const char *fitting(const struct opt *o, char *buf, size_t size)
{
	static const char *const numbers[] = { "N", "PID", "HZ", "MB", "SECONDS", "N (1..512)" };
	const char *bar = o->value ? strchr(o->value, '|') : NULL;

	if (!o->value)
		return "true";
	if (o->value_formats)
		return "json";
	if (bar) { /* a keyword: the first */
		snprintf(buf, size, "%.*s", (int)(bar - o->value), o->value);
		return buf;
	}
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		if (strcmp(o->value, numbers[i]) == 0)
			return "42";
	if (strcmp(o->value, "ADDR:PORT") == 0)
		return "127.0.0.1:9464";
	if (strcmp(o->value, "NAME=VALUE") == 0)
		return "env=prod";
	if (strcmp(o->value, "BYTES") == 0)
		return "4M";
	if (strcmp(o->value, "LINES") == 0)
		return "1000";
	return "/tmp/x";
}

/* The words' checks: each a row of the table, a switch alone or a value
 * after '='. */
static void check_words(const struct cli_words *w)
{
	for (size_t i = 0; i < w->n; i++) {
		const char *s = w->v[i], *eq;
		const struct opt *o;

		if (strncmp(s, "--", 2) != 0)
			abort();
		eq = strchr(s + 2, '=');
		o = cli_opt_find(s + 2, eq ? (size_t)(eq - s - 2) : strlen(s + 2));
		if (!o || o->id == O_CONFIG || (!eq && o->value && !o->value_optional) ||
		    (eq && !o->value))
			abort();
	}
}

static void run(const char *text, size_t len)
{
	struct cli_words w = { 0 };
	char msg[512];
	size_t lines = 1;
	unsigned long line;
	char *end;
	int rc;

	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n' || text[i] == '\r';
	rc = cli_config_words(text, len, "fuzz.yaml", &w, msg, sizeof(msg));
	if (rc == 0) {
		check_words(&w);
	} else {
		if (rc != -EINVAL || strncmp(msg, "fuzz.yaml:", 10) != 0)
			abort();
		line = strtoul(msg + 10, &end, 10);
		if (end == msg + 10 || *end != ':' || line < 1 || line > lines + 1)
			abort();
	}
	cli_words_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char yaml[FUZZ_YAML_MAX];
	size_t n = 0;

	run((const char *)data, size);
	/* the same bytes as entries `key: value` (two bytes each: a row of
	 * the table and a value, mostly one it takes) with, where the first
	 * byte's top three bits are set, a piece of structure or noise */
	for (size_t i = 0; i + 1 < size; i += 2) {
		const struct opt *o = &cli_opts[data[i] % cli_nopts];
		char entry[256], fit[64];
		int k = data[i] >= 0xe0 ?
			snprintf(entry, sizeof(entry), "%s",
				 pieces[data[i + 1] % (sizeof(pieces) / sizeof(pieces[0]))]) :
			snprintf(entry, sizeof(entry), "\n%s: %s", o->name, data[i + 1] < 192 ?
				 fitting(o, fit, sizeof(fit)) :
				 values[data[i + 1] % (sizeof(values) / sizeof(values[0]))]);

		if (k < 0 || n + (size_t)k >= sizeof(yaml))
			break;
		memcpy(yaml + n, entry, (size_t)k);
		n += (size_t)k;
	}
	run(yaml, n);
	return 0;
}
