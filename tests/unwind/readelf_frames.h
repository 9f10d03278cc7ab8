/* Test helper: the CFI rows that `readelf --debug-dump=frames-interp` prints,
 * parsed into rules, and the export verdict the reference's rules give for
 * each, so tests compare libdw-derived rows against an independent reader. */
#ifndef GS_TEST_READELF_FRAMES_H
#define GS_TEST_READELF_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/protocol.h>
#include <gs/unwind.h>

/* u: undefined/absent, s: same value, c: at CFA+off, v: CFA+off, r: register, x: expression */
struct rf_rule {
	char kind;
	int64_t off;
	int reg;
};

struct rf_row {
	uint64_t loc;
	int cfa_reg; /* -1: expression */
	int64_t cfa_off;
	struct rf_rule ra, rsp, rbp;
};

struct rf_fde {
	uint64_t lo, hi;
	bool debug_frame;
	struct rf_row *rows;
	size_t nrows;
	/* K when readelf's raw dump shows the FDE's CFA expression to be the
	 * linker's PLT one (rsp + 8 + ((rip & 15) >= K ? 8 : 0)); 0: not */
	int plt_k;
};

struct rf_frames {
	struct rf_fde *fdes;
	size_t n;
	size_t rows; /* non-empty rows */
};

/* Runs `readelf` (path in $GS_READELF or "readelf") on file; 0 or -1. */
int rf_load(const char *file, struct rf_frames *out);
void rf_free(struct rf_frames *f);
/* The reference's verdict on row r of FDE d at pc: -1 and *row when
 * exportable, else the enum gs_cfi_drop reason. A PLT expression row is
 * rsp + 8 or rsp + 16 by pc, as the expression readelf printed says. */
int rf_expect(const struct rf_fde *d, const struct rf_row *r, uint64_t pc,
	      struct gs_unwind_row *row);
/* The row at pc in an FDE of the given section, or NULL. */
const struct rf_row *rf_row_at(const struct rf_frames *f, uint64_t pc, bool debug_frame,
			       const struct rf_fde **fde, uint64_t *row_end);
/* Whether any .eh_frame FDE overlaps [lo, hi). */
bool rf_eh_overlaps(const struct rf_frames *f, uint64_t lo, uint64_t hi);

#endif /* GS_TEST_READELF_FRAMES_H */
