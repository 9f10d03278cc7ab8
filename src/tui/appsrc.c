/* The source panel's data: the source files of the target's modules, a
 * file's text read where srcpath finds it, its lines with code, and the
 * marks of the traces on it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gs/live.h>
#include <gs/modfile.h>
#include <gs/runtime.h>
#include <gs/script.h>
#include <gs/sources.h>

#include "app.h"

#define SOURCE_MAX (64u << 20)

int tui_read_file(const char *path, char **text, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > SOURCE_MAX) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size &&
	       (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (got < (size_t)st.st_size && errno)
		rc = -errno;
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return rc;
}

void tui_app_open_file(struct tui_app *a, long i)
{
	const char *path = gs_sources_path(a->sources, (size_t)i);
	char *found = tui_srcpath_find(&a->srcpath, path, NULL), *text = NULL;
	const uint32_t *lines = NULL;
	struct gs_error err = { 0 };
	size_t len = 0, nlines = 0;
	int rc = found ? tui_read_file(found, &text, &len) : -ENOENT;

	a->src_file = i;
	if (rc == 0)
		rc = tui_srcview_load(&a->src, path, found, text, len);
	if (rc)
		tui_srcview_absent(&a->src, path);
	if (rc && rc != -ENOENT)
		tui_app_notice(a, "cannot read %s: %s", found, strerror(-rc));
	else if (rc)
		tui_app_notice(a, "%s is not on this machine: map its directory with "
			       "`srcpath map FROM TO` or `srcpath add DIR`", path);
	else
		tui_app_notice(a, "%s", found);
	free(found);
	free(text);
	if (gs_sources_lines(a->sources, (size_t)i, &lines, &nlines, &err) == 0)
		tui_srcview_set_code(&a->src, lines, nlines);
	tui_app_mark_traces(a);
	a->dirty = true;
}

/* The line in the shown file a trace's target names: FILE:LINE whose file
 * is this one, or a function whose code is in it (its first line). */
static uint32_t trace_line(struct tui_app *a, const char *target)
{
	struct gs_target_pattern *p;
	struct gs_error err;
	uint32_t line = 0, first, last;
	const uint32_t *code;
	size_t ncode;

	if (a->src_file < 0 || gs_target_pattern_parse(target, &p, &err))
		return 0;
	if (p->kind == GS_TARGET_FILE_LINE &&
	    gs_sources_find(a->sources, p->name) == a->src_file) {
		line = p->line;
	} else if (p->kind == GS_TARGET_FUNCTION &&
		   gs_sources_lines(a->sources, (size_t)a->src_file, &code, &ncode, &err) == 0) {
		for (size_t k = 0; k < ncode && !line; k++) {
			const char *fn = gs_sources_function_at(a->sources, (size_t)a->src_file,
								code[k], &first, &last);

			if (fn && strcmp(fn, p->name) == 0)
				line = first;
			while (fn && k + 1 < ncode && code[k + 1] <= last)
				k++;
		}
	}
	free(p);
	return line;
}

void tui_app_mark_traces(struct tui_app *a)
{
	size_t n = gs_live_count(a->live);

	tui_srcview_clear_marks(&a->src);
	for (size_t i = 0; i < n; i++) {
		struct gs_live_trace_info ti;
		uint32_t line;

		if (gs_live_trace_info(a->live, i, &ti) || !(line = trace_line(a, ti.target)))
			continue;
		tui_srcview_mark(&a->src, line, ti.state == GS_LIVE_ENABLED ? TUI_MARK_ENABLED :
				 TUI_MARK_DISABLED);
	}
	a->dirty = true;
}

/* The file shown first: the executable's, one named main.* or with
 * "main" in its name if there is one. */
long tui_app_first_file(struct tui_app *a)
{
	size_t n = gs_sources_count(a->sources);
	const char *exe = a->opts->module ? a->opts->module : a->opts->exe;
	long best = -1, score = -1;

	for (size_t i = 0; i < n; i++) {
		const char *p = gs_sources_path(a->sources, i), *base = strrchr(p, '/');
		const char *mod = gs_sources_module(a->sources, i);
		long s = 0;

		base = base ? base + 1 : p;
		if (exe && mod && strcmp(mod, exe) == 0)
			s += 4;
		if (strstr(base, "main"))
			s += 2;
		if (strstr(base, ".h") == NULL)
			s += 1;
		if (s > score) {
			score = s;
			best = (long)i;
		}
	}
	return best;
}

/* The source files of every module of the process (or of -t's module). */
void tui_app_load_sources(struct tui_app *a)
{
	struct gs_proc_modules mods = { 0 };
	struct gs_modfile *m;
	struct gs_error err = { 0 };

	if (gs_sources_new(&a->sources, &err))
		return;
	if (a->opts->module && gs_modfile_open(a->opts->files, a->opts->module, &m, &err) == 0)
		gs_sources_add_module(a->sources, m, &err);
	if (a->opts->pid > 0 && gs_proc_modules_load(a->opts->pid, a->opts->files, &mods,
						     &err) == 0) {
		for (size_t i = 0; i < mods.n; i++)
			if (mods.v[i].file)
				gs_sources_add_module(a->sources, mods.v[i].file, &err);
		gs_proc_modules_free(&mods);
	}
}

