/* Seeded inputs for the backtrace differential test: caller rows, one to
 * three modules with their maps, pt_regs, and a user stack holding a call
 * chain with at most one corruption; the same index gives the same scenario. */
#ifndef GS_TEST_BT_SCENARIO_H
#define GS_TEST_BT_SCENARIO_H

#include "bt_reference.h"
#include "vm/vm.h"

#define BT_SC_TGID 4242u
#define BT_SC_STACK 0x7ffd00000000ull /* lowest address of the user stack */
#define BT_SC_STACK_WORDS 4096
#define BT_SC_MAX_ROWS 12
#define BT_SC_MAX_MODULES 3
#define BT_SC_MAX_READS 1024

/* What the generator needs to know of the program under test. */
struct bt_sc_shape {
	uint64_t probe_cookie, probe_pc; /* the probe module and link-time PC */
	struct gs_unwind_row probe_row;  /* the spec's compile-time row */
	uint32_t depth;
	uint32_t nrows; /* rows compiled in for a one-module walk */
	bool module_ranges;
	uint32_t row_entries, range_entries; /* bt_unwind_rows, proc_module_ranges sizes */
};

/* A module: cookie, load bias, and its caller functions, which are rows
 * [row_start, row_start + nfns) (none for a mapped module without rows). */
struct bt_sc_module {
	uint64_t cookie, bias;
	uint32_t row_start, nfns;
};

struct bt_scenario {
	unsigned index;
	struct bt_ref_world w; /* points into the arrays below */
	struct gs_unwind_row rows[BT_SC_MAX_ROWS];
	struct bt_sc_module mods[BT_SC_MAX_MODULES];
	size_t nmods;
	struct bt_ref_module_rows module_rows[BT_SC_MAX_MODULES];
	/* proc_module_ranges: the active slot (w.ranges) and a stale snapshot
	 * in the other one, which the walk must not read */
	struct gs_proc_module_range ranges[BT_SC_MAX_MODULES], stale[BT_SC_MAX_MODULES];
	uint32_t active_slot;
	uint64_t offsets_base, offsets_size; /* proc_module_offsets base, size */
	uint64_t stack[BT_SC_STACK_WORDS];
	bool mapped[BT_SC_STACK_WORDS], written[BT_SC_STACK_WORDS];
	/* the addresses the reference read while log_reads is set */
	uint64_t reads[BT_SC_MAX_READS];
	size_t nreads;
	bool log_reads;
};

/* An empty scenario: no rows or modules, the whole stack mapped and zero. */
void bt_sc_init(struct bt_scenario *sc, const struct bt_sc_shape *shape);
/* Scenario number `index`. */
void bt_sc_generate(struct bt_scenario *sc, const struct bt_sc_shape *shape, unsigned index);
/* The 8-byte user read both walkers see (a bt_ref_world read_u64). */
bool bt_sc_read(void *sc, uint64_t addr, uint64_t *out);
/* Writes an aligned stack word once; later writes of it are ignored. */
void bt_sc_poke(struct bt_scenario *sc, uint64_t addr, uint64_t value);

/* The scenario's mapped stack words as VM user memory, a region per run. */
void bt_sc_map_stack(struct gs_vm *vm, const struct bt_scenario *sc);
/* The caller rows, for a mismatch report on stderr. */
void bt_sc_print_rows(const struct bt_scenario *sc);

/* One decoded Backtrace, whichever walker's: what the differential tests
 * compare field by field and print. */
struct bt_sc_view {
	unsigned requested_depth, frame_count, flags, status, error_code;
	const struct gs_backtrace_frame *frames;
};

bool bt_sc_same(const struct bt_sc_view *a, const struct bt_sc_view *b);
/* Prints b, marking the frames that differ from other's. */
void bt_sc_print(const char *who, const struct bt_sc_view *b, const struct bt_sc_view *other);

#endif /* GS_TEST_BT_SCENARIO_H */
