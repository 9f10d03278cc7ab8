/* Trace specs shared by the codegen suites: each is built in ringbuf and
 * perf mode, dumped against tests/golden/cg_<name>.<mode>.txt, loaded
 * through the real verifier, and run on the test VM. */
#ifndef GS_TEST_CG_SPECS_H
#define GS_TEST_CG_SPECS_H

#include <gs/internal/unwind.h>
#include <gs/program.h>

struct gs_cg_case {
	const char *name;
	const struct gs_trace_spec *spec;
	/* Options besides the output kind (which the suites set). */
	struct gs_program_opts opts;
};

extern const struct gs_cg_case gs_cg_cases[];
extern const size_t gs_cg_ncases;

/* The case's options with `output` set; sz filled in. */
struct gs_program_opts gs_cg_case_opts(const struct gs_cg_case *c, enum gs_output_kind output);

/* Values the specs compare against, so VM tests can steer each branch. */
#define GS_CG_FILTER_PID 4242u
#define GS_CG_NS_DEV 0x4u
#define GS_CG_NS_INO 4026532000ull

/* The backtrace specs' probe: module cookie, link-time PC, and how many
 * rows the tests put in bt_unwind_rows for a one-module walk. */
#define GS_CG_PROBE_COOKIE 0x1122334455667788ull
#define GS_CG_PROBE_PC 0x1139ull
#define GS_CG_BT_ROWS 4u
/* Where the specs that need the thread pointer take it in task_struct
 * (the verifier checks no more than that it is a kernel read). */
#define GS_CG_TASK_FSBASE 5000u

/* Source-level value cases (cg_value_specs.c), part of gs_cg_cases too.
 * Memory layout of struct rec as those specs type it. */
extern const struct gs_cg_case gs_cg_value_cases[];
extern const size_t gs_cg_value_ncases;
#define GS_CGV_REC_ID 0
#define GS_CGV_REC_POS 4
#define GS_CGV_REC_NAME 12
#define GS_CGV_REC_NEXT 32
#define GS_CGV_REC_VALUES 40
#define GS_CGV_REC_BITS 56
#define GS_CGV_REC_SIZE 64
/* struct rec *r, in rsi at the probe (what the specs above print). */
extern const struct gs_var *const gs_cgv_rec_ptr;
/* Standard-library values printed whole (cg_view_specs.c): one of each
 * view kind; std::map and BTreeMap, each alone at the default cap of
 * 200; vector<bool> and deque; each kind over elements with views of
 * their own. */
extern const struct gs_trace_spec gs_cgv_views_walk;
extern const struct gs_trace_spec gs_cgv_views_tree;
extern const struct gs_trace_spec gs_cgv_views_btree;
extern const struct gs_trace_spec gs_cgv_views_deque;
extern const struct gs_trace_spec gs_cgv_views_nested;
/* C strings and C++ references (cg_cstring_specs.c): trace f { print
 * activity; print a; print a.id; print "{} {:p}", activity, activity; }
 * with const char *activity in rdi and const struct acct { int id; const
 * char *tag; } &a in rsi. */
extern const struct gs_trace_spec gs_cgv_cstring;
#define GS_CGV_ACCT_ID 0
#define GS_CGV_ACCT_TAG 8
#define GS_CGV_ACCT_SIZE 16
/* Empty and short DWARF pieces (cg_pieces_specs.c): trace f { print v;
 * print n; } with a Vec<i32> v whose pointer's piece is empty (its cap in
 * rdi, its len in rsi) and a u64 n of which rdx gives 4 bytes. */
extern const struct gs_trace_spec gs_cgv_pieces;

/* Aggregations (cg_agg_specs.c): trace f { @calls[$pid] = count(); },
 * and trace f return { @lat[$retval] = hist($duration); @us =
 * lhist($duration / 1000, 0, 100, 10); }. */
extern const struct gs_trace_spec gs_cga_count;
extern const struct gs_trace_spec gs_cga_latency;

/* trace f { if (...) { print ...; } ... } with n conditions over
 * dereferences of r (cg_many_ifs.c): the trace that has to load whatever
 * the number of its conditions. gs_cgv_many_ifs_free() releases it. */
struct gs_trace_spec *gs_cgv_many_ifs(size_t n);
void gs_cgv_many_ifs_free(struct gs_trace_spec *spec);

#define GS_CGV_GLOBAL_ADDR 0x4010ull   /* link-time address of g_counter */
#define GS_CGV_NAME_PTR_ADDR 0x4018ull /* link-time address of g_name */

#endif /* GS_TEST_CG_SPECS_H */
