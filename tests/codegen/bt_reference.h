/* A plain C backtrace walker written from the walk docs/protocol.md
 * ("Backtraces") describes, not from the code generator: from registers,
 * rows, module maps and user memory, what each Backtrace instruction of an
 * event must hold (for test_vm_bt_diff.c). */
#ifndef GS_TEST_BT_REFERENCE_H
#define GS_TEST_BT_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/protocol.h>

/* One bt_module_row_ranges entry: cookie -> rows [row_start, row_end). */
struct bt_ref_module_rows {
	uint64_t cookie;
	struct gs_module_row_range range;
};

/* Everything a walk reads: pt_regs, compile-time constants, map contents
 * and user memory. */
struct bt_ref_world {
	uint64_t ip, sp, bp; /* pt_regs at the probe */
	/* Compile time: the probe module, its usable row, the row count of a
	 * one-module plan, and whether frames resolve their module at run time. */
	uint64_t probe_cookie;
	struct gs_unwind_row probe_row;
	uint32_t nrows;
	bool module_ranges;
	uint32_t range_entries; /* proc_module_ranges max_entries (search steps) */
	/* proc_module_offsets[{pid, probe_cookie}] */
	bool offsets_found;
	uint64_t offsets_bias;
	/* bt_unwind_rows: [0, rows_written) set, zero up to row_entries */
	const struct gs_unwind_row *rows;
	uint32_t rows_written, row_entries;
	const struct bt_ref_module_rows *module_rows;
	size_t nmodule_rows;
	/* proc_module_range_meta[pid] and its active slot's entries
	 * [0, nranges) (a missing index reads as absent) */
	bool meta_found;
	uint32_t meta_count;
	const struct gs_proc_module_range *ranges;
	uint32_t nranges;
	/* an 8-byte bpf_probe_read_user: false on a fault */
	bool (*read_u64)(void *ctx, uint64_t addr, uint64_t *out);
	void *read_ctx;
};

/* One Backtrace instruction as the decoder reports it. */
struct bt_ref_backtrace {
	uint8_t requested_depth, frame_count, flags, status;
	uint16_t error_code;
	struct gs_backtrace_frame frames[GS_BT_MAX_DEPTH];
	/* Not on the wire, for coverage accounting: the walk ended in the
	 * step program; the last frame's module was resolved. */
	bool in_step, resolved;
};

/* The caller's registers after one recover(); err is 0, 1
 * (return address read) or 2 (saved rbp read). */
struct bt_ref_next {
	uint64_t ip, rsp, rbp;
	uint8_t err;
};

struct bt_ref_next bt_ref_recover(const struct bt_ref_world *w, const struct gs_unwind_row *row,
				  uint64_t ip, uint64_t rsp, uint64_t rbp);

/* The Backtrace instructions of one event whose trace has nbt `bt`
 * statements (flags[i] each, in emission order), at backtrace depth
 * `depth`: main-program prefixes, tail-call chaining, the shared budget. */
void bt_ref_event(const struct bt_ref_world *w, uint32_t depth, const uint8_t *flags, size_t nbt,
		  struct bt_ref_backtrace *out);

#endif /* GS_TEST_BT_REFERENCE_H */
