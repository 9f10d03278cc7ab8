/* A built program's layout, for the layers of libgs that load, print and
 * account for programs (the runtime) and for the tests. Not installed and
 * not ABI: an embedder sees `struct gs_program` as opaque (<gs/program.h>). */
#ifndef GS_INTERNAL_PROGRAM_H
#define GS_INTERNAL_PROGRAM_H

#include <gs/btf.h>
#include <gs/internal/asm.h>
#include <gs/program.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One map of a program: its entry of gs_map_defs, and the sizes decided
 * for this program. */
struct gs_map_spec {
	const char *name;
	enum bpf_map_type type;
	uint32_t key_size, value_size, max_entries; /* 0 entries: one per CPU (perf) */
	uint8_t slot; /* enum gs_map_slot (GS_MAP_OUTPUT for both outputs) */
	uint8_t share; /* enum gs_map_share */
};

/* A plan holds one per probe until it is loaded (100,000 in a large one):
 * what only some programs have is allocated for those alone. */
struct gs_program {
	struct gs_asm main;        /* finished main program (with its subprograms) */
	struct gs_btf *btf;        /* func_info types when main.nfuncs > 0, else NULL */
	struct gs_asm *step;       /* the backtrace step program when has_step, else NULL */
	bool has_step;
	struct gs_asm *entry;      /* the entry program of $duration, else NULL */
	char entry_name[64];
	struct gs_agg_desc *aggs;  /* the aggregations it updates */
	size_t naggs;
	struct gs_map_spec *maps;  /* in gs_asm map-index order (both programs) */
	size_t nmaps;
	int map_index[GS_MAP_KINDS]; /* enum gs_map_slot -> index in maps, or -1 */
	struct gs_trace_context ctx;
	uint32_t trace_id;
	uint32_t max_trace_event_size;
	uint32_t event_size;         /* its largest event in bytes; 0: it sends none */
	uint16_t total_instructions; /* what EndInstruction carries */
	char name[64];               /* program name for the kernel */
	char step_name[64];
	uint32_t backtrace_depth;    /* in force, 1..128 (tail call) or 1..512 (loop) */
	enum gs_unwinder unwinder;   /* in force */
	uint32_t bt_slots;           /* bt_state entries */
	bool sleepable;              /* load with BPF_F_SLEEPABLE (gs_program_opts.fault_in) */
	/* enum bpf_prog_type to load as: 0 for a uprobe's (BPF_PROG_TYPE_KPROBE),
	 * BPF_PROG_TYPE_PERF_EVENT for a CPU sample's (gs_trace_spec.sample). */
	uint32_t prog_type;
};


#ifdef __cplusplus
}
#endif

#endif /* GS_INTERNAL_PROGRAM_H */
