/* The parts of a standard-library value (gs/view.h) read from its bytes
 * and its extension, in one place for the text renderer (view.c) and the
 * JSON printer (print_json.c): a string's or sequence's length and the
 * elements read, the state of the extension, the extension of an inline
 * view's field, the variant a Rust enum selects, the counts of a
 * shared_ptr and of an Rc. Not part of the events API. */
#ifndef GS_EVENTS_VIEW_PARTS_H
#define GS_EVENTS_VIEW_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ev_int.h"

/* The n-byte (at most 8) little-endian number at p. */
uint64_t ev_le(const uint8_t *p, size_t n);
/* The n-byte little-endian number at off of data[0, len), or false past
 * what was captured. */
bool ev_view_u(const uint8_t *data, size_t len, uint32_t off, size_t n, uint64_t *out);

/* A value with the extension its views read after its bytes, when the
 * capture holds all of it: the extension, and *len cut to the bytes. */
struct ev_ext ev_value_ext(const struct gs_type *t, const struct gs_value *v, size_t *len);

/* What a view's extension holds. */
enum ev_ext_state {
	EV_EXT_OK,
	EV_EXT_NO_ROOM, /* not captured: "the event has no room" */
	EV_EXT_FAILED,  /* the read failed: at *fault */
	EV_EXT_OPTIMIZED_OUT, /* nothing to read: the pointer has no value here */
};
enum ev_ext_state ev_ext_state(const struct ev_ext *x, uint64_t addr, uint64_t *fault);

/* A string's or sequence's length and what was read of it: its elements
 * (or bytes) at text, `shown` of them. */
struct ev_seq {
	int64_t n;     /* the length (negative: garbage in a vector's pointers) */
	uint64_t ptr;  /* where it is */
	uint32_t cap;  /* elements read at most */
	uint64_t shown; /* elements read and shown: min(n, cap), 0 when n <= 0 */
};
/* False when the length or the pointer is past what was captured. */
bool ev_view_seq(const struct gs_view *v, const uint8_t *data, size_t len, const struct ev_ext *x,
		 struct ev_seq *s);
/* Element i of a sequence whose extension x is OK: its bytes (elem's
 * byte_size of them) and its own extension in *ex. */
const uint8_t *ev_seq_elem(const struct gs_view *v, const struct ev_ext *x, uint64_t i,
			   struct ev_ext *ex);

/* The extension of field i of an inline view. */
struct ev_ext ev_view_field_ext(const struct gs_view *v, uint32_t i, const struct ev_ext *x);

/* CPP_OPTIONAL: whether it holds a value. */
bool ev_view_engaged(const struct gs_view *v, const uint8_t *data, size_t len);
/* CPP_VARIANT: the index it holds in *d (read when true); false when none. */
bool ev_view_variant(const struct gs_view *v, const uint8_t *data, size_t len, uint64_t *d);
/* RUST_REFCELL: the borrow flag (negative: mutably borrowed). */
int64_t ev_view_borrow(const struct gs_view *v, const uint8_t *data, size_t len);
/* RUST_ENUM: the discriminant read in *d and the field (variant) it
 * selects in *pick (v->nfields: none); false when the discriminant is past
 * what was captured. */
bool ev_view_enum_pick(const struct gs_view *v, const uint8_t *data, size_t len, uint64_t *d,
		       uint32_t *pick);

/* A shared_ptr's or weak_ptr's control block. */
enum ev_shared_state {
	EV_SHARED_UNCAPTURED, /* the pointer is past what was captured */
	EV_SHARED_EMPTY,      /* no control block */
	EV_SHARED_UNREAD,     /* its counts were not read (at ptr) */
	EV_SHARED_COUNTS,     /* use and weak (less the one the users hold) */
};
struct ev_counts {
	uint64_t ptr;
	int64_t use, weak;
};
enum ev_shared_state ev_view_shared(const struct gs_view *v, const uint8_t *data, size_t len,
				    const struct ev_ext *x, struct ev_counts *c);

/* Rc and Arc whose extension x is OK: strong, weak (less the one every
 * live Rc holds), and the value inside the block with its extension;
 * false when the block's counts are not there. */
struct ev_rc {
	uint64_t strong;
	int64_t weak;
	const uint8_t *value; /* NULL: past the block */
	size_t value_len;
	struct ev_ext value_ext;
};
bool ev_view_rc(const struct gs_view *v, const struct ev_ext *x, struct ev_rc *rc);

/* A C string (GS_VIEW_CSTRING): the pointer, and when it is not NULL and
 * the extension is OK, the text read (n bytes before the NUL, at most the
 * cap; cut when the text goes on past them). False when the pointer is
 * past what was captured. */
struct ev_cstring {
	uint64_t ptr;
	enum ev_ext_state state; /* of the extension (ptr not NULL) */
	uint64_t fault;          /* EV_EXT_FAILED: where */
	const uint8_t *text;
	size_t n;
	bool cut;
};
bool ev_view_cstring(const struct gs_view *v, const uint8_t *data, size_t len,
		     const struct ev_ext *x, struct ev_cstring *s);

/* A C++ reference inside a value (BOX, CPP_REFERENCE): the address it
 * holds and, when the extension is OK, the referent's bytes and its own
 * extension. False when the address is past what was captured. */
struct ev_referent {
	uint64_t ptr;
	enum ev_ext_state state;
	uint64_t fault;       /* EV_EXT_FAILED: where (0: a NULL reference) */
	const uint8_t *value; /* elem's byte_size bytes */
	struct ev_ext ext;
};
bool ev_view_referent(const struct gs_view *v, const uint8_t *data, size_t len,
		      const struct ev_ext *x, struct ev_referent *r);

/* vector<bool>: its length and capacity in bits, the bits read (shown),
 * false when its pointers are past what was captured. */
struct ev_bits {
	int64_t n, cap;
	uint64_t ptr, shown;
};
bool ev_view_bits(const struct gs_view *v, const uint8_t *data, size_t len,
		  const struct ev_ext *x, struct ev_bits *b);
/* Bit i of the words read (i < shown, the extension OK). */
bool ev_bit(const struct ev_ext *x, uint64_t i);

/* A map element's key and value: a C++ pair's first and second (through
 * its view), a Rust (K, V)'s __0 and __1; each with its extension.
 * False when t is not such a pair. */
struct ev_part {
	const struct gs_type *type;
	uint32_t offset;
	struct ev_ext ext;
};
bool ev_pair(const struct gs_type *t, const struct ev_ext *ex, struct ev_part *key,
	     struct ev_part *val);

/* The walked views (lists, hash tables, trees, rings; view_walk.c): their
 * length, and their elements read, in order. */
struct ev_walk {
	int64_t n;               /* the container's length */
	enum ev_ext_state state; /* of the extension (when n > 0) */
	uint64_t addr;           /* the container's first node or buffer; where
				  * the read failed (EV_EXT_FAILED) */
	uint64_t shown;          /* elements given */
	bool cut;                /* a tree's node not read: the elements stop there */
};
/* One element: its value (elem's bytes) and its own extension; a B-tree's
 * its key there and its value apart (val NULL for the others). */
struct ev_elem {
	const uint8_t *value;
	struct ev_ext ex;
	const uint8_t *val;
	struct ev_ext vex;
};
/* Element i. */
typedef void (*ev_walk_fn)(void *arg, const struct gs_view *v, const struct ev_elem *e,
			   uint64_t i);
/* What an element of v shows: its key and value (a map's: *val set,
 * 2), or the one value (1): a B-tree's key and value, a pair's first and
 * second, a Rust set's (T, ()) its T, else the element. Each part's bytes
 * are at data + offset, type->byte_size of them at most. */
struct ev_shown {
	const uint8_t *data;
	const struct gs_type *type;
	struct ev_ext ext;
};
int ev_elem_parts(const struct gs_view *v, const struct ev_elem *e, struct ev_shown *key,
		  struct ev_shown *val);
/* Whether v is one of them. */
bool ev_walked(const struct gs_view *v);
/* Fills *w and calls each (when not NULL) for the elements read; false
 * when the value's own bytes lack the length or the pointer, or v is not a
 * walked view. */
bool ev_walk(const struct gs_view *v, const uint8_t *data, size_t len, const struct ev_ext *x,
	     struct ev_walk *w, ev_walk_fn each, void *arg);

#endif /* GS_EVENTS_VIEW_PARTS_H */
