/* C strings and C++ references as gdb prints them, typed by
 * hand as the dwarf layer types them: a char * in a register, a struct
 * with a char * member reached through a `const struct acct &` (the
 * reference is its referent: the struct is read at the address it holds,
 * and the member's string with it), a member through the reference, and
 * one char * as {} (its string read) and as {:p} (its bytes alone). Part
 * of gs_cg_value_cases (golden, kernel), run on the VM by
 * test_vm_values.c. */
#include "base.h"
#include "cg_specs.h"

#define NAME(v, t) { .kind = GS_EXPR_NAME, .name = (t), .dvar = &(v), .text = (t) }
#define PRINT(e) { .kind = GS_STMT_PRINT_EXPR, .expr = &(e) }

/* ---- types: struct acct { int id; const char *tag; } ---- */
static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_cchar = { .kind = GS_TYPE_CHAR, .size = 1, .name = "const char",
					.flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_cchar_p = { .kind = GS_TYPE_POINTER, .size = 8,
					  .name = "const char *", .byte_size = 8,
					  .target = &t_cchar };
static const struct gs_type_member acct_members[] = {
	{ .name = "id", .type = &t_int, .offset = GS_CGV_ACCT_ID },
	{ .name = "tag", .type = &t_cchar_p, .offset = GS_CGV_ACCT_TAG },
};
static const struct gs_type t_acct = { .kind = GS_TYPE_STRUCT, .name = "struct acct",
				       .byte_size = GS_CGV_ACCT_SIZE, .members = acct_members,
				       .nmembers = BASE_ARRAY_SIZE(acct_members) };
static const struct gs_type t_acct_ref = { .kind = GS_TYPE_POINTER, .size = 8,
					   .name = "const struct acct &", .byte_size = 8,
					   .flags = GS_TYPEF_REFERENCE, .target = &t_acct };

/* const char *activity: in rdi; const struct acct &a: in rsi */
static const struct gs_var v_activity = {
	.name = "activity", .type = &t_cchar_p, .scope = GS_SCOPE_PARAM,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_REGISTER, .reg = 5 } },
		 .npieces = 1 },
};
static const struct gs_var v_acct = {
	.name = "a", .type = &t_acct_ref, .scope = GS_SCOPE_PARAM,
	.loc = { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_REGISTER, .reg = 4 } },
		 .npieces = 1 },
};

static const struct gs_expr activity = NAME(v_activity, "activity");
static const struct gs_expr acct = NAME(v_acct, "a");
static const struct gs_expr acct_id = { .kind = GS_EXPR_MEMBER, .lhs = &acct, .name = "id",
					.text = "a.id" };
static const struct gs_expr *const both_ways[] = { &activity, &activity };

/* trace f { print activity; print a; print a.id; print "{} {:p}", activity, activity; } */
static const struct gs_stmt cstring_body[] = {
	PRINT(activity),
	PRINT(acct),
	PRINT(acct_id),
	{ .kind = GS_STMT_PRINT_FORMAT, .text = "{} {:p}", .args = both_ways, .nargs = 2 },
};
const struct gs_trace_spec gs_cgv_cstring = {
	.trace_id = 43, .target = "val_cstring", .body = cstring_body, .nbody = BASE_ARRAY_SIZE(cstring_body),
};
