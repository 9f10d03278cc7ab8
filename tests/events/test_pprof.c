/* The pprof writer (gs/pprof.h): synthetic events whose frames point into
 * the printers' fixture library, loaded here, written as a profile, read
 * back (gunzip, then protobuf-c's unpacking of the same profile.proto) and
 * checked field by field: the string table, samples and their labels,
 * locations with their inline lines (against addr2line), mappings with the
 * fixture's build id, and an unknown frame kept by address. Then random
 * events, whose totals and references must hold together. */
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
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include <gs/modfile.h>
#include <gs/pprof.h>
#include <gs/unwind.h>

#include "profile.pb-c.h"

#define FIXTURE "libgs_out_fixture.so"
#define UNKNOWN_IP 0x10ull /* in no mapping of any process */
/* The events' process: none (above any pid_max), so frames resolve by
 * cookie among the binaries known up front, as for a process gone; this
 * process's own maps change as libelf maps the files it reads. */
#define GONE_PID 0x7ffffff0u

static struct gs_frames *resolver;

typedef Perftools__Profiles__Profile Profile;

static struct {
	char path[512];
	uintptr_t base;
	uint64_t cookie;
	char build_id[2 * GS_BUILD_ID_MAX + 1];
	uint64_t leaf, leaf_size, leaf_inline, mid, mid_size;
} fx;

static uint64_t module_pc(void *handle, const char *name, uint64_t *size)
{
	void *addr = dlsym(handle, name);
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym)
		fail_msg("%s: no symbol %s", fx.path, name);
	fx.base = (uintptr_t)info.dli_fbase;
	*size = sym->st_size;
	return (uintptr_t)addr - fx.base;
}

static int setup(void **state)
{
	const char *dir = getenv("GS_PRINT_FIXTURES");
	struct gs_symbolizer *s = gs_symbolizer_new(NULL, NULL);
	struct gs_module_id id;
	int m;
	void *h;

	(void)state;
	if (!dir)
		fail_msg("GS_PRINT_FIXTURES is not set (meson sets it)");
	snprintf(fx.path, sizeof(fx.path), "%s/" FIXTURE, dir);
	if (!(h = dlopen(fx.path, RTLD_NOW)))
		fail_msg("dlopen %s: %s", fx.path, dlerror());
	fx.leaf = module_pc(h, "out_leaf", &fx.leaf_size);
	fx.mid = module_pc(h, "out_mid", &fx.mid_size);
	assert_int_equal(gs_module_identify(fx.path, &id, NULL), 0);
	fx.cookie = id.cookie;
	assert_true(id.build_id_len > 0);
	for (size_t i = 0; i < id.build_id_len; i++)
		sprintf(fx.build_id + 2 * i, "%02x", id.build_id[i]);
	/* a pc of out_leaf inside the inlined out_inl_add */
	m = gs_symbolizer_module(s, fx.path, NULL);
	for (uint64_t pc = fx.leaf; m >= 0 && pc < fx.leaf + fx.leaf_size; pc++) {
		const struct gs_sym_info *info;

		if (gs_symbolize(s, m, pc, &info, NULL) == 0 && info->ninlines == 1) {
			fx.leaf_inline = pc;
			break;
		}
	}
	gs_symbolizer_free(s);
	if (!fx.leaf_inline)
		fail_msg("no pc of out_leaf is inside the inlined out_inl_add");
	{
		const char *modules[] = { fx.path };
		GS_OPTS(gs_frames_opts, fo, .modules = modules, .nmodules = 1);

		assert_int_equal(gs_frames_new(&fo, &resolver, NULL), 0);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gs_frames_free(resolver);
	return 0;
}

/* ---- events ------------------------------------------------------------------- */

static struct gs_backtrace_frame at(uint64_t pc)
{
	struct gs_backtrace_frame f = { .module_cookie = fx.cookie, .pc = pc,
					.raw_ip = fx.base + pc };

	return f;
}

static struct gs_backtrace_frame unknown(void)
{
	struct gs_backtrace_frame f = { .pc = UNKNOWN_IP, .raw_ip = UNKNOWN_IP };

	return f;
}

struct ev {
	struct gs_inst insts[2];
	struct gs_event ev;
};

static const struct gs_event *event(struct ev *e, const struct gs_backtrace_frame *frames,
				    uint16_t n, uint64_t trace, uint32_t tid)
{
	memset(e, 0, sizeof(*e));
	e->insts[0].type = GS_INST_BACKTRACE;
	e->insts[0].backtrace.requested_depth = n;
	e->insts[0].backtrace.frame_count = n;
	e->insts[0].backtrace.frames = frames;
	e->insts[1].type = GS_INST_END;
	e->ev.trace_id = trace;
	e->ev.pid = GONE_PID;
	e->ev.tid = tid;
	e->ev.insts = e->insts;
	e->ev.ninsts = 2;
	return &e->ev;
}

/* ---- reading a profile back ----------------------------------------------------- */

static Profile *read_back(struct gs_pprof *p)
{
	char *gz = NULL;
	size_t gzlen = 0, cap = 1 << 16;
	FILE *f = open_memstream(&gz, &gzlen);
	uint8_t *raw = malloc(cap);
	z_stream z = { 0 };
	Profile *prof;
	int zr;

	assert_non_null(f);
	assert_int_equal(gs_pprof_write(p, f, NULL), 0);
	fclose(f);
	assert_true(gzlen > 18 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	do {
		if (z.total_out == cap)
			raw = realloc(raw, cap *= 2);
		z.next_out = raw + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
	} while (zr == Z_OK);
	assert_int_equal(zr, Z_STREAM_END);
	prof = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&z);
	free(raw);
	free(gz);
	return prof;
}

static const char *S(const Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc(const Profile *p, uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	fail_msg("no location %" PRIu64, id);
	return NULL;
}

static const Perftools__Profiles__Function *fn(const Profile *p, uint64_t id)
{
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	fail_msg("no function %" PRIu64, id);
	return NULL;
}

static const Perftools__Profiles__Mapping *map(const Profile *p, uint64_t id)
{
	for (size_t i = 0; i < p->n_mapping; i++)
		if (p->mapping[i]->id == id)
			return p->mapping[i];
	fail_msg("no mapping %" PRIu64, id);
	return NULL;
}

/* The label key's value in s: its string, or its number printed. */
static const char *label(const Profile *p, const Perftools__Profiles__Sample *s, const char *key,
			 char *buf)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (strcmp(S(p, s->label[i]->key), key) != 0)
			continue;
		if (s->label[i]->str)
			return S(p, s->label[i]->str);
		sprintf(buf, "%" PRId64, s->label[i]->num);
		return buf;
	}
	return NULL;
}

/* addr2line -f -i at pc: innermost function and basename:line first. */
static int a2l(uint64_t pc, char func[][128], int *lines, int max)
{
	char cmd[1024], text[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' 0x%" PRIx64, fx.path, pc);
	assert_non_null(p = popen(cmd, "r"));
	while (n < max && fgets(text, sizeof(text), p)) {
		char *colon;

		text[strcspn(text, "\n")] = '\0';
		snprintf(func[n], 128, "%.120s", text);
		if (!fgets(text, sizeof(text), p))
			break;
		colon = strrchr(text, ':');
		lines[n++] = colon ? atoi(colon + 1) : 0;
	}
	pclose(p);
	return n;
}

/* ---- tests ------------------------------------------------------------------------ */

static struct gs_pprof *new_profile(void)
{
	GS_OPTS(gs_pprof_opts, o, .frames = resolver, .period_type = "cpu", .period_unit = "nanoseconds",
		.period = 1000, .duration_ns = 2000000000);
	struct gs_pprof *p;

	assert_int_equal(gs_pprof_new(&o, &p, NULL), 0);
	return p;
}

/* leaf (inside the inline) <- mid (a return address) <- an unknown frame. */
static void test_profile_fields_read_back(void **state)
{
	struct gs_backtrace_frame frames[3] = { at(fx.leaf_inline), at(fx.mid + 5), unknown() };
	struct gs_pprof *p = new_profile();
	const Perftools__Profiles__Location *l0, *l1, *l2;
	const Perftools__Profiles__Sample *s4 = NULL, *s1 = NULL;
	const Perftools__Profiles__Mapping *m;
	char func[4][128], buf[32];
	int lines[4], n;
	Profile *prof;
	struct ev e;

	(void)state;
	/* the same stack and labels merge; another thread is another sample */
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 3, 7, 100), 1), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 3, 7, 100), 3), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 3, 7, 101), 1), 0);
	assert_int_equal(gs_pprof_samples(p), 2);
	assert_int_equal(gs_pprof_total(p), 5);
	prof = read_back(p);

	assert_string_equal(S(prof, 0), "");
	assert_int_equal(prof->n_sample_type, 1);
	assert_string_equal(S(prof, prof->sample_type[0]->type), "samples");
	assert_string_equal(S(prof, prof->sample_type[0]->unit), "count");
	assert_non_null(prof->period_type);
	assert_string_equal(S(prof, prof->period_type->type), "cpu");
	assert_string_equal(S(prof, prof->period_type->unit), "nanoseconds");
	assert_int_equal(prof->period, 1000);
	assert_int_equal(prof->duration_nanos, 2000000000);
	/* every string once */
	for (size_t i = 0; i < prof->n_string_table; i++)
		for (size_t k = i + 1; k < prof->n_string_table; k++)
			assert_string_not_equal(prof->string_table[i], prof->string_table[k]);

	assert_int_equal(prof->n_sample, 2);
	for (size_t i = 0; i < 2; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];

		assert_int_equal(s->n_value, 1);
		assert_int_equal(s->n_location_id, 3);
		assert_int_equal(s->n_label, 3);
		if (s->value[0] == 4)
			s4 = s;
		if (s->value[0] == 1)
			s1 = s;
	}
	assert_non_null(s4);
	assert_non_null(s1);
	sprintf(buf, "%u", GONE_PID);
	assert_string_equal(label(prof, s4, "pid", func[0]), buf);
	assert_string_equal(label(prof, s4, "tid", func[0]), "100");
	assert_string_equal(label(prof, s1, "tid", func[0]), "101");
	assert_string_equal(label(prof, s4, "trace", func[0]), "7");
	for (int i = 0; i < 3; i++)
		assert_int_equal(s4->location_id[i], s1->location_id[i]);

	/* frame 0: one location, a line per call, innermost first, as addr2line */
	l0 = loc(prof, s4->location_id[0]);
	assert_int_equal(l0->address, fx.leaf_inline);
	n = a2l(fx.leaf_inline, func, lines, 4);
	assert_int_equal(n, 2);
	assert_int_equal(l0->n_line, 2);
	for (int i = 0; i < n; i++) {
		const Perftools__Profiles__Function *f = fn(prof, l0->line[i]->function_id);

		assert_string_equal(S(prof, f->name), func[i]);
		assert_string_equal(S(prof, f->system_name), func[i]);
		assert_non_null(strstr(S(prof, f->filename), "out_fixture.c"));
		assert_int_equal(l0->line[i]->line, lines[i]);
	}
	assert_string_equal(S(prof, fn(prof, l0->line[0]->function_id)->name), "out_inl_add");
	/* frame 1: a return address, located at its call (the byte before) */
	l1 = loc(prof, s4->location_id[1]);
	assert_int_equal(l1->address, fx.mid + 4);
	n = a2l(fx.mid + 4, func, lines, 4);
	assert_int_equal(l1->n_line, n);
	assert_string_equal(S(prof, fn(prof, l1->line[0]->function_id)->name), "out_mid");
	assert_int_equal(l1->line[0]->line, lines[0]);
	assert_int_equal(l1->mapping_id, l0->mapping_id);
	/* frame 2: no module, so no mapping and no line, its address kept */
	l2 = loc(prof, s4->location_id[2]);
	assert_int_equal(l2->mapping_id, 0);
	assert_int_equal(l2->address, UNKNOWN_IP - 1);
	assert_int_equal(l2->n_line, 0);

	/* the fixture's mapping: its executable segment, its file, its build id */
	assert_int_equal(prof->n_mapping, 1);
	m = map(prof, l0->mapping_id);
	assert_true(m->memory_start <= fx.leaf && fx.leaf < m->memory_limit);
	assert_true(m->memory_start <= fx.mid && fx.mid < m->memory_limit);
	assert_true(m->file_offset <= m->memory_start);
	assert_non_null(strstr(S(prof, m->filename), FIXTURE));
	assert_string_equal(S(prof, m->build_id), fx.build_id);
	assert_true(m->has_functions && m->has_filenames && m->has_line_numbers &&
		    m->has_inline_frames);
	/* functions are distinct */
	for (size_t i = 0; i < prof->n_function; i++)
		for (size_t k = i + 1; k < prof->n_function; k++)
			assert_true(prof->function[i]->name != prof->function[k]->name ||
				    prof->function[i]->filename != prof->function[k]->filename);
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gs_pprof_free(p);
}

/* Counts made in BPF come back as one event counted many times, and a
 * second read starts from cleared samples: what --count-in bpf does. */
static void test_clear_samples_keeps_tables(void **state)
{
	struct gs_backtrace_frame frames[2] = { at(fx.leaf), at(fx.mid + 5) };
	struct gs_pprof *p = new_profile();
	Profile *prof;
	struct ev e;

	(void)state;
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 2, 0, 0), 10), 0);
	gs_pprof_clear_samples(p);
	assert_int_equal(gs_pprof_samples(p), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 2, 0, 0), 12), 0);
	prof = read_back(p);
	assert_int_equal(prof->n_sample, 1);
	assert_int_equal(prof->sample[0]->value[0], 12);
	/* tid 0: no tid label; trace 0 still shows */
	assert_int_equal(prof->sample[0]->n_label, 2);
	assert_string_equal(S(prof, prof->sample[0]->label[1]->key), "trace");
	assert_string_equal(S(prof, prof->sample[0]->label[1]->str), "0");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gs_pprof_free(p);
}

/* An empty profile is a valid one. */
static void test_empty_profile(void **state)
{
	struct gs_pprof *p = new_profile();
	Profile *prof;

	(void)state;
	prof = read_back(p);
	assert_int_equal(prof->n_sample, 0);
	assert_int_equal(prof->n_location, 0);
	assert_string_equal(S(prof, prof->sample_type[0]->type), "samples");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gs_pprof_free(p);
}

/* Random stacks of fixture pcs and unknown addresses: every reference
 * resolves, every location id is distinct, the values add up. */
static void test_random_events_hold_together(void **state)
{
	struct gs_pprof *p = new_profile();
	struct gs_backtrace_frame frames[40];
	uint64_t total = 0, sum = 0;
	unsigned seed = 12345;
	Profile *prof;
	struct ev e;

	(void)state;
	for (int k = 0; k < 2000; k++) {
		uint16_t n = (uint16_t)(1 + rand_r(&seed) % 40);
		uint64_t count = 1 + (uint64_t)(rand_r(&seed) % 5);

		for (uint16_t i = 0; i < n; i++) {
			int r = rand_r(&seed) % 4;

			frames[i] = r == 0 ? unknown() :
				    r == 1 ? at(fx.mid + (uint64_t)rand_r(&seed) % fx.mid_size) :
					     at(fx.leaf + (uint64_t)rand_r(&seed) % fx.leaf_size);
			if (r == 0)
				frames[i].raw_ip = frames[i].pc = (uint64_t)rand_r(&seed) % 4096;
		}
		assert_int_equal(gs_pprof_add(p, event(&e, frames, n, (uint64_t)(k % 3),
						       (uint32_t)(k % 2)), count), 0);
		total += count;
	}
	assert_int_equal(gs_pprof_total(p), total);
	prof = read_back(p);
	for (size_t i = 0; i < prof->n_location; i++) {
		const Perftools__Profiles__Location *l = prof->location[i];

		assert_int_equal(l->id, i + 1);
		if (l->mapping_id)
			map(prof, l->mapping_id);
		for (size_t k = 0; k < l->n_line; k++)
			S(prof, fn(prof, l->line[k]->function_id)->name);
	}
	for (size_t i = 0; i < prof->n_sample; i++) {
		for (size_t k = 0; k < prof->sample[i]->n_location_id; k++)
			loc(prof, prof->sample[i]->location_id[k]);
		sum += (uint64_t)prof->sample[i]->value[0];
	}
	assert_int_equal(sum, total);
	assert_int_equal(prof->n_sample, gs_pprof_samples(p));
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gs_pprof_free(p);
}

/* String labels by thread: the callback names each event's thread; an
 * empty value is left out; text from a target reaches the profile as
 * valid UTF-8 without controls; more labels than the room are cut. */
static size_t thread_labels(void *arg, const struct gs_event *ev, struct gs_pprof_label *out,
			    size_t max)
{
	size_t *calls = arg, n = 0;

	(*calls)++;
	out[n++] = (struct gs_pprof_label){ "comm", ev->tid == 100 ? "worker" : "main" };
	/* a name a process chose: a terminal escape and a byte that is not UTF-8 */
	out[n++] = (struct gs_pprof_label){ "exe", "/bin/\x1b[31mred\xff" };
	out[n++] = (struct gs_pprof_label){ "container", "" };
	out[n++] = (struct gs_pprof_label){ "env", "prod" };
	/* the callback may fill exactly max, and no more */
	while (n < max)
		out[n++] = (struct gs_pprof_label){ "filler", "x" };
	return n + 5; /* claims more than max: cut to max */
}

static void test_string_labels_split_and_escape(void **state)
{
	struct gs_backtrace_frame frames[2] = { at(fx.leaf), at(fx.mid + 5) };
	size_t calls = 0;
	GS_OPTS(gs_pprof_opts, o, .frames = resolver, .labels = thread_labels,
		.labels_arg = &calls);
	const Perftools__Profiles__Sample *worker = NULL;
	struct gs_pprof *p;
	char buf[64];
	Profile *prof;
	struct ev e;

	(void)state;
	assert_int_equal(gs_pprof_new(&o, &p, NULL), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 2, 3, 100), 2), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 2, 3, 100), 1), 0);
	assert_int_equal(gs_pprof_add(p, event(&e, frames, 2, 3, 200), 1), 0);
	assert_int_equal(calls, 3); /* once per event */
	assert_int_equal(gs_pprof_samples(p), 2);
	prof = read_back(p);
	assert_int_equal(prof->n_sample, 2);
	for (size_t i = 0; i < prof->n_sample; i++) {
		const Perftools__Profiles__Sample *s = prof->sample[i];
		size_t fillers = 0;

		/* pid, tid, trace, comm, exe, env, and the fillers past them */
		assert_int_equal(s->n_label, 3 + GS_PPROF_LABELS_MAX - 1);
		for (size_t k = 0; k < s->n_label; k++) {
			const char *key = S(prof, s->label[k]->key);

			assert_string_not_equal(key, "container");
			fillers += strcmp(key, "filler") == 0;
		}
		assert_int_equal(fillers, GS_PPROF_LABELS_MAX - 4);
		assert_string_equal(label(prof, s, "exe", buf), "/bin/\\x1b[31mred\\xff");
		assert_string_equal(label(prof, s, "env", buf), "prod");
		if (strcmp(label(prof, s, "comm", buf), "worker") == 0)
			worker = s;
	}
	assert_non_null(worker);
	assert_int_equal(worker->value[0], 3);
	assert_string_equal(label(prof, worker, "tid", buf), "100");
	perftools__profiles__profile__free_unpacked(prof, NULL);
	gs_pprof_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_fields_read_back),
		cmocka_unit_test(test_clear_samples_keeps_tables),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_random_events_hold_together),
		cmocka_unit_test(test_string_labels_split_and_escape),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
