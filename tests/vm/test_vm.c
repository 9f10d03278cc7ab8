/* The VM suite's entry point and fixture: the interpreter is pinned by
 * groups for the instruction set (test_vm_isa.c), memory safety
 * (test_vm_mem.c), maps, helpers and tail calls (test_vm_helpers.c), the
 * shared sample programs (test_vm_samples.c) and bpf_loop and global
 * subprograms (test_vm_calls.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_test.h"

int vt_setup(void **state)
{
	struct vt *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	gs_vm_init(&t->vm);
	for (size_t i = 0; i < sizeof(t->ctx); i++)
		t->ctx[i] = (uint8_t)i;
	*state = t;
	return 0;
}

int vt_teardown(void **state)
{
	struct vt *t = *state;

	gs_vm_fini(&t->vm);
	free(t);
	return 0;
}

int vt_run_prog(struct vt *t, int prog)
{
	assert_true(prog >= 0);
	return gs_vm_run(&t->vm, (uint32_t)prog, t->ctx, sizeof(t->ctx), &t->r0, &t->err);
}

int vt_run(struct vt *t, const struct bpf_insn *insns, size_t n)
{
	int prog = gs_vm_add_prog(&t->vm, insns, n, NULL, &t->err);

	if (prog < 0)
		fail_msg("gs_vm_add_prog: %s", t->err.msg);
	return vt_run_prog(t, prog);
}

uint64_t vt_eval(struct vt *t, const struct bpf_insn *insns, size_t n)
{
	int ret = vt_run(t, insns, n);

	if (ret)
		fail_msg("the run failed (%d): %s", ret, t->err.msg);
	return t->r0;
}

void vt_expect_error(struct vt *t, int code, const char *text, const struct bpf_insn *insns,
		     size_t n)
{
	int ret = vt_run(t, insns, n);

	if (ret == 0)
		fail_msg("the run succeeded (r0 = %#llx); expected %d with '%s'",
			 (unsigned long long)t->r0, code, text);
	if (ret != code || !strstr(t->err.msg, text))
		fail_msg("expected %d with '%s', got %d: %s", code, text, ret, t->err.msg);
}

uint32_t vt_map(struct vt *t, enum bpf_map_type type, const char *name, uint32_t key_size,
		uint32_t value_size, uint32_t max_entries)
{
	int id = gs_vm_add_map(&t->vm, type, name, key_size, value_size, max_entries, &t->err);

	if (id < 0)
		fail_msg("gs_vm_add_map: %s", t->err.msg);
	return (uint32_t)id;
}

int main(void)
{
	int failed = 0;

	failed += vt_run_isa_tests();
	failed += vt_run_mem_tests();
	failed += vt_run_helper_tests();
	failed += vt_run_sample_tests();
	failed += vt_run_call_tests();
	return failed ? 1 : 0;
}
