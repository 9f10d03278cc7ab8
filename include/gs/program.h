/* gs_program_build(): one trace's description (a gs_trace_spec, as the
 * script parser or a library user writes it) -> the BPF program, the maps it
 * needs and the side tables its events refer to. Building needs no
 * privileges and never touches the kernel; the runtime creates the maps,
 * patches the relocations and loads the program. */
#ifndef GS_PROGRAM_H
#define GS_PROGRAM_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/asm.h>
#include <gs/btf.h>
#include <gs/context.h>
#include <gs/error.h>
#include <gs/protocol.h>
#include <gs/value.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- expressions -------------------------------------------------------- */

enum gs_expr_kind {
	GS_EXPR_INT,     /* 64-bit literal: value */
	GS_EXPR_SPECIAL, /* $pid $tid ...: special */
	GS_EXPR_REG,     /* a pt_regs register by DWARF number 0..16: reg */
	GS_EXPR_VAR,     /* a `let` variable: var (index into the spec's lets) */
	GS_EXPR_UNARY,   /* op lhs: '-', '!', '~' */
	GS_EXPR_BINARY,  /* lhs op rhs */
	GS_EXPR_DEREF,   /* *(size bytes *)(lhs) from user memory; size 0: `*p`
			  * through lhs's pointer type (a source-level value) */
	/* Source-level values (the contract with the parser and the runtime is
	 * described below the struct). */
	GS_EXPR_NAME,    /* a DWARF variable: dvar */
	GS_EXPR_MEMBER,  /* lhs.name, lhs->name (a pointer is followed either way) */
	GS_EXPR_INDEX,   /* lhs[rhs]: an array element, or p[i] through a pointer */
	GS_EXPR_ADDR,    /* &lhs */
	GS_EXPR_CAST,    /* cast(lhs, "type_name"): cast_type */
	GS_EXPR_BUILTIN, /* builtin(lhs, rhs[, len]) */
	GS_EXPR_BYTES,   /* hex("de ad") or a "string" operand of a builtin: bytes */
};

enum gs_builtin {
	GS_BUILTIN_MEMCMP,      /* memcmp(a, b, len): 1 when the len bytes are equal */
	GS_BUILTIN_STRNCMP,     /* strncmp(a, "lit", len): 1 when equal, as C's == 0 */
	GS_BUILTIN_STARTS_WITH, /* starts_with(a, "lit") */
};

enum gs_special {
	GS_SPECIAL_PID,       /* TGID, namespace-aware when configured */
	GS_SPECIAL_TID,
	GS_SPECIAL_HOST_PID,  /* host TGID */
	GS_SPECIAL_TIMESTAMP, /* bpf_ktime_get_ns() */
	GS_SPECIAL_PC,        /* pt_regs ip */
	GS_SPECIAL_SP,        /* pt_regs sp */
	GS_SPECIAL_RETVAL,    /* return probes: pt_regs ax, a 64-bit integer */
};

enum gs_binop {
	GS_OP_ADD, GS_OP_SUB, GS_OP_MUL, GS_OP_DIV, GS_OP_MOD,
	GS_OP_SHL, GS_OP_SHR, GS_OP_AND, GS_OP_OR, GS_OP_XOR,
	GS_OP_EQ, GS_OP_NE, GS_OP_LT, GS_OP_LE, GS_OP_GT, GS_OP_GE,
	GS_OP_LAND, GS_OP_LOR, /* short-circuit */
};

/* Script integers are signed 64-bit; comparisons and logical operators
 * give booleans (0/1); a dereference gives the unsigned value of its size
 * (sign-extended when is_signed). */
struct gs_expr {
	enum gs_expr_kind kind;
	const char *text; /* source text: the variable name shown in output */
	int64_t value;
	enum gs_special special;
	uint8_t reg;
	uint32_t var;
	int op;           /* enum gs_binop, or '-', '!', '~' for unary */
	uint8_t size;     /* GS_EXPR_DEREF: 1, 2, 4 or 8 (0: by the pointer type) */
	bool is_signed;   /* GS_EXPR_DEREF */
	const struct gs_expr *lhs, *rhs;
	/* source-level values */
	const char *name;                /* NAME: the variable; MEMBER: the member */
	const struct gs_var *dvar;       /* NAME: resolved by the caller */
	const char *type_name;           /* CAST: as written */
	const struct gs_type *cast_type; /* CAST: resolved by the caller */
	uint8_t builtin;                 /* BUILTIN: enum gs_builtin */
	const struct gs_expr *len;       /* BUILTIN: the length (NULL for starts_with) */
	const uint8_t *bytes;            /* BYTES */
	uint32_t nbytes;
	/* Where a message about this node points in its script (a byte
	 * offset: the name, the member after '.', the '['); 0 when the node
	 * does not come from a script. */
	uint32_t pos;
};

/* Whether e is a source-level value (a DWARF name, or a member, element,
 * pointee, address or cast of one): typed by a gs_type, not an integer. */
static inline bool gs_expr_is_value(const struct gs_expr *e)
{
	if (!e)
		return false;
	switch (e->kind) {
	case GS_EXPR_NAME:
	case GS_EXPR_MEMBER:
	case GS_EXPR_INDEX:
	case GS_EXPR_ADDR:
	case GS_EXPR_CAST:
		return true;
	case GS_EXPR_DEREF:
		return e->size == 0;
	default:
		return false;
	}
}

/* Source-level values, from script text to a built program:
 *
 *  1. The parser builds trees without DWARF: an identifier that is not a
 *     `let` variable or a special becomes GS_EXPR_NAME with `name` set and
 *     `dvar` NULL; `a.b`/`a->b` GS_EXPR_MEMBER (name = "b"), `a[i]`
 *     GS_EXPR_INDEX, `*p` GS_EXPR_DEREF with size 0, `&x` GS_EXPR_ADDR,
 *     `cast(e, "T")` GS_EXPR_CAST with type_name, `hex("..")` and string
 *     operands of builtins GS_EXPR_BYTES (the decoded bytes; a string
 *     operand without its NUL).
 *  2. The runtime, for each probe address, resolves the names against the
 *     probe module's DWARF before the build: dvar = gs_dwarf_lookup() at
 *     the probe PC (other modules' globals by name in -p mode), cast_type =
 *     gs_dwarf_find_type(). An unknown name is a user error reported then,
 *     with the position the parser kept.
 *  3. gs_program_build() does the rest without libdw: member names, array
 *     strides, pointer targets and bit fields come from the gs_type trees;
 *     a bad access path ("no member 'z' in struct point") fails the build
 *     with a message naming the member and type. The gs_var and gs_type
 *     data must stay valid until gs_program_build() returns; the program's
 *     context holds its own copies of the types. */

/* ---- statements --------------------------------------------------------- */

enum gs_stmt_kind {
	GS_STMT_PRINT_STRING, /* print "literal"; */
	GS_STMT_PRINT_FORMAT, /* print "fmt {} {:x}", args...; */
	GS_STMT_PRINT_EXPR,   /* print expr; */
	GS_STMT_LET,          /* let name = expr; (var = its index) */
	GS_STMT_IF,           /* if cond { then } else { otherwise } */
	GS_STMT_BACKTRACE,    /* bt [raw|full|inline|noinline]; */
};

struct gs_stmt {
	enum gs_stmt_kind kind;
	const char *text;              /* literal or format string */
	const struct gs_expr *const *args;
	size_t nargs;
	const struct gs_expr *expr;    /* print expr / let value / if condition */
	uint32_t var;                  /* GS_STMT_LET */
	const struct gs_stmt *then_body;
	size_t nthen;
	const struct gs_stmt *else_body; /* an else-if is one GS_STMT_IF here */
	size_t nelse;
	uint8_t bt_flags;              /* GS_BT_FLAG_* */
};

/* The number of `bt` statements in body (the branches of ifs included):
 * the one answer to "does this trace unwind" for every layer. */
GS_API uint32_t gs_stmts_count_bt(const struct gs_stmt *body, size_t n);
/* Those of them whose frames are symbolized (not `bt raw`). */
GS_API uint32_t gs_stmts_count_bt_symbolized(const struct gs_stmt *body, size_t n);

/* What `bt` knows at compile time about the probe (reference 6.3-6.5),
 * filled in by the caller from the unwind layer: codegen and unwind meet
 * only through these protocol structs. */
enum gs_bt_first_row {
	GS_BT_ROW_USABLE,      /* first_row holds the probe PC's row */
	GS_BT_ROW_MISSING,     /* no CFI row covers the probe PC */
	GS_BT_ROW_UNSUPPORTED, /* a row exists but cannot be exported */
};

struct gs_bt_probe {
	uint64_t cookie;        /* the probe module's cookie */
	uint64_t pc;            /* the probe PC, module link-time address */
	uint8_t first_row_kind; /* enum gs_bt_first_row */
	struct gs_unwind_row first_row;
	/* Rows the runtime will put in bt_unwind_rows: 0 means none at all. */
	uint32_t nrows;
	/* Rows of several modules with bt_module_row_ranges: each caller
	 * frame's module is resolved at run time through proc_module_ranges.
	 * Without it every frame is taken to be in the probe module and its
	 * rows are [0, nrows). */
	bool module_ranges;
};

struct gs_trace_spec {
	uint32_t trace_id;
	const char *target;     /* what the user wrote, for messages */
	const struct gs_stmt *body;
	size_t nbody;
	uint32_t nvars;         /* number of `let` variables (indices 0..nvars-1) */
	/* Their names, for `{:x.name$}` lengths (may be NULL otherwise). */
	const char *const *var_names;
	/* NULL: no DWARF context for the probe; `bt` reports DwarfUnavailable. */
	const struct gs_bt_probe *bt;
	/* A return probe (uretprobe at the entry of function `target` names):
	 * $retval is rax as a signed 64-bit integer. Hook for DWARF types:
	 * the function's DW_AT_type will give $retval its type here. */
	bool retprobe;
};

/* ---- options (GS_OPTS; zero = the reference's defaults, spec section 4) -- */

enum gs_output_kind {
	GS_OUTPUT_RINGBUF = 0,
	GS_OUTPUT_PERF = 1,
};

/* Which backtrace walker `bt` compiles to. */
enum gs_unwinder {
	GS_UNWINDER_TAILCALL = 0, /* the reference's: 5 frames inline, then a tail-called
				   * step program (depth <= 128, any kernel with BPF) */
	GS_UNWINDER_LOOP = 1,     /* one global subprogram with a bpf_loop (Linux 5.17+),
				   * shared by every `bt`, depth <= 512 */
};

struct gs_program_opts {
	size_t sz; /* sizeof(struct gs_program_opts): lets the struct grow */
	enum gs_output_kind output;
	uint32_t max_trace_event_size; /* 0: 32768 (clamped to the output buffer) */
	uint32_t ringbuf_size;         /* 0: 262144 */
	uint32_t perf_page_count;      /* 0: 64 */
	/* PID filter: none when filter_pid == 0. With pid_ns_ino set, the
	 * filter compares the TGID seen in that PID namespace (helper 120). */
	uint32_t filter_pid;
	uint64_t pid_ns_dev, pid_ns_ino;
	/* Namespace for $pid/$tid when there is no namespace filter. */
	uint64_t special_ns_dev, special_ns_ino;
	uint32_t backtrace_depth;        /* 0: 128; clamped to 1..128 (tail call)
					  * or 1..512 (loop) */
	enum gs_unwinder unwinder;
	uint32_t unwind_rows_max;        /* 0: 65536 bt_unwind_rows entries */
	uint32_t proc_offsets_max;       /* 0: 4096 (module maps' capacity) */
	/* Cap of `{:s}` strings and `{:x.N}`/`{:s.N}` dumps, in bytes; 0: 256
	 * (the reference's mem_dump_cap). Bounded by the event size. */
	uint32_t max_string_len;
	/* Cap of the bytes memcmp/strncmp/starts_with compare; 0: 64. */
	uint32_t compare_cap;
	/* Skip gs_asm_check() of the result (about 20 ns per instruction);
	 * the kernel's verifier still checks at load time. */
	bool skip_check;
	/* Count stacks in BPF instead of emitting events: each hit adds one
	 * to stack_counts[its stack] (struct gs_stack_count_key, protocol.h)
	 * and sends nothing; a stack the full map cannot take adds one to
	 * stack_count_drops. The body must be exactly one `bt` (any flags)
	 * and the unwinder the loop walker (the build fails otherwise,
	 * naming why). */
	bool count_stacks;
	uint32_t stack_counts_max; /* 0: GS_DEFAULT_STACK_COUNTS_MAX entries */
};

/* ---- the result ----------------------------------------------------------- */

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
	struct gs_map_spec *maps;  /* in gs_asm map-index order (both programs) */
	size_t nmaps;
	int map_index[GS_MAP_KINDS]; /* enum gs_map_slot -> index in maps, or -1 */
	struct gs_trace_context ctx;
	uint32_t trace_id;
	uint32_t max_trace_event_size;
	uint16_t total_instructions; /* what EndInstruction carries */
	char name[64];               /* program name for the kernel */
	char step_name[64];
	uint32_t backtrace_depth;    /* in force, 1..128 (tail call) or 1..512 (loop) */
	enum gs_unwinder unwinder;   /* in force */
	uint32_t bt_slots;           /* bt_state entries */
};

/* Builds `spec` into a new program. 0, or -errno with err naming the
 * statement or expression at fault. Free with gs_program_free(). */
GS_API int gs_program_build(const struct gs_trace_spec *spec, const struct gs_program_opts *opts,
			    struct gs_program **out, struct gs_error *err);
/* The same; on failure *at is the expression of spec the error is about
 * (the member a type lacks, the value a placeholder cannot print), or
 * NULL when the error is about no expression: a caller with the script
 * can then show the error where the user wrote it. */
GS_API int gs_program_build_at(const struct gs_trace_spec *spec,
			       const struct gs_program_opts *opts, struct gs_program **out,
			       const struct gs_expr **at, struct gs_error *err);
GS_API void gs_program_free(struct gs_program *p);

#ifdef __cplusplus
}
#endif

#endif /* GS_PROGRAM_H */
