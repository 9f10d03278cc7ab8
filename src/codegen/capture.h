/* The capture of one printed value (capture.c), shared by the print
 * instructions (print.c): planned first, so that the instruction's size
 * is known when it is reserved, then stored into it. */
#ifndef GS_CODEGEN_CAPTURE_H
#define GS_CODEGEN_CAPTURE_H

#include "cg.h"

/* How one value is captured: its bytes (a source-level value, whole or
 * truncated), a string, or a dump from its address. */
enum capture_kind {
	CAPTURE_SCALAR,   /* a script value through cg_expr */
	CAPTURE_VALUE,    /* the bytes of a source-level value */
	CAPTURE_MISSING,  /* optimized out: no bytes */
	CAPTURE_STRING,   /* {:s}: NUL-terminated, capped */
	CAPTURE_DUMP,     /* {:x.N} / {:s.N}: N bytes from the value's address */
	CAPTURE_LITERAL,  /* a string of the script (let s = "A"): its bytes */
	CAPTURE_VIEW_TEXT, /* {:s} of a standard-library string: its length's
			    * bytes at its data pointer, capped, then a NUL */
};

struct capture {
	uint8_t kind;
	int type;         /* context type index */
	uint32_t len;     /* bytes captured (at most) */
	uint32_t ext;     /* CAPTURE_VALUE: of len, the bytes its views read
			   * (gs/view.h), after the value's own */
	uint16_t slot;    /* bytes reserved */
	bool truncated;   /* CAPTURE_VALUE, CAPTURE_DUMP: less than asked for fits */
	bool exact;       /* CAPTURE_STRING: a whole char array, read as it is */
	bool is_length;   /* the length argument of a run-time length */
	bool dyn;         /* CAPTURE_DUMP: len is a cap; the length is the argument
			   * whose header is at r9 + len_off */
	int16_t len_off;
};

/* capture.c: plans the capture of e with conversion conv ('\0', 'x', 'X', 'p', 's')
 * and static length dump_len (0: none), or a run-time length (dyn: up to
 * max_string_len bytes, as many as the argument before says); `fixed` is
 * what the statement needs besides this value's slot. 0, or a negative
 * errno after failing the build. */
int cg_plan_capture(struct gs_cg *cg, const struct gs_expr *e, char conv, uint32_t dump_len,
		    bool dyn, uint32_t fixed, struct capture *c);
/* The length argument of a run-time length: a signed 64-bit integer,
 * whatever its expression's type. */
int cg_plan_length(struct gs_cg *cg, const struct gs_expr *e, struct capture *c);
/* Captures e as planned into r9 + off, its status byte at r9 + status_off
 * (data_len at data_len_off when >= 0: PrintComplexVariable's exact
 * length). */
void cg_store_capture(struct gs_cg *cg, const struct gs_expr *e, const struct capture *c,
		      int16_t off, int16_t status_off, int16_t data_len_off);

/* capture_view.c: fewer elements for the views of the trace when what
 * it prints with them would not fit in its events (before any capture is
 * planned: the caps are the trace's, in its context). */
void cg_views_fit(struct gs_cg *cg, const struct gs_stmt *body, size_t n);
/* After the bytes of a value of type t at r9 + off, the
 * reads of its views into the extension after them. */
void cg_capture_views(struct gs_cg *cg, const struct gs_type *t, int16_t off);
/* The views of t at view depth `depth`, its bytes at r9 + raw, its
 * extension from r9 + ext (gs_view_ext_size's layout). */
void cg_view_expand(struct gs_cg *cg, const struct gs_type *t, int32_t raw, int32_t ext,
		    unsigned depth);
/* The views of the first r10[count] of cap elements at r9 + first (stride
 * bytes apart, the value at `value` in each), their extensions from r9 +
 * ext; -> done after the last. */
void cg_view_elements(struct gs_cg *cg, const struct gs_view *v, uint32_t cap, int16_t count,
		      int32_t first, uint32_t stride, uint32_t value, int32_t ext, unsigned depth,
		      struct gs_label done);
/* capture_read.c: the reads of the views' captures. cg_view_length: r2 =
 * v's length (its value at r9 + raw), at most cap; clobbers r1. */
void cg_view_length(struct gs_cg *cg, const struct gs_view *v, int32_t raw, uint32_t cap);
/* Reads r2 bytes (at most max) from the pointer at r9 + src into r9 +
 * dst; a failure sets the status byte at r9 + status and goes to skip. */
void cg_view_read_into(struct gs_cg *cg, int32_t src, int32_t dst, uint32_t max, int32_t status,
		       struct gs_label skip);
/* Reads r2 bytes (at most max) from r3 into r1 + off, r1 a run-time
 * place in the event (r9 + something); r0 the helper's result. */
void cg_view_read_at(struct gs_cg *cg, uint32_t max, int32_t off);
/* capture_walk.c: the views that walk: VecDeque's ring, std::deque's
 * buffers, Rust's B-tree and a red-black tree, walked depth first. Their
 * elements are values with views of their own (cg_view_elements,
 * cg_view_expand): the views' recursion, between these two files. */
void cg_view_ring(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		  unsigned depth);
void cg_view_deque(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		   unsigned depth);
void cg_view_btree(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		   unsigned depth);
void cg_view_tree(struct gs_cg *cg, const struct gs_view *v, int32_t raw, int32_t ext,
		  unsigned depth);

#endif /* GS_CODEGEN_CAPTURE_H */
