/* Trace specs of source-level values for the codegen suites, with the
 * access plans and types the dwarf layer would hand over, written by hand:
 * one spec per location kind (register, stack via the CFA, global via the
 * module bias, composite, list entry, optimized out), member / index /
 * deref chains, strings and dumps, and comparisons. The VM suite
 * (test_vm_values.c) lays out memory to match GS_CGV_* below. */
#include "base.h"
#include "cg_specs.h"


/* ---- types: struct point { int x, y; };
 *      struct rec { int id; struct point pos; char name[16];
 *                   struct rec *next; int values[4];
 *                   unsigned a:3, b:5; int c:7; } ---- */
static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_uint = { .kind = GS_TYPE_U32, .size = 4, .name = "unsigned int",
				       .byte_size = 4 };
static const struct gs_type t_char = { .kind = GS_TYPE_CHAR, .size = 1, .name = "char",
				       .flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_char_p = { .kind = GS_TYPE_POINTER, .size = 8, .name = "char *",
					 .byte_size = 8, .target = &t_char };
static const struct gs_type t_name = { .kind = GS_TYPE_ARRAY, .name = "char [16]",
				       .flags = GS_TYPEF_CHAR, .byte_size = 16,
				       .target = &t_char, .count = 16 };
static const struct gs_type t_values = { .kind = GS_TYPE_ARRAY, .name = "int [4]",
					 .byte_size = 16, .target = &t_int, .count = 4 };
static const struct gs_type_member point_members[] = {
	{ .name = "x", .type = &t_int, .offset = 0 },
	{ .name = "y", .type = &t_int, .offset = 4 },
};
static const struct gs_type t_point = { .kind = GS_TYPE_STRUCT, .size = 8, .name = "struct point",
					.byte_size = 8, .members = point_members, .nmembers = 2 };
static const struct gs_type t_rec;
static const struct gs_type t_rec_p = { .kind = GS_TYPE_POINTER, .size = 8,
					.name = "struct rec *", .byte_size = 8, .target = &t_rec };
static const struct gs_type_member rec_members[] = {
	{ .name = "id", .type = &t_int, .offset = GS_CGV_REC_ID },
	{ .name = "pos", .type = &t_point, .offset = GS_CGV_REC_POS },
	{ .name = "name", .type = &t_name, .offset = GS_CGV_REC_NAME },
	{ .name = "next", .type = &t_rec_p, .offset = GS_CGV_REC_NEXT },
	{ .name = "values", .type = &t_values, .offset = GS_CGV_REC_VALUES },
	{ .name = "a", .type = &t_uint, .offset = GS_CGV_REC_BITS, .bit_size = 3 },
	{ .name = "b", .type = &t_uint, .offset = GS_CGV_REC_BITS, .bit_offset = 3, .bit_size = 5 },
	{ .name = "c", .type = &t_int, .offset = GS_CGV_REC_BITS + 1, .bit_size = 7 },
};
static const struct gs_type t_rec = { .kind = GS_TYPE_STRUCT, .name = "struct rec",
				      .byte_size = GS_CGV_REC_SIZE, .members = rec_members,
				      .nmembers = BASE_ARRAY_SIZE(rec_members) };

/* ---- variables at the probe ---- */
#define LOC1(k, b, r, o) { .pieces = (const struct gs_loc_piece[]){ { .kind = (k), .base = (b), \
	.reg = (r), .offset = (o) } }, .npieces = 1, .cookie = GS_CG_PROBE_COOKIE }

/* int n: in rdi */
static const struct gs_var v_n = { .name = "n", .type = &t_int, .scope = GS_SCOPE_PARAM,
				   .loc = LOC1(GS_LOC_REGISTER, 0, 5, 0) };
/* struct point s: DW_OP_fbreg -24 over DW_OP_call_frame_cfa, CFA = rsp + 16 */
static const struct gs_var v_s = {
	.name = "s", .type = &t_point, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_REG, .reg = GS_DWARF_REG_RSP, .offset = 16 - 24 } },
		 .npieces = 1, .cfa_relative = true },
};
/* int g_counter: DW_OP_addr GS_CGV_GLOBAL_ADDR */
static const struct gs_var v_global = {
	.name = "g_counter", .type = &t_int, .scope = GS_SCOPE_GLOBAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_MODULE, .offset = GS_CGV_GLOBAL_ADDR } }, .npieces = 1,
		 .section = 2, .cookie = GS_CG_PROBE_COOKIE },
};
/* char *g_name: DW_OP_addr GS_CGV_NAME_PTR_ADDR */
static const struct gs_var v_gname = {
	.name = "g_name", .type = &t_char_p, .scope = GS_SCOPE_GLOBAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_MODULE, .offset = GS_CGV_NAME_PTR_ADDR } }, .npieces = 1,
		 .section = 2, .cookie = GS_CG_PROBE_COOKIE },
};
/* __thread int t_count: DW_OP_const8u 8; DW_OP_form_tls_address (the
 * probe module's static TLS) */
static const struct gs_var v_tls = {
	.name = "t_count", .type = &t_int, .scope = GS_SCOPE_GLOBAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_TLS, .offset = 8 } }, .npieces = 1,
		 .cookie = GS_CG_PROBE_COOKIE },
};
/* __thread struct point t_pos: DW_OP_const8u 16; DW_OP_GNU_push_tls_address,
 * in a dlopen'ed module (another cookie: dynamic TLS at run time) */
static const struct gs_var v_tls_dl = {
	.name = "t_pos", .type = &t_point, .scope = GS_SCOPE_GLOBAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_TLS, .offset = 16 } }, .npieces = 1,
		 .cookie = GS_CG_PROBE_COOKIE + 1 },
};
/* struct point pt: DW_OP_reg0 DW_OP_piece 4 DW_OP_reg1 DW_OP_piece 4 */
static const struct gs_var v_pt = {
	.name = "pt", .type = &t_point, .scope = GS_SCOPE_PARAM,
	.loc = { .pieces = (const struct gs_loc_piece[]){
		{ .kind = GS_LOC_REGISTER, .reg = 0, .size = 4 },
		{ .kind = GS_LOC_REGISTER, .reg = 1, .size = 4 } }, .npieces = 2 },
};
/* struct rec *r: the location-list entry covering the PC says rsi */
static const struct gs_var v_r = {
	.name = "r", .type = &t_rec_p, .scope = GS_SCOPE_PARAM,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_REGISTER, .reg = 4 } },
		 .npieces = 1, .from_list = true },
};
const struct gs_var *const gs_cgv_rec_ptr = &v_r;
/* int gone: DW_OP_entry_value only */
static const struct gs_var v_gone = { .name = "gone", .type = &t_int, .scope = GS_SCOPE_PARAM,
				      .loc = { .why = GS_LOC_WHY_ENTRY_VALUE } };
/* int k: DW_OP_lit7 DW_OP_stack_value */
static const struct gs_var v_k = {
	.name = "k", .type = &t_int, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_IMPLICIT, .size = 4,
		 .bytes = (const uint8_t[]){ 7, 0, 0, 0 } } }, .npieces = 1 },
};

/* the name is the text: a static initializer cannot read (v).name */
#define NAME(v, t) { .kind = GS_EXPR_NAME, .name = (t), .dvar = &(v), .text = (t) }
#define MEMBER(l, m, t) { .kind = GS_EXPR_MEMBER, .lhs = (l), .name = (m), .text = (t) }
#define INDEX(l, r, t) { .kind = GS_EXPR_INDEX, .lhs = (l), .rhs = (r), .text = (t) }

static const struct gs_expr n = NAME(v_n, "n");
static const struct gs_expr s = NAME(v_s, "s");
static const struct gs_expr g_counter = NAME(v_global, "g_counter");
static const struct gs_expr g_name = NAME(v_gname, "g_name");
static const struct gs_expr pt = NAME(v_pt, "pt");
static const struct gs_expr r = NAME(v_r, "r");
static const struct gs_expr gone = NAME(v_gone, "gone");
static const struct gs_expr k = NAME(v_k, "k");

/* trace f { print n; } */
static const struct gs_stmt reg_body[] = { { .kind = GS_STMT_PRINT_EXPR, .expr = &n } };
static const struct gs_trace_spec val_register = {
	.trace_id = 20, .target = "val_register", .body = reg_body, .nbody = BASE_ARRAY_SIZE(reg_body),
};

/* trace f { print s; print s.y; } */
static const struct gs_expr s_y = MEMBER(&s, "y", "s.y");
static const struct gs_stmt stack_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &s },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &s_y },
};
static const struct gs_trace_spec val_stack_cfa = {
	.trace_id = 21, .target = "val_stack_cfa", .body = stack_body, .nbody = BASE_ARRAY_SIZE(stack_body),
};

/* trace f { print g_counter; } */
static const struct gs_stmt global_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &g_counter },
};
static const struct gs_trace_spec val_global = {
	.trace_id = 22, .target = "val_global", .body = global_body, .nbody = BASE_ARRAY_SIZE(global_body),
};

/* trace f { print t_count; print t_pos.y; print t_pos; } */
static const struct gs_expr tls_count = NAME(v_tls, "t_count");
static const struct gs_expr tls_pos = NAME(v_tls_dl, "t_pos");
static const struct gs_expr tls_pos_y = MEMBER(&tls_pos, "y", "t_pos.y");
static const struct gs_stmt tls_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &tls_count },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &tls_pos_y },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &tls_pos },
};
static const struct gs_trace_spec val_tls = {
	.trace_id = 34, .target = "val_tls", .body = tls_body, .nbody = BASE_ARRAY_SIZE(tls_body),
};

/* trace f { print pt; print pt.y; } */
static const struct gs_expr pt_y = MEMBER(&pt, "y", "pt.y");
static const struct gs_stmt composite_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &pt },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &pt_y },
};
static const struct gs_trace_spec val_composite = {
	.trace_id = 23, .target = "val_composite", .body = composite_body,
	.nbody = BASE_ARRAY_SIZE(composite_body),
};

/* trace f { print r; } with r from its location list */
static const struct gs_stmt list_body[] = { { .kind = GS_STMT_PRINT_EXPR, .expr = &r } };
static const struct gs_trace_spec val_list_entry = {
	.trace_id = 24, .target = "val_list_entry", .body = list_body, .nbody = BASE_ARRAY_SIZE(list_body),
};

/* trace f { print gone; print "{} {}", gone, k; } */
static const struct gs_expr *const gone_args[] = { &gone, &k };
static const struct gs_stmt optout_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &gone },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {}", .args = gone_args, .nargs = 2 },
};
static const struct gs_trace_spec val_optimized_out = {
	.trace_id = 25, .target = "val_optimized_out", .body = optout_body,
	.nbody = BASE_ARRAY_SIZE(optout_body),
};

/* trace f {
 *   print "{} {} {} {} {}", r->pos.y, r->values[2], r->values[$tid % 4], r->next->id, r->b;
 *   print *r->next;
 * } */
static const struct gs_expr tid = { .kind = GS_EXPR_SPECIAL, .special = GS_SPECIAL_TID,
				    .text = "$tid" };
static const struct gs_expr four = { .kind = GS_EXPR_INT, .value = 4, .text = "4" };
static const struct gs_expr two = { .kind = GS_EXPR_INT, .value = 2, .text = "2" };
static const struct gs_expr tid_mod4 = { .kind = GS_EXPR_BINARY, .op = GS_OP_MOD, .lhs = &tid,
					 .rhs = &four, .text = "$tid % 4" };
static const struct gs_expr r_pos = MEMBER(&r, "pos", "r->pos");
static const struct gs_expr r_pos_y = MEMBER(&r_pos, "y", "r->pos.y");
static const struct gs_expr r_values = MEMBER(&r, "values", "r->values");
static const struct gs_expr r_values_2 = INDEX(&r_values, &two, "r->values[2]");
static const struct gs_expr r_values_i = INDEX(&r_values, &tid_mod4, "r->values[$tid % 4]");
static const struct gs_expr r_next = MEMBER(&r, "next", "r->next");
static const struct gs_expr r_next_id = MEMBER(&r_next, "id", "r->next->id");
static const struct gs_expr r_b = MEMBER(&r, "b", "r->b");
static const struct gs_expr r_c = MEMBER(&r, "c", "r->c");
static const struct gs_expr deref_next = { .kind = GS_EXPR_DEREF, .lhs = &r_next,
					   .text = "*r->next" };
static const struct gs_expr *const chain_args[] = {
	&r_pos_y, &r_values_2, &r_values_i, &r_next_id, &r_b, &r_c,
};
static const struct gs_stmt chain_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {} {} {} {} {}", .args = chain_args,
	  .nargs = BASE_ARRAY_SIZE(chain_args) },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &deref_next },
};
static const struct gs_trace_spec val_chain = {
	.trace_id = 26, .target = "val_chain", .body = chain_body, .nbody = BASE_ARRAY_SIZE(chain_body),
};

/* trace f { print "{:s} {:s} {:x.8}", r->name, g_name, r; } */
static const struct gs_expr r_name = MEMBER(&r, "name", "r->name");
static const struct gs_expr *const string_args[] = { &r_name, &g_name, &r };
static const struct gs_stmt string_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{:s} {:s} {:x.8}", .args = string_args,
	  .nargs = BASE_ARRAY_SIZE(string_args) },
};
static const struct gs_trace_spec val_strings = {
	.trace_id = 27, .target = "val_strings", .body = string_body, .nbody = BASE_ARRAY_SIZE(string_body),
};

/* trace f { print "{}", r->pos.y; print *r; } with an event of 96 bytes: the
 * struct (64 bytes) gets what is left, marked Truncated. */
static const struct gs_expr deref_r = { .kind = GS_EXPR_DEREF, .lhs = &r, .text = "*r" };
static const struct gs_expr *const budget_args[] = { &r_pos_y };
static const struct gs_stmt budget_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{}", .args = budget_args, .nargs = 1 },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &deref_r },
};
static const struct gs_trace_spec val_budget = {
	.trace_id = 31, .target = "val_budget", .body = budget_body, .nbody = BASE_ARRAY_SIZE(budget_body),
};

/* trace f {
 *   if starts_with(g_name, "fix") && r->id == 7 { print "match"; }
 *   if strncmp(r->name, "alpha", 6) { print "alpha"; }
 * } */
static const struct gs_expr lit_fix = { .kind = GS_EXPR_BYTES, .bytes = (const uint8_t *)"fix",
					.nbytes = 3, .text = "\"fix\"" };
static const struct gs_expr lit_alpha = { .kind = GS_EXPR_BYTES,
					  .bytes = (const uint8_t *)"alpha", .nbytes = 5,
					  .text = "\"alpha\"" };
static const struct gs_expr six = { .kind = GS_EXPR_INT, .value = 6, .text = "6" };
static const struct gs_expr seven = { .kind = GS_EXPR_INT, .value = 7, .text = "7" };
static const struct gs_expr starts = { .kind = GS_EXPR_BUILTIN,
				       .builtin = GS_BUILTIN_STARTS_WITH, .lhs = &g_name,
				       .rhs = &lit_fix, .text = "starts_with(g_name, \"fix\")" };
static const struct gs_expr r_id = MEMBER(&r, "id", "r->id");
static const struct gs_expr id_is_7 = { .kind = GS_EXPR_BINARY, .op = GS_OP_EQ, .lhs = &r_id,
					.rhs = &seven, .text = "r->id == 7" };
static const struct gs_expr both = { .kind = GS_EXPR_BINARY, .op = GS_OP_LAND, .lhs = &starts,
				     .rhs = &id_is_7, .text = "starts_with(...) && r->id == 7" };
static const struct gs_expr ncmp = { .kind = GS_EXPR_BUILTIN, .builtin = GS_BUILTIN_STRNCMP,
				     .lhs = &r_name, .rhs = &lit_alpha, .len = &six,
				     .text = "strncmp(r->name, \"alpha\", 6)" };
static const struct gs_stmt match_body[] = { { .kind = GS_STMT_PRINT_STRING, .text = "match" } };
static const struct gs_stmt alpha_body[] = { { .kind = GS_STMT_PRINT_STRING, .text = "alpha" } };
static const struct gs_stmt compare_body[] = {
	{ .kind = GS_STMT_IF, .expr = &both, .then_body = match_body, .nthen = 1 },
	{ .kind = GS_STMT_IF, .expr = &ncmp, .then_body = alpha_body, .nthen = 1 },
};
static const struct gs_trace_spec val_compare = {
	.trace_id = 28, .target = "val_compare", .body = compare_body, .nbody = BASE_ARRAY_SIZE(compare_body),
};

/* trace f { print "{:x.*} {:s.*} {:x.*}", n, r->values, n, g_name, gone, r; }
 * (run-time lengths: the argument before each dump says how many bytes) */
static const struct gs_expr *const dyn_args[] = { &n, &r_values, &n, &g_name, &gone, &r };
static const struct gs_stmt dyn_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{:x.*} {:s.*} {:x.*}", .args = dyn_args,
	  .nargs = BASE_ARRAY_SIZE(dyn_args) },
};
static const struct gs_trace_spec val_runtime_len = {
	.trace_id = 29, .target = "val_runtime_len", .body = dyn_body, .nbody = BASE_ARRAY_SIZE(dyn_body),
};

/* struct rec *rp: DW_OP_reg0 DW_OP_piece 4 DW_OP_reg1 DW_OP_piece 4 (a
 * pointer in two halves); trace f { print rp->id; print "{}", rp->next; } */
static const struct gs_var v_rp = {
	.name = "rp", .type = &t_rec_p, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){
		{ .kind = GS_LOC_REGISTER, .reg = 0, .size = 4 },
		{ .kind = GS_LOC_REGISTER, .reg = 1, .size = 4 } }, .npieces = 2 },
};
static const struct gs_expr rp = NAME(v_rp, "rp");
static const struct gs_expr rp_id = MEMBER(&rp, "id", "rp->id");
static const struct gs_expr rp_next = MEMBER(&rp, "next", "rp->next");
static const struct gs_expr *const rp_args[] = { &rp_next };
static const struct gs_stmt pieces_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &rp_id },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{}", .args = rp_args, .nargs = 1 },
};
static const struct gs_trace_spec val_pointer_pieces = {
	.trace_id = 30, .target = "val_pointer_pieces", .body = pieces_body,
	.nbody = BASE_ARRAY_SIZE(pieces_body),
};

/* C's arithmetic: unsigned long u64v in rdi, unsigned int u32v
 * in rsi, int i32v in rdx; trace f { print "{} ...", u64v / 2, i32v > u32v,
 * ~(u32v ^ u32v), u32v + u32v, i32v >> 4, u64v >> 60, i32v / 7, u32v % 7,
 * -u32v, i32v * 3 < 0u; } */
static const struct gs_type t_ulong = { .kind = GS_TYPE_U64, .size = 8, .name = "unsigned long",
					.byte_size = 8 };
static const struct gs_var v_u64v = { .name = "u64v", .type = &t_ulong, .scope = GS_SCOPE_PARAM,
				      .loc = LOC1(GS_LOC_REGISTER, 0, 5, 0) };
static const struct gs_var v_u32v = { .name = "u32v", .type = &t_uint, .scope = GS_SCOPE_PARAM,
				      .loc = LOC1(GS_LOC_REGISTER, 0, 4, 0) };
static const struct gs_var v_i32v = { .name = "i32v", .type = &t_int, .scope = GS_SCOPE_PARAM,
				      .loc = LOC1(GS_LOC_REGISTER, 0, 1, 0) };
static const struct gs_expr u64v = NAME(v_u64v, "u64v");
static const struct gs_expr u32v = NAME(v_u32v, "u32v");
static const struct gs_expr i32v = NAME(v_i32v, "i32v");
#define CINT(v) { .kind = GS_EXPR_INT, .value = (v), .text = #v }
#define CBIN(o, l, r, t) { .kind = GS_EXPR_BINARY, .op = (o), .lhs = (l), .rhs = (r), .text = (t) }
static const struct gs_expr c2 = CINT(2), c4 = CINT(4), c60 = CINT(60), c7 = CINT(7),
			    c3 = CINT(3), c0 = CINT(0);
static const struct gs_expr a_div = CBIN(GS_OP_DIV, &u64v, &c2, "u64v / 2");
static const struct gs_expr a_gt = CBIN(GS_OP_GT, &i32v, &u32v, "i32v > u32v");
static const struct gs_expr a_xor = CBIN(GS_OP_XOR, &u32v, &u32v, "u32v ^ u32v");
static const struct gs_expr a_not = { .kind = GS_EXPR_UNARY, .op = '~', .lhs = &a_xor,
				      .text = "~(u32v ^ u32v)" };
static const struct gs_expr a_add = CBIN(GS_OP_ADD, &u32v, &u32v, "u32v + u32v");
static const struct gs_expr a_sar = CBIN(GS_OP_SHR, &i32v, &c4, "i32v >> 4");
static const struct gs_expr a_shr = CBIN(GS_OP_SHR, &u64v, &c60, "u64v >> 60");
static const struct gs_expr a_sdiv = CBIN(GS_OP_DIV, &i32v, &c7, "i32v / 7");
static const struct gs_expr a_umod = CBIN(GS_OP_MOD, &u32v, &c7, "u32v % 7");
static const struct gs_expr a_neg = { .kind = GS_EXPR_UNARY, .op = '-', .lhs = &u32v,
				      .text = "-u32v" };
static const struct gs_expr a_mul = CBIN(GS_OP_MUL, &i32v, &c3, "i32v * 3");
static const struct gs_expr a_ult = CBIN(GS_OP_LT, &a_mul, &u32v, "i32v * 3 < u32v");
static const struct gs_expr a_cmp0 = CBIN(GS_OP_GE, &u32v, &c0, "u32v >= 0");
static const struct gs_expr *const arith_args[] = { &a_div, &a_gt, &a_not, &a_add, &a_sar,
						     &a_shr };
static const struct gs_expr *const arith_args2[] = { &a_sdiv, &a_umod, &a_neg, &a_ult,
						      &a_cmp0 };
static const struct gs_stmt arith_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {} {} {} {} {}", .args = arith_args,
	  .nargs = BASE_ARRAY_SIZE(arith_args) },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {} {} {} {}", .args = arith_args2,
	  .nargs = BASE_ARRAY_SIZE(arith_args2) },
};
static const struct gs_trace_spec val_c_arith = {
	.trace_id = 32, .target = "val_c_arith", .body = arith_body, .nbody = BASE_ARRAY_SIZE(arith_body),
};

/* Pointers and strings as C has them: int n in rdi, struct rec
 * *r in rsi, char *g_name; trace f { let s = "alpha"; print "{} {} {} {}
 * {} {} {}", r->name == s, g_name == "alpha", r->name != "alphabet",
 * *(r->values + 2), r + 1, memcmp(r->name, g_name, n), cast(n, "_Bool");
 * print s; } */
static const struct gs_type t_bool = { .kind = GS_TYPE_BOOL, .size = 1, .name = "_Bool",
				       .byte_size = 1 };
static const struct gs_expr ps_alpha = { .kind = GS_EXPR_BYTES, .bytes = (const uint8_t *)"alpha",
					  .nbytes = 5, .text = "s" };
static const struct gs_expr ps_alphabet = { .kind = GS_EXPR_BYTES,
					     .bytes = (const uint8_t *)"alphabet", .nbytes = 8,
					     .text = "\"alphabet\"" };
static const struct gs_expr c1 = CINT(1);
static const struct gs_expr p_eq1 = CBIN(GS_OP_EQ, &r_name, &ps_alpha, "r->name == s");
static const struct gs_expr p_eq2 = CBIN(GS_OP_EQ, &g_name, &ps_alpha, "g_name == \"alpha\"");
static const struct gs_expr p_ne = CBIN(GS_OP_NE, &r_name, &ps_alphabet,
					"r->name != \"alphabet\"");
static const struct gs_expr p_step = CBIN(GS_OP_ADD, &r_values, &c2, "r->values + 2");
static const struct gs_expr p_deref = { .kind = GS_EXPR_DEREF, .lhs = &p_step,
					.text = "*(r->values + 2)" };
static const struct gs_expr p_next = CBIN(GS_OP_ADD, &r, &c1, "r + 1");
static const struct gs_expr p_memcmp = { .kind = GS_EXPR_BUILTIN, .builtin = GS_BUILTIN_MEMCMP,
					 .lhs = &r_name, .rhs = &g_name, .len = &n,
					 .text = "memcmp(r->name, g_name, n)" };
static const struct gs_expr p_bool = { .kind = GS_EXPR_CAST, .lhs = &n, .type_name = "_Bool",
				       .cast_type = &t_bool, .text = "cast(n, \"_Bool\")" };
static const struct gs_expr *const ptrstr_args[] = { &p_eq1, &p_eq2, &p_ne, &p_deref, &p_next,
						      &p_memcmp, &p_bool };
static const struct gs_stmt ptrstr_body[] = {
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {} {} {} {} {} {}", .args = ptrstr_args,
	  .nargs = BASE_ARRAY_SIZE(ptrstr_args) },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &ps_alpha },
};
static const struct gs_trace_spec val_ptr_strings = {
	.trace_id = 33, .target = "val_ptr_strings", .body = ptrstr_body, .nbody = BASE_ARRAY_SIZE(ptrstr_body),
};

/* Location programs (DWARF expressions that do not fold), as the dwarf
 * layer lowers them: int mix = a * 3 + b at -O2 (DW_OP_breg5 0; lit3; mul;
 * breg4 0; plus; stack_value); int at in memory at *(rsi) + 8 (a deref
 * inside); long mag = |rdi| by bra/skip; short lo = (short)rdx by a typed
 * convert; int dz = rdi / rsi (division by zero: its error); long q, m =
 * rdi / 3, rdi % 3 (signed, C's truncation); int ev an
 * entry value: the caller's rbx when the return address at rsp is the
 * call site's (link-time 0x1234), else unavailable. */
#define OP(c, ...) { .code = GS_LOP_##c, __VA_ARGS__ }
#define PROG(o, d, m) (&(const struct gs_loc_prog){ .ops = (o), .nops = BASE_ARRAY_SIZE(o), .max_depth = (d), \
	.has_module = (m) })
#define PROG_LOC(k, p) { .pieces = (const struct gs_loc_piece[]){ { .kind = (k), \
	.base = GS_LOC_BASE_PROGRAM, .prog = (p) } }, .npieces = 1, .cookie = GS_CG_PROBE_COOKIE }
static const struct gs_loc_op mix_ops[] = {
	OP(REG, .reg = 5, .depth = 0), OP(CONST, .arg = 3, .depth = 1),
	OP(MUL, .depth = 2, .flags = GS_LOPF_SIGNED), OP(REG, .reg = 4, .depth = 1),
	OP(ADD, .depth = 2, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op at_ops[] = {
	OP(REG, .reg = 4, .depth = 0), OP(DEREF, .size = 8, .depth = 1),
	OP(CONST, .arg = 8, .depth = 1), OP(ADD, .depth = 2, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op mag_ops[] = {
	OP(REG, .reg = 5, .depth = 0), OP(PICK, .arg = 0, .depth = 1),
	OP(CONST, .arg = 0, .depth = 2), OP(LT, .depth = 3, .flags = GS_LOPF_SIGNED),
	OP(BRA, .arg = 6, .depth = 2), OP(SKIP, .arg = 7, .depth = 1),
	OP(NEG, .depth = 1, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op lo_ops[] = {
	OP(REG, .reg = 1, .depth = 0), OP(CONVERT, .size = 2, .flags = GS_LOPF_SIGNED, .depth = 1),
	OP(CONST, .arg = 1, .depth = 1), OP(SHRA, .size = 2, .flags = GS_LOPF_SIGNED, .depth = 2),
};
static const struct gs_loc_op dz_ops[] = {
	OP(REG, .reg = 5, .depth = 0), OP(REG, .reg = 4, .depth = 1),
	OP(DIV, .depth = 2, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op q_ops[] = {
	OP(REG, .reg = 5, .depth = 0), OP(CONST, .arg = 3, .depth = 1),
	OP(DIV, .depth = 2, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op m_ops[] = {
	OP(REG, .reg = 5, .depth = 0), OP(CONST, .arg = 3, .depth = 1),
	OP(MOD, .depth = 2, .flags = GS_LOPF_SIGNED),
};
static const struct gs_loc_op ev_ops[] = {
	OP(REG, .reg = 7, .depth = 0), OP(DEREF, .size = 8, .depth = 1),
	OP(MODULE, .depth = 1), OP(SUB, .depth = 2), OP(PICK, .arg = 0, .depth = 1),
	OP(CONST, .arg = 0x1234, .depth = 2), OP(EQ, .depth = 3, .flags = GS_LOPF_SIGNED),
	OP(BRA, .arg = 9, .depth = 2), OP(FAIL, .depth = 1), OP(DROP, .depth = 1),
	OP(REG, .reg = 3, .depth = 0),
};
static const struct gs_type t_short = { .kind = GS_TYPE_I16, .size = 2, .name = "short",
					.byte_size = 2, .flags = GS_TYPEF_SIGNED };
static const struct gs_type t_long = { .kind = GS_TYPE_I64, .size = 8, .name = "long",
				       .byte_size = 8, .flags = GS_TYPEF_SIGNED };
static const struct gs_var v_mix = { .name = "mix", .type = &t_int, .scope = GS_SCOPE_LOCAL,
				     .loc = PROG_LOC(GS_LOC_VALUE, PROG(mix_ops, 2, 0)) };
static const struct gs_var v_at = { .name = "at", .type = &t_int, .scope = GS_SCOPE_LOCAL,
				    .loc = PROG_LOC(GS_LOC_MEMORY, PROG(at_ops, 2, 0)) };
static const struct gs_var v_mag = { .name = "mag", .type = &t_long, .scope = GS_SCOPE_LOCAL,
				     .loc = PROG_LOC(GS_LOC_VALUE, PROG(mag_ops, 3, 0)) };
static const struct gs_var v_lo = { .name = "lo", .type = &t_short, .scope = GS_SCOPE_LOCAL,
				    .loc = PROG_LOC(GS_LOC_VALUE, PROG(lo_ops, 2, 0)) };
static const struct gs_var v_dz = { .name = "dz", .type = &t_int, .scope = GS_SCOPE_LOCAL,
				    .loc = PROG_LOC(GS_LOC_VALUE, PROG(dz_ops, 2, 0)) };
static const struct gs_var v_q = { .name = "q", .type = &t_long, .scope = GS_SCOPE_LOCAL,
				   .loc = PROG_LOC(GS_LOC_VALUE, PROG(q_ops, 2, 0)) };
static const struct gs_var v_m = { .name = "m", .type = &t_long, .scope = GS_SCOPE_LOCAL,
				   .loc = PROG_LOC(GS_LOC_VALUE, PROG(m_ops, 2, 0)) };
static const struct gs_var v_ev = { .name = "ev", .type = &t_int, .scope = GS_SCOPE_PARAM,
				    .loc = PROG_LOC(GS_LOC_VALUE, PROG(ev_ops, 3, 1)) };
static const struct gs_expr mix = NAME(v_mix, "mix"), at = NAME(v_at, "at"),
			    mag = NAME(v_mag, "mag"), lo = NAME(v_lo, "lo"),
			    dz = NAME(v_dz, "dz"), ev = NAME(v_ev, "ev"), q = NAME(v_q, "q"),
			    m = NAME(v_m, "m");
static const struct gs_expr mix_plus_3 = CBIN(GS_OP_ADD, &mix, &c3, "mix + 3");
static const struct gs_expr *const dwexpr_args[] = { &mix_plus_3 };
static const struct gs_stmt dwexpr_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &mix },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &at },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &mag },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &lo },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &dz },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &ev },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{}", .args = dwexpr_args, .nargs = 1 },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &q },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &m },
};
static const struct gs_trace_spec val_dwarf_expr = {
	.trace_id = 35, .target = "val_dwarf_expr", .body = dwexpr_body, .nbody = BASE_ARRAY_SIZE(dwexpr_body),
};

/* Standard-library values in expressions (gs/view.h), typed as
 * the dwarf layer types libstdc++'s: std::vector<int> &v in rsi,
 * std::string &str in rdx, std::unique_ptr<point> &up in rcx, and a
 * std::vector<std::string> vs on the stack (a reference is a pointer).
 * trace f {
 *   print v[1]; print "{} {}", v[n], len(v);
 *   if str == "alice" { print "yes"; }
 *   print vs[1][0]; print vs[1]; print len(str);
 *   print up->x; print (*up).y; print len(r->values);
 *   print "{:s} {:s}", str, vs[1];
 * } */
static const struct gs_view view_vec_int = {
	.kind = GS_VIEW_SEQ, .style = GS_VSTYLE_CPP_VECTOR, .len_how = GS_VLEN_END,
	.ptr_off = 0, .len_off = 8, .cap_off = 16, .elem = &t_int,
};
static const struct gs_type t_vec_int = { .kind = GS_TYPE_STRUCT, .name = "std::vector<int>",
					  .byte_size = 24, .view = &view_vec_int };
static const struct gs_type t_vec_int_ref = { .kind = GS_TYPE_POINTER, .size = 8,
					      .name = "std::vector<int> &", .byte_size = 8,
					      .target = &t_vec_int };
static const struct gs_view view_string = {
	.kind = GS_VIEW_STRING, .style = GS_VSTYLE_CPP_STRING, .len_how = GS_VLEN_FIELD,
	.ptr_off = 0, .len_off = 8, .elem = &t_char,
};
static const struct gs_type t_string = { .kind = GS_TYPE_STRUCT, .name = "std::string",
					 .byte_size = 32, .view = &view_string };
static const struct gs_type t_string_ref = { .kind = GS_TYPE_POINTER, .size = 8,
					     .name = "std::string &", .byte_size = 8,
					     .target = &t_string };
static const struct gs_view view_vec_string = {
	.kind = GS_VIEW_SEQ, .style = GS_VSTYLE_CPP_VECTOR, .len_how = GS_VLEN_END,
	.ptr_off = 0, .len_off = 8, .cap_off = 16, .elem = &t_string,
};
static const struct gs_type t_vec_string = { .kind = GS_TYPE_STRUCT,
					     .name = "std::vector<std::string>", .byte_size = 24,
					     .view = &view_vec_string };
static const struct gs_type t_point_p = { .kind = GS_TYPE_POINTER, .size = 8,
					  .name = "struct point *", .byte_size = 8,
					  .target = &t_point };
static const struct gs_view view_unique_point = {
	.kind = GS_VIEW_INLINE, .style = GS_VSTYLE_CPP_UNIQUE_PTR,
	.fields = (const struct gs_view_field[]){ { .type = &t_point_p, .offset = 0 } },
	.nfields = 1, .name = "std::unique_ptr<point>",
};
static const struct gs_type t_unique_point = { .kind = GS_TYPE_STRUCT,
					       .name = "std::unique_ptr<point>", .byte_size = 8,
					       .view = &view_unique_point };
static const struct gs_type t_unique_point_ref = { .kind = GS_TYPE_POINTER, .size = 8,
						   .name = "std::unique_ptr<point> &",
						   .byte_size = 8, .target = &t_unique_point };
static const struct gs_var v_v = { .name = "v", .type = &t_vec_int_ref, .scope = GS_SCOPE_PARAM,
				   .loc = LOC1(GS_LOC_REGISTER, 0, 4, 0) };
static const struct gs_var v_str = { .name = "str", .type = &t_string_ref,
				     .scope = GS_SCOPE_PARAM, .loc = LOC1(GS_LOC_REGISTER, 0, 1, 0) };
static const struct gs_var v_up = { .name = "up", .type = &t_unique_point_ref,
				    .scope = GS_SCOPE_PARAM, .loc = LOC1(GS_LOC_REGISTER, 0, 2, 0) };
static const struct gs_var v_vs = {
	.name = "vs", .type = &t_vec_string, .scope = GS_SCOPE_LOCAL,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY,
		 .base = GS_LOC_BASE_REG, .reg = GS_DWARF_REG_RSP, .offset = 16 - 48 } },
		 .npieces = 1, .cfa_relative = true },
};
static const struct gs_expr vw_v = NAME(v_v, "v"), vw_str = NAME(v_str, "str"),
			    vw_up = NAME(v_up, "up"), vw_vs = NAME(v_vs, "vs");
#define LEN(x, t) { .kind = GS_EXPR_BUILTIN, .builtin = GS_BUILTIN_LEN, .lhs = (x), .text = (t) }
static const struct gs_expr vw_v1 = INDEX(&vw_v, &c1, "v[1]");
static const struct gs_expr vw_vn = INDEX(&vw_v, &n, "v[n]");
static const struct gs_expr vw_len_v = LEN(&vw_v, "len(v)");
static const struct gs_expr vw_alice = { .kind = GS_EXPR_BYTES, .bytes = (const uint8_t *)"alice",
					 .nbytes = 5, .text = "\"alice\"" };
static const struct gs_expr vw_is_alice = CBIN(GS_OP_EQ, &vw_str, &vw_alice, "str == \"alice\"");
static const struct gs_expr vw_vs1 = INDEX(&vw_vs, &c1, "vs[1]");
static const struct gs_expr vw_vs10 = INDEX(&vw_vs1, &c0, "vs[1][0]");
static const struct gs_expr vw_len_str = LEN(&vw_str, "len(str)");
static const struct gs_expr vw_up_x = MEMBER(&vw_up, "x", "up->x");
static const struct gs_expr vw_star_up = { .kind = GS_EXPR_DEREF, .lhs = &vw_up, .text = "*up" };
static const struct gs_expr vw_star_up_y = MEMBER(&vw_star_up, "y", "(*up).y");
static const struct gs_expr vw_len_values = LEN(&r_values, "len(r->values)");
static const struct gs_expr *const vw_args[] = { &vw_vn, &vw_len_v };
static const struct gs_expr *const vw_text_args[] = { &vw_str, &vw_vs1 };
static const struct gs_stmt vw_yes[] = { { .kind = GS_STMT_PRINT_STRING, .text = "yes" } };
static const struct gs_stmt views_body[] = {
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_v1 },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {}", .args = vw_args, .nargs = 2 },
	{ .kind = GS_STMT_IF, .expr = &vw_is_alice, .then_body = vw_yes, .nthen = 1 },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_vs10 },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_vs1 },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_len_str },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_up_x },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_star_up_y },
	{ .kind = GS_STMT_PRINT_EXPR, .expr = &vw_len_values },
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{:s} {:s}", .args = vw_text_args, .nargs = 2 },
};
static const struct gs_trace_spec val_views = {
	.trace_id = 36, .target = "val_views", .body = views_body, .nbody = BASE_ARRAY_SIZE(views_body),
};

/* trace f { print "hit"; @s[r->name, n] = sum(n); @a[g_name] = avg(n);
 *           if n > 1 { @m = min(n); @x = max(n); @st = stats(n); } }:
 * string keys from a char array and a char *, with an event */
static const struct gs_expr one = { .kind = GS_EXPR_INT, .value = 1, .text = "1" };
static const struct gs_expr n_gt_1 = { .kind = GS_EXPR_BINARY, .op = GS_OP_GT, .lhs = &n,
				       .rhs = &one, .text = "n > 1" };
static const struct gs_agg_stmt a_s = { "@s", 0, GS_AGG_SUM, 0, 0, 0 };
static const struct gs_agg_stmt a_a = { "@a", 1, GS_AGG_AVG, 0, 0, 0 };
static const struct gs_agg_stmt a_m = { "@m", 2, GS_AGG_MIN, 0, 0, 0 };
static const struct gs_agg_stmt a_x = { "@x", 3, GS_AGG_MAX, 0, 0, 0 };
static const struct gs_agg_stmt a_st = { "@st", 4, GS_AGG_STATS, 0, 0, 0 };
static const struct gs_expr *const by_name_n[] = { &r_name, &n };
static const struct gs_expr *const by_gname[] = { &g_name };
static const struct gs_stmt agg_then[] = {
	{ .kind = GS_STMT_AGGREGATE, .text = "@m", .expr = &n, .agg = &a_m },
	{ .kind = GS_STMT_AGGREGATE, .text = "@x", .expr = &n, .agg = &a_x },
	{ .kind = GS_STMT_AGGREGATE, .text = "@st", .expr = &n, .agg = &a_st },
};
static const struct gs_stmt agg_body[] = {
	{ .kind = GS_STMT_PRINT_STRING, .text = "hit" },
	{ .kind = GS_STMT_AGGREGATE, .text = "@s", .args = by_name_n, .nargs = 2, .expr = &n,
	  .agg = &a_s },
	{ .kind = GS_STMT_AGGREGATE, .text = "@a", .args = by_gname, .nargs = 1, .expr = &n,
	  .agg = &a_a },
	{ .kind = GS_STMT_IF, .expr = &n_gt_1, .then_body = agg_then, .nthen = BASE_ARRAY_SIZE(agg_then) },
};
static const struct gs_trace_spec val_aggs = { .trace_id = 1, .target = "f", .body = agg_body,
					       .nbody = BASE_ARRAY_SIZE(agg_body) };

const struct gs_cg_case gs_cg_value_cases[] = {
	{ "val_register", &val_register, { 0 } },
	{ "val_stack_cfa", &val_stack_cfa, { 0 } },
	{ "val_global", &val_global, { 0 } },
	{ "val_composite", &val_composite, { 0 } },
	{ "val_list_entry", &val_list_entry, { 0 } },
	{ "val_optimized_out", &val_optimized_out, { 0 } },
	{ "val_chain", &val_chain, { 0 } },
	{ "val_strings", &val_strings, { .max_string_len = 32 } },
	{ "val_compare", &val_compare, { 0 } },
	{ "val_runtime_len", &val_runtime_len, { .max_string_len = 8 } },
	{ "val_pointer_pieces", &val_pointer_pieces, { 0 } },
	{ "val_budget", &val_budget, { .max_trace_event_size = 96 } },
	{ "val_c_arith", &val_c_arith, { 0 } },
	/* task_struct.thread.fsbase at some offset, as the kernel's BTF says */
	{ "val_tls", &val_tls, { .task_fsbase_offset = 5000 } },
	{ "val_ptr_strings", &val_ptr_strings, { 0 } },
	{ "val_dwarf_expr", &val_dwarf_expr, { 0 } },
	{ "val_views", &val_views, { 0 } },
	/* every view kind's program shape, at 8 elements: the goldens stay
	 * readable (the walks are unrolled to their cap); the default caps
	 * (200 elements, 16 nested) load through the verifier in the
	 * e2e-stdvals tests, on real C++ and Rust programs */
	{ "val_views_walk", &gs_cgv_views_walk, { .max_elements = 8 } },
	{ "val_views_tree", &gs_cgv_views_tree, { .max_elements = 8 } },
	{ "val_views_btree", &gs_cgv_views_btree, { .max_elements = 8 } },
	{ "val_views_deque", &gs_cgv_views_deque, { .max_elements = 8 } },
	{ "val_views_nested", &gs_cgv_views_nested, { .max_elements = 8 } },
	/* a char *'s string (its cap is the views' text cap: 8 here) and a
	 * reference's referent (cg_cstring_specs.c) */
	{ "val_cstring", &gs_cgv_cstring, { .max_elements = 8 } },
	/* a view's pointer in an empty piece, a scalar past its last piece
	 * (cg_pieces_specs.c) */
	{ "val_pieces", &gs_cgv_pieces, { .max_elements = 8 } },
	/* aggregations (cg_agg_specs.c): a quiet trace, $duration with its
	 * entry program, string keys beside an event */
	{ "val_agg_count", &gs_cga_count, { 0 } },
	{ "val_agg_latency", &gs_cga_latency, { .agg_max_keys = 256, .agg_key_bytes = 8 } },
	{ "val_agg_values", &val_aggs, { 0 } },
};
const size_t gs_cg_value_ncases = BASE_ARRAY_SIZE(gs_cg_value_cases);
