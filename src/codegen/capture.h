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

/* Plans the capture of e with conversion conv ('\0', 'x', 'X', 'p', 's')
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

/* capture_view.c: after the bytes of a value of type t at r9 + off, the
 * reads of its views into the extension after them. */
void cg_capture_views(struct gs_cg *cg, const struct gs_type *t, int16_t off);

#endif /* GS_CODEGEN_CAPTURE_H */
