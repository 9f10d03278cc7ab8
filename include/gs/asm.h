/* The BPF assembler: a growable instruction stream with a note per
 * instruction, labels that jumps refer to (resolved once, in
 * gs_asm_finish()), map relocations patched only at load time, and a small
 * allocator for stack slots below r10.
 *
 * Errors are sticky: the first one is kept, later emit calls do nothing, and
 * gs_asm_finish() reports it. Code generators therefore read as straight-line
 * code with no check after each emit. The assembler knows nothing about
 * tracing and never touches the kernel. */
#ifndef GS_ASM_H
#define GS_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/insn.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_STACK_MAX 512 /* bytes below r10 a BPF program may use */
#define GS_MAX_INSNS 1000000 /* BPF_COMPLEXITY_LIMIT_INSNS: the kernel's cap */

/* A jump target. Created unbound by gs_asm_label(), bound once by
 * gs_asm_bind() to the next instruction emitted. Labels are plain values. */
struct gs_label {
	uint32_t id;
};

enum gs_reloc_kind {
	GS_RELOC_MAP_FD,    /* ld_imm64 src=BPF_PSEUDO_MAP_FD, imm = fd */
	GS_RELOC_MAP_VALUE, /* ld_imm64 src=BPF_PSEUDO_MAP_VALUE, imm = fd, off in 2nd imm */
};

/* A map reference: the first slot of an ld_imm64 whose fd is not known
 * until load time. `map` is the index returned by gs_asm_map(). */
struct gs_reloc {
	uint32_t insn;
	uint32_t map;
	uint8_t kind; /* enum gs_reloc_kind */
};

/* An assembler: opaque, read through the accessors below. */
struct gs_asm;

/* A new empty assembler, or NULL without memory; gs_asm_free() frees it
 * and everything its accessors gave (NULL is fine). One thread at a
 * time. */
GS_API struct gs_asm *gs_asm_new(void);
GS_API void gs_asm_free(struct gs_asm *a);
/* Empties the assembler but keeps its buffers, for building many programs. */
GS_API void gs_asm_reset(struct gs_asm *a);

/* The sticky error so far: 0 or -errno. */
GS_API int gs_asm_failed(const struct gs_asm *a);
/* Index the next emitted instruction will have. */
GS_API size_t gs_asm_pc(const struct gs_asm *a);
/* The instructions so far (finished ones after gs_asm_finish()) and their
 * count; valid until the next call that emits, finishes or resets. */
GS_API const struct bpf_insn *gs_asm_insns(const struct gs_asm *a, size_t *n);
/* The note of instruction i, NULL when it has none or i is past the end. */
GS_API const char *gs_asm_insn_note(const struct gs_asm *a, size_t i);
/* The map relocations (gs_reloc_apply's input) and the map names declared
 * with gs_asm_map(), by index. */
GS_API const struct gs_reloc *gs_asm_relocs(const struct gs_asm *a, size_t *n);
GS_API const char *gs_asm_map_name(const struct gs_asm *a, uint32_t map);
GS_API size_t gs_asm_map_count(const struct gs_asm *a);
/* Bytes of stack below r10 the program uses (its largest frame). */
GS_API int gs_asm_stack_size(const struct gs_asm *a);

/* Records the first error (later ones are ignored) and returns its code. */
__attribute__((format(printf, 3, 4)))
GS_API int gs_asm_fail(struct gs_asm *a, int code, const char *fmt, ...);

/* Notes: the origin text stored with every following instruction and shown
 * in disassembly and verifier reports. gs_asm_note() keeps the pointer (use
 * a string literal); gs_asm_notef() copies. Both return the previous note
 * so an emitter can restore it. */
GS_API const char *gs_asm_note(struct gs_asm *a, const char *note);
__attribute__((format(printf, 2, 3)))
GS_API const char *gs_asm_notef(struct gs_asm *a, const char *fmt, ...);

/* Plain instructions. A jump emitted this way keeps the offset it carries. */
GS_API void gs_asm_emit(struct gs_asm *a, struct bpf_insn insn);
GS_API void gs_asm_ld_imm64(struct gs_asm *a, uint8_t dst, uint64_t imm);
GS_API void gs_asm_call(struct gs_asm *a, int32_t helper_id);

/* Maps: declare a name, get its index; load its fd or a pointer into its
 * value (array maps, key 0) with a relocation patched by gs_reloc_apply(). */
GS_API uint32_t gs_asm_map(struct gs_asm *a, const char *name);
GS_API void gs_asm_ld_map(struct gs_asm *a, uint8_t dst, uint32_t map);
GS_API void gs_asm_ld_map_value(struct gs_asm *a, uint8_t dst, uint32_t map, uint32_t off);

/* Labels. The name shows in disassembly and error messages. gs_asm_label()
 * keeps the pointer (use a string literal: creating a label then costs no
 * copy); gs_asm_labelf() formats and copies (`bt_frame_%d`). */
GS_API struct gs_label gs_asm_label(struct gs_asm *a, const char *name);
__attribute__((format(printf, 2, 3)))
GS_API struct gs_label gs_asm_labelf(struct gs_asm *a, const char *fmt, ...);
GS_API void gs_asm_bind(struct gs_asm *a, struct gs_label l);

/* Label scopes: what a label belongs to (a statement, a frame), without a
 * copy or a format when the label is created. Every label created while
 * a scope is in force carries it; its name shows qualified, outermost
 * scope first ("s2.f3.search_not_below"), and labels whose qualified
 * names would still repeat get their ordinal (".1", ".2", ... in creation
 * order). Names are formatted only by the disassembly and in errors.
 * gs_asm_scope_enter() opens `tag` `num` (num < 0: the tag alone; tag a
 * string literal, kept) inside the scope in force and returns that one;
 * gs_asm_scope_set() puts a returned scope back in force and returns the
 * one it replaces. */
GS_API uint32_t gs_asm_scope_enter(struct gs_asm *a, const char *tag, int32_t num);
GS_API uint32_t gs_asm_scope_set(struct gs_asm *a, uint32_t scope);
/* The qualified name of l as the disassembly shows it, truncated to
 * size; returns the length it needs, as snprintf does. */
GS_API size_t gs_asm_label_name(const struct gs_asm *a, struct gs_label l, char *buf,
				size_t size);

/* Jumps to labels; `op` as in GS_JMP_IMM. */
GS_API void gs_asm_jmp_imm(struct gs_asm *a, uint8_t op, uint8_t dst, int32_t imm,
			   struct gs_label to);
GS_API void gs_asm_jmp_reg(struct gs_asm *a, uint8_t op, uint8_t dst, uint8_t src,
			   struct gs_label to);
GS_API void gs_asm_jmp32_imm(struct gs_asm *a, uint8_t op, uint8_t dst, int32_t imm,
			     struct gs_label to);
GS_API void gs_asm_jmp32_reg(struct gs_asm *a, uint8_t op, uint8_t dst, uint8_t src,
			     struct gs_label to);
GS_API void gs_asm_ja(struct gs_asm *a, struct gs_label to);
GS_API void gs_asm_gotol(struct gs_asm *a, struct gs_label to);
GS_API void gs_asm_call_label(struct gs_asm *a, struct gs_label subprog);
/* dst = the address of the subprogram at `callback` (ld_imm64 with
 * src = BPF_PSEUDO_FUNC), e.g. the callback argument of bpf_loop. */
GS_API void gs_asm_ld_func(struct gs_asm *a, uint8_t dst, struct gs_label callback);

/* Starts a subprogram at the next instruction: records it for func_info
 * with its BTF FUNC type, and gives it a fresh stack frame (its slots start
 * again below r10; the kernel gives every call its own frame). The main
 * program records itself the same way, first, when any subprogram does. */
GS_API void gs_asm_func_begin(struct gs_asm *a, uint32_t btf_type_id);

/* Stack slots below r10: returns the (negative) offset of `size` bytes
 * aligned to `align` (a power of two <= 8). Past GS_STACK_MAX the assembler
 * fails with -ENOSPC naming the slot (callers tell a full stack from other
 * failures by that code). Slots taken after a mark are freed by releasing
 * it. */
GS_API int16_t gs_asm_slot(struct gs_asm *a, const char *name, uint16_t size, uint16_t align);
GS_API size_t gs_asm_stack_mark(const struct gs_asm *a);
GS_API void gs_asm_stack_release(struct gs_asm *a, size_t mark);

/* Resolves every fixup, checks labels (unbound, bound twice) and reports
 * the sticky error if any. A jump whose target is past the 16-bit range is
 * widened, whatever the program's size: `ja` becomes `gotol` in place, a
 * conditional jump becomes `if ... goto +1; ja +1; gotol L` (later
 * instructions move; labels, relocations and subprograms move with them).
 * 0 or -errno with err filled. */
GS_API int gs_asm_finish(struct gs_asm *a, struct gs_error *err);

/* Patches map fds into finished instructions: fds[r.map] for each reloc.
 * 0, or -EINVAL (a relocation not at an ld_imm64 of insns, or its map
 * without an fd >= 0 in fds) with err filled; earlier ones stay patched. */
GS_API int gs_reloc_apply(struct bpf_insn *insns, size_t n, const struct gs_reloc *relocs,
			  size_t nrelocs, const int *fds, size_t nfds, struct gs_error *err);

/* Static checks on a finished program (see check.c for the list): every path
 * ends in exit, jump targets inside the program and not inside an ld_imm64,
 * r10 never written, stack accesses inside the frame, no register read
 * before it is written on every path, well-formed opcodes. `notes` may be
 * NULL. 0, or -EINVAL with a message naming the instruction. */
GS_API int gs_check(const struct bpf_insn *insns, size_t n, const char *const *notes,
		    struct gs_error *err);
GS_API int gs_asm_check(const struct gs_asm *a, struct gs_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GS_ASM_H */
