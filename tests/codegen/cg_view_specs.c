/* Standard-library values printed whole (gs/view.h), one
 * print per shape the code generator reads: every view kind (STRING,
 * SEQ of flat elements and of elements with views, BOX, INLINE, RING by
 * length field and masked, BITS, DEQUE, LIST, HASH, TREE, BTREE), typed
 * by hand as the dwarf layer types libstdc++'s and Rust's. A trace's
 * caps are lowered until what it prints fits its events; so that each
 * case keeps the defaults, the trees (200 nodes, gdb's `print elements`)
 * have a case each, vector<bool> and deque one, and every kind over
 * elements with views of their own (strings, the nested cap of 16)
 * another. Part of gs_cg_value_cases
 * (golden, kernel). */
#include "base.h"
#include "cg_specs.h"
#include "runtime/view_types.h"

#define NAME(v, t) { .kind = GS_EXPR_NAME, .name = (t), .dvar = &(v), .text = (t) }
/* A local at CFA - off: DW_OP_fbreg over DW_OP_call_frame_cfa, CFA = rsp + 16. */
#define STACK_LOC(off) { .pieces = (const struct gs_loc_piece[]){ { .kind = GS_LOC_MEMORY, \
	.base = GS_LOC_BASE_REG, .reg = GS_DWARF_REG_RSP, .offset = 16 - (off) } }, \
	.npieces = 1, .cfa_relative = true }
#define LOCAL(nm, ty, off) { .name = (nm), .type = &(ty), .scope = GS_SCOPE_LOCAL, \
	.loc = STACK_LOC(off) }

/* ---- the types view_types.h lacks ---- */

/* Rust's Vec<i32>: ptr, cap, len */
static const struct gs_view v_rvec_i32 = { .kind = GS_VIEW_SEQ, .style = GS_VSTYLE_RUST_VEC,
					   .ptr_off = 0, .len_off = 16, .cap_off = 8,
					   .elem = &t_int };
static const struct gs_type t_rvec_i32 = { .kind = GS_TYPE_STRUCT,
					   .name = "alloc::vec::Vec<i32>", .byte_size = 24,
					   .view = &v_rvec_i32 };

/* std::vector<std::string>: elements with their own views */
static const struct gs_view v_vec_string = { .kind = GS_VIEW_SEQ, .style = GS_VSTYLE_CPP_VECTOR,
					     .len_how = GS_VLEN_END, .ptr_off = 0, .len_off = 8,
					     .cap_off = 16, .elem = &t_string };
static const struct gs_type t_vec_string = { .kind = GS_TYPE_STRUCT,
					     .name = "std::vector<std::string>", .byte_size = 24,
					     .view = &v_vec_string };

/* VecDeque<i32>: {buf {cap, ptr}, head, len} in newer compilers, {tail,
 * head, buf {cap, ptr}} (len masked by cap - 1) in older ones */
static const struct gs_view v_deque = { .kind = GS_VIEW_RING, .style = GS_VSTYLE_RUST_DEQUE,
					.len_how = GS_VLEN_FIELD, .ptr_off = 8, .cap_off = 0,
					.head_off = 16, .len_off = 24, .elem = &t_int };
static const struct gs_type t_deque = { .kind = GS_TYPE_STRUCT,
					.name = "alloc::collections::vec_deque::VecDeque<i32>",
					.byte_size = 32, .view = &v_deque };
static const struct gs_view v_old_deque = { .kind = GS_VIEW_RING, .style = GS_VSTYLE_RUST_DEQUE,
					    .len_how = GS_VLEN_MASKED, .ptr_off = 24, .cap_off = 16,
					    .head_off = 0, .len_off = 8, .elem = &t_int };
static const struct gs_type t_old_deque = { .kind = GS_TYPE_STRUCT,
					    .name = "alloc::collections::vec_deque::VecDeque<i32>",
					    .byte_size = 32, .view = &v_old_deque };

/* std::pair<const int, int>, and Rust's (i32, i32) */
static const struct gs_type_member pair_m[] = { { "first", &t_int, 0 }, { "second", &t_int, 4 } };
static const struct gs_type t_pair = { .kind = GS_TYPE_STRUCT,
				       .name = "std::pair<const int, int>", .byte_size = 8,
				       .members = pair_m, .nmembers = 2 };
static const struct gs_type_member rpair_m[] = { { "__0", &t_int, 0 }, { "__1", &t_int, 4 } };
static const struct gs_type t_rpair = { .kind = GS_TYPE_STRUCT, .name = "(i32, i32)",
					.byte_size = 8, .members = rpair_m, .nmembers = 2 };

/* std::list<int>: _M_impl._M_node {_M_next, _M_prev, _M_size}; nodes of
 * _List_node_base {_M_next, _M_prev} then the int */
static const struct gs_view v_list = { .kind = GS_VIEW_LIST, .style = GS_VSTYLE_CPP_LIST,
				       .ptr_off = 0, .len_off = 16, .next_off = 0,
				       .value_off = 16, .node_size = 20, .elem = &t_int,
				       .name = "std::__cxx11::list" };
static const struct gs_type t_list = { .kind = GS_TYPE_STRUCT, .name = "std::__cxx11::list<int>",
				       .byte_size = 24, .view = &v_list };

/* std::unordered_map<int, int>: _M_h {_M_buckets, _M_bucket_count,
 * _M_before_begin._M_nxt, _M_element_count, ...}; nodes of
 * _Hash_node_base {_M_nxt} then the pair */
static const struct gs_view v_unordered = { .kind = GS_VIEW_LIST,
					    .style = GS_VSTYLE_CPP_UNORDERED, .ptr_off = 16,
					    .len_off = 24, .next_off = 0, .value_off = 8,
					    .node_size = 16, .pairs = true, .elem = &t_pair,
					    .name = "std::unordered_map" };
static const struct gs_type t_unordered = { .kind = GS_TYPE_STRUCT,
					    .name = "std::unordered_map<int, int>",
					    .byte_size = 56, .view = &v_unordered };

/* HashMap<i32, i32>: hashbrown's RawTableInner {ctrl, bucket_mask,
 * growth_left, items}, then the RandomState */
static const struct gs_view v_hash = { .kind = GS_VIEW_HASH, .style = GS_VSTYLE_RUST_HASH,
				       .ptr_off = 0, .cap_off = 8, .len_off = 24, .pairs = true,
				       .elem = &t_rpair, .name = "HashMap" };
static const struct gs_type t_hash = { .kind = GS_TYPE_STRUCT,
				       .name = "std::collections::hash::map::HashMap<i32, i32>",
				       .byte_size = 48, .view = &v_hash };

/* std::map<int, int>: _M_t._M_impl {_M_key_compare, _M_header {_M_color,
 * _M_parent, _M_left, _M_right}, _M_node_count}; nodes of
 * _Rb_tree_node_base {_M_color, _M_parent, _M_left, _M_right} then the pair */
static const struct gs_view v_map = { .kind = GS_VIEW_TREE, .style = GS_VSTYLE_CPP_TREE,
				      .ptr_off = 16, .len_off = 40, .next_off = 16,
				      .right_off = 24, .value_off = 32, .node_size = 40,
				      .pairs = true, .elem = &t_pair, .name = "std::map" };
static const struct gs_type t_map = { .kind = GS_TYPE_STRUCT, .name = "std::map<int, int>",
				      .byte_size = 48, .view = &v_map };

/* std::vector<bool>: _M_impl's _M_start {_M_p, _M_offset}, _M_finish
 * {_M_p, _M_offset}, _M_end_of_storage; words of 64 bits */
static const struct gs_view v_bits = { .kind = GS_VIEW_BITS, .style = GS_VSTYLE_CPP_VECTOR_BOOL,
				       .ptr_off = 0, .len_off = 16, .head_off = 24, .cap_off = 32,
				       .elem = &t_u64 };
static const struct gs_type t_bits = { .kind = GS_TYPE_STRUCT, .name = "std::vector<bool>",
				       .byte_size = 40, .view = &v_bits };

/* std::deque<int>: _M_impl {_M_map, _M_map_size, _M_start, _M_finish},
 * each iterator {_M_cur, _M_first, _M_last, _M_node}; 128 ints a buffer */
static const struct gs_view v_cdeque = { .kind = GS_VIEW_DEQUE, .style = GS_VSTYLE_CPP_DEQUE,
					 .ptr_off = 16, .len_off = 48, .head_off = 0,
					 .cap_off = 8, .next_off = 16, .right_off = 24,
					 .node_size = 128, .elem = &t_int, .name = "std::deque" };
static const struct gs_type t_cdeque = { .kind = GS_TYPE_STRUCT, .name = "std::deque<int>",
					 .byte_size = 80, .view = &v_cdeque };

/* BTreeMap<i32, i32>: root {height, node}, length; LeafNode {parent,
 * keys [i32; 11], vals [i32; 11], parent_idx, len}, an internal node's
 * 12 edges after it */
static const struct gs_view_field btree_f[] = { { NULL, &t_int, 0 } };
static const struct gs_view v_btree = { .kind = GS_VIEW_BTREE, .style = GS_VSTYLE_RUST_BTREE,
					.ptr_off = 8, .head_off = 0, .len_off = 16, .cap_off = 98,
					.next_off = 8, .value_off = 52, .right_off = 104,
					.node_size = 104 + 12 * 8, .node_keys = 11, .pairs = true,
					.elem = &t_int, .fields = btree_f, .nfields = 1,
					.name = "BTreeMap" };
static const struct gs_type t_btree = { .kind = GS_TYPE_STRUCT,
					.name = "alloc::collections::btree::map::BTreeMap<i32, i32>",
					.byte_size = 24, .view = &v_btree };

/* ---- the same kinds over elements with views of their own ---- */

/* std::pair<const int, std::string>, and Rust's (i32, String) */
static const struct gs_type_member pair_s_m[] = { { "first", &t_int, 0 },
						   { "second", &t_string, 8 } };
static const struct gs_type t_pair_s = { .kind = GS_TYPE_STRUCT,
					 .name = "std::pair<const int, std::string>",
					 .byte_size = 40, .members = pair_s_m, .nmembers = 2 };
static const struct gs_type_member rpair_s_m[] = { { "__0", &t_int, 24 },
						    { "__1", &t_rstring, 0 } };
static const struct gs_type t_rpair_s = { .kind = GS_TYPE_STRUCT,
					  .name = "(i32, alloc::string::String)", .byte_size = 32,
					  .members = rpair_s_m, .nmembers = 2 };

/* std::map<int, std::string> */
static const struct gs_view v_map_s = { .kind = GS_VIEW_TREE, .style = GS_VSTYLE_CPP_TREE,
					.ptr_off = 16, .len_off = 40, .next_off = 16,
					.right_off = 24, .value_off = 32, .node_size = 72,
					.pairs = true, .elem = &t_pair_s, .name = "std::map" };
static const struct gs_type t_map_s = { .kind = GS_TYPE_STRUCT,
					.name = "std::map<int, std::string>", .byte_size = 48,
					.view = &v_map_s };
/* std::list<std::string> */
static const struct gs_view v_list_s = { .kind = GS_VIEW_LIST, .style = GS_VSTYLE_CPP_LIST,
					 .ptr_off = 0, .len_off = 16, .next_off = 0,
					 .value_off = 16, .node_size = 48, .elem = &t_string,
					 .name = "std::__cxx11::list" };
static const struct gs_type t_list_s = { .kind = GS_TYPE_STRUCT,
					 .name = "std::__cxx11::list<std::string>",
					 .byte_size = 24, .view = &v_list_s };
/* std::unordered_map<int, std::string> */
static const struct gs_view v_unordered_s = { .kind = GS_VIEW_LIST,
					      .style = GS_VSTYLE_CPP_UNORDERED, .ptr_off = 16,
					      .len_off = 24, .next_off = 0, .value_off = 8,
					      .node_size = 48, .pairs = true, .elem = &t_pair_s,
					      .name = "std::unordered_map" };
static const struct gs_type t_unordered_s = { .kind = GS_TYPE_STRUCT,
					      .name = "std::unordered_map<int, std::string>",
					      .byte_size = 56, .view = &v_unordered_s };
/* HashMap<i32, String> */
static const struct gs_view v_hash_s = { .kind = GS_VIEW_HASH, .style = GS_VSTYLE_RUST_HASH,
					 .ptr_off = 0, .cap_off = 8, .len_off = 24, .pairs = true,
					 .elem = &t_rpair_s, .name = "HashMap" };
static const struct gs_type t_hash_s = { .kind = GS_TYPE_STRUCT,
					 .name = "std::collections::hash::map::HashMap<i32, "
						 "alloc::string::String>",
					 .byte_size = 48, .view = &v_hash_s };
/* VecDeque<String> */
static const struct gs_view v_deque_s = { .kind = GS_VIEW_RING, .style = GS_VSTYLE_RUST_DEQUE,
					  .len_how = GS_VLEN_FIELD, .ptr_off = 8, .cap_off = 0,
					  .head_off = 16, .len_off = 24, .elem = &t_rstring };
static const struct gs_type t_deque_s = { .kind = GS_TYPE_STRUCT,
					  .name = "alloc::collections::vec_deque::VecDeque<"
						  "alloc::string::String>",
					  .byte_size = 32, .view = &v_deque_s };
/* Rc<String>: RcBox { strong, weak, value } */
static const struct gs_type_member rcbox_s_m[] = { { "strong", &t_u64, 0 },
						    { "weak", &t_u64, 8 },
						    { "value", &t_rstring, 16 } };
static const struct gs_type t_rcbox_s = { .kind = GS_TYPE_STRUCT,
					  .name = "RcBox<alloc::string::String>", .byte_size = 40,
					  .members = rcbox_s_m, .nmembers = 3 };
static const struct gs_view_field rc_s_f[] = { { "value", &t_rstring, 16 },
						{ "strong", &t_u64, 0 }, { "weak", &t_u64, 8 } };
static const struct gs_view v_rc_s = { .kind = GS_VIEW_BOX, .style = GS_VSTYLE_RUST_RC,
				       .ptr_off = 0, .elem = &t_rcbox_s, .fields = rc_s_f,
				       .nfields = 3 };
static const struct gs_type t_rc_s = { .kind = GS_TYPE_STRUCT,
				       .name = "alloc::rc::Rc<alloc::string::String>",
				       .byte_size = 8, .view = &v_rc_s };
/* std::optional<std::string>: the payload, then _M_engaged */
static const struct gs_view_field optional_s_f[] = { { NULL, &t_string, 0 } };
static const struct gs_view v_optional_s = { .kind = GS_VIEW_INLINE,
					     .style = GS_VSTYLE_CPP_OPTIONAL, .discr_off = 32,
					     .name = "std::optional<std::string>",
					     .fields = optional_s_f, .nfields = 1 };
static const struct gs_type t_optional_s = { .kind = GS_TYPE_STRUCT,
					     .name = "std::optional<std::string>",
					     .byte_size = 40, .view = &v_optional_s };
/* Option<String>: the niche in the pointer, 0 is None */
static const struct gs_type t_none24 = { .kind = GS_TYPE_STRUCT, .name = "None",
					 .byte_size = 24 };
static const struct gs_type_member some_s_m[] = { { "__0", &t_rstring, 0 } };
static const struct gs_type t_some_s = { .kind = GS_TYPE_STRUCT, .name = "Some",
					 .byte_size = 24, .members = some_s_m, .nmembers = 1 };
static const struct gs_view_field option_s_f[] = { { "None", &t_none24, 0, 0, false },
						    { "Some", &t_some_s, 0, 0, true } };
static const struct gs_view v_option_s = { .kind = GS_VIEW_INLINE,
					   .style = GS_VSTYLE_RUST_ENUM, .discr_size = 8,
					   .discr_off = 0,
					   .name = "core::option::Option<alloc::string::String>",
					   .fields = option_s_f, .nfields = 2 };
static const struct gs_type t_option_s = { .kind = GS_TYPE_UNION,
					   .name = "core::option::Option<alloc::string::String>",
					   .byte_size = 24, .view = &v_option_s };

/* std::deque<std::string>: 16 strings a buffer */
static const struct gs_view v_cdeque_s = { .kind = GS_VIEW_DEQUE, .style = GS_VSTYLE_CPP_DEQUE,
					   .ptr_off = 16, .len_off = 48, .head_off = 0,
					   .cap_off = 8, .next_off = 16, .right_off = 24,
					   .node_size = 16, .elem = &t_string, .name = "std::deque" };
static const struct gs_type t_cdeque_s = { .kind = GS_TYPE_STRUCT,
					   .name = "std::deque<std::string>", .byte_size = 80,
					   .view = &v_cdeque_s };
/* BTreeMap<i32, String>: LeafNode {parent, vals [String; 11], keys
 * [i32; 11], parent_idx, len} */
static const struct gs_view_field btree_s_f[] = { { NULL, &t_rstring, 0 } };
static const struct gs_view v_btree_s = { .kind = GS_VIEW_BTREE, .style = GS_VSTYLE_RUST_BTREE,
					  .ptr_off = 8, .head_off = 0, .len_off = 16,
					  .cap_off = 318, .next_off = 272, .value_off = 8,
					  .right_off = 320, .node_size = 320 + 12 * 8,
					  .node_keys = 11, .pairs = true, .elem = &t_int,
					  .fields = btree_s_f, .nfields = 1, .name = "BTreeMap" };
static const struct gs_type t_btree_s = { .kind = GS_TYPE_STRUCT,
					  .name = "alloc::collections::btree::map::BTreeMap<i32, "
						  "alloc::string::String>",
					  .byte_size = 24, .view = &v_btree_s };

/* ---- trace f { print s; print v; ... }: one local of each ---- */
static const struct gs_var l_s = LOCAL("s", t_string, 64);
static const struct gs_var l_rs = LOCAL("rs", t_rstring, 96);
static const struct gs_var l_v = LOCAL("v", t_vector, 128);
static const struct gs_var l_rv = LOCAL("rv", t_rvec_i32, 160);
static const struct gs_var l_vs = LOCAL("vs", t_vec_string, 192);
static const struct gs_var l_rvs = LOCAL("rvs", t_rvec, 224);
static const struct gs_var l_sp = LOCAL("sp", t_shared, 256);
static const struct gs_var l_rc = LOCAL("rc", t_rc, 288);
static const struct gs_var l_opt = LOCAL("opt", t_optional, 320);
static const struct gs_var l_var = LOCAL("var", t_variant, 352);
static const struct gs_var l_ropt = LOCAL("ropt", t_option, 384);
static const struct gs_var l_dq = LOCAL("dq", t_deque, 416);
static const struct gs_var l_odq = LOCAL("odq", t_old_deque, 448);
static const struct gs_var l_li = LOCAL("li", t_list, 480);
static const struct gs_var l_um = LOCAL("um", t_unordered, 544);
static const struct gs_var l_hm = LOCAL("hm", t_hash, 608);
static const struct gs_var l_m = LOCAL("m", t_map, 672);
static const struct gs_var l_ms = LOCAL("ms", t_map_s, 736);
static const struct gs_var l_lis = LOCAL("lis", t_list_s, 800);
static const struct gs_var l_ums = LOCAL("ums", t_unordered_s, 864);
static const struct gs_var l_hms = LOCAL("hms", t_hash_s, 928);
static const struct gs_var l_dqs = LOCAL("dqs", t_deque_s, 992);
static const struct gs_var l_rcs = LOCAL("rcs", t_rc_s, 1024);
static const struct gs_var l_opts = LOCAL("opts", t_optional_s, 1088);
static const struct gs_var l_ropts = LOCAL("ropts", t_option_s, 1120);
static const struct gs_var l_vb = LOCAL("vb", t_bits, 1184);
static const struct gs_var l_cdq = LOCAL("cdq", t_cdeque, 1280);
static const struct gs_var l_bt = LOCAL("bt", t_btree, 1312);
static const struct gs_var l_cdqs = LOCAL("cdqs", t_cdeque_s, 1408);
static const struct gs_var l_bts = LOCAL("bts", t_btree_s, 1440);

static const struct gs_expr e_s = NAME(l_s, "s"), e_rs = NAME(l_rs, "rs"),
			    e_v = NAME(l_v, "v"), e_rv = NAME(l_rv, "rv"),
			    e_vs = NAME(l_vs, "vs"), e_rvs = NAME(l_rvs, "rvs"),
			    e_sp = NAME(l_sp, "sp"), e_rc = NAME(l_rc, "rc"),
			    e_opt = NAME(l_opt, "opt"), e_var = NAME(l_var, "var"),
			    e_ropt = NAME(l_ropt, "ropt"), e_dq = NAME(l_dq, "dq"),
			    e_odq = NAME(l_odq, "odq"), e_li = NAME(l_li, "li"),
			    e_um = NAME(l_um, "um"), e_hm = NAME(l_hm, "hm"), e_m = NAME(l_m, "m"),
			    e_ms = NAME(l_ms, "ms"), e_lis = NAME(l_lis, "lis"),
			    e_ums = NAME(l_ums, "ums"), e_hms = NAME(l_hms, "hms"),
			    e_dqs = NAME(l_dqs, "dqs"), e_rcs = NAME(l_rcs, "rcs"),
			    e_opts = NAME(l_opts, "opts"), e_ropts = NAME(l_ropts, "ropts"),
			    e_vb = NAME(l_vb, "vb"), e_cdq = NAME(l_cdq, "cdq"),
			    e_bt = NAME(l_bt, "bt"), e_cdqs = NAME(l_cdqs, "cdqs"),
			    e_bts = NAME(l_bts, "bts");

#define PRINT(e) { .kind = GS_STMT_PRINT_EXPR, .expr = &(e) }
static const struct gs_stmt walk_body[] = {
	PRINT(e_s), PRINT(e_rs),            /* STRING */
	PRINT(e_v), PRINT(e_rv),            /* SEQ, flat */
	PRINT(e_vs), PRINT(e_rvs),          /* SEQ of strings */
	PRINT(e_sp), PRINT(e_rc),           /* BOX */
	PRINT(e_opt), PRINT(e_var), PRINT(e_ropt), /* INLINE */
	PRINT(e_dq), PRINT(e_odq),          /* RING: length field, masked */
	PRINT(e_li), PRINT(e_um),           /* LIST */
	PRINT(e_hm),                        /* HASH */
};
const struct gs_trace_spec gs_cgv_views_walk = {
	.trace_id = 37, .target = "val_views_walk", .body = walk_body, .nbody = BASE_ARRAY_SIZE(walk_body),
};

static const struct gs_stmt tree_body[] = { PRINT(e_m) };
const struct gs_trace_spec gs_cgv_views_tree = {
	.trace_id = 38, .target = "val_views_tree", .body = tree_body, .nbody = BASE_ARRAY_SIZE(tree_body),
};

/* std::vector<bool> and std::deque<int> (BITS, DEQUE): beside the walk
 * case's, their 200 elements would lower its caps. */
static const struct gs_stmt deque_body[] = { PRINT(e_vb), PRINT(e_cdq) };
const struct gs_trace_spec gs_cgv_views_deque = {
	.trace_id = 41, .target = "val_views_deque", .body = deque_body,
	.nbody = BASE_ARRAY_SIZE(deque_body),
};

/* Rust's B-tree, at its default cap of 200 too. */
static const struct gs_stmt btree_body[] = { PRINT(e_bt) };
const struct gs_trace_spec gs_cgv_views_btree = {
	.trace_id = 40, .target = "val_views_btree", .body = btree_body,
	.nbody = BASE_ARRAY_SIZE(btree_body),
};

/* Every kind over strings (the nested cap, 16): map<int, std::string>,
 * list<std::string>, unordered_map<int, std::string>, HashMap<i32,
 * String>, VecDeque<String>, Rc<String>, optional<std::string>,
 * Option<String>, deque<std::string>, BTreeMap<i32, String>. */
static const struct gs_stmt nested_body[] = {
	PRINT(e_ms), PRINT(e_lis), PRINT(e_ums), PRINT(e_hms), PRINT(e_dqs),
	PRINT(e_rcs), PRINT(e_opts), PRINT(e_ropts), PRINT(e_cdqs), PRINT(e_bts),
};
const struct gs_trace_spec gs_cgv_views_nested = {
	.trace_id = 39, .target = "val_views_nested", .body = nested_body,
	.nbody = BASE_ARRAY_SIZE(nested_body),
};
