/* --config FILE: a YAML mapping of gstrace's long flags (config.h), read
 * with libyaml's event parser into the words `--name=value` that the one
 * parser (options.c) reads before the command line's. Every key is a row
 * of the option table (options_table.c), so a new flag is a key without a
 * line here. The file is the user's, yet read as input that may be wrong
 * in any way: each refusal names the file, the line and the fix. */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "config.h"
#include "options.h"
#include "options_table.h"

/* One file being read. */
struct reader {
	yaml_parser_t parser;
	const char *name;  /* the file, as messages name it */
	const char *text;  /* its bytes, for the line of a reader error */
	size_t len;
	struct cli_words *w;
	/* the file's flags applied as the parser applies them, so a value
	 * is refused in its own line, and so is a repeatable flag's one too
	 * many */
	struct cli check;
	bool dashdash;
	size_t *key_line;  /* the line of each row's key so far (0: none) */
	char *msg;
	size_t size;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct reader *r, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->size)
		return -EINVAL;
	n = snprintf(r->msg, r->size, "%s:%zu: ", r->name, line);
	if (n >= 0 && (size_t)n < r->size) {
		va_start(ap, fmt);
		vsnprintf(r->msg + n, r->size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static size_t line_of(const yaml_event_t *ev)
{
	return ev->start_mark.line + 1;
}

/* What libyaml found wrong, at its line (a reader error, bytes that are
 * not UTF-8 text, has an offset only). */
static int yaml_failed(struct reader *r)
{
	const yaml_parser_t *p = &r->parser;
	size_t line = p->problem_mark.line + 1;

	if (p->error == YAML_MEMORY_ERROR)
		return fail(r, line, "out of memory reading it");
	if (p->error == YAML_READER_ERROR) {
		line = 1;
		for (size_t i = 0; i < p->problem_offset && i < r->len; i++)
			line += r->text[i] == '\n';
	}
	return fail(r, line, "not YAML: %s%s%s; write one `key: value` per line, the keys "
		    "gstrace's long flags without \"--\" (e.g. serve: 127.0.0.1:9464)",
		    p->problem ? p->problem : "a syntax error", p->context ? " " : "",
		    p->context ? p->context : "");
}

static int next(struct reader *r, yaml_event_t *ev)
{
	return yaml_parser_parse(&r->parser, ev) ? 0 : yaml_failed(r);
}

static bool plain(const yaml_event_t *v)
{
	return v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML's null, as a plain scalar: `key:` alone, `~`, `null`. */
static bool is_null(const yaml_event_t *v)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	const char *s = (const char *)v->data.scalar.value;

	for (size_t i = 0; plain(v) && i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (strcmp(s, nulls[i]) == 0)
			return true;
	return false;
}

/* YAML 1.2's booleans as a plain scalar: 1, 0, or -1 (not one: `yes`
 * and `on` are 1.1's, and --fault-in's `on` is a value). */
static int boolean(const yaml_event_t *v)
{
	static const char *const words[] = { "false", "False", "FALSE", "true", "True", "TRUE" };
	const char *s = (const char *)v->data.scalar.value;

	for (size_t i = 0; plain(v) && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(s, words[i]) == 0)
			return i >= 3;
	return -1;
}

/* One word for the parser, checked as the parser checks it. */
__attribute__((format(printf, 3, 4)))
static int add_word(struct reader *r, size_t line, const char *fmt, ...)
{
	char why[512], *word = NULL, *argv[2] = { NULL, NULL };
	struct cli_words *w = r->w;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&word, fmt, ap);
	va_end(ap);
	if (n < 0)
		return fail(r, line, "out of memory reading it");
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		char **v = realloc(w->v, cap * sizeof(*v));

		if (!v) {
			free(word);
			return fail(r, line, "out of memory reading it");
		}
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = word;
	argv[0] = word;
	if (cli_read_flags(1, argv, 0, &r->check, &r->dashdash, why, sizeof(why)))
		return fail(r, line, "%s", why);
	return 0;
}

/* One scalar value of key o. */
static int add_value(struct reader *r, const struct opt *o, const yaml_event_t *v)
{
	const char *s = (const char *)v->data.scalar.value;
	size_t line = line_of(v);
	int b = boolean(v);

	if (strlen(s) != v->data.scalar.length)
		return fail(r, line, "the value of %s holds a NUL byte; give text", o->name);
	if (is_null(v))
		return fail(r, line, "%s has no value; give %s (e.g. `%s: %s`)", o->name,
			    o->value ? "one" : "true or false", o->name, o->value ? o->value : "true");
	if (!o->value || o->value_optional) {
		if (b == 0) /* false: the flag stays off */
			return 0;
		if (b == 1)
			return add_word(r, line, "--%s", o->name);
	}
	if (!o->value)
		return fail(r, line, "%s: '%s' is not true or false; --%s is a switch: write `%s: "
			    "true`, or leave the key out", o->name, s, o->name, o->name);
	return add_word(r, line, "--%s=%s", o->name, s);
}

/* A list: the values of a repeatable flag, each once. */
static int add_list(struct reader *r, const struct opt *o)
{
	yaml_event_t v;
	int rc;

	for (;;) {
		if ((rc = next(r, &v)))
			return rc;
		if (v.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&v);
			return 0;
		}
		rc = v.type == YAML_SCALAR_EVENT ? add_value(r, o, &v) :
		     fail(r, line_of(&v), "a list of %s holds %s; give values only (e.g. `%s: [%s, "
			  "%s]`)", o->name, v.type == YAML_ALIAS_EVENT ? "an alias" :
			  "a list or a mapping", o->name, o->value, o->value);
		yaml_event_delete(&v);
		if (rc)
			return rc;
	}
}

/* A key that is no flag: the fix for what it most likely is. */
static int unknown_key(struct reader *r, size_t line, const char *k, size_t n)
{
	const struct opt *o = NULL;

	if (n == 1 && k[0])
		for (size_t i = 0; i < cli_nopts && !o; i++)
			o = cli_opts[i].letter == k[0] ? &cli_opts[i] : NULL;
	if (n > 2 && k[0] == '-' && k[1] == '-' && cli_opt_find(k + 2, n - 2))
		return fail(r, line, "unknown key \"%.64s\": write \"%s\"; the keys are gstrace's long "
			    "flags without \"--\" (gstrace --help)", k, k + 2);
	if (o)
		return fail(r, line, "unknown key \"%s\": -%s is \"%s\"; the keys are gstrace's long "
			    "flags without \"--\" (gstrace --help)", k, k, o->name);
	return fail(r, line, "unknown key \"%.64s\"%s: the keys are gstrace's long flags without "
		    "\"--\" (gstrace --help)", k, n > 64 ? "..." : "");
}

/* One `key: value` of the mapping, its key read. */
static int read_entry(struct reader *r, const yaml_event_t *key)
{
	const char *k = (const char *)key->data.scalar.value;
	size_t line = line_of(key), n, row;
	const struct opt *o;
	yaml_event_t v;
	int rc;

	if (key->type != YAML_SCALAR_EVENT)
		return fail(r, line, "a key is a flag's name; write `name: value` (e.g. `pid: 42`)");
	n = key->data.scalar.length;
	o = strlen(k) == n ? cli_opt_find(k, n) : NULL;
	if (!o)
		return unknown_key(r, line, k, n);
	if (o->id == O_CONFIG)
		return fail(r, line, "a config file cannot name another (key \"config\"); give "
			    "--config once, on the command line");
	row = (size_t)(o - cli_opts);
	if (r->key_line[row])
		return fail(r, line, "%s given twice (lines %zu and %zu); give it once%s", o->name,
			    r->key_line[row], line, o->repeatable ? ", with a list of its values" :
			    "");
	r->key_line[row] = line;
	if ((rc = next(r, &v)))
		return rc;
	switch (v.type) {
	case YAML_SCALAR_EVENT:
		rc = add_value(r, o, &v);
		break;
	case YAML_SEQUENCE_START_EVENT:
		rc = o->repeatable ? add_list(r, o) :
		     fail(r, line_of(&v), "%s takes one value, not a list: --%s is given once (a list "
			  "repeats a flag that adds, such as serve-label)", o->name, o->name);
		break;
	case YAML_MAPPING_START_EVENT:
		rc = fail(r, line_of(&v), "%s holds a mapping; a flag's value is one scalar%s (e.g. "
			  "`%s: %s`)", o->name, o->repeatable ? " or a list of them" : "", o->name,
			  o->value ? o->value : "true");
		break;
	default: /* an alias: its anchor's value, which this reader does not keep */
		rc = fail(r, line_of(&v), "the value of %s is an alias (*name); write the value "
			  "itself", o->name);
		break;
	}
	yaml_event_delete(&v);
	return rc;
}

static int read_mapping(struct reader *r)
{
	yaml_event_t key;
	int rc;

	for (;;) {
		if ((rc = next(r, &key)))
			return rc;
		if (key.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&key);
			return 0;
		}
		rc = read_entry(r, &key);
		yaml_event_delete(&key);
		if (rc)
			return rc;
	}
}

/* The stream: nothing (an empty file, comments), or one document that is
 * a mapping (or empty: `---` alone). */
static int read_stream(struct reader *r)
{
	yaml_event_t ev;
	int rc;

	for (int step = 0;; step++) {
		if ((rc = next(r, &ev)))
			return rc;
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			rc = 0;
			break;
		case YAML_STREAM_END_EVENT:
			yaml_event_delete(&ev);
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			rc = step > 1 ? fail(r, line_of(&ev), "a second document (after ---); a "
					     "config file is one mapping of flags") : 0;
			break;
		case YAML_MAPPING_START_EVENT:
			rc = read_mapping(r);
			break;
		default:
			rc = ev.type == YAML_SCALAR_EVENT && is_null(&ev) ? 0 :
			     fail(r, line_of(&ev), "the file is not a mapping of flags; write one "
				  "`key: value` per line (e.g. serve: 127.0.0.1:9464)");
			break;
		}
		yaml_event_delete(&ev);
		if (rc)
			return rc;
	}
}

int cli_config_words(const char *text, size_t len, const char *name, struct cli_words *w,
		     char *msg, size_t size)
{
	struct reader r = { .name = name, .text = text, .len = len, .w = w, .msg = msg,
			    .size = size };
	int rc;

	if (size)
		msg[0] = '\0';
	cli_defaults(&r.check);
	r.key_line = calloc(cli_nopts, sizeof(*r.key_line));
	if (!r.key_line || !yaml_parser_initialize(&r.parser)) {
		free(r.key_line);
		return fail(&r, 1, "out of memory reading it");
	}
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
	rc = read_stream(&r);
	yaml_parser_delete(&r.parser);
	free(r.key_line);
	return rc;
}

/* The file's bytes (malloc'd, NUL after them), at most
 * CLI_CONFIG_MAX_BYTES. */
static int read_file(const char *path, char **text, size_t *len, char *msg, size_t size)
{
	size_t cap = 4096, n = 0;
	struct stat st;
	char *buf;
	ssize_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd < 0 || fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		e = fd < 0 || !S_ISDIR(st.st_mode) ? errno : EISDIR;
		if (fd >= 0)
			close(fd);
		return cli_usage_error(msg, size, "--config %s: cannot read it (%s); give a YAML "
				   "file of flags you can read", path, strerror(e));
	}
	buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			return cli_usage_error(msg, size, "--config %s: out of memory reading it",
					   path);
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n > CLI_CONFIG_MAX_BYTES)
			break;
		if (n == cap) {
			char *more = realloc(buf, 2 * cap + 1);

			if (!more)
				free(buf);
			buf = more;
			cap *= 2;
		}
	}
	e = errno;
	close(fd);
	if (got < 0 || n > CLI_CONFIG_MAX_BYTES) {
		free(buf);
		if (got < 0)
			return cli_usage_error(msg, size, "--config %s: cannot read it (%s); give a "
					   "YAML file of flags you can read", path, strerror(e));
		return cli_usage_error(msg, size, "--config %s: more than %u bytes; a config file "
				   "holds flags, and this one cannot be one: is it the right "
				   "file?", path, CLI_CONFIG_MAX_BYTES);
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int cli_parse_config(int argc, char *const *argv, struct cli *out, struct cli_words *keep,
		     char *msg, size_t size)
{
	bool dashdash = false;
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(keep, 0, sizeof(*keep));
	/* where --config is, as the parser reads argv (not a script's text
	 * that says "--config") */
	cli_defaults(out);
	rc = cli_read_flags(argc, argv, 1, out, &dashdash, msg, size);
	if (rc || !out->config || out->action == CLI_HELP || out->action == CLI_VERSION)
		return rc ? rc : cli_parse(argc, argv, out, msg, size);
	if ((rc = read_file(out->config, &text, &len, msg, size)))
		return rc;
	rc = cli_config_words(text, len, out->config, keep, msg, size);
	free(text);
	if (rc)
		return rc;
	keep->argc = argc + (int)keep->n;
	keep->argv = malloc(((size_t)keep->argc + 1) * sizeof(*keep->argv));
	if (!keep->argv)
		return cli_usage_error(msg, size, "--config %s: out of memory", out->config);
	keep->argv[0] = argv[0];
	if (keep->n) /* an empty file gives no words (and no array) */
		memcpy(keep->argv + 1, keep->v, keep->n * sizeof(*keep->v));
	memcpy(keep->argv + 1 + keep->n, argv + 1, (size_t)(argc - 1) * sizeof(*argv));
	keep->argv[keep->argc] = NULL;
	return cli_parse(keep->argc, keep->argv, out, msg, size);
}

void cli_words_free(struct cli_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	free(w->argv);
	memset(w, 0, sizeof(*w));
}
