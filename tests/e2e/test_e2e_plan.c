/* One trace plan for the live run and the dry run: in -p mode, target mode
 * (-t with a process already mapping the target) and launch mode, the
 * programs and maps --dry-run lists are the ones the live gstrace has in
 * the kernel (read back through its fds: /proc/PID/fdinfo, then the
 * programs' and maps' info from bpf()), name for name and size for size. */
#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "base.h"
#include "e2e.h"

#define MAX_PROGS 16
#define MAX_MAPS 16
#define KNAME 15 /* the kernel keeps this much of a name */

/* A program as one side sees it: its name and its maps' "name[entries]"
 * (truncated to the kernel's name length), sorted. */
struct prog_view {
	char name[KNAME + 1];
	char maps[MAX_MAPS][64];
	size_t nmaps;
};

struct plan_view {
	struct prog_view v[MAX_PROGS];
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int cmp_prog(const void *a, const void *b)
{
	const struct prog_view *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	for (size_t i = 0; c == 0 && i < x->nmaps && i < y->nmaps; i++)
		c = strcmp(x->maps[i], y->maps[i]);
	return c ? c : (int)x->nmaps - (int)y->nmaps;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct prog_view *)a)->name, ((const struct prog_view *)b)->name);
}

static void add_map(struct prog_view *p, const char *name, size_t len, const char *entries)
{
	if (p->nmaps == MAX_MAPS)
		return;
	snprintf(p->maps[p->nmaps++], sizeof(p->maps[0]), "%.*s[%s]",
		 (int)(len < KNAME ? len : KNAME), name, entries);
}

static void finish(struct plan_view *pv)
{
	for (size_t i = 0; i < pv->n; i++)
		qsort(pv->v[i].maps, pv->v[i].nmaps, sizeof(pv->v[i].maps[0]), cmp_str);
	qsort(pv->v, pv->n, sizeof(pv->v[0]), cmp_name);
}

/* The dry run: per probe a "trace #" line, "  program NAME:", maybe
 * "  step program NAME:", then "  maps: a[1], b[per-cpu]" (the maps of
 * both programs). */
static void parse_dry_run(const char *text, struct plan_view *pv)
{
	char ncpus[16];
	size_t first = 0; /* the first program of the current probe */

	snprintf(ncpus, sizeof(ncpus), "%ld", sysconf(_SC_NPROCESSORS_CONF));
	memset(pv, 0, sizeof(*pv));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *name = !strncmp(l, "  program ", 10) ? l + 10 :
				   !strncmp(l, "  step program ", 15) ? l + 15 : NULL;

		if (!strncmp(l, "trace #", 7) || !strncmp(l, "dlopen hook:", 12)) {
			first = pv->n;
		} else if (name && pv->n < MAX_PROGS) {
			size_t len = strcspn(name, ":");

			snprintf(pv->v[pv->n++].name, KNAME + 1, "%.*s", (int)len, name);
		} else if (strncmp(l, "  maps:", 7) == 0) {
			const char *m = l + 7, *end = strchr(l, '\n');

			while (m < end && *m == ' ') {
				size_t len = strcspn(m + 1, "[");
				const char *open = m + 1 + len;
				size_t elen = strcspn(open + 1, "]");
				char entries[32];

				snprintf(entries, sizeof(entries), "%.*s", (int)elen, open + 1);
				for (size_t p = first; p < pv->n; p++)
					add_map(&pv->v[p], m + 1, len, strcmp(entries, "per-cpu") ?
								       entries : ncpus);
				m = open + 1 + elen + 1;
				if (*m == ',')
					m++;
			}
		}
	}
	finish(pv);
}

/* Listed and loaded agree on a program: the same name, and the same maps
 * (a step program: the kernel names only the maps it uses, which must be
 * among those listed for its trace). */
static bool same_program(const struct prog_view *listed, const struct prog_view *loaded)
{
	size_t len = strlen(listed->name);
	bool step = len > 3 && strcmp(listed->name + len - 3, "_bt") == 0;

	if (strcmp(listed->name, loaded->name) != 0)
		return false;
	if (!step)
		return cmp_prog(listed, loaded) == 0;
	for (size_t i = 0; i < loaded->nmaps; i++) {
		bool found = false;

		for (size_t k = 0; k < listed->nmaps && !found; k++)
			found = strcmp(loaded->maps[i], listed->maps[k]) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* The ids of what fds of pid hold (`prog_id:` / `map_id:` in fdinfo). */
static size_t fd_ids(pid_t pid, const char *key, uint32_t *ids, size_t max)
{
	char dir[64], path[384], line[128];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", (int)pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, key, strlen(key)) == 0) {
				uint32_t id = (uint32_t)strtoul(line + strlen(key), NULL, 10);
				bool seen = false;

				for (size_t i = 0; i < n; i++)
					seen |= ids[i] == id;
				if (!seen)
					ids[n++] = id;
			}
		fclose(f);
	}
	closedir(d);
	return n;
}

/* The programs gstrace (pid) holds, with their maps, from the kernel. */
static bool kernel_view(struct e2e_ctx *c, pid_t pid, struct plan_view *pv)
{
	uint32_t ids[64];
	size_t n = fd_ids(pid, "prog_id:", ids, BASE_ARRAY_SIZE(ids));

	memset(pv, 0, sizeof(*pv));
	for (size_t i = 0; i < n && pv->n < MAX_PROGS; i++) {
		struct bpf_prog_info info = { 0 };
		uint32_t map_ids[MAX_MAPS], len = sizeof(info);
		struct prog_view *p = &pv->v[pv->n++];
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0) {
			e2e_expect(c, false, "cannot open program id %u of gstrace", ids[i]);
			return false;
		}
		info.nr_map_ids = MAX_MAPS;
		info.map_ids = (uint64_t)(uintptr_t)map_ids;
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			close(fd);
			e2e_expect(c, false, "no info for program id %u", ids[i]);
			return false;
		}
		close(fd);
		/* The do-nothing program linked while the programs verify
		 * (session_warm.c), released once they are attached: no part
		 * of the plan, so not listed. */
		if (strcmp(info.name, "gs_warm") == 0) {
			pv->n--;
			continue;
		}
		snprintf(p->name, sizeof(p->name), "%s", info.name);
		for (uint32_t k = 0; k < info.nr_map_ids && k < MAX_MAPS; k++) {
			struct bpf_map_info mi = { 0 };
			uint32_t mlen = sizeof(mi);
			int mfd = bpf_map_get_fd_by_id(map_ids[k]);
			char entries[16];

			if (mfd < 0 || bpf_obj_get_info_by_fd(mfd, &mi, &mlen)) {
				if (mfd >= 0)
					close(mfd);
				e2e_expect(c, false, "no info for map id %u", map_ids[k]);
				return false;
			}
			close(mfd);
			snprintf(entries, sizeof(entries), "%u", mi.max_entries);
			add_map(p, mi.name, strlen(mi.name), entries);
		}
	}
	finish(pv);
	return true;
}

static void print_view(struct e2e_ctx *c, const char *what, const struct plan_view *pv)
{
	e2e_note(c, "%s: %zu programs\n", what, pv->n);
	for (size_t i = 0; i < pv->n; i++) {
		e2e_note(c, "  %s:", pv->v[i].name);
		for (size_t k = 0; k < pv->v[i].nmaps; k++)
			e2e_note(c, " %s", pv->v[i].maps[k]);
		e2e_note(c, "\n");
	}
}

/* Dry run of `tr`, then the live run of the same, compared. */
static void compare(struct e2e_ctx *c, const struct e2e_trace *tr, const char *must_map)
{
	struct e2e_trace dry = *tr;
	struct plan_view listed, loaded;
	struct e2e_output out;
	struct e2e_run r;
	size_t k = 0;

	while (k < BASE_ARRAY_SIZE(dry.extra) - 1 && dry.extra[k])
		k++;
	dry.extra[k] = "--dry-run";
	memset(&r, 0, sizeof(r));
	e2e_trace_run(c, &dry, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0, "the dry run exited %d", e2e_run_exit_code(&r));
	parse_dry_run(e2e_buf_str(&r.out), &listed);
	e2e_output_free(&out);
	e2e_run_free(&r);

	memset(&r, 0, sizeof(r));
	if (!e2e_trace_start(c, tr, &r))
		return;
	if (!e2e_run_wait_for(&r, E2E_READY, false, 20000)) {
		e2e_expect(c, false, "gstrace did not attach");
	} else {
		kernel_view(c, r.pid, &loaded);
		print_view(c, "listed by --dry-run", &listed);
		print_view(c, "loaded by the live run", &loaded);
		e2e_expect(c, listed.n > 0, "the dry run listed no program");
		e2e_expect(c, listed.n == loaded.n, "%zu programs listed, %zu loaded", listed.n,
			   loaded.n);
		for (size_t i = 0; i < listed.n && i < loaded.n; i++)
			e2e_expect(c, same_program(&listed.v[i], &loaded.v[i]),
				   "program %zu differs: listed %s, loaded %s", i, listed.v[i].name,
				   loaded.v[i].name);
		if (must_map) {
			bool found = false;

			for (size_t i = 0; i < loaded.n; i++)
				for (size_t m = 0; m < loaded.v[i].nmaps; m++)
					found |= strncmp(loaded.v[i].maps[m], must_map,
							 strlen(must_map)) == 0;
			/* the bpf_loop walker's equivalent of the range maps */
			for (size_t i = 0; i < loaded.n; i++)
				for (size_t m = 0; m < loaded.v[i].nmaps; m++)
					found |= strncmp(loaded.v[i].maps[m], "bt_modules[", 11) == 0;
			e2e_expect(c, found, "no loaded program has map %s (or bt_modules)",
				   must_map);
		}
	}
	kill(r.pid, SIGINT);
	e2e_trace_finish(c, &r, 10000, &out);
	e2e_output_free(&out);
	e2e_run_free(&r);
}

#define CROSS_SCRIPT \
	"trace cross_module_lib_leaf { print \"leaf\"; bt; } " \
	"trace cross_module_main_caller { print \"caller\"; }"

static void s_plan_pid(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = CROSS_SCRIPT, .depth = 16 };
	struct e2e_fixture f;

	if (!e2e_fixture_start(&f, "backtrace_cross_module_program")) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	tr.pid = f.pid;
	/* the rows of every module of the process: frames find theirs at run time */
	compare(c, &tr, "proc_module_ran");
	e2e_fixture_stop(&f);
}

/* Target mode plans with the modules of a process mapping the target, in
 * the dry run too: the listing used to be the one-module program. */
static void s_plan_target(struct e2e_ctx *c)
{
	struct e2e_trace tr = {
		.script = "trace cross_module_main_caller { print \"caller\"; bt; } "
			  "trace cross_module_main_loop { print \"loop\"; }",
		.depth = 16, .target = e2e_fixture_path("backtrace_cross_module_program"),
	};
	struct e2e_fixture f;
	int lock = e2e_lock("backtrace_cross_module_program", false);

	if (!e2e_fixture_start(&f, "backtrace_cross_module_program")) {
		e2e_expect(c, false, "fixture did not start");
		e2e_unlock(lock);
		return;
	}
	compare(c, &tr, "proc_module_ran");
	e2e_fixture_stop(&f);
	e2e_unlock(lock);
}

/* Launch mode: the dry run starts the command to its entry like the live
 * run, so both plan with its modules. */
static void s_plan_launch(struct e2e_ctx *c)
{
	struct e2e_trace tr = { .script = CROSS_SCRIPT, .depth = 16,
				.command = e2e_fixture_path("backtrace_cross_module_program") };

	compare(c, &tr, "proc_module_ran");
}

const struct e2e_scenario e2e_plan_scenarios[] = {
	{ "plan-pid", s_plan_pid, E2E_NEED_TRACING },
	{ "plan-target", s_plan_target, E2E_NEED_TRACING },
	{ "plan-launch", s_plan_launch, E2E_NEED_TRACING },
};
const size_t e2e_plan_nscenarios = BASE_ARRAY_SIZE(e2e_plan_scenarios);
