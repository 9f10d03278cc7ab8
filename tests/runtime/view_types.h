/* Hand-built type trees with views (gs/view.h), as the dwarf layer
 * builds them for libstdc++ and Rust's standard library: std::string,
 * std::vector<int>, String, Vec<String>, Option<i32> (a discriminant) and
 * Option<&i32> (a niche), Rc<i32>, std::shared_ptr<int>,
 * std::optional<int>, a struct holding views, std::variant, std::tuple,
 * std::unique_ptr, RefCell, Rust structs, tuple structs and tuples. Shared by the rendering
 * test (tests/events/test_render_views.c) and the decoder's fuzz target
 * (fuzz/fuzz_decode.c). */
#ifndef GS_TESTS_VIEW_TYPES_H
#define GS_TESTS_VIEW_TYPES_H

#include <gs/context.h>
#include <gs/view.h>

/* Small caps, so truncation shows: 8 bytes of text, 4 elements, 2 of a
 * sequence whose elements read more. */
static const struct gs_view_caps vt_caps = { .string_bytes = 8, .elements = 4, .nested = 2,
					  .depth = 4 };

static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_u64 = { .kind = GS_TYPE_U64, .size = 8, .name = "usize",
				      .byte_size = 8 };
static const struct gs_type t_char = { .kind = GS_TYPE_CHAR, .size = 1, .name = "char",
				       .flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_int_ptr = { .kind = GS_TYPE_POINTER, .size = 8, .name = "int *",
					  .byte_size = 8, .target = &t_int };
static const struct gs_type t_char_ptr = { .kind = GS_TYPE_POINTER, .size = 8,
					   .name = "char *", .byte_size = 8, .target = &t_char };

/* std::string: _M_p, _M_string_length, the local buffer */
static const struct gs_view v_string = { .kind = GS_VIEW_STRING, .style = GS_VSTYLE_CPP_STRING,
					 .ptr_off = 0, .len_off = 8, .elem = &t_char };
static const struct gs_type_member string_m[] = { { "_M_p", &t_char_ptr, 0 },
						   { "_M_string_length", &t_u64, 8 } };
static const struct gs_type t_string = { .kind = GS_TYPE_STRUCT, .name = "std::string",
					 .byte_size = 32, .members = string_m, .nmembers = 2,
					 .view = &v_string };

/* std::vector<int>: _M_start, _M_finish, _M_end_of_storage */
static const struct gs_view v_vector = { .kind = GS_VIEW_SEQ, .style = GS_VSTYLE_CPP_VECTOR,
					 .len_how = GS_VLEN_END, .ptr_off = 0, .len_off = 8,
					 .cap_off = 16, .elem = &t_int };
static const struct gs_type_member vector_m[] = { { "_M_start", &t_int_ptr, 0 },
						   { "_M_finish", &t_int_ptr, 8 },
						   { "_M_end_of_storage", &t_int_ptr, 16 } };
static const struct gs_type t_vector = { .kind = GS_TYPE_STRUCT, .name = "std::vector<int>",
					 .byte_size = 24, .members = vector_m, .nmembers = 3,
					 .view = &v_vector };

/* Rust's String and Vec<String>: ptr, cap, len */
static const struct gs_view v_rstring = { .kind = GS_VIEW_STRING, .style = GS_VSTYLE_RUST_STR,
					  .ptr_off = 0, .len_off = 16, .elem = &t_char };
static const struct gs_type_member rvec_m[] = { { "ptr", &t_char_ptr, 0 }, { "cap", &t_u64, 8 },
						 { "len", &t_u64, 16 } };
static const struct gs_type t_rstring = { .kind = GS_TYPE_STRUCT, .name = "alloc::string::String",
					  .byte_size = 24, .members = rvec_m, .nmembers = 3,
					  .view = &v_rstring };
static const struct gs_view v_rvec = { .kind = GS_VIEW_SEQ, .style = GS_VSTYLE_RUST_VEC,
				       .ptr_off = 0, .len_off = 16, .cap_off = 8,
				       .elem = &t_rstring };
static const struct gs_type t_rvec = { .kind = GS_TYPE_STRUCT,
				       .name = "alloc::vec::Vec<alloc::string::String>",
				       .byte_size = 24, .members = rvec_m, .nmembers = 3,
				       .view = &v_rvec };

/* core::option::Option<i32>: a u32 discriminant, Some's payload at 4 */
static const struct gs_type t_none = { .kind = GS_TYPE_STRUCT, .name = "None", .byte_size = 8 };
static const struct gs_type_member some_m[] = { { "__0", &t_int, 4 } };
static const struct gs_type t_some = { .kind = GS_TYPE_STRUCT, .name = "Some", .byte_size = 8,
				       .members = some_m, .nmembers = 1 };
static const struct gs_view_field option_f[] = { { "None", &t_none, 0, 0, false },
						  { "Some", &t_some, 0, 1, false } };
static const struct gs_view v_option = { .kind = GS_VIEW_INLINE, .style = GS_VSTYLE_RUST_ENUM,
					 .discr_size = 4, .discr_off = 0,
					 .name = "core::option::Option<i32>", .fields = option_f,
					 .nfields = 2 };
static const struct gs_type t_option = { .kind = GS_TYPE_UNION,
					 .name = "core::option::Option<i32>", .byte_size = 8,
					 .view = &v_option };

/* core::option::Option<&i32>: the niche, 0 is None, any other is Some */
static const struct gs_type t_none8 = { .kind = GS_TYPE_STRUCT, .name = "None", .byte_size = 8 };
static const struct gs_type_member some_ref_m[] = { { "__0", &t_int_ptr, 0 } };
static const struct gs_type t_some_ref = { .kind = GS_TYPE_STRUCT, .name = "Some",
					   .byte_size = 8, .members = some_ref_m, .nmembers = 1 };
static const struct gs_view_field option_ref_f[] = { { "None", &t_none8, 0, 0, false },
						      { "Some", &t_some_ref, 0, 0, true } };
static const struct gs_view v_option_ref = { .kind = GS_VIEW_INLINE,
					     .style = GS_VSTYLE_RUST_ENUM, .discr_size = 8,
					     .discr_off = 0, .name = "core::option::Option<&i32>",
					     .fields = option_ref_f, .nfields = 2 };
static const struct gs_type t_option_ref = { .kind = GS_TYPE_UNION,
					     .name = "core::option::Option<&i32>", .byte_size = 8,
					     .view = &v_option_ref };

/* Rc<i32>: a pointer to RcBox { strong, weak, value } */
static const struct gs_type_member rcbox_m[] = { { "strong", &t_u64, 0 }, { "weak", &t_u64, 8 },
						  { "value", &t_int, 16 } };
static const struct gs_type t_rcbox = { .kind = GS_TYPE_STRUCT, .name = "RcBox<i32>",
					.byte_size = 24, .members = rcbox_m, .nmembers = 3 };
static const struct gs_view_field rc_f[] = { { "value", &t_int, 16 }, { "strong", &t_u64, 0 },
					      { "weak", &t_u64, 8 } };
static const struct gs_view v_rc = { .kind = GS_VIEW_BOX, .style = GS_VSTYLE_RUST_RC,
				     .ptr_off = 0, .elem = &t_rcbox, .fields = rc_f, .nfields = 3 };
static const struct gs_type_member rc_m[] = { { "ptr", &t_int_ptr, 0 } };
static const struct gs_type t_rc = { .kind = GS_TYPE_STRUCT, .name = "alloc::rc::Rc<i32>",
				     .byte_size = 8, .members = rc_m, .nmembers = 1,
				     .view = &v_rc };

/* std::shared_ptr<int>: _M_ptr, _M_refcount._M_pi (vptr, use, weak) */
static const struct gs_type_member block_m[] = { { "_vptr", &t_int_ptr, 0 },
						  { "_M_use_count", &t_int, 8 },
						  { "_M_weak_count", &t_int, 12 } };
static const struct gs_type t_block = { .kind = GS_TYPE_STRUCT, .name = "_Sp_counted_base",
					.byte_size = 16, .members = block_m, .nmembers = 3 };
static const struct gs_view_field shared_f[] = { { "get", &t_int_ptr, 0 } };
static const struct gs_view v_shared = { .kind = GS_VIEW_BOX, .style = GS_VSTYLE_CPP_SHARED_PTR,
					 .ptr_off = 8, .elem = &t_block,
					 .name = "std::shared_ptr<int>", .fields = shared_f,
					 .nfields = 1 };
static const struct gs_type_member shared_m[] = { { "_M_ptr", &t_int_ptr, 0 },
						   { "_M_pi", &t_int_ptr, 8 } };
static const struct gs_type t_shared = { .kind = GS_TYPE_STRUCT, .name = "std::shared_ptr<int>",
					 .byte_size = 16, .members = shared_m, .nmembers = 2,
					 .view = &v_shared };

/* std::optional<int>: the payload, then _M_engaged */
static const struct gs_view_field optional_f[] = { { NULL, &t_int, 0 } };
static const struct gs_view v_optional = { .kind = GS_VIEW_INLINE,
					   .style = GS_VSTYLE_CPP_OPTIONAL, .discr_off = 4,
					   .name = "std::optional<int>", .fields = optional_f,
					   .nfields = 1 };
static const struct gs_type t_optional = { .kind = GS_TYPE_STRUCT, .name = "std::optional<int>",
					   .byte_size = 8, .view = &v_optional };

/* A plain struct holding views: their extensions follow in member order. */
static const struct gs_type_member person_m[] = { { "name", &t_string, 0 },
						   { "ids", &t_vector, 32 } };
static const struct gs_type t_person = { .kind = GS_TYPE_STRUCT, .name = "struct person",
					 .byte_size = 56, .members = person_m, .nmembers = 2 };

/* std::variant<int, double>: the storage, then _M_index */
static const struct gs_type t_double = { .kind = GS_TYPE_F64, .size = 8, .name = "double",
					 .byte_size = 8 };
static const struct gs_view_field variant_f[] = { { NULL, &t_int, 0 }, { NULL, &t_double, 0 } };
static const struct gs_view v_variant = { .kind = GS_VIEW_INLINE, .style = GS_VSTYLE_CPP_VARIANT,
					  .discr_size = 1, .discr_off = 8,
					  .name = "std::variant<int, double>", .fields = variant_f,
					  .nfields = 2 };
static const struct gs_type t_variant = { .kind = GS_TYPE_STRUCT,
					  .name = "std::variant<int, double>", .byte_size = 16,
					  .view = &v_variant };

/* std::tuple<int, std::string>: libstdc++ stores the last element first;
 * the fields' extensions follow in field order */
static const struct gs_view_field tuple_f[] = { { NULL, &t_int, 32 }, { NULL, &t_string, 0 } };
static const struct gs_view v_tuple = { .kind = GS_VIEW_INLINE, .style = GS_VSTYLE_CPP_TUPLE,
					.fields = tuple_f, .nfields = 2 };
static const struct gs_type t_tuple = { .kind = GS_TYPE_STRUCT,
					.name = "std::tuple<int, std::string>", .byte_size = 40,
					.view = &v_tuple };

/* std::unique_ptr<int> */
static const struct gs_view_field unique_f[] = { { "get", &t_int_ptr, 0 } };
static const struct gs_view v_unique = { .kind = GS_VIEW_INLINE,
					 .style = GS_VSTYLE_CPP_UNIQUE_PTR,
					 .name = "std::unique_ptr<int>", .fields = unique_f,
					 .nfields = 1 };
static const struct gs_type t_unique = { .kind = GS_TYPE_STRUCT, .name = "std::unique_ptr<int>",
					 .byte_size = 8, .view = &v_unique };

/* core::cell::RefCell<i32>: borrow (isize), then value */
static const struct gs_type t_isize = { .kind = GS_TYPE_I64, .size = 8, .name = "isize",
					.flags = GS_TYPEF_SIGNED, .byte_size = 8 };
static const struct gs_view_field refcell_f[] = { { "value", &t_int, 8 },
						   { "borrow", &t_isize, 0 } };
static const struct gs_view v_refcell = { .kind = GS_VIEW_INLINE,
					  .style = GS_VSTYLE_RUST_REFCELL, .fields = refcell_f,
					  .nfields = 2 };
static const struct gs_type t_refcell = { .kind = GS_TYPE_STRUCT,
					  .name = "core::cell::RefCell<i32>", .byte_size = 16,
					  .view = &v_refcell };

/* Rust structs: path::S {x, y}, the tuple struct path::P (i32, i32), and
 * the tuple (i32, String) whose second member has an extension */
static const struct gs_view v_rstruct_s = { .kind = GS_VIEW_INLINE,
					    .style = GS_VSTYLE_RUST_STRUCT, .name = "path::S" };
static const struct gs_type_member s_m[] = { { "x", &t_int, 0 }, { "y", &t_int, 4 } };
static const struct gs_type t_rstruct_s = { .kind = GS_TYPE_STRUCT, .name = "path::S",
					    .byte_size = 8, .members = s_m, .nmembers = 2,
					    .view = &v_rstruct_s };
static const struct gs_view v_rstruct_p = { .kind = GS_VIEW_INLINE,
					    .style = GS_VSTYLE_RUST_STRUCT, .name = "path::P" };
static const struct gs_type_member p_m[] = { { "__0", &t_int, 0 }, { "__1", &t_int, 4 } };
static const struct gs_type t_rstruct_p = { .kind = GS_TYPE_STRUCT, .name = "path::P",
					    .byte_size = 8, .members = p_m, .nmembers = 2,
					    .view = &v_rstruct_p };
static const struct gs_view v_rtuple = { .kind = GS_VIEW_INLINE, .style = GS_VSTYLE_RUST_TUPLE };
static const struct gs_type_member rtuple_m[] = { { "__0", &t_int, 24 },
						   { "__1", &t_rstring, 0 } };
static const struct gs_type t_rtuple = { .kind = GS_TYPE_STRUCT,
					 .name = "(i32, alloc::string::String)", .byte_size = 32,
					 .members = rtuple_m, .nmembers = 2, .view = &v_rtuple };

/* Every tree above with a view, for tables. */
/* struct holder { int &count; const std::string &name; const char *tag; }:
 * a reference to a type without a view shows its address as
 * gdb does (@0x...), one to a std::string its text; a char * its string
 * (the view every pointer to a character type has). */
static const struct gs_view v_int_ref = { .kind = GS_VIEW_BOX, .style = GS_VSTYLE_CPP_REFERENCE,
					  .elem = &t_int };
static const struct gs_type t_int_ref = { .kind = GS_TYPE_POINTER, .size = 8, .name = "int &",
					  .byte_size = 8, .flags = GS_TYPEF_REFERENCE,
					  .target = &t_int, .view = &v_int_ref };
static const struct gs_view v_string_ref = { .kind = GS_VIEW_BOX,
					     .style = GS_VSTYLE_CPP_REFERENCE,
					     .elem = &t_string };
static const struct gs_type t_string_ref = { .kind = GS_TYPE_POINTER, .size = 8,
					     .name = "const std::string &", .byte_size = 8,
					     .flags = GS_TYPEF_REFERENCE, .target = &t_string,
					     .view = &v_string_ref };
static const struct gs_type_member holder_m[] = { { "count", &t_int_ref, 0 },
						   { "name", &t_string_ref, 8 },
						   { "tag", &t_char_ptr, 16 } };
static const struct gs_type t_holder = { .kind = GS_TYPE_STRUCT, .name = "struct holder",
					 .byte_size = 24, .members = holder_m, .nmembers = 3 };

static const struct gs_type *const vt_types[] = {
	&t_string, &t_vector, &t_rstring, &t_rvec, &t_option, &t_option_ref,
	&t_rc, &t_shared, &t_optional, &t_person, &t_variant, &t_tuple, &t_unique,
	&t_refcell, &t_rstruct_s, &t_rstruct_p, &t_rtuple, &t_char_ptr, &t_holder,
};

#endif /* GS_TESTS_VIEW_TYPES_H */
