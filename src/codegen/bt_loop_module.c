/* The loop walker's module of a frame (gs_bt_frame, bt_loop_frame.c): the
 * same as the last frame's while ip stays in it, else a binary search of
 * the process's module snapshot; and its index in the instruction's wire
 * module table, appended the first time a walk meets it. */
#include "bt_loop.h"

#define MODULE_SEARCH_STEPS 10 /* GS_BT_PROC_MODULES_MAX entries */

/* The wire index of the module just found at snapshot index `mid`: the one
 * given earlier in this walk, else a new table entry while slots last. */
static void wire_module(struct loop_gen *g, const struct loop_frame_slots *sl, struct gs_label done)
{
	struct gs_asm *a = g->a;
	struct gs_label fresh = gs_asm_label(a, "walk_module_new_in_walk");

	gs_asm_note(a, "bt frame: the module's wire table index (seen this walk? else append)");
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_FP, sl->mid));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R1, GS_BT_PROC_MODULES_MAX, done);
	gs_asm_emit(a, GS_MOV64_REG(GS_R2, GS_R1));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R2, 2));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R2, GS_R6));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R3, GS_R2, W(seen_gen)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R4, GS_R6, W(generation)));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R6));
	gs_asm_jmp_reg(a, BPF_JNE, GS_R3, GS_R4, fresh);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R1, W(seen_wire)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(mod_wire)));
	gs_asm_ja(a, done);
	gs_asm_bind(a, fresh);
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R3, GS_R6, W(module_count)));
	gs_asm_jmp_imm(a, BPF_JGE, GS_R3, (int32_t)cg_bt_loop_slots(g->depth), done);
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_R2, GS_R4, W(seen_gen)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R1, GS_R3, W(seen_wire)));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(mod_wire)));
	gs_asm_emit(a, GS_MOV64_REG(GS_R4, GS_R3));
	gs_asm_emit(a, GS_ALU64_IMM(BPF_LSH, GS_R4, 4));
	gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R4, GS_R9));
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(cookie)));
	CG_STX_FIELD(a, GS_R4, TABLE_OFF, struct gs_bt_wire_module, cookie, GS_R1);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(bias)));
	CG_STX_FIELD(a, GS_R4, TABLE_OFF, struct gs_bt_wire_module, bias, GS_R1);
	gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R3, 1));
	gs_asm_emit(a, GS_STX_MEM(BPF_B, GS_R6, GS_R3, W(module_count)));
}

/* The current frame's module: the same as before while ip stays in it,
 * else a binary search of the process's snapshot. */
void bt_loop_resolve_module(struct loop_gen *g, const struct loop_frame_slots *sl, struct gs_label done)
{
	struct gs_cg *cg = g->cg;
	struct gs_asm *a = g->a;
	struct gs_label search = gs_asm_label(a, "walk_module_search");
	struct gs_label inside = gs_asm_label(a, "walk_module_found");

	gs_asm_note(a, "bt frame: same module as the last frame? then no search");
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R8, GS_R6, REG(GS_DWARF_REG_RIP)));
	gs_asm_emit(a, GS_LDX_MEM(BPF_B, GS_R1, GS_R6, W(mod_found)));
	gs_asm_jmp_imm(a, BPF_JEQ, GS_R1, 0, search);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(start)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, search);
	gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R6, MOD(end)));
	gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, done);
	gs_asm_bind(a, search);
	gs_asm_note(a, "bt frame: module = binary search of bt_modules[first, first + count)");
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 0));
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_wire), GS_BT_WIRE_NO_MODULE));
	gs_asm_emit(a, GS_ST_MEM(BPF_W, GS_FP, sl->lo, 0));
	gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R1, GS_R6, W(mods_count)));
	gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, sl->hi));
	for (int i = 0; i < MODULE_SEARCH_STEPS; i++) {
		struct gs_label above = gs_asm_label(a, "walk_module_not_below");
		struct gs_label next = gs_asm_label(a, "walk_module_next");

		bt_loop_search_mid(a, sl, done);
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_R6, W(mods_first)));
		gs_asm_emit(a, GS_ALU64_REG(BPF_ADD, GS_R1, GS_R2));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R1, g->key));
		cg_map_lookup(cg, GS_MAP_BT_MODULES, g->key);
		gs_asm_jmp_imm(a, BPF_JEQ, GS_R0, 0, done);
		gs_asm_emit(a, GS_LDX_MEM(BPF_W, GS_R2, GS_FP, sl->mid));
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_bt_module, start)));
		gs_asm_jmp_reg(a, BPF_JGE, GS_R8, GS_R1, above);
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->hi));
		gs_asm_ja(a, next);
		gs_asm_bind(a, above);
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, offsetof(struct gs_bt_module, end)));
		gs_asm_jmp_reg(a, BPF_JLT, GS_R8, GS_R1, inside);
		gs_asm_emit(a, GS_ALU64_IMM(BPF_ADD, GS_R2, 1));
		gs_asm_emit(a, GS_STX_MEM(BPF_W, GS_FP, GS_R2, sl->lo));
		gs_asm_bind(a, next);
	}
	gs_asm_ja(a, done);
	gs_asm_bind(a, inside);
	gs_asm_note(a, "bt frame: found: the entry becomes the current module");
	for (int16_t off = 0; off < (int16_t)sizeof(struct gs_bt_module); off += 8) {
		gs_asm_emit(a, GS_LDX_MEM(BPF_DW, GS_R1, GS_R0, off));
		gs_asm_emit(a, GS_STX_MEM(BPF_DW, GS_R6, GS_R1, W(mod) + off));
	}
	gs_asm_emit(a, GS_ST_MEM(BPF_B, GS_R6, W(mod_found), 1));
	wire_module(g, sl, done);
}
