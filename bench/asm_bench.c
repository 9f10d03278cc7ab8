/* Assembler throughput: builds a 100,000-instruction program with 10,000
 * labels (forward and backward jumps, map loads) 100 times, then checks and
 * disassembles it. Prints BENCH lines: emit + finish, checker and
 * disassembler cost per instruction. Where llvm-mc is installed, the same
 * program written as LLVM BPF assembly is assembled by it, as the peer. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/disasm.h>

#define TARGET_INSNS 100000
#define NLABELS 10000
#define REPS 100

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Ten-instruction blocks, one label each: ALU work, a map load every fifth
 * block, and a conditional jump forward or backward to another block. Every
 * block is reachable by falling through, every path ends in the final exit. */
static void build(struct gs_asm *a, struct gs_label *labels, bool format_names)
{
	uint32_t map = gs_asm_map(a, "counters");
	struct gs_label end = gs_asm_label(a, "end");

	gs_asm_note(a, "init");
	for (int r = GS_R0; r <= GS_R9; r++)
		if (r != GS_R1)
			gs_asm_emit(a, GS_MOV64_IMM(r, r));
	for (int i = 0; i < NLABELS; i++)
		labels[i] = format_names ? gs_asm_labelf(a, "block_%d", i) : gs_asm_label(a, "block");
	gs_asm_note(a, "blocks");
	for (int i = 0; i < NLABELS; i++) {
		gs_asm_bind(a, labels[i]);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, i));
		gs_asm_emit(a, GS_ALU64_REG(BPF_XOR, GS_R3, GS_R2));
		gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R3));
		gs_asm_emit(a, GS_ALU64_IMM(BPF_RSH, GS_R4, 3));
		if (i % 5 == 0) {
			gs_asm_ld_map(a, GS_R5, map);
		} else {
			gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R10, GS_R4, -8));
			gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R5, GS_R10, -8));
		}
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R6, GS_R5));
		gs_asm_emit(a, GS_ALU32_IMM(BPF_AND, GS_R7, 0xff));
		if (i % 2 == 0)
			gs_asm_jmp_imm(a, BPF_JEQ, GS_R7, i, i + 7 < NLABELS ? labels[i + 7] : end);
		else
			gs_asm_jmp_reg(a, BPF_JGT, GS_R3, GS_R4, labels[i > 13 ? i - 13 : 0]);
		gs_asm_emit(a, GS_MOV64_REG(GS_R8, GS_R7));
	}
	gs_asm_bind(a, end);
	gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_emit(a, GS_EXIT());
}

/* The benchmark program in LLVM's BPF assembly syntax (only the forms
 * build() emits), labels as symbols, map loads as relocations. */
static int write_llvm_text(const struct gs_asm *a, const char *path)
{
	static const char *const alu[16] = { "+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=",
					      NULL, "%=", "^=", "=", "s>>=" };
	static const char *const jmp[16] = { [1] = "==", [2] = ">", [3] = ">=", [5] = "!=",
					      [10] = "<", [11] = "<=" };
	const char **at = calloc(a->len + 1, sizeof(*at));
	size_t *target = calloc(a->len, sizeof(*target));
	FILE *f = fopen(path, "w");

	if (!at || !target || !f)
		return -1;
	for (size_t i = 0; i < a->nlabels; i++)
		at[a->labels[i].pos] = a->labels[i].name; /* unique: built with labelf */
	for (size_t i = 0; i < a->nfixups; i++)
		target[a->fixups[i].insn] = a->fixups[i].label + 1;
	for (size_t i = 0; i < a->len; i++) {
		const struct bpf_insn *in = &a->insns[i];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		char r = cls == BPF_ALU ? 'w' : 'r';

		if (at[i])
			fprintf(f, "%s:\n", at[i]);
		if (gs_insn_is_ld_imm64(in)) {
			fprintf(f, "r%d = %s ll\n", in->dst_reg, a->maps[0]);
			i++;
		} else if (cls == BPF_ALU64 || cls == BPF_ALU) {
			if (BPF_SRC(in->code) == BPF_X)
				fprintf(f, "%c%d %s %c%d\n", r, in->dst_reg, alu[op >> 4], r, in->src_reg);
			else
				fprintf(f, "%c%d %s %d\n", r, in->dst_reg, alu[op >> 4], in->imm);
		} else if (cls == BPF_STX) {
			fprintf(f, "*(u64 *)(r%d %+d) = r%d\n", in->dst_reg, in->off, in->src_reg);
		} else if (cls == BPF_LDX) {
			fprintf(f, "r%d = *(u64 *)(r%d %+d)\n", in->dst_reg, in->src_reg, in->off);
		} else if (op == BPF_EXIT) {
			fprintf(f, "exit\n");
		} else if (BPF_SRC(in->code) == BPF_X) {
			fprintf(f, "if r%d %s r%d goto %s\n", in->dst_reg, jmp[op >> 4], in->src_reg,
				a->labels[target[i] - 1].name);
		} else {
			fprintf(f, "if r%d %s %d goto %s\n", in->dst_reg, jmp[op >> 4], in->imm,
				a->labels[target[i] - 1].name);
		}
	}
	free(at);
	free(target);
	return fclose(f) == 0 ? 0 : -1;
}

/* Wall time of one `llvm-mc` run assembling `src`, or a negative value. */
static double time_llvm_mc(const char *src)
{
	double t0 = now_ns();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("llvm-mc", "llvm-mc", "-triple=bpf", "-filetype=obj", "-o", "/dev/null",
		       src, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return now_ns() - t0;
}

static void peer_llvm_mc(const struct gs_asm *a)
{
	char path[] = "/tmp/gs-asm-bench-XXXXXX.s";
	double best = -1;
	int fd = mkstemps(path, 2);

	if (fd < 0)
		return;
	close(fd);
	if (write_llvm_text(a, path) == 0) {
		for (int rep = 0; rep < 3; rep++) {
			double t = time_llvm_mc(path);

			if (t < 0) {
				best = -1;
				break;
			}
			if (best < 0 || t < best)
				best = t;
		}
	}
	if (best > 0)
		printf("BENCH peer.llvm_mc.assemble_text.ns_per_insn %.2f ns\n",
		       best / (double)a->len);
	else
		printf("# peer llvm-mc not installed or failed; no peer figure\n");
	unlink(path);
}

/* Average ns for one reset + build + finish; leaves the last build in a. */
static double time_build(struct gs_asm *a, struct gs_label *labels, bool format_names)
{
	struct gs_error err;
	double total = 0;

	for (int rep = 0; rep < REPS; rep++) {
		double t0;

		gs_asm_reset(a);
		t0 = now_ns();
		build(a, labels, format_names);
		if (gs_asm_finish(a, &err) != 0) {
			fprintf(stderr, "asm_bench: %s\n", err.msg);
			exit(1);
		}
		total += now_ns() - t0;
	}
	return total / REPS;
}

int main(void)
{
	struct gs_label *labels = calloc(NLABELS, sizeof(*labels));
	struct gs_asm a;
	struct gs_error err;
	double emit_ns, named_ns, check_ns = 0, dis_ns = 0, insns;
	FILE *sink = fopen("/dev/null", "w");

	if (!labels || !sink) {
		fprintf(stderr, "asm_bench: out of memory or no /dev/null\n");
		return 1;
	}
	gs_asm_init(&a);
	emit_ns = time_build(&a, labels, false);
	/* the same with every label name formatted (gs_asm_labelf): the
	 * program kept for the checker, disassembler and peer has unique names */
	named_ns = time_build(&a, labels, true);
	insns = (double)a.len;
	for (int rep = 0; rep < REPS; rep++) {
		double t0 = now_ns();

		if (gs_asm_check(&a, &err) != 0) {
			fprintf(stderr, "asm_bench: the benchmark program fails the checker: %s\n",
				err.msg);
			return 1;
		}
		check_ns += now_ns() - t0;
	}
	for (int rep = 0; rep < REPS / 10; rep++) {
		double t0 = now_ns();

		gs_asm_dump(&a, sink);
		dis_ns += now_ns() - t0;
	}
	printf("BENCH asm.program.insns %zu insns\n", a.len);
	printf("BENCH asm.program.labels %d labels\n", NLABELS);
	printf("BENCH asm.emit_finish.ns_per_insn %.2f ns\n", emit_ns / insns);
	printf("BENCH asm.emit_finish_named_labels.ns_per_insn %.2f ns\n", named_ns / insns);
	printf("BENCH asm.check.ns_per_insn %.2f ns\n", check_ns / REPS / insns);
	printf("BENCH asm.disasm.ns_per_insn %.2f ns\n", dis_ns / (REPS / 10) / insns);
	peer_llvm_mc(&a);
	gs_asm_fini(&a);
	fclose(sink);
	free(labels);
	return 0;
}
