/* The spec of a trace: what one `trace` block asks for, as statement and
 * expression trees. The script parser writes them (or a library user, by
 * hand), the runtime resolves their source-level names against DWARF, the
 * code generator compiles them and the renderer shows their values. This
 * layer holds the trees, their side tables (gs/context.h), the format
 * grammar (gs/format.h) and the walks every pass shares: a visitor, the
 * costliest path through a body, and a copy. It depends on nothing else of
 * libgs. */
#ifndef GS_SPEC_H
#define GS_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_var;  /* gs/value.h: where a DWARF variable lives at a PC */
struct gs_type; /* gs/context.h: a value's type */

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
	GS_EXPR_BUILTIN, /* builtin(lhs, rhs[, len]); len(lhs) */
	GS_EXPR_BYTES,   /* hex("de ad") or a "string" operand of a builtin: bytes */
};

enum gs_builtin {
	GS_BUILTIN_MEMCMP,      /* memcmp(a, b, len): 1 when the len bytes are equal */
	GS_BUILTIN_STRNCMP,     /* strncmp(a, "lit", len): 1 when equal, as C's == 0 */
	GS_BUILTIN_STARTS_WITH, /* starts_with(a, "lit") */
	GS_BUILTIN_LEN,         /* len(a): the elements of a standard-library sequence
				 * or string (a view, gs/view.h), or of a C array;
				 * an unsigned long */
};

enum gs_special {
	GS_SPECIAL_PID,       /* TGID, namespace-aware when configured */
	GS_SPECIAL_TID,
	GS_SPECIAL_HOST_PID,  /* host TGID */
	GS_SPECIAL_TIMESTAMP, /* bpf_ktime_get_ns() */
	GS_SPECIAL_PC,        /* pt_regs ip */
	GS_SPECIAL_SP,        /* pt_regs sp */
	GS_SPECIAL_RETVAL,    /* return probes: pt_regs ax, a 64-bit integer */
	GS_SPECIAL_DURATION,  /* return probes: nanoseconds since the same thread's
			       * entry of this call (an unsigned long) */
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
	uint8_t size;     /* GS_EXPR_DEREF: 1, 2, 4 or 8 (0: by the pointer type);
			   * GS_EXPR_INT: the literal's C type, 4 or 8 (0: int
			   * when value fits one, else long) */
	bool is_signed;   /* GS_EXPR_DEREF, GS_EXPR_INT */
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
	GS_STMT_AGGREGATE,    /* @name[args...] = agg_fn(expr[, min, max, step]); */
};

/* What an aggregation keeps per key (docs/cli.md, "Aggregations"). */
enum gs_agg_fn {
	GS_AGG_COUNT, /* count(): the hits */
	GS_AGG_SUM,   /* sum(x) */
	GS_AGG_MIN,   /* min(x) */
	GS_AGG_MAX,   /* max(x) */
	GS_AGG_AVG,   /* avg(x): sum / count, an integer */
	GS_AGG_STATS, /* stats(x): count, average and total */
	GS_AGG_HIST,  /* hist(x): power-of-two buckets */
	GS_AGG_LHIST, /* lhist(x, min, max, step): linear buckets */
};

/* An aggregation statement's own part: which aggregation of the script
 * (one id per @name, shared by every trace that updates it), what it
 * keeps, and lhist's constant bounds. */
struct gs_agg_stmt {
	const char *name;  /* "@name", as written */
	uint32_t id;       /* the script's index of @name */
	uint8_t fn;        /* enum gs_agg_fn */
	int64_t lmin, lmax, lstep; /* GS_AGG_LHIST */
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
	/* GS_STMT_AGGREGATE: the keys are args (none: one value), the
	 * aggregated value expr (NULL for count()) */
	const struct gs_agg_stmt *agg;
};

/* The number of `bt` statements in body (the branches of ifs included):
 * the one answer to "does this trace unwind" for every layer. */
GS_API uint32_t gs_stmts_count_bt(const struct gs_stmt *body, size_t n);
/* Those of them whose frames are symbolized (not `bt raw`). */
GS_API uint32_t gs_stmts_count_bt_symbolized(const struct gs_stmt *body, size_t n);
/* Whether body reads user memory besides the stack a `bt` walks: a
 * source-level value, a `*(T *)addr` or a comparison builtin (the one
 * answer to "is there anything to fault in"). */
GS_API bool gs_stmts_read_user_memory(const struct gs_stmt *body, size_t n);
/* Whether body updates an @aggregation. */
GS_API bool gs_stmts_aggregate(const struct gs_stmt *body, size_t n);
/* Whether body shows something per hit (a print or a `bt`): a body of
 * aggregations (and lets and ifs) alone sends no event. */
GS_API bool gs_stmts_emit_events(const struct gs_stmt *body, size_t n);
/* Whether body reads $duration: its return probe then needs the entry's
 * time, kept by a program at the function's entry. */
GS_API bool gs_stmts_use_duration(const struct gs_stmt *body, size_t n);

/* What `bt` knows at compile time about the probe (docs/protocol.md,
 * "Backtraces"),
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
	/* A CPU sample instead of a probe (gstrace --profile): enum
	 * gs_sample_scope. The program is a perf_event program run by every
	 * CPU's clock; its one `bt` walks the interrupted task's user
	 * registers (bpf_task_pt_regs: Linux 5.15+, and the loop walker needs
	 * 5.17), and bt->cookie is 0: each frame's module is found at run
	 * time. Samples of the idle task are never counted. */
	uint8_t sample;
};

enum gs_sample_scope {
	GS_SAMPLE_NONE = 0,  /* a uprobe's program */
	GS_SAMPLE_PID = 1,   /* the process gs_program_opts.filter_pid names */
	GS_SAMPLE_KNOWN = 2, /* processes the runtime has filled the module maps of (-t) */
	GS_SAMPLE_ALL = 3,   /* every process (--all) */
};

/* What an aggregation's keys are, as userspace reads them from a
 * struct gs_agg_key: the code generator writes one per aggregation it
 * compiles (from the typed pass), the renderer reads the keys by it. */
enum gs_agg_key_kind {
	GS_AGG_KEY_INT,    /* 8 bytes, signed */
	GS_AGG_KEY_UINT,   /* 8 bytes, unsigned (pointers: shown in hex) */
	GS_AGG_KEY_BOOL,   /* 8 bytes, 0 or 1 */
	GS_AGG_KEY_POINTER,
	GS_AGG_KEY_STRING, /* GS_AGG_STRING_MAX bytes, NUL-terminated or cut */
};

struct gs_agg_desc {
	const char *name; /* "@name" */
	uint32_t id;
	uint8_t fn;       /* enum gs_agg_fn */
	uint8_t nkeys;
	uint8_t key_kind[GS_AGG_MAX_KEYS];  /* enum gs_agg_key_kind */
	uint16_t key_off[GS_AGG_MAX_KEYS];  /* in gs_agg_key.keys */
	int64_t lmin, lmax, lstep;          /* GS_AGG_LHIST */
	/* An enum key's type (its enumerators name its values), else NULL:
	 * the program's own copy, valid while the program is. */
	const struct gs_type *key_enum[GS_AGG_MAX_KEYS];
};

/* ---- walks ---------------------------------------------------------------- */

/* What a visitor callback answers: go on into the node's children, skip
 * them (the walk goes on with the next sibling), or stop the whole walk. */
enum gs_visit {
	GS_VISIT_CONTINUE,
	GS_VISIT_SKIP,
	GS_VISIT_STOP,
};

/* One walk over statements and expressions, in source order: a statement,
 * then its expression (condition, `let` value, printed expression), its
 * arguments in order, its then branch and its else branch; an expression
 * node, then lhs, rhs and len. Either callback may be NULL. Embed the
 * struct in a pass's own state and reach it with container_of-style
 * arithmetic, or keep the state behind `arg`. */
struct gs_visitor {
	enum gs_visit (*stmt)(struct gs_visitor *v, const struct gs_stmt *s);
	enum gs_visit (*expr)(struct gs_visitor *v, const struct gs_expr *e);
	/* After a node's children (post-order; not called for a node whose
	 * own callback answered SKIP or STOP): what bottom-up passes, such
	 * as the typed pass, compute from. Answer CONTINUE or STOP. */
	enum gs_visit (*stmt_after)(struct gs_visitor *v, const struct gs_stmt *s);
	enum gs_visit (*expr_after)(struct gs_visitor *v, const struct gs_expr *e);
	void *arg;
};

/* Walks body; true when a callback stopped the walk. */
GS_API bool gs_visit_stmts(struct gs_visitor *v, const struct gs_stmt *body, size_t n);
/* Walks the tree under e (e may be NULL); true when a callback stopped it. */
GS_API bool gs_visit_expr(struct gs_visitor *v, const struct gs_expr *e);

/* The costliest path through body: the sum of cost(s) over its statements,
 * where an `if` adds its own cost (its condition's) and the larger of its
 * two branches' paths. Saturates at UINT64_MAX. */
GS_API uint64_t gs_spec_path_max(const struct gs_stmt *body, size_t n,
				 uint64_t (*cost)(const struct gs_stmt *s, void *arg), void *arg);

/* A deep copy of a body into memory the caller hands out. Each expression
 * node is copied, then `expr` may change the copy (resolve a name, rewrite
 * its kind) before its operands are copied. A nonzero answer of `expr`,
 * or NULL from `alloc`, stops the copy: gs_spec_copy_body() returns NULL
 * and *rc is that answer (-ENOMEM for alloc). `alloc` memory is never
 * freed here: hand it out of an arena. */
struct gs_spec_copier {
	void *(*alloc)(struct gs_spec_copier *c, size_t size);
	int (*expr)(struct gs_spec_copier *c, struct gs_expr *copy);
	void *arg;
	int rc; /* 0, or why the copy stopped */
};

/* The copy of body (n statements), or NULL when n is 0 or c->rc is set. */
GS_API const struct gs_stmt *gs_spec_copy_body(struct gs_spec_copier *c,
					       const struct gs_stmt *body, size_t n);

/* ---- the typed pass: C types of computed values ------------------------- */

/* What C says a computed value is (C11 6.3.1.1 integer promotions, 6.3.1.8
 * usual arithmetic conversions), for 8/16/32/64-bit signed and unsigned
 * integers, bool, char, enums and pointers. The code generator keeps such
 * a value in a 64-bit register as its mathematical value: sign-extended
 * from `size` bytes when signed, zero-extended when not. */
enum gs_ctype_kind {
	GS_CT_INT,     /* an integer (char and enum included) */
	GS_CT_BOOL,    /* _Bool: 0 or 1 */
	GS_CT_POINTER, /* an address (an array decays to one); + and - step by
			* elements, compares are unsigned long's */
	GS_CT_OTHER,   /* a struct, union, float or unknown: not computed with */
};

/* Where a value comes from, for the emitters' choice of code. */
enum gs_value_kind {
	GS_VK_CONSTANT, /* known at build time */
	GS_VK_REGISTER, /* a pt_regs register or a special read from one */
	GS_VK_MEMORY,   /* read from user memory (a DWARF value or a dereference) */
	GS_VK_COMPUTED, /* the result of an operator, a builtin or a helper */
};

struct gs_ctype {
	uint8_t kind;  /* enum gs_ctype_kind */
	uint8_t size;  /* bytes: 1, 2, 4 or 8 */
	bool is_signed;
	uint8_t value; /* enum gs_value_kind */
};

#define GS_CTYPE_INT ((struct gs_ctype){ GS_CT_INT, 4, true, GS_VK_COMPUTED })
#define GS_CTYPE_LONG ((struct gs_ctype){ GS_CT_INT, 8, true, GS_VK_COMPUTED })
#define GS_CTYPE_ULONG ((struct gs_ctype){ GS_CT_INT, 8, false, GS_VK_COMPUTED })

/* The C type of a value of DWARF type t (typedefs are seen through by the
 * dwarf layer already); GS_CT_OTHER for what is not a scalar. */
GS_API struct gs_ctype gs_ctype_of_type(const struct gs_type *t);
/* C11 6.3.1.1: bool, char, short and enums narrower than int become int. */
GS_API struct gs_ctype gs_ctype_promote(struct gs_ctype t);
/* C11 6.3.1.8 on two promoted operands: the type both are converted to. */
GS_API struct gs_ctype gs_ctype_common(struct gs_ctype a, struct gs_ctype b);
/* v (a value of any type, as 64 bits) converted to t: truncated to t's
 * size, then sign- or zero-extended as t says. */
GS_API int64_t gs_ctype_convert(int64_t v, struct gs_ctype t);

/* A binary operator's types: `operands` is what both sides are converted
 * to before the operation (for shifts, the promoted left side's type; the
 * right side is a count), `result` the type of the value it gives
 * (comparisons and && || give int). */
struct gs_ctype_op {
	struct gs_ctype operands, result;
};
/* The types of lhs op rhs (op: enum gs_binop); never fails: an unknown
 * op gets the usual arithmetic conversions. */
GS_API struct gs_ctype_op gs_ctype_binary(int op, struct gs_ctype lhs, struct gs_ctype rhs);

/* The typed pass over a body: every expression's C type, kept beside the
 * trees (they stay const) and looked up by node. `value_type` gives the
 * DWARF type of a source-level value (gs_expr_is_value), or NULL when it
 * has none (the caller reports why); a NULL callback types them as
 * unsigned long. */
struct gs_typed;

/* An empty pass, or NULL without memory; gs_typed_free() frees it (NULL
 * is fine). */
GS_API struct gs_typed *gs_typed_new(void);
GS_API void gs_typed_free(struct gs_typed *t);
/* Types every expression of body (borrowed: its nodes are the keys, so it
 * outlives the lookups); -ENOMEM, or 0. A `let` variable takes its
 * value's type (index: the variable). */
GS_API int gs_typed_body(struct gs_typed *t, const struct gs_stmt *body, size_t n,
			 const struct gs_type *(*value_type)(const struct gs_expr *e, void *arg),
			 void *arg);
/* e's type; an expression the pass did not see is a long, computed. */
GS_API struct gs_ctype gs_typed_get(const struct gs_typed *t, const struct gs_expr *e);

#ifdef __cplusplus
}
#endif

#endif /* GS_SPEC_H */
