/* Text form of BPF instructions, in the kernel verifier log's syntax
 * (`(79) r1 = *(u64 *)(r6 +128)`, `(2d) if r2 > r3 goto pc+5`). Used by
 * golden files, `gstrace --dump-insns`, checker messages and verifier
 * reports. Never fails on bad input: an unknown opcode prints as raw bytes. */
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

/* A finished assembler's program with label lines, jump targets named
 * (`goto pc+3 <reserve_overflow>`), map names and notes (`; note`). This is
 * the golden-file format. */
GS_API void gs_asm_dump(const struct gs_asm *a, FILE *out);
/* The same into a malloc'd string (NULL on allocation failure). */
GS_API char *gs_asm_dump_str(const struct gs_asm *a);

#ifdef __cplusplus
}
#endif

#endif /* GS_DISASM_H */
