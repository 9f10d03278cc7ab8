/* libFuzzer target for the script parser and the code generator behind it:
 * any bytes either parse into well-formed trees, every trace of which
 * gs_program_build() then builds or refuses with a message, or fail with a
 * positioned message; never a crash, a leak or an internal error. The bytes
 * are read three ways: as script text, as a stream of script words, and as
 * the choices of a small generator of valid scripts (then sometimes one
 * byte spoiled), which gets far deeper into the parser and the code
 * generator than raw bytes do. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/program.h> /* what a script builds into */
#include <gs/script.h>
#include "base.h"
#include "smoke.h"

static const char *const words[96] = {
	"print", "\"x={}\"", "\"lit {{}}\"", "\"{:x} {:p} {:X}\"", ",", ";", ";", ";",
	"bt", "backtrace", "raw", "full", "inline", "noinline", "if", "else",
	"let", "a", "b", "=", "==", "!=", "(", ")", "{", "}", "+", "-", "*", "/", "%", "<<",
	">>", "<", ">=", "&&", "||", "&", "|", "^", "!", "~", "0", "1", "0x10",
	"9223372036854775807", "$pid", "$tid", "$sp", "$pc", "$timestamp", "$host_pid",
	"rdi", "rsp", "r15", "*(u64 *)", "*(i8 *)", "*(u32)", "true", "false",
	"} trace g {", "/* c */", "//c\n", "\"{}{}\"",
	/* source-level values */
	"p", "g", "o", "r", ".", "->", "[", "]", "next", "s", "arr", "bf", "cast(", "\"int\"",
	"\"struct rec *\"", "memcmp(", "strncmp(", "starts_with(", "hex(\"de ad\")", "\"ab\"",
	"\"{:s} {:x.4}\"", "\"{:x.*} {:s.n$}\"", "\"{:s.0x10}\"", "let n = 3;", "$retval",
	"&p", "*p", "p->a", "g.arr[1]", "\"{:q}\"", "\"{:x.0}\"", "\"{:X.*}\"",
};

static void check_expr(const struct gs_expr *e, uint32_t nvars)
{
	if (!e || !e->text)
		abort();
	switch (e->kind) {
	case GS_EXPR_INT:
	case GS_EXPR_SPECIAL:
		break;
	case GS_EXPR_REG:
		if (e->reg > 16)
			abort();
		break;
	case GS_EXPR_VAR:
		if (e->var >= nvars)
			abort();
		break;
	case GS_EXPR_UNARY:
		check_expr(e->lhs, nvars);
		break;
	case GS_EXPR_BINARY:
		check_expr(e->lhs, nvars);
		check_expr(e->rhs, nvars);
		break;
	case GS_EXPR_DEREF:
		if (e->size != 0 && e->size != 1 && e->size != 2 && e->size != 4 && e->size != 8)
			abort();
		check_expr(e->lhs, nvars);
		break;
	case GS_EXPR_NAME:
		if (!e->name || !e->name[0] || e->dvar)
			abort();
		break;
	case GS_EXPR_MEMBER:
		if (!e->name || !e->name[0])
			abort();
		check_expr(e->lhs, nvars);
		break;
	case GS_EXPR_INDEX:
		check_expr(e->lhs, nvars);
		check_expr(e->rhs, nvars);
		break;
	case GS_EXPR_ADDR:
		check_expr(e->lhs, nvars);
		break;
	case GS_EXPR_CAST:
		if (!e->type_name || e->cast_type)
			abort();
		check_expr(e->lhs, nvars);
		break;
	case GS_EXPR_BUILTIN:
		if (e->builtin > GS_BUILTIN_STARTS_WITH ||
		    (e->builtin != GS_BUILTIN_STARTS_WITH && !e->len))
			abort();
		check_expr(e->lhs, nvars);
		check_expr(e->rhs, nvars);
		if (e->len) /* any expression: a constant one is not negative */
			check_expr(e->len, nvars);
		break;
	case GS_EXPR_BYTES:
		if (!e->bytes && e->nbytes)
			abort();
		break;
	default:
		abort();
	}
}

static void check_body(const struct gs_stmt *body, size_t n, uint32_t nvars)
{
	for (size_t i = 0; i < n; i++) {
		const struct gs_stmt *s = &body[i];

		switch (s->kind) {
		case GS_STMT_PRINT_STRING:
			if (!s->text)
				abort();
			break;
		case GS_STMT_PRINT_FORMAT:
			if (!s->text || !s->nargs || s->nargs > 255)
				abort();
			for (size_t k = 0; k < s->nargs; k++)
				check_expr(s->args[k], nvars);
			break;
		case GS_STMT_LET:
			if (s->var >= nvars)
				abort();
			/* fall through */
		case GS_STMT_PRINT_EXPR:
			check_expr(s->expr, nvars);
			break;
		case GS_STMT_IF:
			check_expr(s->expr, nvars);
			check_body(s->then_body, s->nthen, nvars);
			check_body(s->else_body, s->nelse, nvars);
			break;
		case GS_STMT_BACKTRACE:
			if (s->bt_flags & ~0x07)
				abort();
			break;
		default:
			abort();
		}
	}
}

/* ---- a made-up DWARF for the names the words and the generator use ------ */

/* struct rec { int a; struct rec *next; char s[16]; int arr[4]; unsigned bf : 3; } */
static const struct gs_type t_int = { .kind = GS_TYPE_I32, .size = 4, .name = "int",
				      .flags = GS_TYPEF_SIGNED, .byte_size = 4 };
static const struct gs_type t_uint = { .kind = GS_TYPE_U32, .size = 4, .name = "unsigned",
				       .byte_size = 4 };
static const struct gs_type t_char = { .kind = GS_TYPE_CHAR, .size = 1, .name = "char",
				       .flags = GS_TYPEF_SIGNED | GS_TYPEF_CHAR, .byte_size = 1 };
static const struct gs_type t_s16 = { .kind = GS_TYPE_ARRAY, .name = "char[16]",
				      .byte_size = 16, .target = &t_char, .count = 16 };
static const struct gs_type t_arr4 = { .kind = GS_TYPE_ARRAY, .name = "int[4]",
				       .byte_size = 16, .target = &t_int, .count = 4 };
static const struct gs_type t_rec;
static const struct gs_type t_rec_ptr = { .kind = GS_TYPE_POINTER, .size = 8,
					  .name = "struct rec *", .byte_size = 8,
					  .target = &t_rec };
static const struct gs_type_member rec_members[] = {
	{ "a", &t_int, 0 }, { "next", &t_rec_ptr, 8 }, { "s", &t_s16, 16 },
	{ "arr", &t_arr4, 32 }, { "bf", &t_uint, 48, 3, 2 },
};
static const struct gs_type t_rec = { .kind = GS_TYPE_STRUCT, .name = "struct rec",
				      .byte_size = 56, .members = rec_members, .nmembers = 5 };
static const struct gs_loc_piece in_rdi = { .kind = GS_LOC_REGISTER, .reg = 5 };
static const struct gs_loc_piece at_global = { .kind = GS_LOC_MEMORY,
					       .base = GS_LOC_BASE_MODULE, .offset = 0x4010 };
static const struct gs_loc_piece halves[2] = { { .kind = GS_LOC_REGISTER, .reg = 0, .size = 4 },
					       { .kind = GS_LOC_REGISTER, .reg = 1, .size = 4 } };
static const struct gs_var vars[] = {
	{ .name = "p", .type = &t_rec_ptr, .loc = { .pieces = &in_rdi, .npieces = 1 } },
	{ .name = "g", .type = &t_rec, .loc = { .pieces = &at_global, .npieces = 1,
						.cookie = 0x77 } },
	{ .name = "o", .type = &t_int, .loc = { .why = GS_LOC_WHY_ENTRY_VALUE } },
	{ .name = "r", .type = &t_rec_ptr, .loc = { .pieces = halves, .npieces = 2 } },
};

/* What the runtime does before a build: names and cast types resolved (the
 * fuzzer's trees are its own, so it fills them in place). */
static void resolve_expr(const struct gs_expr *ce)
{
	struct gs_expr *e = (struct gs_expr *)ce;

	if (!e)
		return;
	if (e->kind == GS_EXPR_NAME)
		for (size_t i = 0; i < BASE_ARRAY_SIZE(vars); i++)
			if (!strcmp(e->name, vars[i].name))
				e->dvar = &vars[i];
	if (e->kind == GS_EXPR_CAST)
		e->cast_type = !strcmp(e->type_name, "int") ? &t_int :
			       !strcmp(e->type_name, "struct rec *") ? &t_rec_ptr : NULL;
	resolve_expr(e->lhs);
	resolve_expr(e->rhs);
	resolve_expr(e->len);
}

static void resolve_body(const struct gs_stmt *body, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		resolve_expr(body[i].expr);
		for (size_t k = 0; k < body[i].nargs; k++)
			resolve_expr(body[i].args[k]);
		resolve_body(body[i].then_body, body[i].nthen);
		resolve_body(body[i].else_body, body[i].nelse);
	}
}

/* A probe with a usable first row, so `bt` goes through the unwinder too. */
static const struct gs_bt_probe probe = {
	.cookie = 0x1234, .pc = 0x1139, .first_row_kind = GS_BT_ROW_USABLE,
	.first_row = { .pc_start = 0x1130, .pc_end = 0x1160, .cfa_offset = 16, .ra_offset = -8,
		       .cfa_register = 7, .ra_register = 16, .rbp_register = 6,
		       .ra_kind = GS_RECOVERY_AT_CFA_OFFSET, .rbp_kind = GS_RECOVERY_SAME_VALUE },
	.nrows = 64,
};

static void parse_and_build(const char *text, size_t len, unsigned variant)
{
	struct gs_script_opts o = { .sz = sizeof(o), .input_pid = variant & 1 ? 77 : 0 };
	struct gs_script *s = NULL;
	struct gs_error err;
	int rc = gs_script_parse(text, len, &o, &s, &err);

	if (rc) {
		if ((rc != -EINVAL && rc != -ENOMEM) || s || err.code != rc ||
		    (rc == -EINVAL && !strstr(err.msg, "script:")))
			abort();
		return;
	}
	for (size_t i = 0; i < s->ntraces; i++) {
		const struct gs_script_trace *t = &s->traces[i];
		struct gs_program_opts po = { .sz = sizeof(po), .backtrace_depth = variant & 2 ? 7 : 3 };
		struct gs_program *prog = NULL;
		struct gs_trace_spec spec;

		if (!t->target.text || (t->target.kind != GS_TARGET_ADDRESS && !t->target.name))
			abort();
		check_body(t->body, t->nbody, t->nvars);
		resolve_body(t->body, t->nbody);
		gs_script_trace_spec(t, (uint32_t)i, &spec);
		if (variant & 4)
			spec.bt = &probe;
		if (gs_program_build(&spec, &po, &prog, &err) == 0)
			gs_program_free(prog);
		else if (!err.msg[0] || strstr(err.msg, "internal error"))
			abort();
	}
	gs_script_free(s);
}

/* ---- a generator of valid scripts, steered by the input bytes ---------------- */

struct gen {
	const uint8_t *d;
	size_t n, i;
	char *out;
	size_t len, cap;
	unsigned lets, visible[16], nvisible;
};

static unsigned take(struct gen *g, unsigned range)
{
	return (g->i < g->n ? g->d[g->i++] : 0) % range;
}

__attribute__((format(printf, 2, 3)))
static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		abort();
	if (g->len + (size_t)k + 1 > g->cap) {
		g->cap = (g->len + (size_t)k + 1) * 2;
		g->out = realloc(g->out, g->cap);
		if (!g->out)
			abort();
	}
	va_start(ap, fmt);
	vsnprintf(g->out + g->len, g->cap - g->len, fmt, ap);
	va_end(ap);
	g->len += (size_t)k;
}

static const char *const leaves[] = {
	"0", "1", "42", "-7", "0x7fffffff", "0x80000000", "0xffffffffffffffff", "0o17", "0b101",
	"true", "false", "$pid", "$tid", "$host_pid", "$timestamp", "$pc", "$sp", "rax", "rdi",
	"rsp", "rbp", "r8", "r15", "rip",
};
static const char *const values[] = {
	"p->a", "p.next->a", "g.arr[2]", "g.s[0]", "*p", "p->next->next->bf", "g.bf", "o",
	"r->a", "cast(rdi, \"struct rec *\")->arr[1]", "cast(p, \"int\")", "&g.a", "*&g.a",
	"memcmp(g.s, hex(\"61 62\"), 2)", "strncmp(p->s, \"ab\", 3)",
	"starts_with(g.s, \"x\")", "memcmp(p, g.s, 4)", "nosuch", "g.nosuch",
};
static const char *const unops[] = { "-", "!", "~" };
static const char *const binops_text[] = {
	"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=",
	"&&", "||",
};
static const char *const types[] = { "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64" };

static void gen_expr(struct gen *g, unsigned depth)
{
	unsigned pick = depth ? take(g, 8) : 0;

	switch (pick) {
	case 0:
	case 1:
		if (g->nvisible && take(g, 2))
			emit(g, "v%u", g->visible[take(g, g->nvisible)]);
		else if (take(g, 3) == 0)
			emit(g, "%s", values[take(g, BASE_ARRAY_SIZE(values))]);
		else
			emit(g, "%s", leaves[take(g, BASE_ARRAY_SIZE(leaves))]);
		break;
	case 2:
		emit(g, "%s", unops[take(g, 3)]);
		gen_expr(g, depth - 1);
		break;
	case 3:
		emit(g, "*(%s *)(", types[take(g, 8)]);
		gen_expr(g, depth - 1);
		emit(g, ")");
		break;
	case 4:
		emit(g, "(");
		gen_expr(g, depth - 1);
		emit(g, ")");
		break;
	default:
		gen_expr(g, depth - 1);
		emit(g, " %s ", binops_text[take(g, BASE_ARRAY_SIZE(binops_text))]);
		gen_expr(g, depth - 1);
		break;
	}
}

static void gen_block(struct gen *g, unsigned depth);

static void gen_stmt(struct gen *g, unsigned depth)
{
	static const char *const bt_words[] = { "raw", "full", "inline", "noinline" };
	static const char *const holes[] = { "{}", "{:x}", "{:X}", "{:p}" };
	static const char *const dumps[] = {
		"print \"{:s}\", p->s; ", "print \"{:x.8}\", g.arr; ", "print \"{:s.4}\", p; ",
		"print \"{:x.*}\", 3, g.s; ", "print \"{:X.*}\", p->a, p->next; ",
		"print g; ", "print *p; ", "print \"{}\", r; ", "print \"{:s}\", g.a; ",
	};
	unsigned k;

	switch (take(g, depth ? 7 : 6)) {
	case 0:
		emit(g, "print \"lit {{%u}}\"; ", take(g, 100));
		break;
	case 1:
		k = 1 + take(g, 3);
		emit(g, "print \"");
		for (unsigned i = 0; i < k; i++)
			emit(g, "a%u=%s ", i, holes[take(g, 4)]);
		emit(g, "\"");
		for (unsigned i = 0; i < k; i++) {
			emit(g, ", ");
			gen_expr(g, 3);
		}
		emit(g, "; ");
		break;
	case 2:
		if (take(g, 3) == 0) {
			emit(g, "%s", dumps[take(g, BASE_ARRAY_SIZE(dumps))]);
			break;
		}
		emit(g, "print ");
		gen_expr(g, 4);
		emit(g, "; ");
		break;
	case 3:
		emit(g, "let v%u = ", g->lets);
		gen_expr(g, 3);
		emit(g, "; ");
		if (g->nvisible < 16)
			g->visible[g->nvisible++] = g->lets;
		g->lets++;
		break;
	case 4:
	case 5:
		emit(g, "%s", take(g, 2) ? "bt" : "backtrace");
		for (k = take(g, 4); k > 0; k--)
			emit(g, " %s", bt_words[take(g, 4)]);
		emit(g, "; ");
		break;
	default:
		emit(g, "if ");
		gen_expr(g, 3);
		gen_block(g, depth - 1);
		while (take(g, 3) == 1) {
			emit(g, " else if ");
			gen_expr(g, 2);
			gen_block(g, depth - 1);
		}
		if (take(g, 2)) {
			emit(g, " else");
			gen_block(g, depth - 1);
		}
		emit(g, " ");
		break;
	}
}

static void gen_block(struct gen *g, unsigned depth)
{
	unsigned mark = g->nvisible;

	emit(g, " { ");
	for (unsigned k = take(g, 5); k > 0; k--)
		gen_stmt(g, depth);
	emit(g, "}");
	g->nvisible = mark;
}

static const char *const targets[] = {
	"main", "0x1139", "/usr/lib/libfoo.so.1:0x10a0", "demo.c:43", "libc.so.6:0xdeadbeef",
};

static char *generate(const uint8_t *data, size_t size, size_t *len)
{
	struct gen g = { .d = data, .n = size };

	for (unsigned t = 1 + take(&g, 2); t > 0; t--) {
		emit(&g, "trace %s", targets[take(&g, 5)]);
		g.nvisible = 0;
		gen_block(&g, 3);
		emit(&g, "\n");
	}
	/* Now and then one byte spoiled: errors next to valid code. */
	if (g.len && take(&g, 4) == 0)
		g.out[take(&g, 256) * g.len / 256] = "{};()\"*=x$/ "[take(&g, 12)];
	*len = g.len;
	return g.out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The bytes as they are, in a buffer of exactly their size. */
	char *text = malloc(size + 1), *words_text;
	size_t n = 0, cap = 32 + size * 32;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	parse_and_build(text, size, size ? data[0] : 0);
	free(text);

	/* The bytes as words of a trace body. */
	words_text = malloc(cap);
	if (!words_text)
		abort();
	n += (size_t)snprintf(words_text, cap, "trace f {");
	for (size_t i = 0; i < size; i++)
		n += (size_t)snprintf(words_text + n, cap - n, " %s", words[data[i] % 96]);
	n += (size_t)snprintf(words_text + n, cap - n, " }");
	parse_and_build(words_text, n, size ? data[size - 1] : 0);
	free(words_text);

	/* The bytes as choices of the generator. */
	text = generate(data, size, &n);
	parse_and_build(text, n, size > 1 ? data[1] : 0);
	free(text);
	return 0;
}
