/* The VM against the real kernel, as socket filters under
 * BPF_PROG_TEST_RUN: seeded random straight-line programs of ALU, ALU64 and
 * forward conditional jumps (every op, signed and unsigned, both widths,
 * division by zero, extreme constants) must return the same low and high
 * words in both; so must the tail-call limit, a tail call made from a
 * subprogram and a bpf_loop stopped early by its callback. Skips when bpf() is not permitted. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include <gs/disasm.h>
#include <gs/insn.h>

#include "base.h"
#include "vm/vm.h"

#define NPROGS 2000
#define NOPS 16
#define MAX_INSNS (6 * 2 + NOPS * 2 + 8)
#define SKIP_EXIT_CODE 77
#define LOG_SIZE (1u << 16) /* verifier log of a refused program */

static const uint64_t interesting[] = {
	0, 1, 2, 7, 31, 32, 63, 64, 0x7f, 0x80, 0xff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xffffffffffffffffull, 0xfffffffffffffff9ull,
	0xffffffff80000000ull, 0x1122334455667788ull,
};

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t random_value(uint64_t *s)
{
	uint64_t r = next_random(s);

	return r % 3 ? interesting[r % BASE_ARRAY_SIZE(interesting)]
		     : next_random(s);
}

static int32_t random_imm(uint64_t *s)
{
	return (int32_t)(uint32_t)random_value(s);
}

static const uint8_t alu_ops[] = {
	BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH, BPF_RSH,
	BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH, BPF_END,
};
static const uint8_t jmp_ops[] = {
	BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT, BPF_JSGE,
	BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE,
};

#define PICK(s, a) ((a)[next_random(s) % BASE_ARRAY_SIZE(a)])

/* One ALU instruction the verifier accepts on r0-r5. */
static struct bpf_insn random_alu(uint64_t *s)
{
	bool is64 = next_random(s) & 1, reg = next_random(s) & 1;
	uint8_t op = PICK(s, alu_ops), d = next_random(s) % 6, src = next_random(s) % 6;
	uint8_t cls = is64 ? BPF_ALU64 : BPF_ALU;
	int32_t imm = random_imm(s), width = is64 ? 64 : 32;
	int16_t off = 0;

	if (op == BPF_NEG)
		return GS_INSN(cls | BPF_NEG, d, 0, 0, 0);
	if (op == BPF_END) {
		static const int32_t bits[] = { 16, 32, 64 };
		bool be = next_random(s) & 1;

		uint8_t code = is64 ? BPF_ALU64 | BPF_END
				    : BPF_ALU | BPF_END | (be ? BPF_TO_BE : BPF_TO_LE);

		return GS_INSN(code, d, 0, 0, PICK(s, bits));
	}
	if (op == BPF_DIV || op == BPF_MOD)
		off = next_random(s) & 1; /* sdiv / smod */
	if (op == BPF_MOV && reg && next_random(s) % 3 == 0) {
		static const int16_t sx[] = { 8, 16, 32 };

		off = PICK(s, sx);
		if (!is64 && off == 32)
			off = 16;
	}
	if (!reg) {
		if (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH)
			imm = (int32_t)((uint32_t)imm % (uint32_t)width);
		if ((op == BPF_DIV || op == BPF_MOD) && imm == 0)
			imm = 3;
		return GS_INSN(cls | op | BPF_K, d, 0, off, imm);
	}
	return GS_INSN(cls | op | BPF_X, d, src, off, 0);
}

/* A conditional jump over the next instruction. */
static struct bpf_insn random_jmp(uint64_t *s)
{
	uint8_t cls = next_random(s) & 1 ? BPF_JMP : BPF_JMP32;
	uint8_t op = PICK(s, jmp_ops), d = next_random(s) % 6;

	if (next_random(s) & 1)
		return GS_INSN(cls | op | BPF_X, d, next_random(s) % 6, 1, 0);
	return GS_INSN(cls | op | BPF_K, d, 0, 1, random_imm(s));
}

/* r0-r5 = constants; NOPS ops, some guarded by a jump; r0 = r0 ^ ... ^ r5,
 * shifted right by 32 when `high`. */
static size_t random_prog(uint64_t seed, bool high, struct bpf_insn *insns)
{
	uint64_t s = seed;
	size_t n = 0;

	for (uint8_t r = 0; r <= 5; r++) {
		struct bpf_insn pair[] = { GS_LD_IMM64(r, random_value(&s)) };

		insns[n++] = pair[0];
		insns[n++] = pair[1];
	}
	for (int i = 0; i < NOPS; i++) {
		if (next_random(&s) % 4 == 0)
			insns[n++] = random_jmp(&s);
		insns[n++] = random_alu(&s);
	}
	for (uint8_t r = 1; r <= 5; r++)
		insns[n++] = GS_ALU64_REG(BPF_XOR, GS_R0, r);
	if (high)
		insns[n++] = GS_ALU64_IMM(BPF_RSH, GS_R0, 32);
	insns[n++] = GS_EXIT();
	return n;
}

static int kernel_run(const struct bpf_insn *insns, size_t n, uint32_t *retval, char *log,
		      size_t log_size)
{
	uint8_t packet[64] = { 0 };
	LIBBPF_OPTS(bpf_prog_load_opts, load, .log_buf = log, .log_size = (uint32_t)log_size,
		    .log_level = 1);
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = packet, .data_size_in = sizeof(packet),
		    .repeat = 1);
	int fd, ret;

	log[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vm_xcheck", "GPL", insns, n, &load);
	if (fd < 0)
		return fd;
	ret = bpf_prog_test_run_opts(fd, &run);
	*retval = run.retval;
	close(fd);
	return ret;
}

static void dump(const struct bpf_insn *insns, size_t n)
{
	gs_disasm_prog(insns, n, stderr);
}

static void test_random_alu_programs_match_the_kernel(void **state)
{
	char *log = malloc(LOG_SIZE);
	struct bpf_insn insns[MAX_INSNS];
	struct __sk_buff skb;
	int mismatches = 0;

	(void)state;
	assert_non_null(log);
	memset(&skb, 0, sizeof(skb));
	for (uint64_t i = 0; i < NPROGS * 2; i++) {
		uint64_t seed = 0x9e3779b97f4a7c15ull * (i / 2 + 1);
		size_t n = random_prog(seed, i & 1, insns);
		struct gs_error err;
		struct gs_vm vm;
		uint32_t kernel = 0;
		uint64_t r0 = 0;
		int ret = kernel_run(insns, n, &kernel, log, LOG_SIZE);

		if (ret) {
			dump(insns, n);
			fail_msg("program %llu: the kernel refused (%d): %s", (unsigned long long)i,
				 ret, log);
		}
		gs_vm_init(&vm);
		ret = gs_vm_add_prog(&vm, insns, n, NULL, &err);
		if (ret >= 0)
			ret = gs_vm_run(&vm, (uint32_t)ret, &skb, sizeof(skb), &r0, &err);
		gs_vm_fini(&vm);
		if (ret) {
			dump(insns, n);
			fail_msg("program %llu: the VM failed: %s", (unsigned long long)i, err.msg);
		}
		if ((uint32_t)r0 != kernel) {
			fprintf(stderr, "program %llu (%s word): kernel %#x, VM %#x\n",
				(unsigned long long)i, i & 1 ? "high" : "low", kernel,
				(uint32_t)r0);
			dump(insns, n);
			mismatches++;
		}
	}
	free(log);
	assert_int_equal(mismatches, 0);
}

static uint32_t kernel_test_run(int prog_fd)
{
	uint8_t packet[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = packet, .data_size_in = sizeof(packet),
		    .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(prog_fd, &run), 0);
	return run.retval;
}

/* The same program in the VM with its maps' fake fds; r0's low word. */
static uint32_t vm_test_run(struct gs_vm *vm, const struct bpf_insn *insns, size_t n)
{
	struct __sk_buff skb = { .len = 64 };
	struct gs_error err;
	uint64_t r0 = 0;
	int prog = gs_vm_add_prog(vm, insns, n, NULL, &err);

	if (prog < 0 || gs_vm_run(vm, (uint32_t)prog, &skb, sizeof(skb), &r0, &err))
		fail_msg("VM: %s", err.msg);
	return (uint32_t)r0;
}

/* ++runs, tail-call itself through jump_table[0]; when that fails return
 * runs. */
static size_t self_tail_call(int jump_table_fd, int runs_fd, struct bpf_insn *insns)
{
	const struct bpf_insn prog[] = {
		GS_LD_MAP_VALUE(GS_R7, runs_fd, 0),
		GS_MOV64_IMM(GS_R2, 1),
		GS_ATOMIC_ADD(BPF_DW, GS_R7, GS_R2, 0),
		GS_LD_MAP_FD(GS_R2, jump_table_fd),
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_LDX_MEM(BPF_DW, GS_R0, GS_R7, 0),
		GS_EXIT(),
	};

	memcpy(insns, prog, sizeof(prog));
	return BASE_ARRAY_SIZE(prog);
}

static void test_tail_call_limit_matches_the_kernel(void **state)
{
	int jt = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1, NULL);
	int runs = bpf_map_create(BPF_MAP_TYPE_ARRAY, "runs", 4, 8, 1, NULL);
	struct bpf_insn insns[16];
	uint32_t slot = 0, kernel, vm_runs;
	struct gs_vm vm;
	size_t n;
	int fd;

	(void)state;
	assert_true(jt >= 0 && runs >= 0);
	n = self_tail_call(jt, runs, insns);
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vm_self_tail", "GPL", insns, n, NULL);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(jt, &slot, &fd, BPF_ANY), 0);
	kernel = kernel_test_run(fd);
	close(fd);
	close(jt);
	close(runs);

	gs_vm_init(&vm);
	jt = gs_vm_add_map(&vm, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1, NULL);
	runs = gs_vm_add_map(&vm, BPF_MAP_TYPE_ARRAY, "runs", 4, 8, 1, NULL);
	n = self_tail_call(gs_vm_map_fd((uint32_t)jt), gs_vm_map_fd((uint32_t)runs), insns);
	assert_int_equal(gs_vm_add_prog(&vm, insns, n, NULL, NULL), 0);
	assert_int_equal(gs_vm_map_update(&vm, (uint32_t)jt, &slot, &(uint32_t){ 0 }, NULL), 0);
	vm_runs = vm_test_run(&vm, insns, n); /* added again as program 1: same code */
	gs_vm_fini(&vm);
	assert_int_equal(kernel, 1 + GS_VM_MAX_TAIL_CALLS);
	assert_int_equal(vm_runs, kernel);
}

/* main: r6 = 10; return sub() + r6. sub: tail_call(ctx, jump_table, 0),
 * return 1000 if it fails. The target returns 5. */
static size_t tail_call_from_sub(int jump_table_fd, struct bpf_insn *insns)
{
	const struct bpf_insn prog[] = {
		GS_MOV64_IMM(GS_R6, 10),
		GS_CALL_BPF(2),
		GS_ALU64_REG(BPF_ADD, GS_R0, GS_R6),
		GS_EXIT(),
		GS_LD_MAP_FD(GS_R2, jump_table_fd), /* pc 4: sub */
		GS_MOV64_IMM(GS_R3, 0),
		GS_CALL_HELPER(BPF_FUNC_tail_call),
		GS_MOV64_IMM(GS_R0, 1000),
		GS_EXIT(),
	};

	memcpy(insns, prog, sizeof(prog));
	return BASE_ARRAY_SIZE(prog);
}

/* Loads a program with a static subprogram at sub_pc: tail calls in
 * subprograms need BTF function info, and so does a bpf_loop callback
 * (`long cb(u64 index, void *ctx)` when `callback`). */
static int load_with_subprog(const struct bpf_insn *insns, size_t n, uint32_t sub_pc,
			     bool callback, struct btf **btf)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct bpf_func_info info[2];
	int int_type, proto, sub_proto;

	*btf = btf__new_empty();
	if (!*btf)
		return -ENOMEM;
	int_type = btf__add_int(*btf, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(*btf, int_type);
	sub_proto = proto;
	if (callback) {
		int u64 = btf__add_int(*btf, "unsigned long long", 8, 0);
		int ptr = btf__add_ptr(*btf, 0);

		sub_proto = btf__add_func_proto(*btf, u64);
		btf__add_func_param(*btf, "index", u64);
		btf__add_func_param(*btf, "ctx", ptr);
	}
	info[0] = (struct bpf_func_info){ 0, (uint32_t)btf__add_func(*btf, "main_prog",
								     BTF_FUNC_GLOBAL, proto) };
	info[1] = (struct bpf_func_info){ sub_pc, (uint32_t)btf__add_func(*btf, "sub_prog",
									  BTF_FUNC_STATIC, sub_proto) };
	if (btf__load_into_kernel(*btf))
		return -EINVAL;
	opts.prog_btf_fd = (uint32_t)btf__fd(*btf);
	opts.func_info = info;
	opts.func_info_cnt = 2;
	opts.func_info_rec_size = sizeof(info[0]);
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vm_sub_tail", "GPL", insns, n, &opts);
}

static void test_tail_call_from_a_subprogram_matches_the_kernel(void **state)
{
	const struct bpf_insn target[] = { GS_MOV64_IMM(GS_R0, 5), GS_EXIT() };
	int jt = bpf_map_create(BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1, NULL);
	struct bpf_insn insns[16];
	uint32_t slot = 0, kernel, via_vm;
	struct btf *btf = NULL;
	struct gs_vm vm;
	int target_fd, fd;
	size_t n;

	(void)state;
	target_fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vm_target", "GPL", target, 2, NULL);
	assert_true(jt >= 0 && target_fd >= 0);
	assert_int_equal(bpf_map_update_elem(jt, &slot, &target_fd, BPF_ANY), 0);
	n = tail_call_from_sub(jt, insns);
	fd = load_with_subprog(insns, n, 4, false, &btf);
	if (fd < 0)
		fail_msg("the kernel refused the subprogram tail call: %s", strerror(-fd));
	kernel = kernel_test_run(fd);
	close(fd);
	close(target_fd);
	close(jt);
	btf__free(btf);

	gs_vm_init(&vm);
	jt = gs_vm_add_map(&vm, BPF_MAP_TYPE_PROG_ARRAY, "jump_table", 4, 4, 1, NULL);
	assert_int_equal(gs_vm_add_prog(&vm, target, 2, NULL, NULL), 0);
	assert_int_equal(gs_vm_map_update(&vm, (uint32_t)jt, &slot, &(uint32_t){ 0 }, NULL), 0);
	n = tail_call_from_sub(gs_vm_map_fd((uint32_t)jt), insns);
	via_vm = vm_test_run(&vm, insns, n);
	gs_vm_fini(&vm);
	assert_int_equal(kernel, 15); /* the target returned to sub's caller */
	assert_int_equal(via_vm, kernel);
}

/* fp-8 = 0; r0 = bpf_loop(10, cb, fp-8, 0); return r0 * 1000 + fp-8.
 * cb: *ctx += index; stop (1) at index 6. */
static const struct bpf_insn loop_prog[] = {
	GS_ST_MEM(BPF_DW, GS_FP, -8, 0),
	GS_MOV64_IMM(GS_R1, 10),
	GS_LD_IMM64_RAW(GS_R2, BPF_PSEUDO_FUNC, 9), /* pc 2-3: cb at pc 12 */
	GS_MOV64_REG(GS_R3, GS_FP),
	GS_ALU64_IMM(BPF_ADD, GS_R3, -8),
	GS_MOV64_IMM(GS_R4, 0),
	GS_CALL_HELPER(BPF_FUNC_loop),
	GS_ALU64_IMM(BPF_MUL, GS_R0, 1000),
	GS_LDX_MEM(BPF_DW, GS_R1, GS_FP, -8),
	GS_ALU64_REG(BPF_ADD, GS_R0, GS_R1),
	GS_EXIT(),
	GS_LDX_MEM(BPF_DW, GS_R3, GS_R2, 0), /* pc 12: cb */
	GS_ALU64_REG(BPF_ADD, GS_R3, GS_R1),
	GS_STX_MEM(BPF_DW, GS_R2, GS_R3, 0),
	GS_MOV64_IMM(GS_R0, 0),
	GS_JMP_IMM(BPF_JNE, GS_R1, 6, 1),
	GS_MOV64_IMM(GS_R0, 1),
	GS_EXIT(),
};

static void test_bpf_loop_early_stop_matches_the_kernel(void **state)
{
	size_t n = BASE_ARRAY_SIZE(loop_prog);
	struct btf *btf = NULL;
	uint32_t kernel, via_vm;
	struct gs_vm vm;
	int fd;

	(void)state;
	fd = load_with_subprog(loop_prog, n, 12, true, &btf);
	if (fd < 0)
		fail_msg("the kernel refused the bpf_loop program: %s", strerror(-fd));
	kernel = kernel_test_run(fd);
	close(fd);
	btf__free(btf);
	gs_vm_init(&vm);
	via_vm = vm_test_run(&vm, loop_prog, n);
	gs_vm_fini(&vm);
	assert_int_equal(kernel, 7 * 1000 + 21); /* 7 iterations, 0 + 1 + ... + 6 */
	assert_int_equal(via_vm, kernel);
}

static bool bpf_permitted(void)
{
	const struct bpf_insn prog[] = { GS_MOV64_IMM(GS_R0, 0), GS_EXIT() };
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vm_probe", "GPL", prog, 2, NULL);

	if (fd < 0) {
		fprintf(stderr, "vm-kernel: skipped: cannot load a socket filter: %s\n",
			strerror(-fd));
		return false;
	}
	close(fd);
	return true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_alu_programs_match_the_kernel),
		cmocka_unit_test(test_tail_call_limit_matches_the_kernel),
		cmocka_unit_test(test_tail_call_from_a_subprogram_matches_the_kernel),
		cmocka_unit_test(test_bpf_loop_early_stop_matches_the_kernel),
	};

	if (!bpf_permitted())
		return SKIP_EXIT_CODE;
	return cmocka_run_group_tests_name("vm-kernel", tests, NULL, NULL);
}
