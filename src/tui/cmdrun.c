/* The command panel's commands, run: each answers in the command panel
 * (info, save, srcpath) or acts on the live session (enable, disable,
 * delete, trace, source). The language itself is command.c's. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/modfile.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "app.h"
#include "base.h"
#include "command.h"

/* Runs fn with a memory stream and shows what it wrote (or its error). */
static void answer_stream(struct tui_app *a, int (*fn)(struct tui_app *a, const char *arg,
						       FILE *f, struct gs_error *err),
			  const char *arg)
{
	struct gs_error err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		tui_app_answer(a, TUI_LINE_ERROR, "out of memory");
		return;
	}
	rc = fn(a, arg, f, &err);
	fclose(f);
	if (len)
		tui_app_answer_text(a, TUI_LINE_MESSAGE, buf, len);
	if (rc)
		tui_app_answer(a, TUI_LINE_ERROR, "%s", err.msg);
	free(buf);
}

static struct gs_list_opts list_opts(struct tui_app *a)
{
	return (struct gs_list_opts){ .sz = sizeof(struct gs_list_opts), .pid = a->opts->pid,
				      .module = a->opts->module, .files = a->opts->files };
}

static int list_functions(struct tui_app *a, const char *glob, FILE *f, struct gs_error *err)
{
	struct gs_list_opts o = list_opts(a);

	return gs_list_functions(glob, &o, f, err);
}

static int list_scope(struct tui_app *a, const char *target, FILE *f, struct gs_error *err)
{
	struct gs_list_opts o = list_opts(a);

	return gs_list_vars(target, &o, f, err);
}

/* `info line` and `info address`: where a target resolves, as gdb says it. */
static int resolve(struct tui_app *a, const char *text, FILE *f, struct gs_error *err)
{
	struct gs_resolve_opts ro = { .sz = sizeof(ro), .module = a->opts->module,
				      .pid = a->opts->pid, .files = a->opts->files };
	struct gs_target_pattern *p;
	struct gs_target t = { 0 };
	int rc = gs_target_pattern_parse(text, &p, err);

	if (rc)
		return rc;
	rc = gs_target_resolve(p, &ro, &t, err);
	for (size_t i = 0; rc == 0 && i < t.nlocs; i++) {
		const struct gs_location *l = &t.locs[i];

		if (p->kind == GS_TARGET_FILE_LINE)
			fprintf(f, "Line %d of \"%s\" is at address 0x%" PRIx64 " <%s> in %s%s\n",
				l->line ? l->line : (int)p->line, p->name, l->addr,
				l->function ? l->function : "??", t.module,
				l->inlined ? " (inlined)" : "");
		else
			fprintf(f, "Symbol \"%s\" is a function at address 0x%" PRIx64 " (file "
				"offset 0x%" PRIx64 ") in %s%s%s\n", p->name ? p->name : text,
				l->addr, l->file_offset, t.module, l->inlined ? ", an inline copy" :
				"", l->from_dwarf ? "" : ", from the symbol table");
	}
	if (rc == 0 && t.note)
		fprintf(f, "%s\n", t.note);
	gs_target_free(&t);
	free(p);
	return rc;
}

static int info_share(struct tui_app *a, const char *unused, FILE *f, struct gs_error *err)
{
	struct gs_proc_modules mods = { 0 };
	int rc;

	(void)unused;
	if (a->opts->pid <= 0) {
		fprintf(f, "target mode (-t): %s, in every process that maps it\n",
			a->opts->module);
		return 0;
	}
	rc = gs_proc_modules_load(a->opts->pid, a->opts->files, &mods, err);
	if (rc)
		return rc;
	fprintf(f, "%-18s %-18s %-6s %s\n", "From", "To", "DWARF", "Library");
	for (size_t i = 0; i < mods.n; i++) {
		const struct gs_proc_module *m = &mods.v[i];
		uint64_t bias;
		bool dwarf = m->file && gs_modfile_dwarf(m->file, &bias);

		fprintf(f, "0x%016" PRIx64 " 0x%016" PRIx64 " %-6s %s\n", m->offsets.base,
			m->offsets.base + m->offsets.size, dwarf ? "yes" : "no", m->path);
	}
	gs_proc_modules_free(&mods);
	return 0;
}

static void info_source(struct tui_app *a)
{
	const uint32_t *lines;
	struct gs_error err;
	char *cands[8];
	size_t n, ncode = 0;

	if (a->src_file < 0) {
		tui_app_answer(a, TUI_LINE_MESSAGE, "no source file shown (%zu known: o picks "
			       "one)", gs_sources_count(a->sources));
		return;
	}
	gs_sources_lines(a->sources, (size_t)a->src_file, &lines, &ncode, &err);
	tui_app_answer(a, TUI_LINE_MESSAGE, "Current source file is %s\nIts DWARF is in %s\n"
		       "%s %s\n%zu lines, %zu with code; %zu source files known",
		       a->src.path, gs_sources_module(a->sources, (size_t)a->src_file),
		       a->src.shown_path ? "Read from" : "Not found on this machine; looked in",
		       a->src.shown_path ? a->src.shown_path : "", a->src.nlines, ncode,
		       gs_sources_count(a->sources));
	if (a->src.shown_path)
		return;
	n = tui_srcpath_candidates(&a->srcpath, a->src.path, cands, 8);
	for (size_t i = 0; i < n; i++) {
		tui_app_answer(a, TUI_LINE_MESSAGE, "  %s", cands[i]);
		free(cands[i]);
	}
}

/* The loop's own figures (the benchmarks read them). */
static void info_stats(struct tui_app *a)
{
	tui_app_answer(a, TUI_LINE_MESSAGE, "events %llu delivered, lost %llu, not shown %llu; "
		       "redraws %.1f/s, events %.1f/s; history %zu lines (%llu dropped)",
		       (unsigned long long)a->events, (unsigned long long)a->lost,
		       (unsigned long long)a->unrendered, a->redraw_rate, a->rate,
		       tui_outbuf_count(a->out), (unsigned long long)tui_outbuf_dropped(a->out));
}

static void info_trace(struct tui_app *a, uint32_t id)
{
	size_t n = gs_live_count(a->live), shown = 0;

	for (size_t i = 0; i < n; i++) {
		struct gs_live_trace_info ti;
		const char *note;

		if (gs_live_trace_info(a->live, i, &ti) || (id && ti.id != id))
			continue;
		tui_app_answer(a, TUI_LINE_MESSAGE, "#%u %s  %s in %s, %zu probe%s, %" PRIu64
			       " hits\n%s", ti.id, ti.state == GS_LIVE_ENABLED ? "enabled " :
			       "disabled", ti.target, ti.module ? ti.module : "?", ti.nprobes,
			       ti.nprobes == 1 ? "" : "s", ti.hits, ti.source);
		if (tui_app_first_event_ms(a, ti.id) >= 0)
			tui_app_answer(a, TUI_LINE_MESSAGE, "  first event %.1f ms after Enter",
				       tui_app_first_event_ms(a, ti.id));
		for (size_t k = 0; (note = gs_live_trace_note(a->live, ti.id, k)); k++)
			tui_app_answer(a, TUI_LINE_MESSAGE, "  note: %s", note);
		shown++;
	}
	if (!shown)
		tui_app_answer(a, id ? TUI_LINE_ERROR : TUI_LINE_MESSAGE, id ?
			       "no trace #%u: `info trace` lists them" : "no traces yet: Space "
			       "on a source line, or `trace LOCATION`", id);
}

/* enable, disable, delete: one trace or all. */
static void each_trace(struct tui_app *a, enum tui_cmd_kind kind, uint32_t id)
{
	static const char *const done[] = { [TUI_CMD_ENABLE] = "enabled",
					    [TUI_CMD_DISABLE] = "disabled",
					    [TUI_CMD_DELETE] = "deleted" };
	size_t n = 0, ok = 0, count = gs_live_count(a->live);
	/* the ids first: deleting changes the positions */
	uint32_t *ids = malloc((count ? count : 1) * sizeof(*ids));

	if (!ids) {
		tui_app_answer(a, TUI_LINE_ERROR, "out of memory");
		return;
	}
	if (id) {
		ids[n++] = id;
	} else {
		for (size_t i = 0; i < count; i++) {
			struct gs_live_trace_info ti;

			if (gs_live_trace_info(a->live, i, &ti) == 0)
				ids[n++] = ti.id;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct gs_error err = { 0 };
		int rc = kind == TUI_CMD_DELETE ? gs_live_remove(a->live, ids[i], &err) :
			 gs_live_enable(a->live, ids[i], kind == TUI_CMD_ENABLE, &err);

		if (rc == -ENOENT)
			tui_app_answer(a, TUI_LINE_ERROR, "no trace #%u: `info trace` lists them",
				       ids[i]);
		else if (rc)
			tui_app_answer(a, TUI_LINE_ERROR, "trace #%u: %s", ids[i], err.msg);
		else
			ok++;
	}
	free(ids);
	if (ok)
		tui_app_answer(a, TUI_LINE_MESSAGE, "%s %s", id ? "trace" : "traces:",
			       done[kind]);
	if (kind == TUI_CMD_DELETE && id && tui_outbuf_filter(a->out) == id)
		tui_outbuf_set_filter(a->out, 0);
	tui_app_mark_traces(a);
}

static void edit_trace(struct tui_app *a, uint32_t id)
{
	for (size_t i = 0; i < gs_live_count(a->live); i++) {
		struct gs_live_trace_info ti;

		if (gs_live_trace_info(a->live, i, &ti) == 0 && ti.id == id) {
			tui_app_edit(a, ti.source, strlen(ti.source), id);
			return;
		}
	}
	tui_app_answer(a, TUI_LINE_ERROR, "no trace #%u: `info trace` lists them", id);
}

static void save_traces(struct tui_app *a, const char *path)
{
	FILE *f = fopen(path, "w");
	int rc = f ? gs_live_save(a->live, f) : -errno;

	if (f && fclose(f) && rc == 0)
		rc = -errno;
	if (rc)
		tui_app_answer(a, TUI_LINE_ERROR, "cannot write %s: %s", path, strerror(-rc));
	else
		tui_app_answer(a, TUI_LINE_MESSAGE, "%zu traces saved to %s (read them back "
			       "with --script-file %s or `source %s`)", gs_live_count(a->live),
			       path, path, path);
}

static void save_output(struct tui_app *a, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t n = tui_outbuf_count(a->out);
	int rc = f ? 0 : -errno;

	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "%s\n", tui_outbuf_line(a->out, i)->text);
	if (f && (ferror(f) | fclose(f)))
		rc = -EIO;
	if (rc)
		tui_app_answer(a, TUI_LINE_ERROR, "cannot write %s: %s", path, strerror(-rc));
	else
		tui_app_answer(a, TUI_LINE_MESSAGE, "%zu lines saved to %s%s", n, path,
			       tui_outbuf_dropped(a->out) ? " (older ones left the history: "
			       "--tui-history keeps more)" : "");
}

static void srcpath_changed(struct tui_app *a)
{
	for (size_t i = 0; i < a->srcpath.nmaps; i++)
		tui_app_answer(a, TUI_LINE_MESSAGE, "map %s -> %s", a->srcpath.maps[i].from,
			       a->srcpath.maps[i].to);
	for (size_t i = 0; i < a->srcpath.ndirs; i++)
		tui_app_answer(a, TUI_LINE_MESSAGE, "search %s", a->srcpath.dirs[i]);
	if (!a->srcpath.nmaps && !a->srcpath.ndirs)
		tui_app_answer(a, TUI_LINE_MESSAGE, "no source paths: files are read where "
			       "DWARF says they were built");
	if (a->src_file >= 0)
		tui_app_open_file(a, a->src_file);
}

static void srcpath(struct tui_app *a, const struct tui_cmd *c)
{
	int rc = 0;

	if (c->kind == TUI_CMD_SRCPATH_MAP)
		rc = tui_srcpath_map(&a->srcpath, c->arg, c->arg2);
	else if (c->kind == TUI_CMD_SRCPATH_ADD)
		rc = tui_srcpath_add(&a->srcpath, c->arg);
	if (rc == -EINVAL)
		tui_app_answer(a, TUI_LINE_ERROR, "srcpath takes absolute paths (e.g. srcpath "
			       "map /build/src /home/me/src)");
	else
		srcpath_changed(a);
}

static void trace_command(struct tui_app *a, const char *location)
{
	char *text;
	int n = asprintf(&text, "trace %s {\n    \n}", location);

	if (n < 0)
		return;
	tui_app_edit(a, text, (size_t)n - 2, 0);
	free(text);
}

static void run(struct tui_app *a, const struct tui_cmd *c)
{
	switch (c->kind) {
	case TUI_CMD_NONE: break;
	case TUI_CMD_TRACE: trace_command(a, c->arg); break;
	case TUI_CMD_INFO_TRACE: info_trace(a, c->id); break;
	case TUI_CMD_INFO_FUNCTION: answer_stream(a, list_functions, c->arg); break;
	case TUI_CMD_INFO_LINE: answer_stream(a, resolve, c->arg); break;
	case TUI_CMD_INFO_ADDRESS: answer_stream(a, resolve, c->arg); break;
	case TUI_CMD_INFO_SCOPE: answer_stream(a, list_scope, c->arg); break;
	case TUI_CMD_INFO_SOURCE: info_source(a); break;
	case TUI_CMD_INFO_SHARE: answer_stream(a, info_share, NULL); break;
	case TUI_CMD_INFO_STATS: info_stats(a); break;
	case TUI_CMD_ENABLE:
	case TUI_CMD_DISABLE:
	case TUI_CMD_DELETE: each_trace(a, c->kind, c->id); break;
	case TUI_CMD_EDIT: edit_trace(a, c->id); break;
	case TUI_CMD_SAVE_TRACES: save_traces(a, c->arg); break;
	case TUI_CMD_SAVE_OUTPUT: save_output(a, c->arg); break;
	case TUI_CMD_SOURCE: tui_app_source_file(a, c->arg); break;
	case TUI_CMD_SRCPATH_MAP:
	case TUI_CMD_SRCPATH_ADD:
	case TUI_CMD_SRCPATH_SHOW: srcpath(a, c); break;
	case TUI_CMD_FILTER:
		tui_outbuf_set_filter(a->out, c->id);
		tui_app_answer(a, TUI_LINE_MESSAGE, c->id ? "output: trace #%u only" :
			       "output: every trace", c->id);
		break;
	case TUI_CMD_CLEAR: tui_outbuf_clear(a->out); break;
	case TUI_CMD_HELP: {
		const char *h = tui_cmd_help(c->arg);

		if (h)
			tui_app_answer_text(a, TUI_LINE_MESSAGE, h, strlen(h));
		else
			tui_app_answer(a, TUI_LINE_ERROR, "no command '%s': `help` lists them",
				       c->arg);
		break;
	}
	case TUI_CMD_QUIT: a->quit = true; break;
	}
}

void tui_cmdrun(struct tui_app *a, const char *line)
{
	struct tui_cmd c;
	char msg[GS_ERROR_MSG_MAX];

	if (tui_cmd_parse(line, &c, msg, sizeof(msg))) {
		tui_app_answer(a, TUI_LINE_ERROR, "%s", msg);
		return;
	}
	run(a, &c);
	tui_cmd_fini(&c);
}

/* ---- completion -------------------------------------------------------- */

#define CANDS_MAX 64

/* Source files whose base name or path starts with the word. */
static size_t source_cands(struct tui_app *a, const char *word, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < gs_sources_count(a->sources) && n < max; i++) {
		const char *p = gs_sources_path(a->sources, i), *base = strrchr(p, '/');

		base = base ? base + 1 : p;
		if (base_has_prefix(base, word))
			out[n++] = base;
		else if (base_has_prefix(p, word))
			out[n++] = p;
	}
	return n;
}

/* Function names of the shown file's neighbourhood: every function of
 * every file is too many to walk on a key; the shown file's are what a
 * user is looking at. */
static size_t function_cands(struct tui_app *a, const char *word, const char **out,
			     size_t max)
{
	const uint32_t *code;
	struct gs_error err;
	uint32_t first, last;
	size_t ncode, n = 0;

	if (a->src_file < 0 ||
	    gs_sources_lines(a->sources, (size_t)a->src_file, &code, &ncode, &err))
		return 0;
	for (size_t k = 0; k < ncode && n < max; k++) {
		const char *fn = gs_sources_function_at(a->sources, (size_t)a->src_file, code[k],
							&first, &last);
		bool seen = false;

		if (!fn || !base_has_prefix(fn, word))
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = strcmp(out[j], fn) == 0;
		if (!seen)
			out[n++] = fn;
	}
	return n;
}

void tui_cmd_completion(struct tui_app *a)
{
	const char *cands[CANDS_MAX];
	size_t start, wlen = tui_lineedit_word(&a->cmd, &start), n = 0, matched, used = 0;
	char word[TUI_LINE_MAX + 1];
	enum tui_complete_kind k = tui_cmd_complete(a->cmd.buf, a->cmd.cursor, cands, CANDS_MAX,
						    &n);

	memcpy(word, a->cmd.buf + start, wlen);
	word[wlen] = '\0';
	if (k == TUI_COMPLETE_SOURCE)
		n = source_cands(a, word, cands, CANDS_MAX);
	else if (k == TUI_COMPLETE_FUNCTION)
		n = function_cands(a, word, cands, CANDS_MAX);
	else if (k == TUI_COMPLETE_LOCATION) {
		n = function_cands(a, word, cands, CANDS_MAX / 2);
		n += source_cands(a, word, cands + n, CANDS_MAX - n);
	}
	else if (k != TUI_COMPLETE_WORDS)
		n = 0;
	matched = tui_lineedit_complete(&a->cmd, cands, n);
	a->completions[0] = '\0';
	for (size_t i = 0; matched > 1 && i < n && used + 2 < sizeof(a->completions); i++) {
		int w = snprintf(a->completions + used, sizeof(a->completions) - used, "%s%s",
				 i ? "  " : "", cands[i]);

		if (w < 0)
			break;
		used += (size_t)w;
	}
}
