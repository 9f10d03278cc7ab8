/* Text form of BPF instructions, in the kernel verifier log's syntax
 * (`(79) r1 = *(u64 *)(r6 +128)`, `(2d) if r2 > r3 goto pc+5`). Used by
 * golden files (by label), `gstrace --dump-insns` (indexed), checker
 * messages and verifier reports. Never fails on bad input: an unknown
 * opcode prints as raw bytes. */
#ifndef GS_DISASM_H
#define GS_DISASM_H

#include <stddef.h>
#include <stdio.h>

#include <gs/api.h>
#include <gs/asm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Formats the instruction at insns[0] (avail slots remain from there) into
 * buf and returns the number of slots it takes: 2 for a complete ld_imm64,
 * else 1. The text always fits buf (truncated if size is too small). */
GS_API size_t gs_disasm_insn(const struct bpf_insn *insns, size_t avail, char *buf, size_t size);

/* Name of helper `id` ("bpf_map_lookup_elem"), or NULL when unknown. */
GS_API const char *gs_helper_name(int32_t id);

/* Whole raw program, one line per instruction: `%5zu: text`. */
GS_API void gs_disasm_prog(const struct bpf_insn *insns, size_t n, FILE *out);

/* A finished assembler's program in the label form, the golden-file
 * format: label lines at column 0, each instruction indented below them
 * with no index, every jump naming its target (`if r0 == 0x0 goto <exit>`,
 * `call <add_pair>`, `r2 = subprog <gs_bt_frame>`), maps by name and notes
 * (`; note`) where they change. A jump written with a raw offset names a
 * local label printed at its target, `<nearest label before it>~<count>`
 * ("loop~1"; "~1" before any label). An instruction inserted elsewhere
 * changes no line. On ENOMEM it prints `; gs_asm_dump: out of memory`. */
GS_API void gs_asm_dump(const struct gs_asm *a, FILE *out);
/* The same into a malloc'd string the caller frees (NULL on allocation
 * failure). */
GS_API char *gs_asm_dump_str(const struct gs_asm *a);

/* Forms of gs_asm_dump_flags(). */
enum gs_dump_flags {
	/* The indexed form, as the kernel verifier log counts instructions:
	 * an index column and `pc+N` targets with the label after them
	 * (`   14: (15) if r0 == 0x0 goto pc+4010 <exit>`), no local labels.
	 * What `gstrace --dump-insns` prints, to read beside a verifier error. */
	GS_DUMP_INDEXED = 1u << 0,
};

/* gs_asm_dump() in the form flags (enum gs_dump_flags, or'ed) choose; 0 is
 * the label form. Writes to out, which the caller owns (check ferror(out)
 * for write errors). 0, -EINVAL for a flag this version does not know
 * (nothing written), or -ENOMEM (nothing written). Since libgs 1.1. */
GS_API int gs_asm_dump_flags(const struct gs_asm *a, unsigned int flags, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* GS_DISASM_H */
