/* Expressions (docs/cli.md, "Values") with C precedence, into gs_expr trees:
 * integer literals, true/false, $special variables, registers, `let`
 * variables, DWARF names, unary - ! ~ * &, typed memory reads *(u64 *)addr,
 * and the binary operators; postfix chains, casts and builtins are in
 * script_value.c. Each node carries its source text (whitespace normalized)
 * as the name the output shows, and where messages about it point. */
#include <stdio.h>
#include <string.h>

#include "script_int.h"

/* A node and the depth of the tree under it, for the nesting limit. */
struct enode {
	struct gs_expr e;
	unsigned depth;
};

unsigned sp_depth(const struct gs_expr *e)
{
	return ((const struct enode *)e)->depth;
}

/* Source text of [start, end) with each run of whitespace and comments
 * turned into one space. */
static char *source_text(struct parser *p, size_t start, size_t end)
{
	char *out = base_arena_alloc(p->arena, end - start + 1);
	size_t k = 0;

	if (!out)
		return NULL;
	for (size_t i = start; i < end;) {
		size_t j = i;

		sp_lex_skip(p, &j);
		if (j > i) {
			if (k && j < end)
				out[k++] = ' ';
			i = j;
			continue;
		}
		out[k++] = p->src[i++];
	}
	out[k] = '\0';
	return out;
}

struct gs_expr *sp_node(struct parser *p, enum gs_expr_kind kind, size_t start,
			unsigned depth)
{
	struct enode *n;

	if (p->code)
		return NULL;
	if (depth > SCRIPT_MAX_DEPTH) {
		sp_err(p, start, "expression is nested too deeply (more than %d levels): split it "
		       "with let", SCRIPT_MAX_DEPTH);
		return NULL;
	}
	n = base_arena_alloc(p->arena, sizeof(*n));
	if (n)
		n->e.text = source_text(p, start, p->prev_end);
	if (!n || !n->e.text) {
		sp_nomem(p);
		return NULL;
	}
	n->e.kind = kind;
	n->e.pos = (uint32_t)start;
	n->depth = depth;
	return &n->e;
}

/* ---- names ------------------------------------------------------------------------ */

static const struct { const char *name; uint8_t size; bool is_signed; } mem_types[] = {
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false }, { "u64", 8, false },
	{ "i8", 1, true }, { "i16", 2, true }, { "i32", 4, true }, { "i64", 8, true },
};

/* DWARF register numbers (the x86-64 psABI's). */
static const struct { const char *name; uint8_t reg; } registers[] = {
	{ "rax", 0 }, { "rdx", 1 }, { "rcx", 2 }, { "rbx", 3 }, { "rsi", 4 }, { "rdi", 5 },
	{ "rbp", 6 }, { "rsp", 7 }, { "r8", 8 }, { "r9", 9 }, { "r10", 10 }, { "r11", 11 },
	{ "r12", 12 }, { "r13", 13 }, { "r14", 14 }, { "r15", 15 }, { "rip", 16 },
};

static const char *const keywords[] = {
	"trace", "print", "bt", "backtrace", "if", "else", "let", "true", "false",
	"return",
};

static const char *const builtins[] = { "memcmp", "strncmp", "starts_with", "hex", "cast" };


static bool name_eq(const char *a, size_t alen, const char *b)
{
	return strlen(b) == alen && !memcmp(a, b, alen);
}

static int find_mem_type(const char *s, size_t n)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(mem_types); i++)
		if (name_eq(s, n, mem_types[i].name))
			return (int)i;
	return -1;
}

static int find_register(const char *s, size_t n)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(registers); i++)
		if (name_eq(s, n, registers[i].name))
			return registers[i].reg;
	return -1;
}

static bool in_list(const char *s, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (name_eq(s, n, list[i]))
			return true;
	return false;
}

const char *sp_reserved_name(const char *name, size_t len)
{
	if (in_list(name, len, keywords, BASE_ARRAY_SIZE(keywords)))
		return "a keyword";
	if (find_mem_type(name, len) >= 0)
		return "a type name";
	if (find_register(name, len) >= 0)
		return "a register name";
	if (in_list(name, len, builtins, BASE_ARRAY_SIZE(builtins)))
		return "a builtin function";
	return NULL;
}

const struct scope_var *sp_scope_find(const struct parser *p, const char *name, size_t len)
{
	for (size_t i = p->nscope; i-- > 0;)
		if (name_eq(name, len, p->scope[i].name))
			return &p->scope[i];
	return NULL;
}

/* ---- primaries ---------------------------------------------------------------------- */

#define SPECIALS "$pid $tid $host_pid $input_pid $timestamp $pc $sp $retval $duration"

static struct gs_expr *special(struct parser *p, const struct token *t)
{
	static const struct { const char *name; enum gs_special which; } specials[] = {
		{ "$pid", GS_SPECIAL_PID }, { "$tid", GS_SPECIAL_TID },
		{ "$host_pid", GS_SPECIAL_HOST_PID }, { "$timestamp", GS_SPECIAL_TIMESTAMP },
		{ "$pc", GS_SPECIAL_PC }, { "$sp", GS_SPECIAL_SP },
		{ "$retval", GS_SPECIAL_RETVAL }, { "$duration", GS_SPECIAL_DURATION },
	};
	const char *s = p->src + t->off;
	size_t off = t->off;
	struct gs_expr *e;

	if (name_eq(s, t->len, "$retval") && !p->in_return) {
		sp_err(p, off, "$retval is the return value, known only in a return probe: "
		       "write trace <function> return { ... }");
		return NULL;
	}
	if (name_eq(s, t->len, "$duration") && !p->in_return) {
		sp_err(p, off, "$duration is the time since the call's entry, known only in a "
		       "return probe: write trace <function> return { ... }");
		return NULL;
	}
	if (name_eq(s, t->len, "$input_pid")) {
		if (!p->input_pid) {
			sp_err(p, off, "$input_pid is the PID given with -p, and there is none: "
			       "trace with -p PID or use $pid");
			return NULL;
		}
		sp_next(p);
		e = sp_node(p, GS_EXPR_INT, off, 1);
		if (e)
			e->value = p->input_pid;
		return e;
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(specials); i++) {
		if (name_eq(s, t->len, specials[i].name)) {
			sp_next(p);
			e = sp_node(p, GS_EXPR_SPECIAL, off, 1);
			if (e)
				e->special = specials[i].which;
			return e;
		}
	}
	sp_err(p, off, "unknown special variable '%.*s': the special variables are " SPECIALS,
	       (int)t->len, s);
	return NULL;
}

static struct gs_expr *identifier(struct parser *p, const struct token *t)
{
	const char *s = p->src + t->off;
	size_t n = t->len, off = t->off;
	const struct scope_var *var;
	struct gs_expr *e;
	int reg;

	if (name_eq(s, n, "true") || name_eq(s, n, "false")) {
		sp_next(p);
		e = sp_node(p, GS_EXPR_INT, off, 1);
		if (e)
			e->value = name_eq(s, n, "true");
		return e;
	}
	if (find_mem_type(s, n) >= 0) {
		sp_err(p, off, "'%.*s' is a type: convert a value with cast(expr, \"%.*s\"), or "
		       "read memory with *(%.*s *)addr", (int)n, s, (int)n, s, (int)n, s);
		return NULL;
	}
	if (in_list(s, n, keywords, BASE_ARRAY_SIZE(keywords))) {
		sp_err(p, off, "expected an expression, found the keyword '%.*s'", (int)n, s);
		return NULL;
	}
	if (in_list(s, n, builtins, BASE_ARRAY_SIZE(builtins)))
		return sp_builtin(p, t);
	/* len(x); without the call, `len` stays a name of the target */
	if (name_eq(s, n, "len") && sp_peek2(p).kind == T_LPAREN)
		return sp_len(p, t);
	reg = find_register(s, n);
	var = sp_scope_find(p, s, n);
	if (var && var->alias)
		return sp_alias(p, var, t);
	if (reg >= 0 || var) {
		sp_next(p);
		e = sp_node(p, reg >= 0 ? GS_EXPR_REG : GS_EXPR_VAR, off, 1);
		if (e && reg >= 0)
			e->reg = (uint8_t)reg;
		else if (e)
			e->var = var->index;
		return e;
	}
	if (sp_peek2(p).kind == T_LPAREN) {
		sp_err(p, off, "function calls are not supported: '%.*s' cannot be called (the "
		       "builtins are cast, len, memcmp, strncmp, starts_with and hex)", (int)n, s);
		return NULL;
	}
	/* A DWARF name: resolved per probe address by the runtime. */
	sp_next(p);
	e = sp_node(p, GS_EXPR_NAME, off, 1);
	if (e && !(e->name = base_arena_strndup(p->arena, s, n)))
		sp_nomem(p);
	return p->code ? NULL : e;
}

static struct gs_expr *unary(struct parser *p);

static struct gs_expr *binary(struct parser *p, int min_prec);

/* Words that start a C type: `(int)x` is a C cast, which the language
 * spells cast(x, "int"). */
static bool c_type_word(const char *s, size_t n)
{
	static const char *const words[] = {
		"struct", "union", "enum", "unsigned", "signed", "char", "short", "int", "long",
		"float", "double", "const", "volatile", "void", "bool", "_Bool",
	};

	return find_mem_type(s, n) >= 0 || in_list(s, n, words, BASE_ARRAY_SIZE(words));
}

static struct gs_expr *parenthesized(struct parser *p, const struct token *t)
{
	struct token inner = sp_peek2(p);
	size_t open = t->off;
	struct gs_expr *e;

	if (inner.kind == T_IDENT && c_type_word(p->src + inner.off, inner.len)) {
		sp_err(p, open, "C casts are not supported: write cast(expr, \"TYPE\"), e.g. "
		       "cast(p, \"struct foo *\"), or *(u64 *)addr to read memory");
		return NULL;
	}
	sp_next(p);
	e = binary(p, 0);
	if (e && !sp_at(p, T_RPAREN)) {
		char where[32], context[64];

		sp_pos_string(p, open, where, sizeof(where));
		snprintf(context, sizeof(context), "to close the '(' at %s", where);
		sp_expect(p, T_RPAREN, "')'", context);
		return NULL;
	}
	sp_next(p);
	return e;
}

/* An integer literal's value and C type (C11 6.4.4.1): the first of int,
 * long that holds a decimal one (above LONG_MAX, unsigned long, as gdb
 * takes it); of int, unsigned int, long, unsigned long a hex, octal or
 * binary one. */
static void literal_type(struct gs_expr *e, const struct token *t)
{
	uint64_t v = t->value;

	e->value = (int64_t)v;
	if (v <= INT32_MAX) {
		e->size = 4;
		e->is_signed = true;
	} else if (!t->decimal && v <= UINT32_MAX) {
		e->size = 4;
	} else {
		e->size = 8;
		e->is_signed = v <= INT64_MAX;
	}
}

static struct gs_expr *primary(struct parser *p)
{
	struct token t = *sp_peek(p);
	struct gs_expr *e = NULL;
	char desc[64];

	switch (t.kind) {
	case T_INT:
		sp_next(p);
		e = sp_node(p, GS_EXPR_INT, t.off, 1);
		if (e)
			literal_type(e, &t);
		break;
	case T_STRING:
		e = sp_string_literal(p, &t);
		break;
	case T_SPECIAL:
		e = special(p, &t);
		break;
	case T_IDENT:
		e = identifier(p, &t);
		break;
	case T_LPAREN:
		e = parenthesized(p, &t);
		break;
	default:
		if (!p->code) {
			sp_tok_describe(p, &t, desc, sizeof(desc));
			sp_err(p, t.off, "expected an expression, found %s", desc);
		}
		break;
	}
	return sp_postfix(p, e, t.off);
}

/* ---- operators --------------------------------------------------------------------- */

/* *(TYPE *)operand, *(TYPE)operand: a sized read; else *p of a pointer. */
static struct gs_expr *deref(struct parser *p, size_t start)
{
	struct token type;
	struct gs_expr *e, *operand;
	int ti = -1;

	sp_next(p); /* '*' */
	type = sp_peek2(p);
	if (sp_at(p, T_LPAREN) && type.kind == T_IDENT) {
		struct token star, close;
		size_t pos = type.off + type.len;

		/* `*(T *)x` with a T that is no size: not `*(p * 2)`. */
		ti = find_mem_type(p->src + type.off, type.len);
		sp_lex_token(p, &pos, &star);
		sp_lex_token(p, &pos, &close);
		if (ti < 0 && star.kind == T_STAR && close.kind == T_RPAREN) {
			sp_err(p, start, "'%.*s' is not a size of a memory read: write *(u64 *)addr "
			       "(the types are u8 u16 u32 u64 i8 i16 i32 i64), or *cast(addr, "
			       "\"TYPE *\") for a DWARF type", (int)type.len, p->src + type.off);
			return NULL;
		}
	}
	if (ti < 0)
		return sp_value_deref(p, start);
	sp_next(p);
	sp_next(p);
	sp_accept(p, T_STAR);
	if (!sp_expect(p, T_RPAREN, "')'", "to close the type of the memory read"))
		return NULL;
	operand = unary(p);
	if (!operand)
		return NULL;
	e = sp_node(p, GS_EXPR_DEREF, start, sp_depth(operand) + 1);
	if (e) {
		e->size = mem_types[ti].size;
		e->is_signed = mem_types[ti].is_signed;
		e->lhs = operand;
	}
	return e;
}

/* A string is compared (==, !=), printed or bound by let; it is no number. */
static bool not_a_string(struct parser *p, const struct gs_expr *e, size_t at)
{
	if (e->kind != GS_EXPR_BYTES)
		return true;
	sp_err(p, at, "a string is not a number: compare it with == or != (C string equality: "
	       "p == \"GET\"), pass it to memcmp, strncmp or starts_with, or print it");
	return false;
}

static struct gs_expr *unary_inner(struct parser *p)
{
	const struct token *t = sp_peek(p);
	size_t start = t->off;
	struct gs_expr *e, *operand;
	int op;

	switch (t->kind) {
	case T_MINUS: op = '-'; break;
	case T_BANG: op = '!'; break;
	case T_TILDE: op = '~'; break;
	case T_STAR:
		return deref(p, start);
	case T_AMP:
		sp_next(p);
		return sp_address_of(p, start);
	default:
		return primary(p);
	}
	sp_next(p);
	operand = unary(p);
	if (!operand || !not_a_string(p, operand, start))
		return NULL;
	e = sp_node(p, GS_EXPR_UNARY, start, sp_depth(operand) + 1);
	if (e) {
		e->op = op;
		e->lhs = operand;
	}
	return e;
}

const struct gs_expr *sp_unary(struct parser *p)
{
	return unary(p);
}

static struct gs_expr *unary(struct parser *p)
{
	struct gs_expr *e;

	if (p->depth >= SCRIPT_MAX_DEPTH) {
		sp_err(p, sp_peek(p)->off, "expression is nested too deeply (more than %d levels): "
		       "split it with let", SCRIPT_MAX_DEPTH);
		return NULL;
	}
	p->depth++;
	e = unary_inner(p);
	p->depth--;
	return e;
}

/* C precedence, loosest first. */
static const struct { enum tok_kind tok; int prec; enum gs_binop op; } binops[] = {
	{ T_OROR, 1, GS_OP_LOR }, { T_ANDAND, 2, GS_OP_LAND }, { T_PIPE, 3, GS_OP_OR },
	{ T_CARET, 4, GS_OP_XOR }, { T_AMP, 5, GS_OP_AND },
	{ T_EQ, 6, GS_OP_EQ }, { T_NE, 6, GS_OP_NE },
	{ T_LT, 7, GS_OP_LT }, { T_LE, 7, GS_OP_LE }, { T_GT, 7, GS_OP_GT }, { T_GE, 7, GS_OP_GE },
	{ T_SHL, 8, GS_OP_SHL }, { T_SHR, 8, GS_OP_SHR },
	{ T_PLUS, 9, GS_OP_ADD }, { T_MINUS, 9, GS_OP_SUB },
	{ T_STAR, 10, GS_OP_MUL }, { T_SLASH, 10, GS_OP_DIV }, { T_PERCENT, 10, GS_OP_MOD },
};

static int find_binop(enum tok_kind k)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(binops); i++)
		if (binops[i].tok == k)
			return (int)i;
	return -1;
}

/* Operators of precedence >= min_prec, left-associative. */
static struct gs_expr *binary(struct parser *p, int min_prec)
{
	size_t start = sp_peek(p)->off;
	struct gs_expr *lhs = unary(p);

	while (lhs && !p->code) {
		int i = find_binop(sp_peek(p)->kind);
		struct gs_expr *rhs, *e;
		size_t rhs_start;
		unsigned d;

		if (i < 0 || binops[i].prec < min_prec)
			break;
		sp_next(p);
		rhs_start = sp_peek(p)->off;
		rhs = binary(p, binops[i].prec + 1);
		if (!rhs)
			return NULL;
		if ((binops[i].op == GS_OP_SHL || binops[i].op == GS_OP_SHR) &&
		    rhs->kind == GS_EXPR_INT && (rhs->value < 0 || rhs->value > 63)) {
			sp_err(p, rhs_start, "shift count %s is outside 0..63: a shift of a 64-bit "
			       "value by it has no meaning", rhs->text);
			return NULL;
		}
		if (binops[i].op != GS_OP_EQ && binops[i].op != GS_OP_NE &&
		    (!not_a_string(p, lhs, start) || !not_a_string(p, rhs, rhs_start)))
			return NULL;
		if (lhs->kind == GS_EXPR_BYTES && rhs->kind == GS_EXPR_BYTES) {
			/* two literals: known now */
			bool same = lhs->nbytes == rhs->nbytes &&
				    !memcmp(lhs->bytes, rhs->bytes, lhs->nbytes);

			e = sp_node(p, GS_EXPR_INT, start, 1);
			if (!e)
				return NULL;
			e->value = same == (binops[i].op == GS_OP_EQ);
			lhs = e;
			continue;
		}
		d = sp_depth(lhs) > sp_depth(rhs) ? sp_depth(lhs) : sp_depth(rhs);
		e = sp_node(p, GS_EXPR_BINARY, start, d + 1);
		if (!e)
			return NULL;
		e->op = binops[i].op;
		e->lhs = lhs;
		e->rhs = rhs;
		lhs = e;
	}
	return p->code ? NULL : lhs;
}

const struct gs_expr *sp_expr(struct parser *p)
{
	return binary(p, 0);
}
