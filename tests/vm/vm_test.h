/* Shared fixture of the VM's own tests: a fresh VM per test, and one-line
 * ways to run a program written as a table of instruction constructors and
 * to check its result or the error that stopped it. */
#ifndef GS_TEST_VM_TEST_H
#define GS_TEST_VM_TEST_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gs/insn.h>

#include "base.h"
#include "vm/vm.h"

#define PT_REGS_SIZE 168 /* struct pt_regs on x86_64: the kprobe ctx */

struct vt {
	struct gs_vm vm;
	struct gs_error err;
	uint64_t r0;
	uint8_t ctx[PT_REGS_SIZE]; /* the default ctx: bytes 0, 1, 2, ... */
};

/* `insns, n` of a program written inline: vt_eval(t, PROG(GS_EXIT())). */
#define PROG(...)                                                              \
	(const struct bpf_insn[]){ __VA_ARGS__ },                               \
	BASE_ARRAY_SIZE(((const struct bpf_insn[]){ __VA_ARGS__ }))

/* cmocka setup and teardown: *state becomes a struct vt. */
int vt_setup(void **state);
int vt_teardown(void **state);

/* Adds the program and runs it on t->ctx; gs_vm_run()'s result, with t->r0
 * and t->err filled. */
int vt_run(struct vt *t, const struct bpf_insn *insns, size_t n);
/* Runs an already added program on t->ctx. */
int vt_run_prog(struct vt *t, int prog);
/* Runs the program, fails the test unless it succeeds, returns r0. */
uint64_t vt_eval(struct vt *t, const struct bpf_insn *insns, size_t n);
/* Runs the program and fails the test unless it stops with `code` and a
 * message containing `text`. */
void vt_expect_error(struct vt *t, int code, const char *text, const struct bpf_insn *insns,
		     size_t n);
/* A map the test needs; fails the test if it cannot be created. */
uint32_t vt_map(struct vt *t, enum bpf_map_type type, const char *name, uint32_t key_size,
		uint32_t value_size, uint32_t max_entries);

/* The groups of test_vm_isa.c, test_vm_mem.c, test_vm_helpers.c,
 * test_vm_samples.c and test_vm_calls.c. */
int vt_run_isa_tests(void);
int vt_run_mem_tests(void);
int vt_run_helper_tests(void);
int vt_run_sample_tests(void);
int vt_run_call_tests(void);

#endif /* GS_TEST_VM_TEST_H */
