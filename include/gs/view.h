/* Standard-library values as their own debuggers show them
 * (docs/values.md, "C++ and Rust standard types"): a view on a gs_type
 * says how a value of a recognized type (std::string, std::vector<T>,
 * Rust's String, Vec<T>, Option<T>, ...) is read and shown.
 *
 * The dwarf layer attaches a view only when the members DWARF gives
 * validate the layout it describes (names, offsets, sizes, template
 * parameters); any other value keeps its plain DWARF rendering. A view
 * holds offsets into the value's own bytes, never a version table.
 *
 * What a view reads past the value's own bytes is its extension. The
 * extension of a value is laid out in one order the code generator writes
 * and the decoder reads, computed here alone (gs_view_ext_size): a
 * value's bytes are followed by the extensions of everything in it, depth
 * first, in member and element order. A view's own extension is a status
 * byte (enum gs_var_status) and the bytes it read: */
#ifndef GS_VIEW_H
#define GS_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/api.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_type;

enum gs_view_kind {
	GS_VIEW_INLINE = 0, /* nothing read: shown from its own bytes (optional,
			     * variant, pair, tuple, Cell, RefCell, unique_ptr,
			     * enums, Rust structs) */
	GS_VIEW_STRING,     /* text: len bytes at ptr; extension: status, cap bytes */
	GS_VIEW_SEQ,        /* len elements of elem at ptr; extension: status,
			     * cap elements, then the cap elements' extensions */
	GS_VIEW_BOX,        /* one elem at ptr (Rc, Arc, shared_ptr's counts, a C++
			     * reference's referent);
			     * extension: status, elem's bytes, elem's extension */
	GS_VIEW_RING,       /* VecDeque: len elements from index head of a
			     * buffer of cap elements at ptr, wrapping;
			     * extension: status, 2 * cap element slots (the
			     * elements in order from the first), their
			     * extensions */
	GS_VIEW_BITS,       /* vector<bool>: bits from the words at ptr, the
			     * last word at len_off and the bit in it at
			     * head_off (u32); extension: status, the words
			     * (cap bits) */
	GS_VIEW_DEQUE,      /* std::deque: the iterators at ptr_off (start) and
			     * len_off (finish), each with its cur, first,
			     * last and node pointers at head_off, cap_off,
			     * next_off and right_off; node_size elements a
			     * buffer; extension: status, the node pointers
			     * (gs_view_deque_nodes), 2 * cap element slots
			     * (the elements in order), their extensions */
	GS_VIEW_BTREE,      /* Rust's BTreeMap/BTreeSet: the root node at
			     * ptr, its height at head_off, len at len_off;
			     * in each node the count (u16) at cap_off, the
			     * keys (elem) at next_off, the values
			     * (fields[0].type) at value_off, the children at
			     * right_off (internal nodes, node_size bytes;
			     * leaves, right_off bytes); extension: status, the
			     * nodes' count (u32), N packed addresses
			     * (height << 56 | address), N nodes of node_size,
			     * the stack (GS_VIEW_BTREE_SLOTS), each
			     * node's keys' and values' extensions;
			     * N = gs_view_btree_nodes */
	GS_VIEW_LIST,       /* len nodes linked from the pointer at ptr by the
			     * pointer at next_off of each (std::list,
			     * unordered_map/set); extension: status, cap nodes
			     * of node_size bytes, their values' extensions */
	GS_VIEW_HASH,       /* hashbrown's table: control bytes at ptr, buckets
			     * (bucket_mask at cap_off + 1) of elem before them,
			     * items at len_off; extension: status, cap control
			     * bytes, cap buckets (bucket i at slot cap-1-i),
			     * their extensions */
	GS_VIEW_TREE,       /* a red-black tree (std::map, set): the root at
			     * ptr, len at len_off, each node's children at
			     * left_off and right_off and its value at
			     * value_off; extension: status, the nodes' count
			     * (u32), N node addresses, N nodes of node_size
			     * bytes (depth first, left first), the stack
			     * (gs_view_tree_slots(N)), the values' extensions;
			     * N = gs_view_tree_nodes */
	GS_VIEW_CSTRING,    /* C's string: the NUL-terminated text at the pointer
			     * at ptr (no dwarf view: every pointer to a
			     * character type has it, gs_type_view);
			     * extension: status, GS_VIEW_CSTRING_READ(cap)
			     * bytes read up to the NUL */
};

/* How a sequence's or string's length is found in the value's bytes. */
enum gs_view_len {
	GS_VLEN_FIELD = 0, /* the u64 at len_off */
	GS_VLEN_END,       /* (the pointer at len_off - ptr) / elem size */
	GS_VLEN_MASKED,    /* RING: (the u64 at len_off - the one at head_off)
			    * & (cap - 1): an older VecDeque's head and tail */
};

/* How a value is shown: the spelling of its debugger (gdb's libstdc++
 * printers, rust-gdb). */
enum gs_view_style {
	GS_VSTYLE_NONE = 0,
	GS_VSTYLE_CPP_STRING,     /* "text" */
	GS_VSTYLE_CPP_VECTOR,     /* std::vector of length 3, capacity 4 = {1, 2, 3} */
	GS_VSTYLE_CPP_SPAN,       /* std::span of length 3 = {1, 2, 3} */
	GS_VSTYLE_CPP_UNIQUE_PTR, /* std::unique_ptr<int> = {get() = 0x...} */
	GS_VSTYLE_CPP_SHARED_PTR, /* std::shared_ptr<int> (use count 1, weak count 0) = {get() = 0x...} */
	GS_VSTYLE_CPP_WEAK_PTR,   /* std::weak_ptr<int> (use count 1, weak count 1) = {get() = 0x...} */
	GS_VSTYLE_CPP_OPTIONAL,   /* std::optional<int> = {[contained value] = 7} */
	GS_VSTYLE_CPP_VARIANT,    /* std::variant<int, std::string> [index 1] = {"hi"} */
	GS_VSTYLE_CPP_TUPLE,      /* std::tuple containing = {[1] = 1, [2] = 2.5} */
	GS_VSTYLE_CPP_PAIR,       /* {first = 1, second = "one"} (its empty base unshown) */
	GS_VSTYLE_RUST_STR,       /* "text" (&str, String, Box<str>, OsString, PathBuf) */
	GS_VSTYLE_RUST_VEC,       /* Vec(size=3) = {1, 2, 3} */
	GS_VSTYLE_RUST_SLICE,     /* &[i32](size=3) = {1, 2, 3} */
	GS_VSTYLE_RUST_DEQUE,     /* VecDeque(size=2) = {2, 3} */
	GS_VSTYLE_RUST_RC,        /* Rc(strong=2, weak=0) = {value = 5, strong = 2, weak = 0} */
	GS_VSTYLE_RUST_ARC,       /* Arc(strong=2, weak=0) = {...} */
	GS_VSTYLE_RUST_CELL,      /* Cell = {value = 4} */
	GS_VSTYLE_RUST_REFCELL,   /* RefCell(borrow=0) = {value = 6, borrow = 0} */
	GS_VSTYLE_RUST_ENUM,      /* core::option::Option<i32>::Some(7) */
	GS_VSTYLE_RUST_TUPLE,     /* (1, "x") */
	GS_VSTYLE_RUST_STRUCT,    /* path::S {x: 1, y: 2}; a tuple struct path::P (1, 2) */
	GS_VSTYLE_RUST_NONZERO,   /* 5 */
	GS_VSTYLE_CPP_VECTOR_BOOL, /* std::vector<bool> of length 3, capacity 64 = {true, ...} */
	GS_VSTYLE_CPP_DEQUE,      /* std::deque with 3 elements = {4, 5, 6} */
	GS_VSTYLE_CPP_LIST,       /* std::__cxx11::list = {[0] = 1, [1] = 2} */
	GS_VSTYLE_CPP_UNORDERED,  /* std::unordered_map with 1 element = {[1] = 2} */
	GS_VSTYLE_CPP_TREE,       /* std::map with 2 elements = {[1] = "a", [2] = "b"} */
	GS_VSTYLE_RUST_BTREE,     /* BTreeMap(size=2) = {[1] = "one", [2] = "two"}; BTreeSet(size=3) = {1, 2, 3} */
	GS_VSTYLE_RUST_HASH,      /* HashMap(size=1) = {[1] = 2}; HashSet(size=1) = {1} */
	GS_VSTYLE_C_STRING,       /* 0x5604a572703b "main_loop", as gdb shows a char * */
	GS_VSTYLE_CPP_REFERENCE,  /* BOX: a C++ reference inside a value to a type
				   * with a view, shown as the object it refers
				   * to, as gdb's printers show it */
};

/* A member the rendering shows, found by the recognizer: its offset in
 * the value's bytes and its type (a Rust enum's variant, a tuple's field,
 * an optional's payload, a count). */
struct gs_view_field {
	const char *name;          /* the spelling shown, or NULL */
	const struct gs_type *type;
	uint32_t offset;
	int64_t discr;             /* RUST_ENUM: the discriminant value selecting it */
	bool is_default;           /* RUST_ENUM: the variant of any other value */
};

struct gs_view {
	uint8_t kind;              /* enum gs_view_kind */
	uint8_t style;             /* enum gs_view_style */
	uint8_t len_how;           /* enum gs_view_len */
	uint8_t discr_size;        /* RUST_ENUM, CPP_VARIANT: bytes of the
				    * discriminant (0: one variant, no discriminant) */
	uint32_t ptr_off;          /* STRING, SEQ, BOX, RING: the pointer */
	uint32_t len_off;          /* the length (or the end pointer) */
	uint32_t cap_off;          /* CPP_VECTOR: the end of storage pointer;
				    * RUST_VEC: the capacity; RING: the buffer's
				    * capacity (cap2) */
	uint32_t head_off;         /* RING: the first element's index (the
				    * tail, GS_VLEN_MASKED) */
	uint32_t next_off;         /* LIST: the next node's pointer in a node;
				    * TREE: the left child's */
	uint32_t right_off;        /* TREE: the right child's pointer in a node */
	uint32_t value_off;        /* LIST, TREE: the value in a node */
	uint32_t node_size;        /* LIST, TREE: bytes read of each node */
	bool pairs;                /* LIST, HASH, TREE, BTREE: elements are
				    * key-value pairs, shown [key] = value */
	uint8_t node_keys;         /* BTREE: keys a node holds at most (11) */
	uint32_t discr_off;        /* RUST_ENUM, CPP_VARIANT, CPP_OPTIONAL: the
				    * discriminant or engaged flag */
	const struct gs_type *elem; /* element, pointee, byte type */
	const char *name;          /* the spelling shown before the value:
				    * "std::unique_ptr<int>", "core::option::Option<i32>" */
	const struct gs_view_field *fields; /* inline parts, by style */
	uint32_t nfields;
};

/* Caps of what the code generator reads for views (gs_program_opts):
 * strings, elements, nesting. */
struct gs_view_caps {
	uint32_t string_bytes; /* a view's text, at most */
	uint32_t elements;     /* a sequence's elements, at most */
	uint32_t nested;       /* elements of a sequence whose elements have views */
	uint32_t depth;        /* views inside views, at most (4) */
};

#define GS_VIEW_DEFAULT_ELEMENTS 200 /* gdb's `print elements` */
#define GS_VIEW_DEFAULT_NESTED 16
#define GS_VIEW_DEFAULT_DEPTH 4
#define GS_VIEW_MAX_ELEMENTS 4096
#define GS_VIEW_MAX_DEPTH 8
#define GS_VIEW_BTREE_SLOTS 128 /* a B-tree walk's stack: 12 children a level,
				 * 8 levels (11^8 keys) and the root */
#define GS_VIEW_MAX_EXT 24576 /* a value's extension, at most */
/* The bytes a C string's read takes for a cap of `cap` characters shown:
 * one more character, so that a NUL past the cap tells a longer text from
 * one of exactly cap, and the NUL. */
#define GS_VIEW_CSTRING_READ(cap) ((cap) + 2u)

/* What the code generator reads for views, and the decoder expects: pure
 * queries that never fail. caps is not NULL; a zero field of it is its
 * default (GS_VIEW_DEFAULT_*). The elements a sequence view reads at most
 * at this depth. */
GS_API uint32_t gs_view_cap(const struct gs_view_caps *caps, const struct gs_view *v);
/* Bytes of t's extension at view depth `depth` (0 for a value with no view
 * inside), saturated at GS_VIEW_MAX_EXT + 1. */
GS_API uint32_t gs_view_ext_size(const struct gs_view_caps *caps, const struct gs_type *t,
				 unsigned depth);
/* The nodes a tree view reads: its cap, and room for the ancestors of the
 * first cap in key order when its elements read nothing more. */
GS_API uint32_t gs_view_tree_nodes(const struct gs_view_caps *caps, const struct gs_view *v);
/* The buffers a deque view reads at most: enough for cap elements
 * from anywhere in the first one. */
GS_API uint32_t gs_view_deque_nodes(const struct gs_view_caps *caps, const struct gs_view *v);
/* The nodes a B-tree view reads: those of the first cap keys in order
 * (each node but the root holds 5 keys at least) and their ancestors. */
GS_API uint32_t gs_view_btree_nodes(const struct gs_view_caps *caps, const struct gs_view *v);
/* The 64-bit words a bits view reads: its elements cap, in words. */
GS_API uint32_t gs_view_bits_words(const struct gs_view_caps *caps);
/* A tree view's stack slots for cap nodes: a power of two above cap + 1
 * (the walk masks its depth with it). */
GS_API uint32_t gs_view_tree_slots(uint32_t cap);
/* The view a value of type t is read and shown by: the one the dwarf
 * layer attached (a standard-library type; a C++ reference's when what it
 * refers to has one: gdb shows a reference member's referent only when a
 * printer knows it, else `@0x...`), else the one C gives every
 * pointer to a 1-byte character type (char, signed char, unsigned char and
 * their typedefs, qualified or not; not a reference): its string, as gdb
 * shows `0x... "text"`. NULL for any other type. */
GS_API const struct gs_view *gs_type_view(const struct gs_type *t);
/* What of the bytes a view reads of its own value a DWARF location left
 * without a value (members the dwarf layer made placeholders of:
 * GS_TYPE_OPTIMIZED_OUT, not GS_TYPEF_SYNTHETIC; docs/values.md "Missing
 * pieces"). Such bytes are not a read of address 0 or of length 0: */
enum gs_view_gap {
	GS_VIEW_GAP_NONE = 0,
	GS_VIEW_GAP_ELEMENTS, /* a sequence's data pointer: its header shows, its
			       * elements are <optimized out> (nothing read) */
	GS_VIEW_GAP_WHOLE,    /* a length, a discriminant, a box's pointer: the
			       * value is <optimized out> */
};
/* That gap of a value of type t (t may be NULL: none). */
GS_API enum gs_view_gap gs_view_gap(const struct gs_type *t);
/* The view of t (gs_type_view) when depth still allows one, else NULL. */
GS_API const struct gs_view *gs_view_at(const struct gs_view_caps *caps, const struct gs_type *t,
					unsigned depth);

#ifdef __cplusplus
}
#endif

#endif /* GS_VIEW_H */
