/* One instruction's text with its jump target named by the caller, private
 * to the assembler: the dump (dump.c) prints a jump as `goto <label>`, so
 * that an instruction inserted elsewhere changes no other line of it. */
#ifndef GS_ASM_INSN_TEXT_H
#define GS_ASM_INSN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/insn.h>

/* A pc-relative target: a conditional jump, goto, gotol, a bpf-to-bpf call
 * or a subprogram's address (ld_imm64 src=BPF_PSEUDO_FUNC). */
struct asm_jump {
	const char *name; /* in: printed as `<name>` instead of `pc+N`; NULL: pc+N */
	bool has;         /* out: the text names a target (an invalid encoding does not) */
	int32_t rel;      /* out: ... this far from the instruction after the jump */
};

/* gs_disasm_insn() with the target named through jump (NULL: as
 * gs_disasm_insn). */
size_t asm_disasm_insn(const struct bpf_insn *insns, size_t avail, struct asm_jump *jump,
		       char *buf, size_t size);

#endif /* GS_ASM_INSN_TEXT_H */
