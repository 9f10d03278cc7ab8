/* Loading finished programs into the kernel: map fds patched into a copy of
 * the instructions, the step program installed in bt_prog_array before the
 * main program exists, and on a rejection a report a person can act on: the
 * instruction the verifier stopped at, disassembled with its note, and the
 * verifier log's last lines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/internal/program.h>
#include <gs/disasm.h>
#include <gs/runtime.h>

#include "base.h"
#include "opts.h"
#include "rt_int.h"

#define LICENSE "GPL" /* bpf_probe_read_user & co. are GPL-only */
#define DEFAULT_LOG_SIZE (16u << 20)
#define DEFAULT_LOG_LINES 15u
#define CONTEXT_INSNS 3 /* instructions shown before the rejected one */

struct load_opts {
	uint32_t log_size;
	unsigned log_lines;
	uint32_t expected_attach_type;
	uint32_t prog_flags;
	enum bpf_prog_type type;
};

static int resolve_opts(const struct gs_load_opts *in, struct load_opts *out,
			struct gs_error *err)
{
	struct gs_load_opts o;
	int rc = OPTS_COPY(&o, in, gs_load_opts, err);

	*out = (struct load_opts){
		.log_size = o.log_size >= 128 ? o.log_size : DEFAULT_LOG_SIZE,
		.log_lines = o.log_lines ? o.log_lines : DEFAULT_LOG_LINES,
		.expected_attach_type = o.uprobe_multi && !o.prog_type ? RT_TRACE_UPROBE_MULTI : 0,
		.prog_flags = o.sleepable ? BPF_F_SLEEPABLE : 0,
		.type = o.prog_type ? (enum bpf_prog_type)o.prog_type : BPF_PROG_TYPE_KPROBE,
	};
	return rc;
}

const char *rt_verifier_log_tail(const char *log, unsigned lines)
{
	const char *p = log + strlen(log);

	if (p > log && p[-1] == '\n')
		p--;
	while (p > log && !(p[-1] == '\n' && --lines == 0))
		p--;
	return p;
}

static bool is_statistics(const char *line, size_t len)
{
	static const char *const prefixes[] = { "processed ", "stack depth ", "verification time " };

	for (size_t i = 0; i < BASE_ARRAY_SIZE(prefixes); i++)
		if (len >= strlen(prefixes[i]) && base_has_prefix(line, prefixes[i]))
			return true;
	return false;
}

void rt_verifier_log_reason(const char *log, char *buf, size_t size)
{
	const char *end = log + strlen(log);

	snprintf(buf, size, "(the verifier log is empty)");
	while (end > log) {
		const char *start = end;
		size_t len;

		while (start > log && start[-1] != '\n')
			start--;
		len = (size_t)(end - start);
		if (len > 0 && !is_statistics(start, len)) {
			snprintf(buf, size, "%.*s", (int)len, start);
			return;
		}
		end = start > log ? start - 1 : log;
	}
}

/* The instruction the verifier was at: the last `N: (op) ...` line of the
 * log (state lines `N: R1=...` and `from A to B:` lines do not count).
 * -1 when there is none. */
static long rejected_insn(const char *log)
{
	const char *end = log + strlen(log);

	while (end > log) {
		const char *start = end, *p;
		char *num_end;
		long idx;

		while (start > log && start[-1] != '\n')
			start--;
		p = start;
		if (isdigit((unsigned char)*p)) {
			idx = strtol(p, &num_end, 10);
			if (num_end[0] == ':' && num_end[1] == ' ' && num_end[2] == '(' &&
			    isxdigit((unsigned char)num_end[3]) && isxdigit((unsigned char)num_end[4]) &&
			    num_end[5] == ')')
				return idx;
		}
		end = start > log ? start - 1 : log;
	}
	return -1;
}

/* `text ; note` of instruction idx, which must start an instruction. */
static void describe_insn(const struct gs_asm *a, size_t idx, char *buf, size_t size)
{
	char text[160];
	const char *note = a->notes ? a->notes[idx] : NULL;

	gs_disasm_insn(&a->insns[idx], a->len - idx, text, sizeof(text));
	if (note)
		snprintf(buf, size, "%s ; %s", text, note);
	else
		snprintf(buf, size, "%s", text);
}

/* Whether idx is where an instruction starts (not the second ld_imm64 slot). */
static bool starts_insn(const struct gs_asm *a, size_t idx)
{
	char scratch[8];

	for (size_t i = 0; i < a->len;) {
		if (i == idx)
			return true;
		if (i > idx)
			return false;
		i += gs_disasm_insn(&a->insns[i], a->len - i, scratch, sizeof(scratch));
	}
	return false;
}

/* The report: verdict, the instructions up to the rejected one, the log tail. */
static char *build_report(const struct gs_asm *a, const char *name, int code, const char *log,
			  long idx, const char *reason, unsigned lines)
{
	char *out = NULL, line[512];
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fprintf(f, "the verifier rejected %s (%s): %s\n", name, strerror(-code), reason);
	if (idx >= 0 && (size_t)idx < a->len) {
		size_t first = (size_t)idx > CONTEXT_INSNS ? (size_t)idx - CONTEXT_INSNS : 0;
		char scratch[8];

		fprintf(f, "at instruction %ld of %zu:\n", idx, a->len);
		for (size_t i = 0; i <= (size_t)idx && i < a->len;) {
			size_t step = gs_disasm_insn(&a->insns[i], a->len - i, scratch, sizeof(scratch));

			if (i >= first) {
				describe_insn(a, i, line, sizeof(line));
				fprintf(f, "%s %5zu: %s\n", i == (size_t)idx ? "=>" : "  ", i, line);
			}
			i += step;
		}
	}
	fprintf(f, "last %u lines of the verifier log:\n%s", lines, rt_verifier_log_tail(log, lines));
	if (len && out[len - 1] != '\n')
		fputc('\n', f);
	fclose(f);
	return out;
}

static int reject(const struct gs_asm *a, const char *name, int code, const char *log,
		  unsigned lines, char **report, struct gs_error *err)
{
	char reason[200], insn[300];
	long idx = rejected_insn(log);

	rt_verifier_log_reason(log, reason, sizeof(reason));
	if (report)
		*report = build_report(a, name, code, log, idx, reason, lines);
	if (idx >= 0 && (size_t)idx < a->len && starts_insn(a, (size_t)idx)) {
		describe_insn(a, (size_t)idx, insn, sizeof(insn));
		return gs_errorf(err, code, "the verifier rejected %s at instruction %ld `%s`: %s "
				 "(%s; --dump-insns shows the whole program)", name, idx, insn,
				 reason, strerror(-code));
	}
	return gs_errorf(err, code, "the verifier rejected %s: %s (%s; --dump-insns shows the "
			 "whole program)", name, reason, strerror(-code));
}

/* The program's BTF loaded into the kernel, for func_info: -1 and 0
 * when the program has no subprogram records. */
static int load_btf(const struct gs_asm *a, const struct gs_btf *btf, const char *name,
		    int *btf_fd, struct gs_error *err)
{
	void *blob;
	size_t size;
	int rc;

	*btf_fd = -1;
	if (a->nfuncs == 0)
		return 0;
	if (!btf)
		return gs_errorf(err, -EINVAL, "program %s has subprograms but no BTF to describe "
				 "them (internal error, please report)", name);
	rc = gs_btf_finish(btf, &blob, &size, err);
	if (rc)
		return rc;
	*btf_fd = bpf_btf_load(blob, size, NULL);
	free(blob);
	if (*btf_fd < 0) {
		rc = *btf_fd;
		*btf_fd = -1;
		return gs_errorf(err, rc, "the kernel refused the BTF of %s (%s): it needs BTF "
				 "(CONFIG_DEBUG_INFO_BTF) for the bpf_loop walker and for reads "
				 "that fault pages in; try --unwinder tailcall --fault-in off",
				 name, strerror(-rc));
	}
	return 0;
}

int gs_asm_load(const struct gs_asm *a, const char *name, const struct gs_bpf_maps *maps,
		const struct gs_load_opts *opts, int *fd, char **report, struct gs_error *err)
{
	return gs_asm_load_btf(a, NULL, name, maps, opts, fd, report, err);
}

int gs_asm_load_btf(const struct gs_asm *a, const struct gs_btf *btf, const char *name,
		    const struct gs_bpf_maps *maps, const struct gs_load_opts *opts, int *fd,
		    char **report, struct gs_error *err)
{
	struct bpf_func_info *finfo = NULL;
	int btf_fd = -1;
	struct bpf_insn *insns = NULL;
	int *fds = NULL, rc, first;
	struct load_opts o;
	char *log = NULL;

	*fd = -1;
	if (report)
		*report = NULL;
	rc = resolve_opts(opts, &o, err);
	if (rc)
		return rc;
	if (!a->finished || a->len == 0)
		return gs_errorf(err, -EINVAL, "program %s is not a finished program; build it "
				 "with gs_program_build first", name);
	insns = malloc(a->len * sizeof(*insns));
	fds = calloc(maps->n ? maps->n : 1, sizeof(*fds));
	if (!insns || !fds) {
		rc = gs_errorf(err, -ENOMEM, "out of memory copying the %zu instructions of %s",
			       a->len, name);
		goto out;
	}
	memcpy(insns, a->insns, a->len * sizeof(*insns));
	for (size_t i = 0; i < maps->n; i++)
		fds[i] = maps->v[i].fd;
	rc = gs_reloc_apply(insns, a->len, a->relocs, a->nrelocs, fds, maps->n, err);
	if (rc == 0)
		rc = load_btf(a, btf, name, &btf_fd, err);
	if (rc)
		goto out;
	if (a->nfuncs) {
		finfo = calloc(a->nfuncs, sizeof(*finfo));
		if (!finfo) {
			rc = gs_errorf(err, -ENOMEM, "out of memory for the func_info of %s", name);
			goto out;
		}
		for (size_t i = 0; i < a->nfuncs; i++)
			finfo[i] = (struct bpf_func_info){ a->funcs[i].insn, a->funcs[i].type_id };
	}

	/* No log on the first try: a 16 MiB log costs time on every load. */
	{
		LIBBPF_OPTS(bpf_prog_load_opts, quiet, .prog_btf_fd = btf_fd > 0 ? btf_fd : 0,
			    .func_info = finfo, .func_info_cnt = (uint32_t)a->nfuncs,
			    .func_info_rec_size = finfo ? sizeof(*finfo) : 0,
			    .expected_attach_type = (enum bpf_attach_type)o.expected_attach_type,
			    .prog_flags = o.prog_flags);

		first = bpf_prog_load(o.type, name, LICENSE, insns, a->len, &quiet);
	}
	if (first >= 0) {
		*fd = first;
		goto out;
	}
	log = malloc(o.log_size);
	if (!log) {
		rc = gs_errorf(err, first, "the verifier rejected %s (%s); no memory for a %u-byte "
			       "log to say why", name, strerror(-first), o.log_size);
		goto out;
	}
	log[0] = '\0';
	{
		LIBBPF_OPTS(bpf_prog_load_opts, verbose, .log_buf = log, .log_size = o.log_size,
			    .log_level = 1, .prog_btf_fd = btf_fd > 0 ? btf_fd : 0,
			    .func_info = finfo, .func_info_cnt = (uint32_t)a->nfuncs,
			    .func_info_rec_size = finfo ? sizeof(*finfo) : 0,
			    .expected_attach_type = (enum bpf_attach_type)o.expected_attach_type,
			    .prog_flags = o.prog_flags);

		rc = bpf_prog_load(o.type, name, LICENSE, insns, a->len, &verbose);
	}
	if (rc >= 0) { /* accepted the second time (a transient failure) */
		*fd = rc;
		rc = 0;
		goto out;
	}
	if (first == -EPERM && !log[0])
		rc = gs_errorf(err, first, "loading %s was refused (EPERM) before verification: "
			       "run as root, or with CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on "
			       "kernels before 5.8)", name);
	else
		rc = reject(a, name, first, log, o.log_lines, report, err);
out:
	if (btf_fd >= 0)
		close(btf_fd);
	free(finfo);
	free(log);
	free(fds);
	free(insns);
	return rc;
}

static uint32_t verified_insns(int fd)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 ? info.verified_insns : 0;
}

int gs_program_load(const struct gs_program *p, const struct gs_bpf_maps *maps,
		    const struct gs_load_opts *opts, struct gs_loaded *out, char **report,
		    struct gs_error *err)
{
	int rc, slot = p->map_index[GS_MAP_BT_PROGS];
	struct gs_load_opts main_opts;
	uint32_t key = 0;

	out->main_fd = out->step_fd = out->entry_fd = -1;
	out->main_verified_insns = out->step_verified_insns = out->entry_verified_insns = 0;
	if (report)
		*report = NULL;
	if (maps->n != p->nmaps)
		return gs_errorf(err, -EINVAL, "program %s declares %zu maps but %zu were created; "
				 "create them with gs_bpf_maps_create from this program", p->name,
				 p->nmaps, maps->n);
	if (p->has_step) {
		if (slot < 0)
			return gs_errorf(err, -EINVAL, "program %s has a step program but no "
					 "bt_prog_array (internal error, please report)", p->name);
		rc = gs_asm_load(p->step, p->step_name, maps, opts, &out->step_fd, report, err);
		if (rc)
			return rc;
		out->step_verified_insns = verified_insns(out->step_fd);
		rc = bpf_map_update_elem(maps->v[slot].fd, &key, &out->step_fd, BPF_ANY);
		if (rc) {
			gs_loaded_close(out);
			return gs_errorf(err, rc, "cannot install %s in bt_prog_array[0]: %s",
					 p->step_name, strerror(-rc));
		}
	}
	rc = OPTS_COPY(&main_opts, opts, gs_load_opts, err);
	main_opts.sleepable = p->sleepable;
	main_opts.prog_type = p->prog_type;
	if (rc == 0)
		rc = gs_asm_load_btf(&p->main, p->btf, p->name, maps, &main_opts, &out->main_fd,
				     report, err);
	if (rc) {
		gs_loaded_close(out);
		return rc;
	}
	out->main_verified_insns = verified_insns(out->main_fd);
	if (p->entry) {
		main_opts.sleepable = false;
		rc = gs_asm_load(p->entry, p->entry_name, maps, &main_opts, &out->entry_fd, report,
				 err);
		if (rc) {
			gs_loaded_close(out);
			return rc;
		}
		out->entry_verified_insns = verified_insns(out->entry_fd);
	}
	return 0;
}

void gs_loaded_close(struct gs_loaded *l)
{
	if (l->main_fd >= 0)
		close(l->main_fd);
	if (l->step_fd >= 0)
		close(l->step_fd);
	if (l->entry_fd >= 0)
		close(l->entry_fd);
	l->main_fd = l->step_fd = l->entry_fd = -1;
}

/* Whether the kernel loads the program a builds (with b's subprogram
 * types, when not NULL); a is finished and freed. */
static int probe_accepted(struct gs_asm *a, const struct gs_btf *b, const char *name,
			  const struct gs_load_opts *lo)
{
	struct gs_bpf_maps none = { 0 };
	int fd = -1, rc = gs_asm_finish(a, NULL);

	if (rc == 0)
		rc = gs_asm_load_btf(a, b, name, &none, lo, &fd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	gs_asm_fini(a);
	return rc == 0;
}

/* main calls a global subprogram that runs bpf_loop over a callback: what
 * the loop walker needs of the kernel, in 14 instructions. */
static int probe_loop(void)
{
	struct gs_asm a;
	struct gs_btf b;
	struct gs_label walk, cb;
	uint32_t t_int, t_u64, t_ptr, params[2];
	int rc;

	gs_asm_init(&a);
	gs_btf_init(&b);
	t_int = gs_btf_int(&b, "int", 4, true);
	t_u64 = gs_btf_int(&b, "unsigned long long", 8, false);
	t_ptr = gs_btf_ptr(&b, 0);
	params[0] = t_u64;
	params[1] = t_ptr;
	walk = gs_asm_label(&a, "walk");
	cb = gs_asm_label(&a, "cb");
	gs_asm_func_begin(&a, gs_btf_func(&b, "gs_probe", gs_btf_func_proto(&b, t_int, &t_ptr,
					  NULL, 1), GS_BTF_GLOBAL));
	gs_asm_call_label(&a, walk);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&a, GS_EXIT());
	gs_asm_func_begin(&a, gs_btf_func(&b, "gs_probe_walk", gs_btf_func_proto(&b, t_int, NULL,
					  NULL, 0), GS_BTF_GLOBAL));
	gs_asm_bind(&a, walk);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R1, 2));
	gs_asm_ld_func(&a, GS_R2, cb);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R4, 0));
	gs_asm_call(&a, BPF_FUNC_loop);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&a, GS_EXIT());
	gs_asm_func_begin(&a, gs_btf_func(&b, "gs_probe_cb", gs_btf_func_proto(&b, t_u64, params,
					  NULL, 2), GS_BTF_STATIC));
	gs_asm_bind(&a, cb);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&a, GS_EXIT());
	rc = probe_accepted(&a, &b, "gs_loop_probe", NULL);
	gs_btf_fini(&b);
	return rc;
}

int gs_bpf_loop_supported(void)
{
	/* The kernel does not change under a running process: probe once. */
	static int known = -1;

	if (known < 0)
		known = probe_loop();
	return known;
}

int gs_ringbuf_supported(void)
{
	static int known = -1;

	if (known < 0) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gs_rb_probe", 0, 0, 4096, NULL);

		/* An unknown map type is EINVAL; a page-sized ring is valid */
		known = fd >= 0 || errno != EINVAL;
		if (fd >= 0)
			close(fd);
	}
	return known;
}

/* A sleepable uprobe program calling bpf_copy_from_user into its stack:
 * what fault-in reads need. Kernels before 6.0 refuse BPF_F_SLEEPABLE
 * for kprobe-type programs at load. */
static int probe_sleepable(void)
{
	GS_OPTS(gs_load_opts, lo, .sleepable = true);
	struct gs_asm a;

	gs_asm_init(&a);
	gs_asm_emit(&a, GS_MOV64_REG(GS_R1, GS_FP));
	gs_asm_emit(&a, GS_ALU64_IMM(BPF_ADD, GS_R1, -8));
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R2, 1));
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R3, 0));
	gs_asm_call(&a, BPF_FUNC_copy_from_user);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(&a, GS_EXIT());
	return probe_accepted(&a, NULL, "gs_sleep_probe", &lo);
}

int gs_sleepable_uprobe_supported(void)
{
	static int known = -1;

	if (known < 0)
		known = probe_sleepable();
	return known;
}
