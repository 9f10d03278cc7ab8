/* A plain C walker over the bpf_loop walker's tables, written from
 * docs/protocol.md ("The bpf_loop walker", "Backtraces"), not from the
 * code generator: from registers, the compact rows, the process's module
 * snapshot and user memory, what the compact Backtrace instruction of each
 * `bt` must hold once decoded (for test_vm_bt_loop_diff.c and
 * test_vm_bt_loop.c). */
#ifndef GS_TEST_BT_LOOP_REFERENCE_H
#define GS_TEST_BT_LOOP_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <gs/protocol.h>

/* Everything a walk reads. Map entries come from `elem`: the value under
 * key in the map named `map` (GS_MAP_NAME_*), or NULL when absent. */
struct bt_loop_world {
	uint64_t ip, sp, bp; /* pt_regs at the probe */
	uint32_t tgid;
	uint64_t probe_cookie, probe_pc; /* the probe's module and link-time pc */
	uint64_t regs[GS_BT_NREGS];      /* the others, by DWARF number (rbx r12-r15) */
	const void *(*elem)(void *ctx, const char *map, const void *key);
	void *elem_ctx;
	/* an 8-byte bpf_probe_read_user: false on a fault */
	bool (*read_u64)(void *ctx, uint64_t addr, uint64_t *out);
	void *read_ctx;
};

/* One decoded Backtrace. */
struct bt_loop_backtrace {
	uint16_t requested_depth, frame_count;
	uint8_t flags, status;
	uint16_t error_code;
	struct gs_backtrace_frame frames[GS_BT_LOOP_MAX_DEPTH];
	/* Not on the wire, for coverage accounting: modules given a table
	 * entry, frames whose module was unknown or past the table. */
	uint8_t modules;
	uint16_t unknown_frames;
	uint16_t fp_steps; /* callers found by the frame-pointer step */
};

/* The walk of one `bt` with these flags at backtrace depth `depth`. */
void bt_loop_ref_walk(const struct bt_loop_world *w, uint32_t depth, uint8_t flags,
		      struct bt_loop_backtrace *out);

#endif /* GS_TEST_BT_LOOP_REFERENCE_H */
