/* The text form of script_dump.h. Written against program.h only, so it
 * shows what the code generator will be given, nothing of the parser. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "script_dump.h"

struct out {
	char *buf;
	size_t size, n;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->n >= o->size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, o->size - o->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n = o->n + (size_t)k < o->size ? o->n + (size_t)k : o->size;
}

static const char *const binop_names[] = {
	[GS_OP_ADD] = "+", [GS_OP_SUB] = "-", [GS_OP_MUL] = "*", [GS_OP_DIV] = "/",
	[GS_OP_MOD] = "%", [GS_OP_SHL] = "<<", [GS_OP_SHR] = ">>", [GS_OP_AND] = "&",
	[GS_OP_OR] = "|", [GS_OP_XOR] = "^", [GS_OP_EQ] = "==", [GS_OP_NE] = "!=",
	[GS_OP_LT] = "<", [GS_OP_LE] = "<=", [GS_OP_GT] = ">", [GS_OP_GE] = ">=",
	[GS_OP_LAND] = "&&", [GS_OP_LOR] = "||",
};

static const char *const special_names[] = {
	[GS_SPECIAL_PID] = "$pid", [GS_SPECIAL_TID] = "$tid",
	[GS_SPECIAL_HOST_PID] = "$host_pid", [GS_SPECIAL_TIMESTAMP] = "$timestamp",
	[GS_SPECIAL_PC] = "$pc", [GS_SPECIAL_SP] = "$sp", [GS_SPECIAL_RETVAL] = "$retval",
	[GS_SPECIAL_DURATION] = "$duration",
};

static void expr(struct out *o, const struct gs_expr *e)
{
	if (!e) {
		put(o, "NULL");
		return;
	}
	switch (e->kind) {
	case GS_EXPR_INT:
		put(o, "%" PRId64, e->value);
		break;
	case GS_EXPR_SPECIAL:
		put(o, "%s", special_names[e->special]);
		break;
	case GS_EXPR_REG:
		put(o, "reg%u", e->reg);
		break;
	case GS_EXPR_VAR:
		put(o, "var%u", e->var);
		break;
	case GS_EXPR_UNARY:
		put(o, "(%c ", e->op);
		expr(o, e->lhs);
		put(o, ")");
		break;
	case GS_EXPR_BINARY:
		put(o, "(%s ", binop_names[e->op]);
		expr(o, e->lhs);
		put(o, " ");
		expr(o, e->rhs);
		put(o, ")");
		break;
	case GS_EXPR_DEREF:
		if (e->size)
			put(o, "(%c%u* ", e->is_signed ? 'i' : 'u', 8 * e->size);
		else
			put(o, "(* ");
		expr(o, e->lhs);
		put(o, ")");
		break;
	case GS_EXPR_NAME:
		put(o, "%s", e->name);
		break;
	case GS_EXPR_MEMBER:
		put(o, "(. ");
		expr(o, e->lhs);
		put(o, " %s)", e->name);
		break;
	case GS_EXPR_INDEX:
		put(o, "([] ");
		expr(o, e->lhs);
		put(o, " ");
		expr(o, e->rhs);
		put(o, ")");
		break;
	case GS_EXPR_ADDR:
		put(o, "(& ");
		expr(o, e->lhs);
		put(o, ")");
		break;
	case GS_EXPR_CAST:
		put(o, "(cast ");
		expr(o, e->lhs);
		put(o, " \"%s\")", e->type_name);
		break;
	case GS_EXPR_BUILTIN:
		if (e->builtin == GS_BUILTIN_LEN) {
			put(o, "(len ");
			expr(o, e->lhs);
			put(o, ")");
			break;
		}
		put(o, "(%s ", e->builtin == GS_BUILTIN_MEMCMP ? "memcmp" :
		    e->builtin == GS_BUILTIN_STRNCMP ? "strncmp" : "starts_with");
		expr(o, e->lhs);
		put(o, " ");
		expr(o, e->rhs);
		if (e->len) {
			put(o, " ");
			expr(o, e->len);
		}
		put(o, ")");
		break;
	case GS_EXPR_BYTES:
		put(o, "bytes[");
		for (uint32_t i = 0; i < e->nbytes; i++)
			put(o, "%s%02x", i ? " " : "", e->bytes[i]);
		put(o, "]");
		break;
	default:
		put(o, "?%d", e->kind);
		break;
	}
}

static void stmts(struct out *o, const struct gs_stmt *s, size_t n);

static void block(struct out *o, const struct gs_stmt *s, size_t n)
{
	put(o, "{ ");
	stmts(o, s, n);
	put(o, "}");
}

static void stmts(struct out *o, const struct gs_stmt *body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct gs_stmt *s = &body[i];

		switch (s->kind) {
		case GS_STMT_PRINT_STRING:
			put(o, "str \"%s\";", s->text);
			break;
		case GS_STMT_PRINT_FORMAT:
			put(o, "fmt \"%s\"", s->text);
			for (size_t k = 0; k < s->nargs; k++) {
				put(o, k ? ", " : " ");
				expr(o, s->args[k]);
			}
			put(o, ";");
			break;
		case GS_STMT_PRINT_EXPR:
			put(o, "print ");
			expr(o, s->expr);
			put(o, ";");
			break;
		case GS_STMT_LET:
			put(o, "let %s#%u = ", s->text, s->var);
			expr(o, s->expr);
			put(o, ";");
			break;
		case GS_STMT_IF:
			put(o, "if ");
			expr(o, s->expr);
			put(o, " ");
			block(o, s->then_body, s->nthen);
			if (s->nelse) {
				put(o, " else ");
				block(o, s->else_body, s->nelse);
			}
			break;
		case GS_STMT_BACKTRACE:
			put(o, "bt 0x%02x;", s->bt_flags);
			break;
		case GS_STMT_AGGREGATE:
			put(o, "agg %s#%u fn%u [", s->agg->name, s->agg->id, s->agg->fn);
			for (size_t k = 0; k < s->nargs; k++) {
				put(o, k ? ", " : "");
				expr(o, s->args[k]);
			}
			put(o, "] ");
			expr(o, s->expr);
			if (s->agg->fn == GS_AGG_LHIST)
				put(o, " %lld..%lld/%lld", (long long)s->agg->lmin,
				    (long long)s->agg->lmax, (long long)s->agg->lstep);
			put(o, ";");
			break;
		default:
			put(o, "?%d;", s->kind);
			break;
		}
		put(o, " ");
	}
}

void dump_expr(const struct gs_expr *e, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	buf[0] = '\0';
	expr(&o, e);
}

void dump_script(const struct gs_script *s, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	buf[0] = '\0';
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct gs_script_trace *t = &s->traces[i];

		if (i)
			put(&o, "\n");
		switch (t->target.kind) {
		case GS_TARGET_FUNCTION:
			put(&o, "fn %s %s", t->target.name, t->retprobe ? "return " : "");
			break;
		case GS_TARGET_ADDRESS:
			put(&o, "addr 0x%" PRIx64 " ", t->target.address);
			break;
		case GS_TARGET_MODULE_ADDRESS:
			put(&o, "mod %s 0x%" PRIx64 " ", t->target.name, t->target.address);
			break;
		case GS_TARGET_FILE_LINE:
			put(&o, "line %s %" PRIu32 " ", t->target.name, t->target.line);
			break;
		}
		block(&o, t->body, t->nbody);
	}
}
