/* The layouts of the maps generated BPF programs and userspace share
 * (docs/protocol.md, and the bpf_loop walker's own maps), the one
 * table of every map (names, kinds, key and value sizes), and the DWARF
 * register to pt_regs offsets the programs read. Natural alignment; every
 * size and offset pinned by a _Static_assert. The wire format is
 * gs/wire.h; gs/protocol.h includes both. */
#ifndef GS_MAP_ABI_H
#define GS_MAP_ABI_H

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 2: map ABI (natural alignment) ------------------------------------- */

struct gs_proc_module_key {
	uint32_t pid;
	uint32_t pad; /* 0 */
	uint32_t cookie_lo;
	uint32_t cookie_hi;
};
GS_ASSERT_SIZE(struct gs_proc_module_key, 16);
GS_ASSERT_LAYOUT(struct gs_proc_module_key, cookie_lo, 8);
GS_ASSERT_LAYOUT(struct gs_proc_module_key, cookie_hi, 12);

struct gs_proc_module_offsets {
	uint64_t text, rodata, data, bss; /* all the module's load bias */
	uint64_t base;                    /* lowest mapping start */
	uint64_t size;                    /* highest mapping end - base */
};
GS_ASSERT_SIZE(struct gs_proc_module_offsets, 48);
GS_ASSERT_LAYOUT(struct gs_proc_module_offsets, base, 32);
GS_ASSERT_LAYOUT(struct gs_proc_module_offsets, size, 40);

/* proc_module_tls[{pid, 0, cookie}]: where a module's TLS block is in
 * each thread, from the loader's tables (glibc, x86-64 TLS variant II;
 * docs/tls.md). Static TLS (the executable and the libraries loaded at
 * start): the block is at thread pointer - static_offset. Dynamic TLS
 * (static_offset 0): the loader's slotinfo entry of modid (at `slotinfo`
 * in the process: {gen, link_map}) must still name link_map, else the
 * entry is stale (the module was dlclosed since); then dtv = *(thread
 * pointer + GS_TLS_TCB_DTV) and the block is dtv[modid].val when dtv[0]
 * (the thread's generation) >= the slot's gen and the value is not
 * TLS_DTV_UNALLOCATED (odd). */
struct gs_proc_module_tls {
	uint64_t modid;        /* l_tls_modid, >= 1 */
	uint64_t gen;          /* the slot's generation when read (for the listing) */
	int64_t static_offset; /* l_tls_offset, or 0: dynamic TLS */
	uint64_t slotinfo;     /* address of the loader's dtv_slotinfo of modid */
	uint64_t link_map;     /* the module's link_map, which that slot names */
};
GS_ASSERT_SIZE(struct gs_proc_module_tls, 40);
GS_ASSERT_LAYOUT(struct gs_proc_module_tls, gen, 8);
GS_ASSERT_LAYOUT(struct gs_proc_module_tls, static_offset, 16);
GS_ASSERT_LAYOUT(struct gs_proc_module_tls, slotinfo, 24);
GS_ASSERT_LAYOUT(struct gs_proc_module_tls, link_map, 32);

/* glibc's struct dtv_slotinfo, as the loader's descriptors say it is (the
 * runtime checks them): the generation that added the module, its link_map. */
#define GS_TLS_SLOT_GEN 0
#define GS_TLS_SLOT_MAP 8

#define GS_TLS_TCB_DTV 8     /* tcbhead_t.dtv: the thread's DTV pointer */
#define GS_TLS_DTV_ENTRY 16  /* sizeof(dtv_t): { void *val; void *to_free; } */

struct gs_proc_module_range_meta {
	uint32_t active_slot; /* 0 or 1 */
	uint32_t count;       /* entries in that slot */
};
GS_ASSERT_SIZE(struct gs_proc_module_range_meta, 8);

struct gs_proc_module_range_key {
	uint32_t pid;
	uint32_t slot;
	uint32_t index;
	uint32_t pad; /* 0 */
};
GS_ASSERT_SIZE(struct gs_proc_module_range_key, 16);
GS_ASSERT_LAYOUT(struct gs_proc_module_range_key, index, 8);

struct gs_proc_module_range {
	uint64_t base;
	uint64_t end;  /* exclusive */
	uint64_t text; /* load bias */
	uint32_t cookie_lo;
	uint32_t cookie_hi;
};
GS_ASSERT_SIZE(struct gs_proc_module_range, 32);
GS_ASSERT_LAYOUT(struct gs_proc_module_range, text, 16);
GS_ASSERT_LAYOUT(struct gs_proc_module_range, cookie_lo, 24);

struct gs_pid_alias {
	uint32_t proc_pid;
};
GS_ASSERT_SIZE(struct gs_pid_alias, 4);

/* Recovery kinds of an unwind row's RA and rbp rules. */
enum gs_recovery_kind {
	GS_RECOVERY_UNDEFINED = 0,
	GS_RECOVERY_AT_CFA_OFFSET = 1,  /* *(u64 *)(CFA + offset) */
	GS_RECOVERY_VAL_CFA_OFFSET = 2, /* CFA + offset */
	GS_RECOVERY_REGISTER = 3,       /* another register of this frame */
	GS_RECOVERY_SAME_VALUE = 4,     /* unchanged */
};

/* One row of bt_unwind_rows: the rules for [pc_start, pc_end) in module
 * link-time addresses. */
struct gs_unwind_row {
	uint64_t pc_start;
	uint64_t pc_end; /* exclusive */
	int64_t cfa_offset;
	int64_t ra_offset;
	int64_t rbp_offset;
	uint16_t cfa_register; /* DWARF: 6 rbp, 7 rsp */
	uint16_t ra_register;
	uint16_t rbp_register;
	uint8_t ra_kind;  /* enum gs_recovery_kind */
	uint8_t rbp_kind; /* enum gs_recovery_kind */
	uint8_t reserved[2];
};
GS_ASSERT_SIZE(struct gs_unwind_row, 56);
GS_ASSERT_LAYOUT(struct gs_unwind_row, cfa_offset, 16);
GS_ASSERT_LAYOUT(struct gs_unwind_row, ra_offset, 24);
GS_ASSERT_LAYOUT(struct gs_unwind_row, rbp_offset, 32);
GS_ASSERT_LAYOUT(struct gs_unwind_row, cfa_register, 40);
GS_ASSERT_LAYOUT(struct gs_unwind_row, ra_register, 42);
GS_ASSERT_LAYOUT(struct gs_unwind_row, rbp_register, 44);
GS_ASSERT_LAYOUT(struct gs_unwind_row, ra_kind, 46);
GS_ASSERT_LAYOUT(struct gs_unwind_row, rbp_kind, 47);

/* Value of bt_module_row_ranges (key: u64 cookie): rows [row_start, row_end). */
struct gs_module_row_range {
	uint32_t row_start;
	uint32_t row_end;
};
GS_ASSERT_SIZE(struct gs_module_row_range, 8);

/* ---- 2b: the bpf_loop walker's maps (docs/protocol.md, docs/unwind.md) --
 *
 * Rows: bt_rows, an ARRAY of 16-byte gs_bt_row, each module's rows
 * contiguous and sorted, one row per change of rules and a row of kind
 * GS_BT_CFA_NONE wherever no CFI covers the code (gaps, the module's end),
 * so a row ends where the next starts. bt_row_pages, an ARRAY of u32, holds
 * per module npages + 1 entries: entry p is the index of the first row that
 * starts at or after link-time page first_page + p (the last entry: the
 * module's row_hi). A lookup of pc: page p = pc >> 12 - first_page, then a
 * binary search over the rows starting in that page by their 12-bit page
 * offset; none at or below pc's offset: the row before the page's first.
 * Rules a row cannot hold in 16 bytes live in bt_row_overflow (ARRAY of
 * gs_unwind_row) and the row's CFA kind says so. */

enum gs_bt_cfa_kind {
	GS_BT_CFA_NONE = 0,       /* no CFI covers this pc: the walk stops */
	GS_BT_CFA_REG_OFF = 1,    /* CFA = reg + cfa_off */
	GS_BT_CFA_OVERFLOW = 2,   /* every rule in bt_row_overflow[(u16)cfa_off] */
	GS_BT_CFA_REG_DEREF = 3,  /* CFA = *(u64 *)(reg + cfa_off): DW_OP_breg<N> off; DW_OP_deref */
	GS_BT_CFA_EXPRESSION = 4, /* reserved: another expression (the walker stops: UnsupportedCfi) */
};

/* ra, rbp and the callee-saved registers' kinds are enum gs_recovery_kind
 * (GS_RECOVERY_UNDEFINED as the RA rule means the end of the stack: status
 * Complete; as another register's rule it keeps the value) or one of these
 * two, whose register and offset are the expression DW_OP_breg<reg> off: */
#define GS_RECOVERY_EXPRESSION 5     /* DW_CFA_expression: saved at *(reg + off) */
#define GS_RECOVERY_VAL_EXPRESSION 6 /* DW_CFA_val_expression: the value reg + off */

/* Kinds of the callee-saved registers' 2-bit rules in a compact row. A row
 * with any other rule for them is stored whole in bt_row_overflow. */
enum gs_bt_saved_kind {
	GS_BT_SAVED_SAME = 0,     /* unchanged (or undefined): keep the value */
	GS_BT_SAVED_AT_CFA = 1,   /* *(u64 *)(CFA + 8 * off) */
	GS_BT_SAVED_EXTENDED = 2, /* reserved (written as whole overflow rows instead) */
	GS_BT_SAVED_RESERVED = 3,
};

#define GS_BT_ROW_PC_MASK 0x0fffu
#define GS_BT_ROW_F_SIGNAL 0x1000u   /* the FDE's CIE has 'S': a signal trampoline */
#define GS_BT_ROW_F_RESERVED 0xe000u /* written as 0 */
#define GS_BT_PAGE_SHIFT 12

/* The callee-saved registers of saved[], in order, by DWARF number. */
#define GS_BT_NSAVED 5 /* rbx r12 r13 r14 r15 */
#define GS_DWARF_REG_RBX 3
#define GS_DWARF_REG_R12 12
static const uint8_t gs_bt_saved_dwarf[GS_BT_NSAVED] = { 3, 12, 13, 14, 15 };

struct gs_bt_row {
	uint16_t pc;      /* pc_start & 0xfff, | GS_BT_ROW_F_* */
	uint8_t cfa;      /* bits 0-3: DWARF register; bits 4-7: enum gs_bt_cfa_kind */
	uint8_t ra;       /* bits 0-3: register (REGISTER, EXPRESSION kinds); bits 4-7: kind */
	int16_t cfa_off;  /* REG_OFF, REG_DEREF: the offset; else a bt_row_overflow index */
	uint8_t rbp;      /* bits 0-3: register (REGISTER, EXPRESSION kinds); bits 4-7: kind */
	int8_t ra_off;    /* the RA rule's offset / 8 */
	int8_t rbp_off;   /* the rbp rule's offset / 8 */
	uint8_t saved[GS_BT_NSAVED]; /* bits 0-1: gs_bt_saved_kind; bits 2-7: signed offset / 8 */
	uint16_t reserved; /* 0 */
};
GS_ASSERT_SIZE(struct gs_bt_row, 16);
GS_ASSERT_LAYOUT(struct gs_bt_row, cfa, 2);
GS_ASSERT_LAYOUT(struct gs_bt_row, ra, 3);
GS_ASSERT_LAYOUT(struct gs_bt_row, cfa_off, 4);
GS_ASSERT_LAYOUT(struct gs_bt_row, rbp, 6);
GS_ASSERT_LAYOUT(struct gs_bt_row, ra_off, 7);
GS_ASSERT_LAYOUT(struct gs_bt_row, rbp_off, 8);
GS_ASSERT_LAYOUT(struct gs_bt_row, saved, 9);
GS_ASSERT_LAYOUT(struct gs_bt_row, reserved, 14);

/* One rule in full: the CFA's (kind: enum gs_bt_cfa_kind, REG_OFF or
 * REG_DEREF) or a register's (kind: enum gs_recovery_kind or an EXPRESSION
 * kind above). reg: the CFA's base, REGISTER's source, an expression's
 * DW_OP_breg register (DWARF 0..16). */
struct gs_bt_rule {
	int32_t off;
	uint8_t kind;
	uint8_t reg;
	uint16_t reserved; /* 0 */
};
GS_ASSERT_SIZE(struct gs_bt_rule, 8);
GS_ASSERT_LAYOUT(struct gs_bt_rule, kind, 4);
GS_ASSERT_LAYOUT(struct gs_bt_rule, reg, 5);

/* Every rule of a row (bt_row_overflow entries; the walker decodes compact
 * rows into the same form in bt_walk). */
struct gs_bt_rules {
	struct gs_bt_rule cfa, ra, rbp;
	struct gs_bt_rule saved[GS_BT_NSAVED]; /* rbx r12 r13 r14 r15 */
};
GS_ASSERT_SIZE(struct gs_bt_rules, 64);
GS_ASSERT_LAYOUT(struct gs_bt_rules, ra, 8);
GS_ASSERT_LAYOUT(struct gs_bt_rules, rbp, 16);
GS_ASSERT_LAYOUT(struct gs_bt_rules, saved, 24);

/* bt_module_rows (HASH, key u64 cookie): where a module's rows are. */
struct gs_bt_module_rows {
	uint32_t row_lo, row_hi; /* bt_rows [row_lo, row_hi) */
	uint32_t page_lo;        /* bt_row_pages [page_lo, page_lo + npages] */
	uint32_t npages;
	uint64_t first_page;     /* link-time pc >> 12 of the first row */
};
GS_ASSERT_SIZE(struct gs_bt_module_rows, 24);
GS_ASSERT_LAYOUT(struct gs_bt_module_rows, page_lo, 8);
GS_ASSERT_LAYOUT(struct gs_bt_module_rows, first_page, 16);

/* bt_modules (ARRAY): one process's modules sorted by start, at [first,
 * first + count) as bt_proc_modules[pid] says. */
struct gs_bt_module {
	uint64_t start, end; /* [start, end) in the process */
	uint64_t cookie;
	uint64_t bias;       /* load bias: link-time pc = ip - bias */
	uint64_t first_page; /* its gs_bt_module_rows, copied: no second lookup */
	uint32_t row_lo, row_hi;
	uint32_t page_lo, npages;
};
GS_ASSERT_SIZE(struct gs_bt_module, 56);
GS_ASSERT_LAYOUT(struct gs_bt_module, end, 8);
GS_ASSERT_LAYOUT(struct gs_bt_module, cookie, 16);
GS_ASSERT_LAYOUT(struct gs_bt_module, bias, 24);
GS_ASSERT_LAYOUT(struct gs_bt_module, first_page, 32);
GS_ASSERT_LAYOUT(struct gs_bt_module, row_lo, 40);
GS_ASSERT_LAYOUT(struct gs_bt_module, row_hi, 44);
GS_ASSERT_LAYOUT(struct gs_bt_module, page_lo, 48);
GS_ASSERT_LAYOUT(struct gs_bt_module, npages, 52);

/* bt_proc_modules (HASH, key u32 pid): the active snapshot [first, first +
 * count) of bt_modules; base and cap are the writer's two regions [base,
 * base + 2 cap), of which BPF reads nothing. Key 0 is the writer's
 * allocator: base = the first free bt_modules entry. */
struct gs_bt_proc_modules {
	uint32_t first, count;
	uint32_t base, cap;
};
GS_ASSERT_SIZE(struct gs_bt_proc_modules, 16);
GS_ASSERT_LAYOUT(struct gs_bt_proc_modules, count, 4);

#define GS_BT_PROC_MODULES_MAX 512 /* modules of one process the walk searches */
#define GS_BT_WINDOW 1024          /* stack bytes read at once above frame 0's sp */
#define GS_BT_ROW_CACHE 128        /* entries of the walker's per-CPU row cache */

/* bt_snapshot_gen (ARRAY of one entry, read by BPF as a direct value).
 * snapshot: bumped by the writer after every bt_proc_modules update or
 * removal, so a walk knows its per-CPU copy of a snapshot's {first, count}
 * is still the one bt_proc_modules holds. open: set by the session once the
 * unwind maps are written (it attaches before writing them); loop-walker
 * programs emit nothing while it is 0. */
struct gs_bt_gen {
	uint64_t snapshot;
	uint64_t open;
};
GS_ASSERT_SIZE(struct gs_bt_gen, 16);
GS_ASSERT_LAYOUT(struct gs_bt_gen, open, 8);

/* An entry of the walker's per-CPU row cache: the row bt_rows has for a
 * link-time pc in the module whose rows end at row_hi. Rows never move or
 * change once written, and row_hi (never 0 for a module with rows) tells
 * modules apart, so an entry stays true for the session. */
struct gs_bt_row_cache {
	uint64_t pc;
	uint32_t row_hi;
	uint32_t reserved;
	struct gs_bt_row row;
};
GS_ASSERT_SIZE(struct gs_bt_row_cache, 32);
GS_ASSERT_LAYOUT(struct gs_bt_row_cache, row_hi, 8);
GS_ASSERT_LAYOUT(struct gs_bt_row_cache, row, 16);

/* Per-CPU state of the bpf_loop walker (bt_walk, one entry): only BPF
 * reads it. The main program fills regs, the walker the rest. */
#define GS_BT_NREGS 17 /* DWARF 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
struct gs_bt_walk {
	uint64_t regs[GS_BT_NREGS]; /* the current frame's registers; frame 0: pt_regs */
	uint64_t next[GS_BT_NREGS]; /* the caller's, while a frame is unwound */
	struct gs_bt_rules rules;   /* the current frame's row, decoded */
	struct gs_bt_module mod;    /* the current frame's module */
	uint32_t mods_first, mods_count;
	uint32_t inst_off;     /* the Backtrace instruction in the accumulation buffer */
	uint16_t depth;
	uint16_t frame_count;
	uint8_t mod_found;     /* mod is valid */
	uint8_t mod_wire;      /* its wire table index, or GS_BT_WIRE_NO_MODULE */
	uint8_t module_count;
	uint8_t module_slots;
	uint32_t generation;   /* this walk's tag in seen_gen */
	uint64_t window_base;  /* window[] holds [window_base, window_base + window_len) */
	uint32_t window_len;
	uint8_t status;        /* enum gs_bt_status, once the walk stops */
	uint8_t read_failed;   /* a user read failed (the event's execution status) */
	uint16_t error_code;   /* enum gs_bt_error */
	uint64_t cfa, read_buf; /* scratch of one unwind: the CFA, a single read */
	uint64_t move;         /* scratch: a window move's address */
	uint64_t probe_cookie; /* frame 0's module when the snapshot lacks it (0: none) */
	uint64_t probe_pc;     /* ... and its link-time pc: bias = regs[rip] - probe_pc */
	uint8_t exact;         /* the current frame follows a signal frame: row at ip, not ip - 1 */
	uint8_t probe_known;   /* probe_rows is bt_module_rows[probe_cookie] (rows never move) */
	uint8_t pad[6];
	struct gs_bt_module_rows probe_rows;
	/* The snapshot the last walk on this CPU found, reused while the
	 * process and bt_snapshot_gen.snapshot are the same: no hash lookup. */
	uint64_t snap_gen;
	uint32_t snap_tgid, snap_first, snap_count, snap_pad;
	uint32_t seen_gen[GS_BT_PROC_MODULES_MAX]; /* per snapshot index: seen in walk gen */
	uint8_t seen_wire[GS_BT_PROC_MODULES_MAX]; /* ... at this wire table index */
	uint8_t window[GS_BT_WINDOW];
	struct gs_bt_row_cache rows[GS_BT_ROW_CACHE]; /* by hash of (pc, row_hi) */
	uint64_t first_sp;     /* frame 0's sp: the frame-pointer step's bound */
};
GS_ASSERT_LAYOUT(struct gs_bt_walk, next, 136);
GS_ASSERT_LAYOUT(struct gs_bt_walk, rules, 272);
GS_ASSERT_LAYOUT(struct gs_bt_walk, mod, 336);
GS_ASSERT_LAYOUT(struct gs_bt_walk, mods_first, 392);
GS_ASSERT_LAYOUT(struct gs_bt_walk, inst_off, 400);
GS_ASSERT_LAYOUT(struct gs_bt_walk, frame_count, 406);
GS_ASSERT_LAYOUT(struct gs_bt_walk, generation, 412);
GS_ASSERT_LAYOUT(struct gs_bt_walk, window_base, 416);
GS_ASSERT_LAYOUT(struct gs_bt_walk, status, 428);
GS_ASSERT_LAYOUT(struct gs_bt_walk, cfa, 432);
GS_ASSERT_LAYOUT(struct gs_bt_walk, move, 448);
GS_ASSERT_LAYOUT(struct gs_bt_walk, probe_cookie, 456);
GS_ASSERT_LAYOUT(struct gs_bt_walk, exact, 472);
GS_ASSERT_LAYOUT(struct gs_bt_walk, probe_known, 473);
GS_ASSERT_LAYOUT(struct gs_bt_walk, probe_rows, 480);
GS_ASSERT_LAYOUT(struct gs_bt_walk, snap_gen, 504);
GS_ASSERT_LAYOUT(struct gs_bt_walk, snap_tgid, 512);
GS_ASSERT_LAYOUT(struct gs_bt_walk, seen_gen, 528);
GS_ASSERT_LAYOUT(struct gs_bt_walk, rows, 528 + 4 * 512 + 512 + GS_BT_WINDOW);
GS_ASSERT_LAYOUT(struct gs_bt_walk, first_sp, 528 + 4 * 512 + 512 + GS_BT_WINDOW + 32 * GS_BT_ROW_CACHE);
GS_ASSERT_SIZE(struct gs_bt_walk, 528 + 4 * 512 + 512 + GS_BT_WINDOW + 32 * GS_BT_ROW_CACHE + 8);

#define GS_BT_NO_NEXT_SLOT 0xFF

/* ---- Python (py_procs: tgid -> what the BPF walk needs) -------------------

 * Filled by the runtime for each traced process that runs CPython 3.8+,
 * from the interpreter's layout (gs/python.h: libpython's DWARF, else the
 * table of its minor version). Offsets are bytes into the named struct;
 * GS_PY_NONE where the version has no such field. */
#define GS_PY_NONE 0xFFFF

enum gs_py_frame_style {
	GS_PY_STYLE_FRAME_OBJECT = 0, /* 3.8-3.10: PyFrameObject, f_back, int f_lasti */
	GS_PY_STYLE_IS_ENTRY = 1,     /* 3.11: _PyInterpreterFrame, is_entry marks a C call's first */
	GS_PY_STYLE_OWNER = 2,        /* 3.12+: a C-stack-owned frame separates C calls */
};

struct gs_py_proc {
	uint64_t runtime;            /* &_PyRuntime in the process */
	/* &_Py_tss_tstate - the thread pointer (static TLS, 3.12+), or 0:
	 * find the thread's state in the interpreters' thread lists. */
	int64_t tstate_tls;
	uint16_t runtime_interp_head; /* _PyRuntimeState.interpreters.head */
	uint16_t interp_next;         /* PyInterpreterState.next */
	uint16_t interp_tstate_head;  /* PyInterpreterState.tstate_head / threads.head */
	uint16_t tstate_next;         /* PyThreadState.next */
	uint16_t tstate_thread_id;    /* PyThreadState.thread_id (pthread_self) */
	uint16_t tstate_frame;        /* frame (3.8-3.10), cframe (3.11/3.12), current_frame */
	uint16_t cframe_current;      /* _PyCFrame.current_frame (3.11/3.12), else GS_PY_NONE */
	uint16_t frame_back;          /* f_back / previous */
	uint16_t frame_code;          /* f_code / f_executable */
	uint16_t frame_instr;         /* f_lasti / prev_instr / instr_ptr */
	uint16_t frame_entry;         /* is_entry (3.11), owner (3.12+), else GS_PY_NONE */
	uint8_t instr_size;           /* 4 (f_lasti) or 8 (a pointer) */
	uint8_t style;                /* enum gs_py_frame_style */
	uint8_t owned_by_cstack;      /* 3.12+: owner of a C stack's frame (3) */
	uint8_t minor;                /* 3.minor */
	uint8_t pad[6];
};
GS_ASSERT_SIZE(struct gs_py_proc, 48);
GS_ASSERT_LAYOUT(struct gs_py_proc, runtime_interp_head, 16);
GS_ASSERT_LAYOUT(struct gs_py_proc, frame_entry, 36);
GS_ASSERT_LAYOUT(struct gs_py_proc, instr_size, 38);
GS_ASSERT_LAYOUT(struct gs_py_proc, minor, 41);
#define GS_DEFAULT_PY_PROCS_MAX 4096
#define GS_PY_THREADS_MAX 64 /* threads of one interpreter the walk looks at */
#define GS_PY_INTERPS_MAX 4  /* interpreters the walk looks at */

/* Per-CPU state of a tail-call backtrace (bt_state). Only BPF reads it.
 * The reference's 64 bytes are followed by the current module's range, so a
 * frame in the same module skips the range search (docs/protocol.md). */
struct gs_bt_tail_state {
	uint64_t current_ip;
	uint64_t current_rsp; /* the CFA of the last stored frame */
	uint64_t current_rbp;
	uint64_t module_bias;
	uint64_t module_cookie;
	uint32_t inst_offset; /* this bt instruction in the accumulation buffer */
	uint32_t event_size;  /* total event bytes to emit */
	uint8_t frame_count;
	uint8_t requested_depth;
	uint8_t offsets_found;
	uint8_t tail_calls;
	uint8_t flags;
	uint8_t active_slot; /* slot 0 only: head of the chain */
	uint16_t error_code;
	uint8_t next_slot;   /* GS_BT_NO_NEXT_SLOT: end of chain */
	uint8_t pad[7];
	uint64_t module_base; /* [module_base, module_end): the range entry */
	uint64_t module_end;  /* the last search found, or empty */
};
GS_ASSERT_SIZE(struct gs_bt_tail_state, 80);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, module_base, 64);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, module_end, 72);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, current_rsp, 8);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, current_rbp, 16);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, module_bias, 24);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, module_cookie, 32);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, inst_offset, 40);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, event_size, 44);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, frame_count, 48);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, requested_depth, 49);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, offsets_found, 50);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, tail_calls, 51);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, flags, 52);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, active_slot, 53);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, error_code, 54);
GS_ASSERT_LAYOUT(struct gs_bt_tail_state, next_slot, 56);

/* ---- 3-4: the maps (one table: names, kinds, key and value sizes) ------- */

#define GS_DEFAULT_MAX_TRACE_EVENT_SIZE 32768 /* the per-CPU value limit */
#define GS_DEFAULT_RINGBUF_SIZE 262144
/* A trace plan's output buffers when the caller names no size
 * (gs_output_default_size, docs/cli.md "Output buffers"): room for
 * GS_OUTPUT_EVENTS of the largest event, a power of two between the
 * bounds, and GS_OUTPUT_TOTAL_MAX over every buffer of the session. */
#define GS_OUTPUT_EVENTS 8192
#define GS_OUTPUT_MIN_SIZE GS_DEFAULT_RINGBUF_SIZE
/* Every page of a ring counts in gstrace's resident memory (the kernel
 * maps them all at once): 4 MiB is 4 MB of it. */
#define GS_OUTPUT_MAX_SIZE (4u << 20)
#define GS_OUTPUT_TOTAL_MAX (16u << 20)
#define GS_OUTPUT_RECORD_HEADER 8 /* BPF_RINGBUF_HDR_SZ; a perf sample's is 8 too */
#define GS_DEFAULT_PERF_PAGE_COUNT 64
#define GS_DEFAULT_PROC_MODULE_OFFSETS_MAX 4096
#define GS_DEFAULT_UNWIND_ROWS_MAX 65536
#define GS_BPF_F_CURRENT_CPU 0xffffffffULL
#define GS_DEFAULT_MAX_STRING_LEN 256 /* mem_dump_cap: {:s}, {:x.N} */
#define GS_DEFAULT_COMPARE_CAP 64     /* memcmp / strncmp / starts_with */
#define GS_DEFAULT_STACK_COUNTS_MAX 16384 /* stack_counts entries (BPF counting) */

/* Map names: what the kernel shows, and what the
 * unwind layer's writers name a map by. */
#define GS_MAP_NAME_RINGBUF "ringbuf"
#define GS_MAP_NAME_EVENTS "events"
#define GS_MAP_NAME_LOSS "event_loss_counters"
#define GS_MAP_NAME_ACCUM "event_accum_buffer"
#define GS_MAP_PROC_MODULE_OFFSETS "proc_module_offsets"
#define GS_MAP_NAME_PID_ALIASES "pid_aliases"
#define GS_MAP_PROC_MODULE_TLS "proc_module_tls"
#define GS_MAP_BT_UNWIND_ROWS "bt_unwind_rows"
#define GS_MAP_BT_MODULE_ROW_RANGES "bt_module_row_ranges"
#define GS_MAP_PROC_MODULE_RANGE_META "proc_module_range_meta"
#define GS_MAP_PROC_MODULE_RANGES "proc_module_ranges"
#define GS_MAP_NAME_BT_STATE "bt_state"
#define GS_MAP_NAME_BT_PROGS "bt_prog_array"
/* the bpf_loop walker's (2b) */
#define GS_MAP_NAME_BT_CROWS "bt_rows"
#define GS_MAP_NAME_BT_PAGES "bt_row_pages"
#define GS_MAP_NAME_BT_OVERFLOW "bt_row_overflow"
#define GS_MAP_NAME_BT_MODULE_ROWS "bt_module_rows"
#define GS_MAP_NAME_BT_PROC_MODULES "bt_proc_modules"
#define GS_MAP_NAME_BT_MODULES "bt_modules"
#define GS_MAP_NAME_BT_WALK "bt_walk"
#define GS_MAP_NAME_BT_GEN "bt_snapshot_gen"
/* counting in BPF (gs_program_opts.count_stacks) */
#define GS_MAP_NAME_STACK_COUNTS "stack_counts"
#define GS_MAP_NAME_STACK_DROPS "stack_count_drops"
/* reads that fault pages in (gs_program_opts.fault_in) */
#define GS_MAP_NAME_READ_GEN "read_fault_gen"
/* aggregations and $duration (docs/cli.md, "Aggregations") */
#define GS_MAP_NAME_AGGS "gs_aggs"
#define GS_MAP_NAME_AGG_DROPS "gs_agg_drops"
#define GS_MAP_NAME_ENTRY_TIMES "gs_entry_times"
#define GS_MAP_NAME_PY_PROCS "py_procs"

/* The maps a program may use, by slot. The first three always exist at
 * these indices of gs_program.maps; the others only when the trace has a
 * `bt` (gs_program.map_index says where, or -1). */
enum gs_map_slot {
	GS_MAP_OUTPUT,       /* ringbuf (RINGBUF) or events (PERF_EVENT_ARRAY) */
	GS_MAP_LOSS,
	GS_MAP_ACCUM,
	GS_MAP_NUM_BASE,
	GS_MAP_PROC_OFFSETS = GS_MAP_NUM_BASE,
	GS_MAP_PID_ALIASES,
	GS_MAP_BT_ROWS,
	GS_MAP_BT_ROW_RANGES, /* module ranges only */
	GS_MAP_RANGE_META,    /* module ranges only */
	GS_MAP_RANGES,        /* module ranges only */
	GS_MAP_BT_STATE,
	GS_MAP_BT_PROGS,      /* the step program at index 0 */
	/* the bpf_loop walker's (2b) */
	GS_MAP_BT_CROWS,
	GS_MAP_BT_PAGES,
	GS_MAP_BT_OVERFLOW,
	GS_MAP_BT_MODULE_ROWS,  /* the writer's: BPF never reads it */
	GS_MAP_BT_PROC_MODULES,
	GS_MAP_BT_MODULES,
	GS_MAP_BT_WALK,         /* per-CPU walk state */
	GS_MAP_BT_GEN,          /* snapshot generation, the session's gate */
	/* counting in BPF (gs_program_opts.count_stacks) */
	GS_MAP_STACK_COUNTS,    /* HASH: struct gs_stack_count_key + frames -> u64 */
	GS_MAP_STACK_DROPS,     /* PERCPU_ARRAY[1] u64: stacks a full map could not count */
	/* sleepable programs (gs_program_opts.fault_in) */
	GS_MAP_READ_GEN,        /* PERCPU_ARRAY[1] u64: invocations begun on this CPU */
	GS_MAP_PROC_TLS,        /* HASH: gs_proc_module_key -> gs_proc_module_tls */
	/* aggregations: one map for every @name of a session */
	GS_MAP_AGGS,            /* PERCPU_HASH: struct gs_agg_key -> struct gs_agg_value */
	GS_MAP_AGG_DROPS,       /* PERCPU_ARRAY[1] u64: updates a full map could not take */
	GS_MAP_ENTRY_TIMES,     /* LRU_HASH: struct gs_entry_key -> u64 ktime of the entry */
	GS_MAP_PY_PROCS,        /* HASH: u32 tgid -> struct gs_py_proc */
	GS_MAP_KINDS,
	GS_MAP_OUTPUT_PERF = GS_MAP_KINDS, /* gs_map_defs only: the perf variant */
};

/* ---- aggregations (docs/cli.md, "Aggregations") -------------------------- */

#define GS_AGG_KEY_MAX 128      /* bytes of an aggregation's keys, all of them */
#define GS_AGG_STRING_MAX 64    /* bytes of one string key (NUL included) */
#define GS_AGG_MAX_KEYS 8       /* keys of one aggregation */
#define GS_AGG_DEFAULT_MAX_KEYS 4096 /* gs_aggs entries */
#define GS_AGG_HIST_BUCKETS 65  /* hist(): negatives, 0, then [2^k, 2^(k+1)) k = 0..62 */
#define GS_AGG_LHIST_MAX_BUCKETS 1000 /* lhist(): (max - min) / step at most */
#define GS_DEFAULT_ENTRY_TIMES_MAX 16384 /* gs_entry_times entries (threads x depth) */

/* A key of gs_aggs: which @name (its script index), which bucket of a
 * histogram (0 for the others), and its keys, each integer as 8 bytes
 * and each string as GS_AGG_STRING_MAX, in order; unused bytes are 0. */
struct gs_agg_key {
	uint32_t id;
	uint32_t bucket;
	uint8_t keys[GS_AGG_KEY_MAX];
};
GS_ASSERT_SIZE(struct gs_agg_key, 136);

/* One CPU's value of a gs_aggs entry: every function updates all four
 * (min and max are meaningful once count > 0); userspace adds the CPUs'
 * counts and sums and takes the least min and greatest max. */
struct gs_agg_value {
	int64_t count, sum, min, max;
};
GS_ASSERT_SIZE(struct gs_agg_value, 32);

/* A key of gs_entry_times: the entry of a call of the function a trace
 * returns from, by thread and stack pointer at the entry (distinct for
 * each level of a recursion). */
struct gs_entry_key {
	uint32_t tid;
	uint32_t trace_id;
	uint64_t sp;
};
GS_ASSERT_SIZE(struct gs_entry_key, 16);

/* Who holds a map: each program its own, or one per session that every
 * program shares (the reference pins these); the row maps are shared only
 * when rows of several modules are found per frame (module ranges). */
enum gs_map_share {
	GS_MAP_PER_PROGRAM,
	GS_MAP_PER_SESSION,
	GS_MAP_PER_SESSION_WITH_RANGES,
};

/* A map's kind and shape; the code generator decides max_entries from the
 * program options (value_size 0: the accumulation buffer's event size). */
struct gs_map_def {
	const char *name;
	uint32_t type; /* enum bpf_map_type */
	uint32_t key_size, value_size;
	uint8_t share; /* enum gs_map_share */
};

/* Every slot's entry (GS_MAP_OUTPUT_PERF included), defined once in the
 * code generator (src/codegen/map_defs.c): a table in this header would be
 * copied into every file that includes it, and C++ has no array
 * designators to write it with. */
GS_API extern const struct gs_map_def gs_map_defs[GS_MAP_KINDS + 1];

/* ---- DWARF register number -> struct pt_regs offset (x86_64) ------------- */

#define GS_DWARF_REG_RBP 6
#define GS_DWARF_REG_RSP 7
#define GS_DWARF_REG_RIP 16
#define GS_DWARF_REG_MAX 16

#define GS_PT_REGS_IP 128
#define GS_PT_REGS_SP 152
#define GS_PT_REGS_BP 32
#define GS_PT_REGS_BX 40
#define GS_PT_REGS_R12 24
#define GS_PT_REGS_R13 16
#define GS_PT_REGS_R14 8
#define GS_PT_REGS_R15 0
#define GS_PT_REGS_AX 80 /* the return value at a uretprobe */

/* pt_regs offset of DWARF register 0..16 (rax rdx rcx rbx rsi rdi rbp rsp
 * r8..r15 rip). */
static const int16_t gs_dwarf_reg_pt_regs_offset[GS_DWARF_REG_MAX + 1] = {
	80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128,
};

#ifdef __cplusplus
}
#endif

#endif /* GS_MAP_ABI_H */
