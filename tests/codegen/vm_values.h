/* The harness of the VM suites over source-level values (test_vm_values.c,
 * test_vm_cstring.c): a case of gs_cg_value_cases built and put on the
 * test VM with hand-built pt_regs, user memory and proc_module_offsets,
 * run once, and its event decoded, each value at hand. */
#ifndef GS_TEST_VM_VALUES_H
#define GS_TEST_VM_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include <gs/internal/program.h>
#include <gs/decode.h>

#include "cg_specs.h"
#include "cg_vm.h"

#define HOST_TGID 4242u
#define HOST_TID 4243u
#define PT_REGS_WORDS 21
#define REG(off) ((off) / 8)
#define BIAS 0x555500000000ull
#define REC_ADDR 0x7f0000001000ull  /* struct rec *r */
#define NEXT_ADDR 0x7f0000002000ull /* r->next */
#define NAME_ADDR 0x7f0000003000ull /* *g_name */
#define STACK_SP 0x7ffd00000000ull

struct harness {
	struct gs_vm vm;
	struct gs_program *p;
	uint32_t map_ids[8];
	int prog;
	uint64_t regs[PT_REGS_WORDS];
	struct gs_decoder *dec;
	const struct gs_trace_context *contexts[64];
	struct gs_inst insts[16];
	struct gs_value args[16][8];
	size_t ninsts, nevents;
};

/* Builds case `name` and loads it on a fresh VM (sp = STACK_SP). */
void vmv_build(struct harness *h, const char *name);
/* len bytes of user memory at addr. */
void vmv_user_mem(struct harness *h, uint64_t addr, const void *bytes, size_t len);
/* The process's offsets of the probe module: its load bias is BIAS. */
void vmv_module_offsets(struct harness *h);
/* Runs once; the decoded event stays in h (its bytes in the VM's record). */
void vmv_run(struct harness *h);
void vmv_teardown(struct harness *h);
/* Instruction i, a PrintComplexVariable; argument k of instruction i, a
 * PrintComplexFormat. */
const struct gs_value *vmv_var(struct harness *h, size_t i);
const struct gs_value *vmv_arg(struct harness *h, size_t i, size_t k);
/* An Ok value as a signed integer: 4 bytes; 8 (a bool's 1). */
int32_t vmv_i32(const struct gs_value *v);
int64_t vmv_i64(const struct gs_value *v);
/* The end instruction's execution status. */
uint8_t vmv_end_status(struct harness *h);

#endif /* GS_TEST_VM_VALUES_H */
