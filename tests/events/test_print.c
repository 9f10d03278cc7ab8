/* The printers of gs/print.h, gstrace's symbolized output (docs/cli.md,
 * "Output"): synthetic decoded events whose frames point into a fixture library
 * this test loads, rendered pretty, plain and json, against addr2line for
 * the source lines (columns and directories are not compared: addr2line
 * prints neither the same way).
 * Also raw frames, unknown modules, the cookie fallback, stopped lines, the
 * `_start` status override, timestamps and JSON escaping. */
#define _GNU_SOURCE /* dladdr1, gettid */
#include <dlfcn.h>
#include <elf.h>
#include <inttypes.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <gs/print.h>
#include <gs/render.h>
#include <gs/unwind.h>

#define FIXTURE "libgs_out_fixture.so"

extern char _start[]; /* the test executable's entry (crt1.o) */

/* The loaded fixture: where it is, what it is. */
struct fx {
	char path[512];
	uintptr_t base;
	uint64_t cookie;
	uint64_t leaf, leaf_inline, mid, top; /* module pcs */
};

static struct fx fx;

static uint64_t module_pc(void *handle, const char *name, size_t *size)
{
	void *addr = dlsym(handle, name);
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		fail_msg("%s: no symbol %s", fx.path, name);
	fx.base = (uintptr_t)info.dli_fbase;
	if (size)
		*size = sym->st_size;
	return (uintptr_t)addr - fx.base;
}

/* A pc of out_leaf inside the inlined out_inl_add (the symbolizer finds
 * it; what it shows there is checked against addr2line). */
static uint64_t find_inline_pc(uint64_t start, size_t size)
{
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	int m = gs_symbolizer_module(s, fx.path, NULL);
	uint64_t found = 0;

	for (uint64_t pc = start; m >= 0 && pc < start + size && !found; pc++) {
		const struct gs_sym_info *info;

		if (gs_symbolize(s, m, pc, &info, NULL) == 0 && info->ninlines == 1)
			found = pc;
	}
	gs_symbolizer_free(s);
	if (!found)
		fail_msg("no pc of out_leaf is inside the inlined out_inl_add");
	return found;
}

static int setup(void **state)
{
	const char *dir = getenv("GS_PRINT_FIXTURES");
	struct gs_module_id id;
	void *h;
	size_t leaf_size;

	(void)state;
	if (!dir)
		fail_msg("GS_PRINT_FIXTURES is not set (meson sets it)");
	snprintf(fx.path, sizeof(fx.path), "%s/" FIXTURE, dir);
	h = dlopen(fx.path, RTLD_NOW);
	if (!h)
		fail_msg("dlopen %s: %s", fx.path, dlerror());
	fx.leaf = module_pc(h, "out_leaf", &leaf_size);
	fx.mid = module_pc(h, "out_mid", NULL);
	fx.top = module_pc(h, "out_top", NULL);
	fx.leaf_inline = find_inline_pc(fx.leaf, leaf_size);
	assert_int_equal(gs_module_identify(fx.path, &id, NULL), 0);
	fx.cookie = id.cookie;
	return 0;
}

/* ---- addr2line: the reference for function and line ---------------------- */

struct a2l {
	char func[4][512];
	char loc[4][512]; /* basename:line */
	int n;            /* innermost first */
};

static void a2l(uint64_t pc, struct a2l *out)
{
	const char *tool = getenv("GS_ADDR2LINE");
	char cmd[1024], line[512];
	FILE *p;

	memset(out, 0, sizeof(*out));
	snprintf(cmd, sizeof(cmd), "%s -f -i -e '%s' 0x%" PRIx64, tool ? tool : "addr2line",
		 fx.path, pc);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (out->n < 4 && fgets(line, sizeof(line), p)) {
		char loc[512], *slash, *cut;

		line[strcspn(line, "\n")] = '\0';
		snprintf(out->func[out->n], sizeof(out->func[0]), "%.500s", line);
		if (!fgets(loc, sizeof(loc), p))
			break;
		loc[strcspn(loc, "\n")] = '\0';
		if ((cut = strstr(loc, " (discriminator")))
			*cut = '\0';
		slash = strrchr(loc, '/');
		snprintf(out->loc[out->n], sizeof(out->loc[0]), "%.500s", slash ? slash + 1 : loc);
		out->n++;
	}
	pclose(p);
	if (!out->n)
		fail_msg("addr2line gave nothing for 0x%" PRIx64, pc);
}

/* Our line with ` at /dir/file:L:C [` turned into ` at file:L [`. */
static void normalize_line(const char *in, char *out, size_t size)
{
	const char *at = strstr(in, " at "), *end, *loc, *slash, *c1, *c2;

	if (!at || !(end = strstr(at, " [")) || strncmp(at + 4, "??", 2) == 0) {
		snprintf(out, size, "%s", in);
		return;
	}
	loc = at + 4;
	slash = loc;
	for (const char *p = loc; p < end; p++)
		if (*p == '/')
			slash = p + 1;
	c1 = memchr(slash, ':', (size_t)(end - slash));
	c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
	snprintf(out, size, "%.*s at %.*s%s", (int)(at - in), in,
		 (int)((c2 ? c2 : end) - slash), slash, end);
}

static char *normalize(const char *text)
{
	size_t size = strlen(text) * 2 + 1;
	char *out = calloc(1, size), *o = out;

	for (const char *s = text; *s;) {
		const char *nl = strchr(s, '\n');
		char line[1024], fixed[1024];
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		normalize_line(line, fixed, sizeof(fixed));
		o += sprintf(o, "%s%s", fixed, nl ? "\n" : "");
		s += n + (nl != NULL);
	}
	return out;
}

/* ---- events ------------------------------------------------------------------- */

static struct gs_backtrace_frame frame_at(uint64_t pc)
{
	struct gs_backtrace_frame f;

	memset(&f, 0, sizeof(f));
	f.module_cookie = fx.cookie;
	f.pc = pc;
	f.raw_ip = fx.base + pc;
	return f;
}

static struct gs_inst bt_inst(const struct gs_backtrace_frame *frames, uint8_t n, uint8_t depth,
			      uint8_t flags, uint8_t status, uint16_t code)
{
	struct gs_inst in;

	memset(&in, 0, sizeof(in));
	in.type = GS_INST_BACKTRACE;
	in.backtrace.requested_depth = depth;
	in.backtrace.frame_count = n;
	in.backtrace.flags = flags;
	in.backtrace.status = status;
	in.backtrace.error_code = code;
	in.backtrace.frames = frames;
	return in;
}

static struct gs_inst str_inst(const char *text)
{
	struct gs_inst in;

	memset(&in, 0, sizeof(in));
	in.type = GS_INST_PRINT_STRING_INDEX;
	in.string.text = text;
	return in;
}

static struct gs_inst end_inst(void)
{
	struct gs_inst in;

	memset(&in, 0, sizeof(in));
	in.type = GS_INST_END;
	return in;
}

static struct gs_event event_of(const struct gs_inst *insts, size_t n)
{
	struct gs_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.trace_id = 3;
	ev.timestamp = 1234567890;
	ev.pid = (uint32_t)getpid();
	ev.tid = (uint32_t)gettid();
	ev.insts = insts;
	ev.ninsts = n;
	return ev;
}

static char *render_with(const struct gs_printer_opts *oo, const struct gs_event *ev)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct gs_printer *o;

	assert_non_null(f);
	assert_int_equal(gs_printer_new(oo, &o, NULL), 0);
	assert_int_equal(gs_print_event(o, ev, f), 0);
	gs_printer_free(o);
	fclose(f);
	return text;
}

static char *render(enum gs_print_format format, const struct gs_event *ev)
{
	GS_OPTS(gs_printer_opts, oo, .format = format, .timestamp = GS_PRINT_TIME_NONE);

	return render_with(&oo, ev);
}

static void assert_text(const char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("rendered:\n%s\nexpected:\n%s", got, want);
}

/* `fn(params) at file:line` of a frame the way addr2line sees pc - 1
 * (callers) or pc (frame 0); pretty/plain frames follow from it. */
static void expect_frame(char *buf, size_t size, const char *indent, unsigned i, uint64_t pc,
			 const char *params, bool inline_frames)
{
	struct a2l r;
	size_t len = 0;

	a2l(i ? pc - 1 : pc, &r);
	buf[0] = '\0';
	for (int k = 0; inline_frames && k + 1 < r.n; k++)
		len += (size_t)snprintf(buf + len, size - len,
					"%s#%u.inline %s at %s [" FIXTURE "+0x%" PRIx64 "]\n",
					indent, i, r.func[k], r.loc[k + 1], pc);
	snprintf(buf + len, size - len, "%s#%u %s(%s) at %s [" FIXTURE "+0x%" PRIx64 "]\n", indent,
		 i, r.func[r.n - 1], params, r.loc[0], pc);
}

/* After `prefix`: a path ending in out_fixture.c, `:line:column [`. */
static bool has_line_and_column(const char *text, const char *prefix)
{
	const char *p = strstr(text, prefix), *file;
	unsigned line, col;
	char end;

	if (!p)
		return false;
	file = strstr(p, "out_fixture.c:");
	return file && sscanf(file, "out_fixture.c:%u:%u %c", &line, &col, &end) == 3 &&
	       end == '[' && line > 0 && col > 0;
}

#define TOP_PARAMS "long unsigned int value, const char *name"

static void three_frames(struct gs_backtrace_frame *f)
{
	f[0] = frame_at(fx.leaf_inline);
	f[1] = frame_at(fx.mid + 8);
	f[2] = frame_at(fx.top + 8);
}

static void test_pretty_backtrace_matches_addr2line(void **state)
{
	struct gs_backtrace_frame f[3];
	struct gs_inst in[3];
	struct gs_event ev;
	char want[4096], f0[1024], f1[512], f2[512], *got, *norm;

	(void)state;
	three_frames(f);
	in[0] = str_inst("HOT_STACK");
	in[1] = bt_inst(f, 3, 3, GS_BT_FLAG_INLINE | GS_BT_FLAG_FULL, GS_BT_TRUNCATED, 0);
	in[2] = end_inst();
	ev = event_of(in, 3);
	expect_frame(f0, sizeof(f0), "    ", 0, fx.leaf_inline, "long unsigned int value", true);
	expect_frame(f1, sizeof(f1), "    ", 1, fx.mid + 8, "long unsigned int value", true);
	expect_frame(f2, sizeof(f2), "    ", 2, fx.top + 8, TOP_PARAMS, true);
	snprintf(want, sizeof(want),
		 "TraceID:3 PID:%u TID:%u\n"
		 "  HOT_STACK\n"
		 "  backtrace: truncated, 3 frames (max 3)\n"
		 "%s%s%s"
		 "  stopped: truncated\n", ev.pid, ev.tid, f0, f1, f2);
	assert_non_null(strstr(f0, "#0.inline out_inl_add at "));
	got = render(GS_PRINT_PRETTY, &ev);
	norm = normalize(got);
	assert_text(norm, want);
	/* the column follows the line */
	assert_true(has_line_and_column(got, "#0 out_leaf(long unsigned int value) at "));
	free(norm);
	free(got);
}

static void test_plain_layout_indents_frames_two_and_nothing_else(void **state)
{
	struct gs_backtrace_frame f[3];
	struct gs_inst in[3];
	struct gs_event ev;
	char want[4096], f0[1024], f1[512], f2[512], *got, *norm;

	(void)state;
	three_frames(f);
	in[0] = str_inst("HOT_STACK");
	in[1] = bt_inst(f, 3, 5, GS_BT_FLAG_INLINE, GS_BT_READ_ERROR, 1);
	in[2] = end_inst();
	ev = event_of(in, 3);
	expect_frame(f0, sizeof(f0), "  ", 0, fx.leaf_inline, "long unsigned int value", true);
	expect_frame(f1, sizeof(f1), "  ", 1, fx.mid + 8, "long unsigned int value", true);
	expect_frame(f2, sizeof(f2), "  ", 2, fx.top + 8, TOP_PARAMS, true);
	snprintf(want, sizeof(want),
		 "HOT_STACK\n"
		 "backtrace: read error, 3 frames (max 5)\n"
		 "%s%s%s"
		 "stopped: read error (return-address-read-failed, code=1)\n", f0, f1, f2);
	got = render(GS_PRINT_PLAIN, &ev);
	norm = normalize(got);
	assert_text(norm, want);
	free(norm);
	free(got);
}

static void test_noinline_shows_no_pseudo_frames(void **state)
{
	struct gs_backtrace_frame f[1] = { frame_at(fx.leaf_inline) };
	struct gs_inst in[2] = { bt_inst(f, 1, 1, 0, GS_BT_TRUNCATED, 0), end_inst() };
	struct gs_event ev = event_of(in, 2);
	char want[1024], f0[512], *got, *norm;

	(void)state;
	expect_frame(f0, sizeof(f0), "  ", 0, fx.leaf_inline, "long unsigned int value", false);
	snprintf(want, sizeof(want), "backtrace: truncated, 1 frame (max 1)\n%sstopped: truncated\n",
		 f0);
	got = render(GS_PRINT_PLAIN, &ev);
	norm = normalize(got);
	assert_text(norm, want);
	assert_null(strstr(got, ".inline"));
	free(norm);
	free(got);
}

static void test_raw_frames_show_offset_raw_ip_and_cookie(void **state)
{
	struct gs_backtrace_frame f[2] = { frame_at(fx.leaf), frame_at(fx.mid + 8) };
	struct gs_inst in[2] = { bt_inst(f, 2, 2, GS_BT_FLAG_RAW, GS_BT_TRUNCATED, 0), end_inst() };
	struct gs_event ev;
	char want[1024], *got;

	(void)state;
	f[1].flags = 0x8000;
	ev = event_of(in, 2);
	snprintf(want, sizeof(want),
		 "backtrace: truncated, 2 frames (max 2)\n"
		 "  #0 0x%" PRIx64 " [" FIXTURE "+0x%" PRIx64 "] raw=0x%" PRIx64 " cookie=0x%016" PRIx64 "\n"
		 "  #1 0x%" PRIx64 " [" FIXTURE "+0x%" PRIx64 "] raw=0x%" PRIx64 " cookie=0x%016" PRIx64
		 " flags=0x8000\n"
		 "stopped: truncated\n",
		 fx.leaf, fx.leaf, fx.base + fx.leaf, fx.cookie,
		 fx.mid + 8, fx.mid + 8, fx.base + fx.mid + 8, fx.cookie);
	got = render(GS_PRINT_PLAIN, &ev);
	assert_text(got, want);
	free(got);
}

static void test_unknown_module_shows_the_frame_pc(void **state)
{
	struct gs_backtrace_frame f[2];
	struct gs_inst in[3];
	struct gs_event ev;
	char *got;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].module_cookie = 0x1234;
	f[0].pc = 0x10;
	f[0].raw_ip = 0x10;
	f[1] = f[0];
	in[0] = bt_inst(f, 1, 4, GS_BT_FLAG_INLINE, GS_BT_NO_UNWIND_ROWS_FOR_PC, 0);
	in[1] = bt_inst(f + 1, 1, 4, GS_BT_FLAG_RAW, GS_BT_INVALID_FRAME, 99);
	in[2] = end_inst();
	ev = event_of(in, 3);
	got = render(GS_PRINT_PLAIN, &ev);
	assert_text(got,
		    "backtrace: no unwind rows for PC, 1 frame (max 4)\n"
		    "  #0 0x10 [0x10]\n"
		    "stopped: no unwind rows for PC (#0: code without unwind information, such "
		    "as JIT-generated or hand-written code)\n"
		    "backtrace: invalid frame, 1 frame (max 4)\n"
		    "  #0 0x10 [0x10] raw=0x10 cookie=0x0000000000001234\n"
		    "stopped: invalid frame (code=99)\n");
	free(got);
}

/* Events through one output, each as its own string. */
static void render_all(const struct gs_event *evs, size_t n, char **out)
{
	GS_OPTS(gs_printer_opts, oo, .format = GS_PRINT_PRETTY, .timestamp = GS_PRINT_TIME_NONE);
	char *text = NULL;
	size_t len = 0, at[8] = { 0 };
	FILE *f = open_memstream(&text, &len);
	struct gs_printer *o;

	assert_true(f && n < 8);
	assert_int_equal(gs_printer_new(&oo, &o, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(gs_print_event(o, &evs[i], f), 0);
		fflush(f);
		at[i + 1] = len;
	}
	gs_printer_free(o);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		out[i] = strndup(text + at[i], at[i + 1] - at[i]);
	free(text);
}

/* A frame's text is built once and kept: printed again, at another index,
 * next to a frame that is not kept (no symbol at its pc), it reads as an
 * output that never saw it would print it. */
static void test_frames_print_alike_from_the_kept_text(void **state)
{
	struct gs_backtrace_frame a[3], b[3];
	struct gs_inst ia[2], ib[2];
	struct gs_event evs[3];
	char *got[3], *fresh;

	(void)state;
	three_frames(a);
	b[0] = a[2];
	b[1] = frame_at(0); /* the ELF header: no function there */
	b[2] = a[1];
	ia[0] = bt_inst(a, 3, 3, GS_BT_FLAG_INLINE, GS_BT_TRUNCATED, 0);
	ib[0] = bt_inst(b, 3, 8, GS_BT_FLAG_INLINE, GS_BT_INVALID_FRAME, 5);
	ia[1] = ib[1] = end_inst();
	evs[0] = evs[2] = event_of(ia, 2);
	evs[1] = event_of(ib, 2);
	render_all(evs, 3, got);
	assert_text(got[2], got[0]);
	fresh = render(GS_PRINT_PRETTY, &evs[1]);
	assert_text(got[1], fresh);
	assert_non_null(strstr(got[1], "    #1 0x0 [" FIXTURE "+0x0]\n    #2 out_mid("));
	for (int i = 0; i < 3; i++)
		free(got[i]);
	free(fresh);
}

static void test_unmapped_raw_ip_resolves_by_cookie(void **state)
{
	struct gs_backtrace_frame f[1] = { frame_at(fx.mid + 8) };
	struct gs_inst in[2] = { bt_inst(f, 1, 1, GS_BT_FLAG_RAW, GS_BT_TRUNCATED, 0), end_inst() };
	struct gs_event ev;
	char want[512], *got;

	(void)state;
	f[0].raw_ip = 0x20; /* nothing is mapped there: the cookie decides */
	ev = event_of(in, 2);
	snprintf(want, sizeof(want),
		 "backtrace: truncated, 1 frame (max 1)\n"
		 "  #0 0x%" PRIx64 " [" FIXTURE "+0x%" PRIx64 "] raw=0x20 cookie=0x%016" PRIx64 "\n"
		 "stopped: truncated\n", fx.mid + 8, fx.mid + 8, fx.cookie);
	got = render(GS_PRINT_PLAIN, &ev);
	assert_text(got, want);
	free(got);
}

static void test_walk_ending_at_start_shows_complete(void **state)
{
	struct gs_backtrace_frame f[2] = { frame_at(fx.leaf), frame_at(fx.mid + 8) };
	struct gs_inst in[2] = { bt_inst(f, 2, 8, GS_BT_FLAG_RAW, GS_BT_UNSUPPORTED_CFI, 0),
				 end_inst() };
	struct gs_event ev = event_of(in, 2);
	char *got;

	(void)state;
	/* The last frame elsewhere: the status stays. */
	got = render(GS_PRINT_PLAIN, &ev);
	assert_non_null(strstr(got, "backtrace: unsupported CFI, 2 frames (max 8)\n"));
	assert_non_null(strstr(got, "stopped: unsupported CFI\n"));
	free(got);
	/* The last frame just past this executable's _start: a full walk
	 * (a frame whose module the walk did not know: its raw ip decides;
	 * one the walk placed in another module keeps that module). */
	f[1].raw_ip = (uintptr_t)_start + 0x20;
	f[1].pc = 0;
	got = render(GS_PRINT_PLAIN, &ev);
	assert_non_null(strstr(got, "backtrace: unsupported CFI, 2 frames (max 8)\n"));
	free(got);
	f[1].module_cookie = 0;
	got = render(GS_PRINT_PLAIN, &ev);
	assert_non_null(strstr(got, "backtrace: complete, 2 frames (max 8)\n"));
	assert_null(strstr(got, "stopped:"));
	free(got);
	in[0].backtrace.status = GS_BT_NO_UNWIND_ROWS_FOR_PC;
	got = render(GS_PRINT_PLAIN, &ev);
	assert_non_null(strstr(got, "backtrace: complete, 2 frames (max 8)\n"));
	free(got);
	/* Only those two statuses are overridden. */
	in[0].backtrace.status = GS_BT_INVALID_FRAME;
	got = render(GS_PRINT_PLAIN, &ev);
	assert_non_null(strstr(got, "backtrace: invalid frame, 2 frames (max 8)\n"));
	free(got);
}

static void test_timestamp_styles(void **state)
{
	struct gs_inst in[2] = { str_inst("x"), end_inst() };
	struct gs_event ev = event_of(in, 2);
	GS_OPTS(gs_printer_opts, oo, .format = GS_PRINT_PRETTY, .timestamp = GS_PRINT_TIME_BOOT);
	char want[256], *got;

	(void)state;
	snprintf(want, sizeof(want), "[boot+1.234s] TraceID:3 PID:%u TID:%u\n  x\n", ev.pid, ev.tid);
	got = render_with(&oo, &ev);
	assert_text(got, want);
	free(got);

	setenv("TZ", "UTC", 1);
	tzset();
	oo.timestamp = GS_PRINT_TIME_LOCAL;
	oo.boot_realtime_ns = 1700000000ll * 1000000000ll; /* 2023-11-14 22:13:20 UTC */
	snprintf(want, sizeof(want), "[2023-11-14 22:13:21.234] TraceID:3 PID:%u TID:%u\n  x\n",
		 ev.pid, ev.tid);
	got = render_with(&oo, &ev);
	assert_text(got, want);
	free(got);

	oo.timestamp = GS_PRINT_TIME_NONE;
	snprintf(want, sizeof(want), "TraceID:3 PID:%u TID:%u\n  x\n", ev.pid, ev.tid);
	got = render_with(&oo, &ev);
	assert_text(got, want);
	free(got);
}

static void test_event_without_items_prints_no_text(void **state)
{
	struct gs_inst in[1] = { end_inst() };
	struct gs_event ev = event_of(in, 1);
	char want[256], *got;

	(void)state;
	got = render(GS_PRINT_PRETTY, &ev);
	assert_text(got, "");
	free(got);
	got = render(GS_PRINT_PLAIN, &ev);
	assert_text(got, "");
	free(got);
	/* json still reports the hit */
	snprintf(want, sizeof(want), "{\"trace_id\":3,\"timestamp_ns\":1234567890,\"timestamp\":null,"
		 "\"pid\":%u,\"tid\":%u,\"items\":[]}\n", ev.pid, ev.tid);
	got = render(GS_PRINT_JSON, &ev);
	assert_text(got, want);
	free(got);
}

static void test_json_event_items_and_escaping(void **state)
{
	static const uint8_t data[8] = { 93 };
	static const struct gs_type u64 = { GS_TYPE_U64, 8, "u64" };
	struct gs_backtrace_frame f[2] = { frame_at(fx.leaf), frame_at(fx.mid + 8) };
	struct gs_inst in[5];
	struct gs_event ev;
	char want[4096], *got;

	(void)state;
	f[1].raw_ip = 0x30;
	f[1].module_cookie = 0x77;
	f[1].pc = 0x30;
	in[0] = str_inst("q\"b\\s\nt\t\x01 \xc3\xa9 bad\xff end");
	memset(&in[1], 0, sizeof(in[1]));
	in[1].type = GS_INST_PRINT_COMPLEX_VARIABLE;
	in[1].variable.name = "rdi";
	in[1].variable.type = &u64;
	in[1].variable.data = data;
	in[1].variable.data_len = 8;
	in[1].variable.kind = GS_TYPE_U64;
	in[2] = bt_inst(f, 2, 2, GS_BT_FLAG_RAW, GS_BT_READ_ERROR, 1);
	in[3] = str_inst("after");
	in[4] = end_inst();
	ev = event_of(in, 5);
	snprintf(want, sizeof(want),
		 "{\"trace_id\":3,\"timestamp_ns\":1234567890,\"timestamp\":null,\"pid\":%u,"
		 "\"tid\":%u,\"items\":["
		 "\"q\\\"b\\\\s\\nt\\t\\u0001 \xc3\xa9 bad\\ufffd end\","
		 "{\"kind\":\"value\",\"name\":\"rdi\",\"type\":\"u64\",\"status\":\"ok\","
		 "\"value\":93,\"text\":\"93\"},"
		 "{\"kind\":\"backtrace\",\"status\":\"read error\","
		 "\"error\":\"return-address-read-failed\",\"error_code\":1,\"max_depth\":2,"
		 "\"raw\":true,\"python_status\":null,\"frames\":["
		 "{\"index\":0,\"kind\":\"native\",\"function\":null,\"params\":null,\"file\":null,\"line\":null,"
		 "\"column\":null,\"module\":\"" FIXTURE "\",\"offset\":%" PRIu64 ",\"pc\":%" PRIu64
		 ",\"raw_ip\":%" PRIu64 ",\"cookie\":\"0x%016" PRIx64 "\",\"inline\":[]},"
		 "{\"index\":1,\"kind\":\"native\",\"function\":null,\"params\":null,\"file\":null,\"line\":null,"
		 "\"column\":null,\"module\":null,\"offset\":null,\"pc\":48,\"raw_ip\":48,"
		 "\"cookie\":\"0x0000000000000077\",\"inline\":[]}]},"
		 "\"after\"]}\n",
		 ev.pid, ev.tid, fx.leaf, fx.leaf, fx.base + fx.leaf, fx.cookie);
	got = render(GS_PRINT_JSON, &ev);
	assert_text(got, want);
	free(got);
}

/* Values are typed JSON: objects for structs (anonymous members lend their
 * keys), arrays, strings for char arrays and enumerators, pointers in hex,
 * {"status": ...} for a value there is not; a format gives its arguments. */
static void test_json_values_are_typed(void **state)
{
	static const struct gs_type i32 = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
					    .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
	static const struct gs_type chr = { .kind = GS_TYPE_CHAR, .size = 1, .name = "char",
					    .flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR,
					    .byte_size = 1 };
	static const struct gs_type dbl = { .kind = GS_TYPE_F64, .size = 8, .name = "double",
					    .byte_size = 8 };
	static const struct gs_type name = { .kind = GS_TYPE_ARRAY, .name = "char[4]",
					     .byte_size = 4, .target = &chr, .count = 4 };
	static const struct gs_type pair = { .kind = GS_TYPE_ARRAY, .name = "int[2]",
					     .byte_size = 8, .target = &i32, .count = 2 };
	static const struct gs_type_enumerator en[] = { { "ON", 1 } };
	static const struct gs_type state_t = { .kind = GS_TYPE_ENUM, .size = 4, .name = "enum s",
						.byte_size = 4, .enumerators = en,
						.nenumerators = 1 };
	static const struct gs_type ptr = { .kind = GS_TYPE_POINTER, .size = 8, .name = "int *",
					    .byte_size = 8, .target = &i32 };
	static const struct gs_type_member anon_m[] = { { "lo", &i32, 0 } };
	static const struct gs_type anon = { .kind = GS_TYPE_STRUCT, .name = "struct",
					     .byte_size = 4, .members = anon_m, .nmembers = 1 };
	static const struct gs_type_member rec_m[] = {
		{ "name", &name, 0 }, { "v", &pair, 4 }, { "s", &state_t, 12 },
		{ NULL, &anon, 16 }, { "p", &ptr, 24 }, { "d", &dbl, 32 },
	};
	static const struct gs_type rec = { .kind = GS_TYPE_STRUCT, .name = "struct rec",
					    .byte_size = 40, .members = rec_m, .nmembers = 6 };
	static const struct gs_type gone = { .kind = GS_TYPE_OPTIMIZED_OUT, .name = "int" };
	static const uint8_t rec_bytes[40] = {
		'a', '\n', 0, 0, 7, 0, 0, 0, 0xf9, 0xff, 0xff, 0xff, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0,
		0, 0, 0x10, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
	};
	static const uint8_t err_bytes[12] = { 0xf2, 0xff, 0xff, 0xff, 0xef, 0xbe, 0xad, 0xde };
	struct gs_value args[2] = {
		{ .name = "r->v[0]", .type = &i32, .kind = GS_TYPE_I32, .data = rec_bytes + 4,
		  .data_len = 4 },
		{ .name = "p->x", .type = &i32, .kind = GS_TYPE_I32, .data = err_bytes,
		  .data_len = 12, .status = GS_VAR_READ_ERROR },
	};
	struct gs_inst in[4];
	struct gs_event ev;
	char *got;

	(void)state;
	memset(in, 0, sizeof(in));
	in[0].type = GS_INST_PRINT_COMPLEX_VARIABLE;
	in[0].variable = (struct gs_value){ .name = "*r", .type = &rec, .kind = GS_TYPE_STRUCT,
					    .data = rec_bytes, .data_len = 40 };
	in[1].type = GS_INST_PRINT_COMPLEX_VARIABLE;
	in[1].variable = (struct gs_value){ .name = "x", .type = &gone,
					    .kind = GS_TYPE_OPTIMIZED_OUT };
	in[2].type = GS_INST_PRINT_COMPLEX_FORMAT;
	in[2].format.format = "v={} x={}";
	in[2].format.arg_count = 2;
	in[2].format.args = args;
	in[3] = end_inst();
	ev = event_of(in, 4);
	got = render(GS_PRINT_JSON, &ev);
	assert_non_null(strstr(got, "\"value\":{\"name\":\"a\\n\",\"v\":[7,-7],\"s\":\"ON\","
			       "\"lo\":3,\"p\":\"0x2010\",\"d\":1.5},\"text\":\"{name = \\\"a\\\\n\\\", "
			       "v = {7, -7}, s = ON, {lo = 3}, p = 0x2010, d = 1.5}\"}"));
	assert_non_null(strstr(got, "{\"kind\":\"value\",\"name\":\"x\",\"type\":\"int\","
			       "\"status\":\"ok\",\"value\":{\"status\":\"optimized_out\"},"
			       "\"text\":\"<optimized out>\"}"));
	assert_non_null(strstr(got, "{\"kind\":\"format\",\"text\":\"v=7 x=<read error: errno=-14 "
			       "at 0xdeadbeef>\",\"format\":\"v={} x={}\",\"args\":[{\"name\":"
			       "\"r->v[0]\",\"type\":\"int\",\"status\":\"ok\",\"value\":7},"
			       "{\"name\":\"p->x\",\"type\":\"int\",\"status\":\"read_error\","
			       "\"value\":{\"status\":\"read_error\",\"errno\":-14,"
			       "\"addr\":\"0xdeadbeef\"}}]}"));
	free(got);
}

static void test_json_symbolized_frames_carry_source_and_inlines(void **state)
{
	struct gs_backtrace_frame f[1] = { frame_at(fx.leaf_inline) };
	struct gs_inst in[2] = { bt_inst(f, 1, 1, GS_BT_FLAG_INLINE, GS_BT_TRUNCATED, 0),
				 end_inst() };
	struct gs_event ev = event_of(in, 2);
	char want[256], *got;
	struct a2l r;

	(void)state;
	a2l(fx.leaf_inline, &r);
	got = render(GS_PRINT_JSON, &ev);
	assert_non_null(strstr(got, "\"function\":\"out_leaf\",\"params\":\"long unsigned int value\","
			       "\"file\":\""));
	assert_non_null(strstr(got, "out_fixture.c\",\"line\":"));
	snprintf(want, sizeof(want), "\"inline\":[{\"function\":\"out_inl_add\",\"file\":\"");
	assert_non_null(strstr(got, want));
	snprintf(want, sizeof(want), "\"module\":\"" FIXTURE "\",\"offset\":%" PRIu64,
		 fx.leaf_inline);
	assert_non_null(strstr(got, want));
	assert_string_equal(r.func[0], "out_inl_add");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pretty_backtrace_matches_addr2line),
		cmocka_unit_test(test_plain_layout_indents_frames_two_and_nothing_else),
		cmocka_unit_test(test_noinline_shows_no_pseudo_frames),
		cmocka_unit_test(test_raw_frames_show_offset_raw_ip_and_cookie),
		cmocka_unit_test(test_unknown_module_shows_the_frame_pc),
		cmocka_unit_test(test_frames_print_alike_from_the_kept_text),
		cmocka_unit_test(test_unmapped_raw_ip_resolves_by_cookie),
		cmocka_unit_test(test_walk_ending_at_start_shows_complete),
		cmocka_unit_test(test_timestamp_styles),
		cmocka_unit_test(test_event_without_items_prints_no_text),
		cmocka_unit_test(test_json_event_items_and_escaping),
		cmocka_unit_test(test_json_symbolized_frames_carry_source_and_inlines),
		cmocka_unit_test(test_json_values_are_typed),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
