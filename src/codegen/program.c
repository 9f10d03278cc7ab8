/* gs_program_build(): options with their defaults, the maps a trace needs,
 * and the main program: prologue, statements, EndInstruction and emission,
 * shared exits. The result is checked by gs_asm_check() so a code
 * generation bug is reported here, not by the verifier. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/program.h>

#include "base.h"
#include "bt.h"
#include "capture.h"
#include "opts.h"

#define PERCPU_VALUE_MAX 32768 /* the kernel's per-CPU allocation unit */

static int resolve_opts(const struct gs_program_opts *in, struct gs_program_opts *o,
			uint32_t *max_size, struct gs_error *err)
{
	uint32_t out_bytes;
	int rc = OPTS_COPY(o, in, gs_program_opts, err);

	if (rc)
		return rc;
	if (!o->ringbuf_size)
		o->ringbuf_size = GS_DEFAULT_RINGBUF_SIZE;
	if (!o->perf_page_count)
		o->perf_page_count = GS_DEFAULT_PERF_PAGE_COUNT;
	if (!o->max_trace_event_size)
		o->max_trace_event_size = GS_DEFAULT_MAX_TRACE_EVENT_SIZE;
	if (!o->backtrace_depth)
		o->backtrace_depth = GS_BT_DEFAULT_DEPTH;
	if (o->unwinder != GS_UNWINDER_TAILCALL && o->unwinder != GS_UNWINDER_LOOP)
		return gs_errorf(err, -EINVAL, "unwinder %d is neither tail call nor loop",
				 o->unwinder);
	if (o->backtrace_depth > (o->unwinder == GS_UNWINDER_LOOP ? GS_BT_LOOP_MAX_DEPTH :
				  GS_BT_MAX_DEPTH))
		o->backtrace_depth = o->unwinder == GS_UNWINDER_LOOP ? GS_BT_LOOP_MAX_DEPTH :
				     GS_BT_MAX_DEPTH;
	if (!o->unwind_rows_max)
		o->unwind_rows_max = GS_DEFAULT_UNWIND_ROWS_MAX;
	if (!o->proc_offsets_max)
		o->proc_offsets_max = GS_DEFAULT_PROC_MODULE_OFFSETS_MAX;
	if (o->output != GS_OUTPUT_RINGBUF && o->output != GS_OUTPUT_PERF)
		return gs_errorf(err, -EINVAL, "output kind %d is neither ringbuf nor perf",
				 o->output);
	if (o->max_trace_event_size > PERCPU_VALUE_MAX || o->max_trace_event_size < GS_MIN_EVENT_SIZE)
		return gs_errorf(err, -EINVAL,
				 "max_trace_event_size %u is outside %d..%d bytes (the event "
				 "buffer is one per-CPU map value)",
				 o->max_trace_event_size, GS_MIN_EVENT_SIZE, PERCPU_VALUE_MAX);
	out_bytes = o->output == GS_OUTPUT_RINGBUF ? o->ringbuf_size : o->perf_page_count * 4096u;
	*max_size = o->max_trace_event_size < out_bytes ? o->max_trace_event_size : out_bytes;
	return 0;
}

/* Declares the map of `slot` (its gs_map_defs entry: def, which differs
 * for the perf output) with max_entries, and value_size when the table
 * leaves it to the program. */
static void add_map(struct gs_program *p, enum gs_map_slot slot, int def, uint32_t value_size,
		    uint32_t max_entries)
{
	const struct gs_map_def *d = &gs_map_defs[def];

	p->map_index[slot] = (int)p->nmaps;
	p->maps[p->nmaps++] = (struct gs_map_spec){
		.name = d->name, .type = (enum bpf_map_type)d->type, .key_size = d->key_size,
		.value_size = d->value_size ? d->value_size : value_size,
		.max_entries = max_entries, .slot = (uint8_t)slot, .share = d->share,
	};
	gs_asm_map(&p->main, d->name);
}

/* The bpf_loop walker's maps (protocol.h 2b), shared by every trace of a
 * session but bt_walk; proc_module_offsets stays for the runtime's fill. */
static int declare_loop_maps(struct gs_cg *cg)
{
	struct gs_program *p = cg->prog;
	const struct gs_program_opts *o = &cg->opts;
	uint32_t mods = o->proc_offsets_max, rows = o->unwind_rows_max;

	add_map(p, GS_MAP_PROC_OFFSETS, GS_MAP_PROC_OFFSETS, 0, mods);
	add_map(p, GS_MAP_PID_ALIASES, GS_MAP_PID_ALIASES, 0, mods);
	add_map(p, GS_MAP_BT_CROWS, GS_MAP_BT_CROWS, 0, rows);
	add_map(p, GS_MAP_BT_PAGES, GS_MAP_BT_PAGES, 0, rows / 4 + 4096);
	add_map(p, GS_MAP_BT_OVERFLOW, GS_MAP_BT_OVERFLOW, 0, rows / 16 + 256);
	add_map(p, GS_MAP_BT_MODULE_ROWS, GS_MAP_BT_MODULE_ROWS, 0, mods);
	add_map(p, GS_MAP_BT_PROC_MODULES, GS_MAP_BT_PROC_MODULES, 0, mods);
	add_map(p, GS_MAP_BT_MODULES, GS_MAP_BT_MODULES, 0, 4 * mods);
	add_map(p, GS_MAP_BT_WALK, GS_MAP_BT_WALK, 0, 1);
	add_map(p, GS_MAP_BT_GEN, GS_MAP_BT_GEN, 0, 1);
	return 0;
}

/* BTF FUNC types of the main program, the walker's subprograms (bt_loop),
 * the Python walk's (py_walk) and the fault-in subprogram (fault_in). */
static uint32_t declare_btf(struct gs_cg *cg)
{
	struct gs_btf *b = cg->prog->btf;
	uint32_t t_int = gs_btf_int(b, "int", 4, true);
	uint32_t t_u64 = gs_btf_int(b, "unsigned long long", 8, false);
	uint32_t t_ptr = gs_btf_ptr(b, 0);
	uint32_t cb_params[] = { t_u64, t_ptr };
	static const char *const cb_names[] = { "index", "ctx" };
	uint32_t fault_params[] = { t_u64, t_u64, t_u64 };
	static const char *const fault_names[] = { "addr", "len", "gen" };
	uint32_t main_proto = gs_btf_func_proto(b, t_int, &t_ptr, (const char *const[]){ "ctx" }, 1);
	uint32_t main_fn = gs_btf_func(b, cg->prog->name, main_proto, GS_BTF_GLOBAL);

	if (cg->loop) {
		cg->loop->btf_walk = gs_btf_func(b, "gs_bt_walk",
					      gs_btf_func_proto(b, t_int, NULL, NULL, 0),
					      GS_BTF_GLOBAL);
		cg->loop->btf_frame = gs_btf_func(b, "gs_bt_frame",
					       gs_btf_func_proto(b, t_u64, cb_params, cb_names, 2),
					       GS_BTF_STATIC);
	}
	if (cg->py) {
		cg->py->btf_walk = gs_btf_func(b, "gs_py_walk",
					    gs_btf_func_proto(b, t_int, &t_u64,
							      (const char *const[]){ "inst_off" }, 1),
					    GS_BTF_GLOBAL);
		cg->py->btf_thread = gs_btf_func(b, "gs_py_thread",
					      gs_btf_func_proto(b, t_u64, cb_params, cb_names, 2),
					      GS_BTF_STATIC);
		cg->py->btf_frame = gs_btf_func(b, "gs_py_frame",
					     gs_btf_func_proto(b, t_u64, cb_params, cb_names, 2),
					     GS_BTF_STATIC);
	}
	if (cg->fault)
		cg->fault->btf = gs_btf_func(b, "gs_fault_in",
					    gs_btf_func_proto(b, t_int, fault_params, fault_names, 3),
					    GS_BTF_GLOBAL);
	return main_fn;
}

/* The maps this trace needs, in a fixed order (docs/protocol.md says what
 * each holds where it explains its use). */
static int declare_maps(struct gs_cg *cg, uint32_t nbt)
{
	struct gs_program *p = cg->prog;
	const struct gs_program_opts *o = &cg->opts;
	const struct gs_bt_probe *bt = cg->spec->bt;
	uint32_t mods = o->proc_offsets_max;

	p->maps = calloc(GS_MAP_KINDS, sizeof(*p->maps));
	if (!p->maps)
		return -ENOMEM;
	for (size_t i = 0; i < GS_MAP_KINDS; i++)
		p->map_index[i] = -1;
	if (o->output == GS_OUTPUT_RINGBUF)
		add_map(p, GS_MAP_OUTPUT, GS_MAP_OUTPUT, 0, o->ringbuf_size);
	else
		add_map(p, GS_MAP_OUTPUT, GS_MAP_OUTPUT_PERF, 0, 0);
	add_map(p, GS_MAP_LOSS, GS_MAP_LOSS, 0, 1);
	add_map(p, GS_MAP_ACCUM, GS_MAP_ACCUM, cg->max_size, 1);
	if (o->fault_in)
		add_map(p, GS_MAP_READ_GEN, GS_MAP_READ_GEN, 0, 1);
	if (cg->values->ntls)
		add_map(p, GS_MAP_PROC_TLS, GS_MAP_PROC_TLS, 0, mods);
	if (gs_stmts_aggregate(cg->spec->body, cg->spec->nbody)) {
		add_map(p, GS_MAP_AGGS, GS_MAP_AGGS, 0,
			o->agg_max_keys ? o->agg_max_keys : GS_AGG_DEFAULT_MAX_KEYS);
		p->maps[p->map_index[GS_MAP_AGGS]].key_size =
			(uint32_t)offsetof(struct gs_agg_key, keys) + cg_agg_key_bytes(cg);
		add_map(p, GS_MAP_AGG_DROPS, GS_MAP_AGG_DROPS, 0, 1);
	}
	if (gs_stmts_use_duration(cg->spec->body, cg->spec->nbody))
		add_map(p, GS_MAP_ENTRY_TIMES, GS_MAP_ENTRY_TIMES, 0, GS_DEFAULT_ENTRY_TIMES_MAX);
	if (!nbt || !bt) {
		if (!cg->values->nbias && !cg->values->ntls)
			return 0;
		/* Globals only: their modules' biases, nothing of bt. */
		add_map(p, GS_MAP_PROC_OFFSETS, GS_MAP_PROC_OFFSETS, 0, mods);
		add_map(p, GS_MAP_PID_ALIASES, GS_MAP_PID_ALIASES, 0, mods);
		return 0;
	}
	if (cg->loop) {
		declare_loop_maps(cg);
		if (o->count_stacks) {
			add_map(p, GS_MAP_STACK_COUNTS, GS_MAP_STACK_COUNTS, 0,
				o->stack_counts_max ? o->stack_counts_max :
				GS_DEFAULT_STACK_COUNTS_MAX);
			p->maps[p->map_index[GS_MAP_STACK_COUNTS]].key_size =
				cg_count_key_size(cg->bt_depth) +
				(cg_sample_kernel_stack(cg->spec) ? GS_STACK_COUNT_KSTACK_SIZE : 0) +
				(cg->py ? cg_python_stack_size(cg) : 0);
			add_map(p, GS_MAP_STACK_DROPS, GS_MAP_STACK_DROPS, 0, 1);
		}
		if (cg->py)
			add_map(p, GS_MAP_PY_PROCS, GS_MAP_PY_PROCS, 0, GS_DEFAULT_PY_PROCS_MAX);
		return 0;
	}
	add_map(p, GS_MAP_PROC_OFFSETS, GS_MAP_PROC_OFFSETS, 0, mods);
	add_map(p, GS_MAP_PID_ALIASES, GS_MAP_PID_ALIASES, 0, mods);
	add_map(p, GS_MAP_BT_ROWS, GS_MAP_BT_ROWS, 0,
		o->unwind_rows_max > bt->nrows ? o->unwind_rows_max : (bt->nrows ? bt->nrows : 1));
	if (bt->module_ranges) {
		add_map(p, GS_MAP_BT_ROW_RANGES, GS_MAP_BT_ROW_RANGES, 0, mods);
		add_map(p, GS_MAP_RANGE_META, GS_MAP_RANGE_META, 0, mods);
		add_map(p, GS_MAP_RANGES, GS_MAP_RANGES, 0, 2 * mods);
	}
	add_map(p, GS_MAP_BT_STATE, GS_MAP_BT_STATE, 0, p->bt_slots);
	if (cg_has_step(cg))
		add_map(p, GS_MAP_BT_PROGS, GS_MAP_BT_PROGS, 0, 1);
	return 0;
}

static void build(struct gs_cg *cg)
{
	struct gs_asm *a = cg->a;
	const struct gs_trace_spec *spec = cg->spec;
	uint32_t total = cg_count_instructions(spec->body, spec->nbody, cg_bt_extra_flags(&cg->opts));

	if (cg->loop || cg->fault)
		gs_asm_func_begin(a, declare_btf(cg));
	if (cg->loop)
		cg->loop->walk = gs_asm_label(a, "gs_bt_walk");
	if (cg->py)
		cg->py->walk = gs_asm_label(a, "gs_py_walk");
	if (cg->fault)
		cg->fault->fn = gs_asm_label(a, "gs_fault_in");
	/* The cursor first, at r10 - 4: the verifier keeps the value of a
	 * store only at an 8-byte aligned stack offset, so each reservation
	 * reads the cursor back as a number it knows only by the reserve
	 * check's bounds. Were it a known constant, every `if` that prints
	 * would leave two states (cursor K and K + size) that never prune,
	 * and n conditions would cost the verifier 2^n walks (docs/cli.md,
	 * "Conditions"). */
	cg->offset_slot = gs_asm_slot(a, "event_offset", 4, 4);
	if (cg->offset_slot % 8 == 0)
		cg_fail(cg, -EINVAL, "event_offset at r10 %d is 8-byte aligned: the verifier "
			"would track its value on every path", cg->offset_slot);
	cg->key_slot = gs_asm_slot(a, "key0", 4, 4);
	cg->accum_slot = gs_asm_slot(a, "accum_buffer", 8, 8);
	cg->flags_slot = gs_asm_slot(a, "any_fail_success", 2, 2);
	if (cg->opts.pid_ns_ino || cg->opts.special_ns_ino)
		cg->nsinfo_slot = gs_asm_slot(a, "pidns_info", 8, 8);
	for (uint32_t i = 0; i < spec->nvars; i++)
		cg->var_slots[i] = gs_asm_slot(a, "let_variable", 8, 8);
	if (cg->values->any)
		cg->values->addr_slot = gs_asm_slot(a, "value_address", 24, 8);
	if (gs_stmts_use_duration(spec->body, spec->nbody))
		cg->duration_slot = gs_asm_slot(a, "duration", 8, 8);
	if (cg->fault) {
		cg->fault->gen_slot = gs_asm_slot(a, "read_fault_gen", 8, 8);
		cg->fault->read_slot = gs_asm_slot(a, "fault_read", 16, 8);
	}
	if (spec->bt && cg->tail)
		cg_bt_prepare(a, cg->tail);
	cg->exit0 = gs_asm_label(a, "exit");
	cg->overflow = gs_asm_label(a, "reserve_overflow");
	if (total > UINT16_MAX)
		cg_fail(cg, -E2BIG, "trace %u has %u instructions; an event counts at most %u",
			spec->trace_id, total, UINT16_MAX);
	cg->prog->total_instructions = (uint16_t)total;

	/* The prologues in the order they run: the context register; which
	 * hits count (a CPU sample's own filter and user registers, or the
	 * PID filter); the event's (walker's gate, key0, cursor); then the
	 * parts' own. */
	gs_asm_note(a, "r6 = ctx");
	gs_asm_emit(a, GS_MOV64_REG(GS_R6, GS_R1));
	if (spec->sample)
		cg_sample_prologue(cg);
	else
		cg_pid_filter(cg);
	cg_prologue(cg);
	cg_duration_prologue(cg);
	cg_fault_prologue(cg);
	if (cg_has_step(cg))
		cg_bt_chain_prologue(a, cg->tail);
	if (cg->quiet) {
		gs_asm_note(a, "no event (aggregations only): any_fail = any_success = no");
		gs_asm_emit(a, GS_ST_MEM(BPF_H, GS_FP, cg->flags_slot,
					 CG_FLAG_NO | CG_FLAG_NO << 8));
	} else {
		cg_event_begin(cg);
	}
	cg_values_prologue(cg);
	cg_stmts(cg, spec->body, spec->nbody);
	if (cg->quiet) {
		gs_asm_ja(a, cg->exit0);
	} else if (cg->opts.count_stacks) {
		cg_count_stack(cg);
	} else {
		cg_end_instruction(cg, (uint16_t)total);
		if (cg_has_step(cg))
			cg_bt_dispatch(cg);
		cg_emit_event(cg, GS_FP, cg->offset_slot);
	}
	cg_epilogue(cg);
	if (cg->loop)
		cg_bt_loop_subprogs(cg);
	if (cg->py)
		cg_py_subprogs(cg);
	if (cg->fault && cg->fault->called)
		cg_fault_subprog(cg);
}

/* The end of each program of a build: its labels resolved (a jump out of
 * range or an unbound label fails here), the BTF it carries (the main
 * program's subprograms) checked, then gs_asm_check(), so that a code
 * generation bug is reported as one, naming the program (`what`), and
 * not by the verifier as a rejected program. */
static int finish(const struct gs_cg *cg, struct gs_asm *a, const struct gs_btf *btf,
		  const char *what, struct gs_error *err)
{
	struct gs_error check;
	int rc = gs_asm_finish(a, err);

	if (rc)
		return rc;
	if (btf && btf->error_code)
		return gs_errorf(err, btf->error_code, "trace %u: BTF writer: %s",
				 cg->spec->trace_id, btf->error_what);
	if (cg->opts.skip_check || !(rc = gs_asm_check(a, &check)))
		return 0;
	return gs_errorf(err, rc, "internal error: trace %u's %s fails the static check "
			 "(please report it): %s", cg->spec->trace_id, what, check.msg);
}

/* The typed pass's question about a source-level value: its DWARF type
 * (NULL after failing the build with the reason). */
static const struct gs_type *value_type(const struct gs_expr *e, void *arg)
{
	return gs_expr_is_value(e) ? cg_value_type(arg, e) : NULL;
}

int gs_program_build(const struct gs_trace_spec *spec, const struct gs_program_opts *opts,
		     struct gs_program **out, struct gs_error *err)
{
	return gs_program_build_at(spec, opts, out, NULL, err);
}

int gs_program_build_at(const struct gs_trace_spec *spec, const struct gs_program_opts *opts,
			struct gs_program **out, const struct gs_expr **at, struct gs_error *err)
{
	/* The parts the main program may own; cg points at those it does. */
	struct cg_values values = { .type_i64 = -1, .type_u64 = -1, .type_bool = -1 };
	struct cg_fault fault = { 0 };
	struct cg_tail_walker tail = { 0 };
	struct cg_loop_walker loop = { 0 };
	struct cg_py_walker py = { 0 };
	struct gs_cg cg = { .spec = spec, .err = err, .values = &values };
	struct gs_program *p;
	size_t maps_room = GS_MAP_KINDS; /* declare_maps makes room for every kind */
	uint32_t nbt;
	int rc;

	*out = NULL;
	if (at)
		*at = NULL;
	gs_error_clear(err);
	if (!spec || (spec->nbody && !spec->body))
		return gs_errorf(err, -EINVAL, "gs_program_build: the trace spec is missing");
	rc = resolve_opts(opts, &cg.opts, &cg.max_size, err);
	if (rc)
		return rc;
	memset(values.type_deref, 0xff, sizeof(values.type_deref));
	if (!cg.opts.max_string_len)
		cg.opts.max_string_len = GS_DEFAULT_MAX_STRING_LEN;
	if (!cg.opts.compare_cap)
		cg.opts.compare_cap = GS_DEFAULT_COMPARE_CAP;
	p = calloc(1, sizeof(*p));
	cg.var_slots = calloc(spec->nvars ? spec->nvars : 1, sizeof(*cg.var_slots));
	if (!p || !cg.var_slots) {
		free(p);
		free(cg.var_slots);
		return gs_errorf(err, -ENOMEM, "out of memory building trace %u", spec->trace_id);
	}
	gs_asm_init(&p->main);
	gs_context_init(&p->ctx);
	/* as gdb's `print elements`: the characters of a string and the
	 * elements of a container alike */
	p->ctx.view_caps = (struct gs_view_caps){
		.string_bytes = cg.opts.max_elements ? cg.opts.max_elements : GS_VIEW_DEFAULT_ELEMENTS,
		.elements = cg.opts.max_elements ? cg.opts.max_elements : GS_VIEW_DEFAULT_ELEMENTS,
		.depth = cg.opts.max_view_depth ? cg.opts.max_view_depth : GS_VIEW_DEFAULT_DEPTH,
	};
	p->ctx.view_caps.nested = p->ctx.view_caps.elements < GS_VIEW_DEFAULT_NESTED ?
		p->ctx.view_caps.elements : GS_VIEW_DEFAULT_NESTED;
	p->trace_id = spec->trace_id;
	p->max_trace_event_size = cg.max_size;
	snprintf(p->name, sizeof(p->name), "gs_trace%u", spec->trace_id);
	snprintf(p->step_name, sizeof(p->step_name), "gs_trace%u_bt", spec->trace_id);
	cg.a = &p->main;
	cg.prog = p;
	nbt = gs_stmts_count_bt(spec->body, spec->nbody);
	cg_values_scan(&cg);
	cg.bt_depth = cg.opts.backtrace_depth;
	if (cg.opts.unwinder == GS_UNWINDER_LOOP && nbt && spec->bt)
		cg.loop = &loop;
	else if (nbt)
		cg.tail = &tail;
	tail.step = cg.tail && spec->bt && spec->bt->nrows && cg.bt_depth > BT_INLINE_FRAMES;
	if (spec->sample) {
		const char *why = cg_sample_unqualified(spec, &cg.opts);

		if (why) {
			rc = gs_errorf(err, -EINVAL, "trace %u cannot sample: %s", spec->trace_id,
				       why);
			goto fail;
		}
		p->prog_type = BPF_PROG_TYPE_PERF_EVENT;
	}
	if (cg_py_wanted(spec, &cg.opts)) {
		const char *why = cg_py_unqualified(spec, &cg.opts);

		if (why) {
			rc = gs_errorf(err, -EINVAL, "trace %u cannot walk Python frames: %s",
				       spec->trace_id, why);
			goto fail;
		}
		cg.py = &py;
	}
	if (cg.opts.count_stacks) {
		const char *why = cg_count_unqualified(spec, &cg.opts);

		if (why) {
			rc = gs_errorf(err, -EINVAL, "trace %u cannot count in BPF: %s",
				       spec->trace_id, why);
			goto fail;
		}
	}
	if (gs_stmts_use_duration(spec->body, spec->nbody) && !spec->retprobe) {
		rc = gs_errorf(err, -EINVAL, "trace %u reads $duration, known only in a return "
			       "probe", spec->trace_id);
		goto fail;
	}
	cg.quiet = !cg.opts.count_stacks && gs_stmts_aggregate(spec->body, spec->nbody) &&
		   !gs_stmts_emit_events(spec->body, spec->nbody);
	if (cg.opts.fault_in && (cg.opts.output == GS_OUTPUT_PERF || tail.step)) {
		rc = gs_errorf(err, -EINVAL, "trace %u cannot fault pages in: the kernel refuses "
			       "%s in a sleepable program; use the ring buffer and the loop "
			       "unwinder, or read without faults", spec->trace_id,
			       tail.step ? "the tail-call unwinder's program array" :
			       "the perf event array");
		goto fail;
	}
	/* Nothing to fault in without a read of user memory (the walker's
	 * stack reads are resident): such a trace stays an ordinary program,
	 * without the generation map, the BTF and the sleepable load. */
	if (cg.opts.fault_in && !gs_stmts_read_user_memory(spec->body, spec->nbody))
		cg.opts.fault_in = false;
	if (cg.opts.fault_in)
		cg.fault = &fault;
	p->sleepable = cg.opts.fault_in;
	p->backtrace_depth = cg.bt_depth;
	p->unwinder = cg.opts.unwinder;
	p->bt_slots = !tail.step ? 1 : nbt > 255 ? 255 : nbt;
	if (((cg.loop || cg.fault) && !(p->btf = calloc(1, sizeof(*p->btf)))) ||
	    (tail.step && !(p->step = calloc(1, sizeof(*p->step))))) {
		rc = gs_errorf(err, -ENOMEM, "out of memory building trace %u", spec->trace_id);
		goto fail;
	}
	if (p->btf)
		gs_btf_init(p->btf);
	if (p->step)
		gs_asm_init(p->step);
	if (declare_maps(&cg, nbt)) {
		rc = gs_errorf(err, -ENOMEM, "out of memory declaring the maps of trace %u",
			       spec->trace_id);
		goto fail;
	}
	/* room was made for every kind: a plan keeps one list per probe */
	base_shrink((void **)&p->maps, &maps_room, p->nmaps, sizeof(*p->maps));
	if (!(cg.typed = gs_typed_new()) ||
	    gs_typed_body(cg.typed, spec->body, spec->nbody, value_type, &cg)) {
		rc = gs_errorf(err, -ENOMEM, "out of memory typing trace %u", spec->trace_id);
		goto fail;
	}
	cg_views_fit(&cg, spec->body, spec->nbody);
	build(&cg);
	/* Every reservation is constant: the longest path is the largest event. */
	p->event_size = cg.quiet || cg.opts.count_stacks ? 0 :
			cg.used < cg.max_size ? cg.used : cg.max_size;
	rc = finish(&cg, &p->main, p->btf, "program", err);
	if (rc)
		goto fail;
	if (cg.duration_slot) {
		snprintf(p->entry_name, sizeof(p->entry_name), "gs_trace%u_entry", spec->trace_id);
		if (!(p->entry = calloc(1, sizeof(*p->entry)))) {
			rc = gs_errorf(err, -ENOMEM, "out of memory building trace %u",
				       spec->trace_id);
			goto fail;
		}
		gs_asm_init(p->entry);
		cg_entry_program(&cg, p->entry);
		rc = finish(&cg, p->entry, NULL, "entry program", err);
		if (rc)
			goto fail;
	}
	if (tail.step) {
		p->has_step = true;
		cg_bt_step_program(&cg, p->step);
		rc = finish(&cg, p->step, NULL, "backtrace step program", err);
		if (rc)
			goto fail;
	}
	free(cg.var_slots);
	base_arena_free(&values.synth_arena);
	gs_typed_free(cg.typed);
	*out = p;
	return 0;
fail:
	if (at)
		*at = cg.fail_at;
	free(cg.var_slots);
	base_arena_free(&values.synth_arena);
	gs_typed_free(cg.typed);
	gs_program_free(p);
	return rc;
}

void gs_program_free(struct gs_program *p)
{
	if (!p)
		return;
	gs_asm_fini(&p->main);
	if (p->step)
		gs_asm_fini(p->step);
	free(p->step);
	if (p->entry)
		gs_asm_fini(p->entry);
	free(p->entry);
	free(p->aggs);
	if (p->btf)
		gs_btf_fini(p->btf);
	free(p->btf);
	gs_context_fini(&p->ctx);
	free(p->maps);
	free(p);
}
