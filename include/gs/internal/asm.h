/* The assembler's layout, for the layers of libgs that embed an assembler
 * (a program holds its finished instructions in one) or read its arrays
 * directly in hot paths (the loader, the disassembler, the tests). Not
 * installed and not ABI: an embedder sees `struct gs_asm` as opaque
 * (<gs/asm.h>) and uses its accessors. */
#ifndef GS_INTERNAL_ASM_H
#define GS_INTERNAL_ASM_H

#include <gs/asm.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_fixup_kind {
	GS_FIXUP_OFF16, /* conditional jump or ja: 16-bit `off` */
	GS_FIXUP_IMM32, /* gotol or bpf-to-bpf call: 32-bit `imm` */
};

struct gs_fixup {
	uint32_t insn;  /* index of the jumping instruction */
	uint32_t label; /* label id */
	uint8_t kind;   /* enum gs_fixup_kind */
};

struct gs_label_info {
	const char *name; /* the caller's literal, or owned by the string arena */
	const char *note; /* note in force where the label was created */
	int64_t pos;      /* bound instruction index, or -1 */
	uint32_t binds;   /* how many times gs_asm_bind() was called */
	uint32_t scope;   /* scope in force where it was created (0: none) */
};

/* A label scope (gs_asm_scope_enter): a tag and a number, inside the
 * scope `parent` (0: none). Scope ids are index + 1. */
struct gs_label_scope {
	const char *tag; /* the caller's literal */
	int32_t num;     /* < 0: the tag alone */
	uint32_t parent;
};

struct gs_stack_slot {
	const char *name;
	int16_t off;   /* offset from r10 (negative) */
	uint16_t size;
};

/* A subprogram's first instruction and its BTF FUNC type (func_info). */
struct gs_asm_func {
	uint32_t insn;
	uint32_t type_id;
};

struct gs_arena;

/* Fields are readable inside libgs and by its tests; change them
 * only through the functions below. */
struct gs_asm {
	struct bpf_insn *insns;
	const char **notes; /* notes[i]: origin of insns[i], or NULL */
	size_t len, cap;

	struct gs_label_info *labels;
	size_t nlabels, labels_cap;
	struct gs_fixup *fixups;
	size_t nfixups, fixups_cap;
	struct gs_reloc *relocs;
	size_t nrelocs, relocs_cap;
	const char **maps; /* map names, indexed by gs_asm_map() results */
	size_t nmaps, maps_cap;

	struct gs_label_scope *scopes;
	size_t nscopes, scopes_cap;
	uint32_t scope; /* applied to each label created */

	struct gs_stack_slot *slots;
	size_t nslots, slots_cap;
	int stack_used; /* bytes below r10 in use now */
	int stack_max;  /* most bytes ever in use: the program's frame size */

	struct gs_asm_func *funcs; /* in instruction order; empty: no func_info */
	size_t nfuncs, funcs_cap;
	uint32_t relaxed; /* conditional jumps gs_asm_finish() widened with gotol */

	const char *note; /* applied to each instruction emitted */
	struct gs_arena *arena;
	bool finished;
	const struct gs_error *error; /* the first error (NULL: none), out of line: a
				 * plan keeps a finished program's assembler per
				 * probe, and a message's room in each would cost
				 * gigabytes */
};

/* In place, for an assembler embedded in another object. */
void gs_asm_init(struct gs_asm *a);
void gs_asm_fini(struct gs_asm *a);

#ifdef __cplusplus
}
#endif

#endif /* GS_INTERNAL_ASM_H */
