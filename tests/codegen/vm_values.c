/* The harness of the VM suites over source-level values (vm_values.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vm_values.h"

static const struct gs_cg_case *find(const char *name)
{
	for (size_t i = 0; i < gs_cg_value_ncases; i++)
		if (strcmp(gs_cg_value_cases[i].name, name) == 0)
			return &gs_cg_value_cases[i];
	fail_msg("no case %s", name);
	return NULL;
}

void vmv_build(struct harness *h, const char *name)
{
	const struct gs_cg_case *c = find(name);
	struct gs_program_opts o = gs_cg_case_opts(c, GS_OUTPUT_RINGBUF);
	struct gs_error err;
	int step;

	memset(h, 0, sizeof(*h));
	if (gs_program_build(c->spec, &o, &h->p, &err))
		fail_msg("%s: %s", name, err.msg);
	gs_vm_init(&h->vm);
	h->vm.tgid = HOST_TGID;
	h->vm.pid = HOST_TID;
	h->prog = gs_cg_vm_load(&h->vm, h->p, h->map_ids, &step, &err);
	if (h->prog < 0)
		fail_msg("%s: %s", name, err.msg);
	h->regs[REG(152)] = STACK_SP;
	h->contexts[h->p->trace_id] = &h->p->ctx;
}

void vmv_user_mem(struct harness *h, uint64_t addr, const void *bytes, size_t len)
{
	struct gs_error err;

	if (gs_vm_add_user_mem(&h->vm, addr, bytes, len, &err))
		fail_msg("user memory: %s", err.msg);
}

/* The process's offsets of the probe module: its load bias is BIAS. */
void vmv_module_offsets(struct harness *h)
{
	struct gs_proc_module_key key = { .pid = HOST_TGID,
					  .cookie_lo = (uint32_t)GS_CG_PROBE_COOKIE,
					  .cookie_hi = (uint32_t)(GS_CG_PROBE_COOKIE >> 32) };
	struct gs_proc_module_offsets v = { BIAS, BIAS, BIAS, BIAS, BIAS, 0x100000 };
	struct gs_error err;

	if (gs_vm_map_update(&h->vm, h->map_ids[h->p->map_index[GS_MAP_PROC_OFFSETS]], &key, &v,
			     &err))
		fail_msg("offsets: %s", err.msg);
}

static int keep(void *arg, const struct gs_event *ev)
{
	struct harness *h = arg;

	h->nevents++;
	assert_true(ev->ninsts <= 16);
	h->ninsts = ev->ninsts;
	for (size_t i = 0; i < ev->ninsts; i++) {
		h->insts[i] = ev->insts[i];
		if (ev->insts[i].type == GS_INST_PRINT_COMPLEX_FORMAT) {
			assert_true(ev->insts[i].format.arg_count <= 8);
			memcpy(h->args[i], ev->insts[i].format.args,
			       ev->insts[i].format.arg_count * sizeof(struct gs_value));
			h->insts[i].format.args = h->args[i];
		}
	}
	return 0;
}

/* Runs once; the decoded event stays in h (its bytes in the VM's record). */
void vmv_run(struct harness *h)
{
	GS_OPTS(gs_decoder_opts, dopts, .contexts = h->contexts, .ncontexts = 64);
	struct gs_error err;
	uint64_t r0 = 99;

	if (gs_vm_run(&h->vm, (uint32_t)h->prog, h->regs, sizeof(h->regs), &r0, &err))
		fail_msg("vm: %s", err.msg);
	assert_int_equal(r0, 0);
	if (gs_decoder_new(&dopts, &h->dec, &err))
		fail_msg("decoder: %s", err.msg);
	assert_int_equal(h->vm.nrecords, 1);
	if (gs_decoder_feed(h->dec, h->vm.records[0].data, h->vm.records[0].size, keep, h,
			    &err) < 0)
		fail_msg("decode: %s", err.msg);
	assert_int_equal(h->nevents, 1);
}

void vmv_teardown(struct harness *h)
{
	gs_decoder_free(h->dec);
	gs_vm_fini(&h->vm);
	gs_program_free(h->p);
}

const struct gs_value *vmv_var(struct harness *h, size_t i)
{
	assert_true(i < h->ninsts);
	assert_int_equal(h->insts[i].type, GS_INST_PRINT_COMPLEX_VARIABLE);
	return &h->insts[i].variable;
}

const struct gs_value *vmv_arg(struct harness *h, size_t i, size_t k)
{
	assert_true(i < h->ninsts);
	assert_int_equal(h->insts[i].type, GS_INST_PRINT_COMPLEX_FORMAT);
	assert_true(k < h->insts[i].format.arg_count);
	return &h->insts[i].format.args[k];
}

int32_t vmv_i32(const struct gs_value *v)
{
	int32_t x;

	assert_int_equal(v->status, GS_VAR_OK);
	assert_true(v->data_len >= 4);
	memcpy(&x, v->data, 4);
	return x;
}

uint8_t vmv_end_status(struct harness *h)
{
	assert_int_equal(h->insts[h->ninsts - 1].type, GS_INST_END);
	return h->insts[h->ninsts - 1].end.execution_status;
}


int64_t vmv_i64(const struct gs_value *v)
{
	int64_t x = 0;
	uint32_t n = v->type && v->type->kind == GS_TYPE_BOOL ? 1 : 8;

	assert_int_equal(v->status, GS_VAR_OK);
	if (v->data_len < n)
		fail_msg("%s: %u bytes of %s", v->name, v->data_len, v->type ? v->type->name : "?");
	memcpy(&x, v->data, n);
	return x;
}
