/* Debug information found as gdb finds it, through the real binary: the -O2
 * hot fixture split into a stripped file and a debug file, found by its
 * .gnu_debuglink beside it or by its build id under --debug-file-directory,
 * resolves a function and a file:line to the same addresses as the unsplit
 * build, and its backtraces name the same functions with source lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "e2e.h"

#define UNSPLIT "backtrace_hot_program_O2"

static const char *const hot_chain[] = {
	"dummy_touch", "hot_bt_leaf", "hot_bt_mid", "hot_bt_probe", "main",
};

/* A function and a line, each in a trace: their addresses must not depend
 * on where the DWARF lives. */
static void script_of(char *buf, size_t size)
{
	int line = e2e_source_line("backtrace_hot_program.c", "hot_sink ^= value;");

	snprintf(buf, size, "trace hot_bt_leaf { print \"f\"; } "
		 "trace backtrace_hot_program.c:%d { print \"l\"; }", line);
}

/* --dry-run of script on `target`: its probe lines with the module's path
 * cut out ("trace #0 hot_bt_leaf: 0x70e0 (file offset 0x70e0)"), so two
 * files compare. Returns gstrace's exit code. */
static int dry_run(struct e2e_ctx *c, const char *target, const char *script, const char *dirs,
		   struct e2e_buf *lines, struct e2e_buf *err)
{
	struct e2e_trace tr = { .target = target, .script = script, .extra = { "--dry-run" } };
	struct e2e_output out = { 0 };
	struct e2e_run r;
	const char *p;
	int code;

	if (dirs) {
		tr.extra[1] = "--debug-file-directory";
		tr.extra[2] = dirs;
	}
	e2e_trace_run(c, &tr, &r, &out);
	code = e2e_run_exit_code(&r);
	for (p = e2e_buf_str(&r.out); (p = strstr(p, "trace #"));) {
		const char *colon = strchr(p, ':'), *addr = colon ? strstr(colon, " 0x") : NULL;
		const char *nl = strchr(p, '\n');

		if (!addr || !nl || addr > nl)
			break;
		e2e_buf_add(lines, p, (size_t)(colon + 1 - p));
		e2e_buf_add(lines, addr, (size_t)(nl + 1 - addr));
		p = nl;
	}
	e2e_buf_add(err, e2e_buf_str(&r.err), strlen(e2e_buf_str(&r.err)));
	e2e_output_free(&out);
	e2e_run_free(&r);
	return code;
}

/* The split fixture resolves as the unsplit one, and traces with names
 * and source lines. */
static void check_split(struct e2e_ctx *c, const char *fixture, const char *dirs)
{
	struct e2e_buf want = { 0 }, got = { 0 }, err = { 0 };
	struct e2e_trace tr = { .script = "trace dummy_touch { bt; }", .max_events = 2,
				.duration = 10 };
	struct e2e_output out = { 0 };
	struct e2e_fixture f = { 0 };
	char script[256], split[4096];
	struct e2e_run r;

	script_of(script, sizeof(script));
	snprintf(split, sizeof(split), "%s", e2e_fixture_path(fixture));
	e2e_expect(c, dry_run(c, e2e_fixture_path(UNSPLIT), script, NULL, &want, &err) == 0,
		   "the unsplit build does not resolve: %s", e2e_buf_str(&err));
	e2e_expect(c, dry_run(c, split, script, dirs, &got, &err) == 0,
		   "the split build does not resolve: %s", e2e_buf_str(&err));
	e2e_note(c, "unsplit:\n%ssplit:\n%s", e2e_buf_str(&want), e2e_buf_str(&got));
	e2e_expect(c, want.len > 0 && strcmp(e2e_buf_str(&want), e2e_buf_str(&got)) == 0,
		   "the split build resolves to other addresses than the unsplit one");

	if (!e2e_fixture_start(&f, fixture)) {
		e2e_expect(c, false, "fixture %s did not start", fixture);
		goto out;
	}
	tr.pid = f.pid;
	if (dirs) {
		tr.extra[0] = "--debug-file-directory";
		tr.extra[1] = dirs;
	}
	e2e_trace_run(c, &tr, &r, &out);
	e2e_expect(c, e2e_run_exit_code(&r) == 0 && out.nblocks > 0,
		   "gstrace on the split fixture: exit %d, %zu backtraces", e2e_run_exit_code(&r),
		   out.nblocks);
	for (size_t i = 0; i < out.nblocks; i++) {
		const struct e2e_block *b = &out.blocks[i];

		e2e_expect(c, e2e_block_ordered(b, hot_chain, BASE_ARRAY_SIZE(hot_chain)),
			   "event %zu: frames are not %s .. main", b->event, hot_chain[0]);
		e2e_expect(c, e2e_block_has(b, "backtrace_hot_program.c:"),
			   "event %zu: no source line in the frames (the debug file was not used "
			   "to symbolize)", b->event);
	}
	e2e_output_free(&out);
	e2e_run_free(&r);
	e2e_fixture_stop(&f);
out:
	e2e_buf_free(&want);
	e2e_buf_free(&got);
	e2e_buf_free(&err);
}

static void debug_link_split(struct e2e_ctx *c)
{
	check_split(c, "backtrace_hot_program_link", NULL);
}

/* The build id of an ELF file as readelf prints it, into hex. */
static bool build_id(const char *path, char *hex, size_t size)
{
	char cmd[4200], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		const char *id = strstr(line, "Build ID: ");

		if (id && !found)
			found = sscanf(id + 10, "%127[0-9a-f]", hex) == 1 && strlen(hex) > 2 &&
				size > 128;
	}
	if (p)
		pclose(p);
	return found;
}

static void debug_buildid_split(struct e2e_ctx *c)
{
	const char *fixture = "backtrace_hot_program_buildid";
	struct e2e_buf lines = { 0 }, err = { 0 };
	char root[] = "/tmp/gs-e2e-debug-XXXXXX", hex[160], cmd[8192], script[256];
	const char *bin = e2e_fixture_path(fixture);

	if (!mkdtemp(root) || !build_id(bin, hex, sizeof(hex))) {
		e2e_expect(c, false, "no temporary directory or no build id in %s", bin);
		return;
	}
	/* Without its debug file it is a stripped binary: nothing to resolve. */
	script_of(script, sizeof(script));
	e2e_expect(c, dry_run(c, bin, script, root, &lines, &err) == 2 &&
		   strstr(e2e_buf_str(&err), "unknown function `hot_bt_leaf`"),
		   "the stripped file alone should not resolve hot_bt_leaf: %s", e2e_buf_str(&err));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/.build-id/%.2s' && cp '%s.debug' "
		 "'%s/.build-id/%.2s/%s.debug'", root, hex, bin, root, hex, hex + 2);
	e2e_expect(c, system(cmd) == 0, "cannot lay out %s/.build-id", root);
	check_split(c, fixture, root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		e2e_note(c, "could not remove %s\n", root);
	e2e_buf_free(&lines);
	e2e_buf_free(&err);
}

const struct e2e_scenario e2e_debug_scenarios[] = {
	{ "debug-link-split", debug_link_split, E2E_NEED_TRACING },
	{ "debug-buildid-split", debug_buildid_split, E2E_NEED_TRACING },
};
const size_t e2e_debug_nscenarios = BASE_ARRAY_SIZE(e2e_debug_scenarios);
