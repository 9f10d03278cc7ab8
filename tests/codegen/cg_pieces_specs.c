/* Values some of whose DWARF pieces are empty or end before the type
 * does, typed by hand as the dwarf layer types them
 * (partial.c: the members in an empty piece are placeholders): a Rust
 * Vec<i32> whose data pointer has no piece, and a u64 of which a piece
 * gives the low half. Part of gs_cg_value_cases (golden, kernel), run on
 * the VM by test_vm_as_gdb.c. */
#include "base.h"
#include "cg_specs.h"

#define NAME(v, t) { .kind = GS_EXPR_NAME, .name = (t), .dvar = &(v), .text = (t) }

static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "i32",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_u64 = { .kind = GS_TYPE_U64, .size = 8, .name = "u64",
				      .byte_size = 8 };
static const struct gs_type t_gone_ptr = { .kind = GS_TYPE_OPTIMIZED_OUT, .name = "*const i32",
					   .byte_size = 8 };
/* Vec<i32>: ptr, cap, len; ptr in an empty piece */
static const struct gs_view v_vec = { .kind = GS_VIEW_SEQ, .style = GS_VSTYLE_RUST_VEC,
				      .ptr_off = 0, .len_off = 16, .cap_off = 8, .elem = &t_int };
static const struct gs_type_member vec_m[] = { { "ptr", &t_gone_ptr, 0 }, { "cap", &t_u64, 8 },
					       { "len", &t_u64, 16 } };
static const struct gs_type t_vec = { .kind = GS_TYPE_STRUCT, .name = "Vec<i32>",
				      .byte_size = 24, .members = vec_m, .nmembers = BASE_ARRAY_SIZE(vec_m),
				      .view = &v_vec };

/* v: DW_OP_piece 8 (empty); DW_OP_reg5 (rdi) DW_OP_piece 8; DW_OP_reg4
 * (rsi) DW_OP_piece 8 */
static const struct gs_var v_v = {
	.name = "v", .type = &t_vec, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){
		{ .kind = GS_LOC_UNAVAILABLE, .size = 8 },
		{ .kind = GS_LOC_REGISTER, .reg = 5, .size = 8 },
		{ .kind = GS_LOC_REGISTER, .reg = 4, .size = 8 } }, .npieces = 3 },
};
/* n: DW_OP_reg1 (rdx) DW_OP_piece 4, of a u64 */
static const struct gs_var v_n = {
	.name = "n", .type = &t_u64, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){
		{ .kind = GS_LOC_REGISTER, .reg = 1, .size = 4 } }, .npieces = 1 },
};

static const struct gs_expr v = NAME(v_v, "v");
static const struct gs_expr n = NAME(v_n, "n");

/* trace f { print v; print n; } */
static const struct gs_stmt pieces_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &v },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &n },
};
const struct gs_trace_spec gs_cgv_pieces = {
	.trace_id = 44, .target = "val_pieces", .body = pieces_body, .nbody = BASE_ARRAY_SIZE(pieces_body),
};
