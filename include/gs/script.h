/* The script language (docs/cli.md): text -> a list of traces, each a
 * target pattern and a body of gs_stmt / gs_expr trees ready for
 * gs_program_build(). Errors carry `name:line:column`, the source line and
 * a caret under the column. Everything a script owns lives in one arena. */
#ifndef GS_SCRIPT_H
#define GS_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/error.h>
#include <gs/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What `trace <pattern>` names (the first kind that matches wins). */
enum gs_target_kind {
	GS_TARGET_FUNCTION,       /* main                      name */
	GS_TARGET_ADDRESS,        /* 0x1139                    address */
	GS_TARGET_MODULE_ADDRESS, /* /usr/lib/libfoo.so:0x1139 name, address */
	GS_TARGET_FILE_LINE,      /* demo.c:43                 name, line */
};

/* A trace target, parsed once: the runtime resolves this, never the text. */
struct gs_target_pattern {
	enum gs_target_kind kind;
	const char *text;       /* the pattern as written: "libfoo.so:0x1139" */
	const char *name;       /* function, module path or file; NULL for ADDRESS */
	uint64_t address;       /* ADDRESS, MODULE_ADDRESS: module-relative vaddr */
	uint32_t line;          /* FILE_LINE: 1.. */
};

/* Parses a target given on its own (the rules of `trace <pattern>`) into
 * one malloc'd block: release it with free(). -EINVAL with err naming the
 * pattern and the fix, or -ENOMEM. */
GS_API int gs_target_pattern_parse(const char *text, struct gs_target_pattern **out,
				   struct gs_error *err);

/* `let` variables a trace may bind. Each lives in an 8-byte slot of the
 * 512-byte BPF stack for the whole program; this many leave room for the
 * rest (event framing, reads, nested conditions). A script with more is
 * refused at the first let past the limit. */
#define GS_SCRIPT_LETS_MAX 48

struct gs_script_trace {
	struct gs_target_pattern target;
	unsigned line, column;  /* where the pattern starts in the script, 1-based */
	size_t offset;          /* ... as a byte offset (for gs_script_trace_errorf) */
	const struct gs_stmt *body;
	size_t nbody;
	uint32_t nvars;         /* `let` variables: GS_EXPR_VAR / GS_STMT_LET .var < nvars */
	const char *const *var_names; /* nvars names, by index */
	bool retprobe;          /* `trace FN return { ... }`: at the function's return */
};

struct gs_arena;

struct gs_script {
	const struct gs_script_trace *traces;
	size_t ntraces;
	/* private */
	struct gs_arena *arena;
	const char *name, *source;
	size_t source_len;
};

/* Options (GS_OPTS); zero (or NULL options) gives the defaults. */
struct gs_script_opts {
	size_t sz;          /* sizeof(struct gs_script_opts): lets the struct grow */
	const char *name;   /* shown before line:column in messages; NULL: "script" */
	/* $input_pid is the PID given with -p: a compile-time
	 * constant. 0 means there is none, and $input_pid is an error. */
	uint32_t input_pid;
};

/* Parses len bytes of text (need not be NUL-terminated; a NUL byte inside is
 * an error; copied: the script keeps its own for messages). opts may be
 * NULL. 0 and *out, or -EINVAL (the script is wrong: err says where and
 * what to do) or -ENOMEM, with *out NULL. Free with gs_script_free()
 * (NULL is fine), after every plan made from it. */
GS_API int gs_script_parse(const char *text, size_t len, const struct gs_script_opts *opts,
			   struct gs_script **out, struct gs_error *err);
GS_API void gs_script_free(struct gs_script *s);

/* The spec of trace t (one of s->traces), written into *spec, for
 * gs_program_build(); never fails. spec->bt stays NULL: the
 * caller fills it from the unwind layer once the target is resolved. The
 * spec points into s: it is valid until gs_script_free(). */
GS_API void gs_script_trace_spec(const struct gs_script_trace *t, uint32_t trace_id,
				 struct gs_trace_spec *spec);

/* Formats an error about t's target ("unknown function 'foo'") the way
 * parse errors look: position, the source line and a caret, into err
 * (may be NULL). Returns code. */
__attribute__((format(printf, 5, 6)))
GS_API int gs_script_trace_errorf(const struct gs_script *s, const struct gs_script_trace *t,
				  struct gs_error *err, int code, const char *fmt, ...);

/* The same about an expression of s's traces (an unknown name, a member a
 * type lacks): at the expression's pos, with its source line and caret.
 * Returns code. */
__attribute__((format(printf, 5, 6)))
GS_API int gs_script_expr_errorf(const struct gs_script *s, const struct gs_expr *e,
				 struct gs_error *err, int code, const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif /* GS_SCRIPT_H */
