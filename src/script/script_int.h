/* Shared between the files of the script parser: the arena, the tokens the
 * lexer produces, and the parser state the expression and statement
 * parsers work on. Not part of the script API (script.h). */
#ifndef GS_SCRIPT_INT_H
#define GS_SCRIPT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/script.h>

/* Deeper nesting than this (parentheses, unary chains, operator chains,
 * if/else) is refused: it keeps the parser's and the code generator's
 * recursion bounded on any input. */
#define SCRIPT_MAX_DEPTH 128

/* ---- arena: everything a gs_script owns lives in its arena (base.h) ---- */

#include "base.h"

/* ---- tokens ---------------------------------------------------------------- */

enum tok_kind {
	T_EOF, T_IDENT, T_INT, T_FLOAT, T_STRING, T_SPECIAL, T_AGG,
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET,
	T_SEMI, T_COMMA, T_DOT, T_ARROW, T_COLON, T_ASSIGN,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_SHL, T_SHR,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
	T_AMP, T_ANDAND, T_PIPE, T_OROR, T_CARET, T_BANG, T_TILDE,
};

struct token {
	enum tok_kind kind;
	size_t off, len;   /* in the source */
	uint64_t value;    /* T_INT */
	bool decimal;      /* T_INT: written in base 10 */
};

/* A `let` variable in scope. */
struct scope_var {
	const char *name;
	size_t off;        /* where it was bound, for messages */
	uint32_t index;
	/* `let p = &x;`, `let r = a->b;`: a source-level value is an alias
	 * (docs/cli.md, "Values"), its expression used where the name is (no
	 * slot). */
	const struct gs_expr *alias;
};

/* One @name of the script: what its first use said it is. */
struct sp_agg {
	const char *name;
	size_t off;     /* the first use */
	uint8_t fn;     /* enum gs_agg_fn */
	uint8_t nkeys;
};

struct parser {
	const char *src;
	size_t len;
	const char *name;
	uint32_t input_pid;
	bool in_return;    /* parsing a return probe's body: $retval is known */
	struct gs_arena **arena;
	struct gs_error *err;
	int code;          /* first error: -EINVAL or -ENOMEM; 0 while fine */

	size_t pos;        /* where the lexer continues */
	struct token tok;  /* the lookahead, when have_tok */
	bool have_tok;
	size_t prev_end;   /* end of the last consumed token */
	unsigned depth;    /* recursion guards: expressions, if/else */
	unsigned block_depth;
	unsigned target_line;     /* line of the last trace target, */
	size_t target_line_start; /* ... and where that line starts */

	/* `let` variables of the current trace */
	struct scope_var *scope;
	size_t nscope, scope_cap;
	const char **var_names;
	size_t var_names_cap;
	uint32_t nvars;

	/* the script's aggregations (@names), across its traces */
	struct sp_agg *aggs;
	size_t naggs, aggs_cap;
};

/* ---- diagnostics (script_diag.c) --------------------------------------------- */

/* Records the first error, at byte offset off. Later calls are ignored. */
__attribute__((format(printf, 3, 4)))
void sp_err(struct parser *p, size_t off, const char *fmt, ...);
void sp_nomem(struct parser *p);
/* "L:C" of an offset, for messages that mention another place. */
void sp_pos_string(const struct parser *p, size_t off, char *buf, size_t size);
/* Line and column of off, counting from a known line start (0 and line 1
 * for the start of the text) at or before it; *line_start: where off's
 * line starts, to count the next offset from. */
void sp_locate_from(const char *src, size_t len, size_t off, size_t start, unsigned line,
		    unsigned *line_out, unsigned *col, size_t *line_start);

/* ---- lexer (script_lex.c) ----------------------------------------------------- */

/* Skips whitespace and comments from *pos; false after a lexical error. */
bool sp_lex_skip(struct parser *p, size_t *pos);
/* The token at *pos (after whitespace), advancing *pos past it. On a
 * lexical error the parser has failed and *t is T_EOF. */
void sp_lex_token(struct parser *p, size_t *pos, struct token *t);
/* The string token's contents with escapes resolved (and, when
 * unbrace, "{{" "}}" turned into single braces). NULL: failed. */
char *sp_string_value(struct parser *p, const struct token *t, bool unbrace);
/* "'foo'", "the end of the script", "a string": what a token is, for messages. */
void sp_tok_describe(const struct parser *p, const struct token *t, char *buf, size_t size);
bool sp_ident_start(int c);
bool sp_ident_char(int c);

/* ---- token stream (script_lex.c) --------------------------------------------- */

const struct token *sp_peek(struct parser *p);
/* The token after the lookahead, without consuming anything. */
struct token sp_peek2(struct parser *p);
void sp_next(struct parser *p);
bool sp_at(struct parser *p, enum tok_kind k);
bool sp_accept(struct parser *p, enum tok_kind k);
bool sp_tok_is(const struct parser *p, const struct token *t, const char *word);
/* Consumes k, or fails with "expected <what> <context>" just after the
 * previous token (where the missing token belongs). */
bool sp_expect(struct parser *p, enum tok_kind k, const char *what, const char *context);

/* ---- expressions (script_expr.c) ------------------------------------------ */

const struct gs_expr *sp_expr(struct parser *p);
const struct gs_expr *sp_unary(struct parser *p);
/* A node whose text is the source from start to the last token consumed;
 * its pos is start. NULL (and the parser failed) past the nesting limit. */
struct gs_expr *sp_node(struct parser *p, enum gs_expr_kind kind, size_t start,
			unsigned depth);
/* Height of the tree under e (for the nesting limit). */
unsigned sp_depth(const struct gs_expr *e);
/* The names the language reserves (keywords, types, registers, builtins):
 * a description ("a register name") or NULL. */
const char *sp_reserved_name(const char *name, size_t len);
/* The visible `let` variable named so, or NULL. */
const struct scope_var *sp_scope_find(const struct parser *p, const char *name, size_t len);

/* ---- source-level values (script_value.c) ---------------------------------- */

/* .member, ->member and [index] after e (which starts at start). */
struct gs_expr *sp_postfix(struct parser *p, struct gs_expr *e, size_t start);
/* `*` and `&` (consumed) before the operand that follows; start is theirs. */
struct gs_expr *sp_value_deref(struct parser *p, size_t start);
/* Whether e may be pointer arithmetic over a source-level value (p + n):
 * the code generator decides from the types. */
bool sp_may_be_pointer(const struct gs_expr *e);
/* A string literal (the current token) as GS_EXPR_BYTES, without its NUL. */
struct gs_expr *sp_string_literal(struct parser *p, const struct token *t);
struct gs_expr *sp_address_of(struct parser *p, size_t start);
/* The identifier t names an alias: its expression, shown under the name. */
struct gs_expr *sp_alias(struct parser *p, const struct scope_var *v, const struct token *t);
/* cast(), memcmp(), strncmp(), starts_with(), hex(): t is the name. */
struct gs_expr *sp_builtin(struct parser *p, const struct token *t);
/* len(x) at t, the name `len` before its '(' */
struct gs_expr *sp_len(struct parser *p, const struct token *t);

/* ---- aggregations (script_agg.c) --------------------------------------------- */

/* `@name[keys] = fn(args);` into st (the '@' token next) */
int sp_agg_stmt(struct parser *p, struct gs_stmt *st);

/* ---- trace targets (target.c) ----------------------------------------------- */

/* A target pattern's form; its name is the pattern's first name_len bytes. */
struct sp_target {
	enum gs_target_kind kind;
	size_t name_len; /* 0 for GS_TARGET_ADDRESS */
	uint64_t address;
	uint32_t line;
};

struct sp_target_error {
	size_t at;     /* byte offset in the pattern the message is about */
	char msg[GS_ERROR_MSG_MAX];
};

/* Characters a pattern is made of: file paths (alnum _ / . - +), ':', '*',
 * and what opens a qualified name's brackets ('<', '('). */
bool sp_target_char(int c);
/* The bytes of s a target spans (inside brackets, C++ type spellings). */
size_t sp_target_span(const char *s, size_t n);
/* Classifies the n bytes at s: true and *out, or false and *e. */
bool sp_target_classify(const char *s, size_t n, struct sp_target *out,
			struct sp_target_error *e);

/* ---- statements (script_stmt.c) ------------------------------------------- */

/* Statements up to the '}' of a block opened at open_off (consumed). */
int sp_block(struct parser *p, size_t open_off, const char *what,
		const struct gs_stmt **body, size_t *n);

#endif /* GS_SCRIPT_INT_H */
