/* The expression generator of the gdb differential (exprgen.h): a tiny
 * model of C's integer types and conversions evaluates every expression it
 * builds, so it can refuse what C leaves undefined and say what the value
 * must be. The fixture's values are copied here (values_exprs.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "exprgen.h"

/* ---- C's integer types ----------------------------------------------------------- */

enum ty { TY_BOOL, TY_CHAR, TY_SCHAR, TY_UCHAR, TY_SHORT, TY_USHORT, TY_INT, TY_UINT,
	  TY_LONG, TY_ULONG, TY_ENUM };

static const struct {
	unsigned width;
	bool sign;
	int rank;
	const char *cls; /* in tags */
} tys[] = {
	[TY_BOOL] = { 1, false, 0, "bool" },   [TY_CHAR] = { 8, true, 1, "char" },
	[TY_SCHAR] = { 8, true, 1, "s8" },     [TY_UCHAR] = { 8, false, 1, "u8" },
	[TY_SHORT] = { 16, true, 2, "s16" },   [TY_USHORT] = { 16, false, 2, "u16" },
	[TY_INT] = { 32, true, 3, "s32" },     [TY_UINT] = { 32, false, 3, "u32" },
	[TY_LONG] = { 64, true, 4, "s64" },    [TY_ULONG] = { 64, false, 4, "u64" },
	[TY_ENUM] = { 32, true, 3, "enum" },
};

struct val {
	enum ty ty;
	uint64_t v; /* sign-extended for signed types, zero-extended else */
};

static uint64_t norm(enum ty t, uint64_t raw)
{
	unsigned w = tys[t].width;
	uint64_t mask;

	if (t == TY_BOOL)
		return raw != 0;
	if (w == 64)
		return raw;
	mask = (1ull << w) - 1;
	raw &= mask;
	if (tys[t].sign && (raw >> (w - 1)) & 1)
		raw |= ~mask;
	return raw;
}

static __int128 wide(struct val v)
{
	return tys[v.ty].sign ? (__int128)(int64_t)v.v : (__int128)v.v;
}

static struct val conv(struct val v, enum ty t)
{
	struct val r = { t, t == TY_BOOL ? v.v != 0 : norm(t, v.v) };

	return r;
}

static enum ty promote(enum ty t)
{
	return tys[t].rank < 3 || t == TY_ENUM ? TY_INT : t;
}

static enum ty usual(enum ty a, enum ty b)
{
	enum ty u, s;

	a = promote(a);
	b = promote(b);
	if (a == b)
		return a;
	if (tys[a].sign == tys[b].sign)
		return tys[a].rank >= tys[b].rank ? a : b;
	u = tys[a].sign ? b : a;
	s = tys[a].sign ? a : b;
	if (tys[u].rank >= tys[s].rank)
		return u;
	if (tys[s].width > tys[u].width)
		return s;
	return s == TY_INT ? TY_UINT : TY_ULONG;
}

static bool fits(enum ty t, __int128 x)
{
	unsigned w = tys[t].width;
	__int128 lo = tys[t].sign ? -((__int128)1 << (w - 1)) : 0;
	__int128 hi = tys[t].sign ? ((__int128)1 << (w - 1)) - 1 : ((__int128)1 << w) - 1;

	return x >= lo && x <= hi;
}

/* ---- the fixture's values (values_exprs.c) ------------------------------------------ */

struct var {
	const char *name;
	enum ty ty;
	uint64_t v;
	const char *tag; /* besides the type's */
	bool live;
};

#define I64(x) ((uint64_t)(int64_t)(x))
static const struct var vars[] = {
	{ "g_i8", TY_SCHAR, I64(-128), NULL, false }, { "g_i8b", TY_SCHAR, 127, NULL, false }, { "g_u8", TY_UCHAR, 255, NULL, false },
	{ "g_i16", TY_SHORT, I64(-32768), NULL, false }, { "g_u16", TY_USHORT, 65535, NULL, false },
	{ "g_i32", TY_INT, I64(-12345678), NULL, false }, { "g_i32max", TY_INT, 2147483647, NULL, false },
	{ "g_i32min", TY_INT, I64(-2147483648ll), NULL, false }, { "g_u32", TY_UINT, 4000000000u, NULL, false },
	{ "g_u32max", TY_UINT, 4294967295u, NULL, false }, { "g_u32b", TY_UINT, 2147483648u, NULL, false },
	{ "g_i64", TY_LONG, I64(-9000000000ll), NULL, false }, { "g_i64max", TY_LONG, I64(INT64_MAX), NULL, false },
	{ "g_i64min", TY_LONG, I64(INT64_MIN), NULL, false }, { "g_i64b", TY_LONG, 4294967296ull, NULL, false },
	{ "g_u64", TY_ULONG, 18446744073709551610ull, NULL, false },
	{ "g_u64b", TY_ULONG, 9223372036854775808ull, NULL, false }, { "g_u64c", TY_ULONG, 4294967297ull, NULL, false },
	{ "g_zero", TY_INT, 0, NULL, false }, { "g_one", TY_INT, 1, NULL, false }, { "g_neg1", TY_INT, I64(-1), NULL, false },
	{ "g_seven", TY_INT, 7, NULL, false }, { "g_c", TY_CHAR, 'A', NULL, false }, { "g_sc", TY_SCHAR, I64(-5), NULL, false },
	{ "g_uc", TY_UCHAR, 200, NULL, false }, { "g_true", TY_BOOL, 1, NULL, false }, { "g_false", TY_BOOL, 0, NULL, false },
	{ "g_mood", TY_ENUM, I64(-2), NULL, false }, { "g_mood2", TY_ENUM, 3, NULL, false },
	{ "p_int", TY_INT, I64(-42), "param", true }, { "p_uint", TY_UINT, 3000000000u, "param", true },
	{ "p_long", TY_LONG, I64(-6000000000ll), "param", true },
	{ "p_ulong", TY_ULONG, UINT64_MAX, "param", true },
	{ "l_short", TY_SHORT, I64(-300), "static-local", true },
	{ "l_uc", TY_UCHAR, 128, "static-local", true },
	{ "l_ll", TY_LONG, I64(-4294967296ll), "static-local", true },
};

static const int g_arr[8] = { 1, -2, 3, -4, 5, 60000, -70000, 2147483647 };

static const struct {
	const char *name;
	long value;
} enumerators[] = { { "M_SAD", -2 }, { "M_FLAT", 0 }, { "M_GLAD", 3 }, { "M_BIG", 1000 } };

struct field {
	const char *name;
	enum ty ty;
	uint64_t v[2]; /* g_recs[0], g_recs[1] */
};

static const struct field fields[] = {
	{ "i8", TY_SCHAR, { I64(-1), 100 } },
	{ "u8", TY_UCHAR, { 1, 250 } },
	{ "i16", TY_SHORT, { I64(-300), 32767 } },
	{ "u16", TY_USHORT, { 40000, 7 } },
	{ "i32", TY_INT, { I64(-100000), 2147483647 } },
	{ "u32", TY_UINT, { 3000000000u, 1 } },
	{ "i64", TY_LONG, { I64(-5000000000ll), 42 } },
	{ "u64", TY_ULONG, { 12345678901234567890ull, 1 } },
	{ "c", TY_CHAR, { 'x', 'y' } },
	{ "b", TY_BOOL, { 1, 0 } },
	{ "m", TY_ENUM, { 3, I64(-2) } },
};
static const int rec_arr[2][8] = { { 10, 20, 30, 40, 50, 60, 70, 80 },
				   { -1, -2, -3, -4, -5, -6, -7, -8 } };

/* How a struct rec is reached: the prefix before the member name. */
static const struct {
	const char *text;
	int rec;
	const char *tag;
	bool live;
} recs[] = {
	{ "g_recs[0].", 0, "member", false },
	{ "g_rp->", 0, "member", false },
	{ "(*g_rp).", 0, "deref-struct", false },
	{ "g_recs[1].", 1, "member", false },
	{ "p_rec->", 1, "param", true },
	{ "g_rp->next->", 1, "member-next", false },
	{ "g_recs[0].next->", 1, "member-next", false },
	{ "(g_rp + 1)->", 1, "ptr-arith", false },
	{ "g_rp[1].", 1, "index-ptr", false },
};

/* C strings: char pointers and char arrays. */
static const struct {
	const char *text;
	const char *s;
	bool array;
	bool live;
} strs[] = {
	{ "g_str", "world", false, false },
	{ "g_empty", "", false, false },
	{ "p_str", "probe-str", false, true },
	{ "g_rp->s", "beta", false, false },
	{ "g_recs[1].s", "", false, false },
	{ "g_name", "hello", true, false },
	{ "g_rp->name", "alpha", true, false },
	{ "g_recs[1].name", "gamma", true, false },
	{ "p_rec->name", "gamma", true, true },
};

/* cast(e, "T") targets; gdb: its spelling, when gdb's C parser lacks it. */
static const struct {
	const char *name;
	enum ty ty;
	const char *gdb;
} casts[] = {
	{ "long unsigned int", TY_ULONG, NULL }, { "short unsigned int", TY_USHORT, NULL },
	{ "const volatile int", TY_INT, NULL },  { "signed char", TY_SCHAR, NULL },
	{ "unsigned", TY_UINT, NULL },           { "bool", TY_BOOL, "_Bool" },
	{ "int8_t", TY_SCHAR },      { "uint8_t", TY_UCHAR },   { "int16_t", TY_SHORT },
	{ "uint16_t", TY_USHORT },   { "int32_t", TY_INT },     { "uint32_t", TY_UINT },
	{ "int64_t", TY_LONG },      { "uint64_t", TY_ULONG },  { "char", TY_CHAR },
	{ "unsigned char", TY_UCHAR }, { "short", TY_SHORT },   { "unsigned int", TY_UINT },
	{ "int", TY_INT },           { "long", TY_LONG },       { "unsigned long", TY_ULONG },
	{ "_Bool", TY_BOOL },
};

static const char *const literals[] = {
	"0", "1", "2", "3", "5", "7", "8", "13", "31", "32", "63", "100", "127", "128", "255",
	"256", "1000", "32767", "32768", "65535", "65536", "2147483647", "2147483648",
	"4294967295", "4294967296", "9223372036854775807", "18446744073709551615",
	"18446744073709551610", "0xff", "0x7fffffff", "0x80000000", "0xffffffff",
	"0x100000000", "0xffffffffffffffff",
};

/* ---- generation ----------------------------------------------------------------------- */

struct node {
	char s[EXPRGEN_TEXT], g[EXPRGEN_TEXT];
	struct val val;
	bool ptr; /* an address: no value known here */
};

struct ctx {
	struct exprgen *g;
	struct exprgen_expr *e;
};

/* snprintf into a node's text: a longer expression is cut, which gdb and
 * gstrace then both refuse (never seen with the depths used). */
__attribute__((format(printf, 2, 3))) static void put(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, EXPRGEN_TEXT, fmt, ap);
	va_end(ap);
}

static uint64_t rnd(struct exprgen *g)
{
	uint64_t x = g->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static unsigned pick(struct ctx *c, unsigned n)
{
	return (unsigned)((rnd(c->g) >> 11) % n);
}

void exprgen_seed(struct exprgen *g, uint64_t seed)
{
	g->state = (seed + 1) * 0x9E3779B97F4A7C15ull;
	if (!g->state)
		g->state = 1;
	for (int i = 0; i < 8; i++)
		rnd(g);
}

bool exprgen_has_tag(const struct exprgen_expr *e, const char *tag)
{
	size_t n = strlen(tag);

	for (const char *p = e->tags; (p = strstr(p, tag)); p += n)
		if ((p == e->tags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static void tag(struct ctx *c, const char *fmt, const char *a, const char *b)
{
	char t[64];
	size_t len = strlen(c->e->tags);

	snprintf(t, sizeof(t), fmt, a, b);
	if (exprgen_has_tag(c->e, t) || len + strlen(t) + 2 >= sizeof(c->e->tags))
		return;
	snprintf(c->e->tags + len, sizeof(c->e->tags) - len, "%s%s", len ? " " : "", t);
}

/* What an attempt that is thrown away must not leave behind. */
struct mark {
	char tags[EXPRGEN_TAGS];
	bool live;
};

static void mark(struct ctx *c, struct mark *m)
{
	memcpy(m->tags, c->e->tags, sizeof(m->tags));
	m->live = c->e->live;
}

static void undo(struct ctx *c, const struct mark *m)
{
	memcpy(c->e->tags, m->tags, sizeof(m->tags));
	c->e->live = m->live;
}

static void set(struct node *n, enum ty t, uint64_t v)
{
	n->val.ty = t;
	n->val.v = norm(t, v);
	n->ptr = false;
}

static void text(struct node *n, const char *s, const char *g)
{
	put(n->s, "%s", s);
	put(n->g, "%s", g);
}

static void type_tag(struct ctx *c, enum ty t)
{
	if (t == TY_CHAR || t == TY_BOOL || t == TY_ENUM)
		tag(c, "%s", tys[t].cls, "");
}

static bool gen_int(struct ctx *c, int depth, struct node *n);

static void leaf_literal(struct ctx *c, struct node *n)
{
	const char *lit = literals[pick(c, BASE_ARRAY_SIZE(literals))];
	bool hex = lit[1] == 'x';
	uint64_t v = strtoull(lit, NULL, 0);
	enum ty t;

	/* C's type of an unsuffixed constant (gdb 13 follows it; a decimal
	 * too big for long is unsigned long in gdb and gcc alike) */
	if (v <= INT32_MAX)
		t = TY_INT;
	else if (hex && v <= UINT32_MAX)
		t = TY_UINT;
	else if (v <= INT64_MAX)
		t = TY_LONG;
	else
		t = TY_ULONG;
	set(n, t, v);
	text(n, lit, lit);
	if (t == TY_ULONG && !hex) {
		/* gdb: the suffix says what it takes anyway, without a warning */
		put(n->g, "%sUL", lit);
		tag(c, "lit-u64", "", "");
	} else if (hex && (t == TY_UINT || t == TY_ULONG)) {
		tag(c, "lit-hex-unsigned", "", "");
	} else if (t == TY_LONG) {
		tag(c, "lit-long", "", "");
	}
	if (v != 0 && v <= 1000 && pick(c, 4) == 0) { /* a negative constant: -N */
		struct val x = { t, n->val.v };

		set(n, promote(t), (uint64_t)-(int64_t)x.v);
		put(n->s, "(-%s)", lit);
		put(n->g, "(-%s)", lit);
		tag(c, "lit-negative", "", "");
	}
}

static void leaf_var(struct ctx *c, struct node *n)
{
	const struct var *v = &vars[pick(c, BASE_ARRAY_SIZE(vars))];

	set(n, v->ty, v->v);
	text(n, v->name, v->name);
	if (v->tag)
		tag(c, "%s", v->tag, "");
	c->e->live |= v->live;
	type_tag(c, v->ty);
}

/* An index in [lo, hi): a constant, or an expression of that value. */
static void gen_index(struct ctx *c, int depth, int lo, int hi, struct node *n, int *value)
{
	if (depth > 0 && pick(c, 3) == 0) {
		for (int i = 0; i < 4; i++) {
			struct node x;
			struct mark m;
			__int128 w;

			mark(c, &m);
			if (!gen_int(c, depth - 1, &x) || x.ptr) {
				undo(c, &m);
				continue;
			}
			w = wide(x.val);
			if (w < lo || w >= hi)
				undo(c, &m);
			if (w >= lo && w < hi) {
				*n = x;
				*value = (int)w;
				tag(c, "index-expr", "", "");
				return;
			}
		}
	}
	*value = lo + (int)pick(c, (unsigned)(hi - lo));
	put(n->s, "%d", *value);
	put(n->g, "%d", *value);
}

static void leaf_member(struct ctx *c, int depth, struct node *n)
{
	unsigned r = pick(c, BASE_ARRAY_SIZE(recs));
	unsigned f = pick(c, BASE_ARRAY_SIZE(fields) + 2);
	int rec = recs[r].rec;

	tag(c, "%s", recs[r].tag, "");
	c->e->live |= recs[r].live;
	if (f < BASE_ARRAY_SIZE(fields)) {
		set(n, fields[f].ty, fields[f].v[rec]);
		put(n->s, "%s%s", recs[r].text, fields[f].name);
		type_tag(c, fields[f].ty);
	} else if (f == BASE_ARRAY_SIZE(fields)) {
		struct node i;
		int k;

		gen_index(c, depth, 0, 8, &i, &k);
		set(n, TY_INT, (uint64_t)(int64_t)rec_arr[rec][k]);
		put(n->s, "%sarr[%s]", recs[r].text, i.s);
		put(n->g, "%sarr[%s]", recs[r].text, i.g);
		tag(c, "index-array", "", "");
		return;
	} else {
		const char *name = rec ? "gamma" : "alpha";
		unsigned k = pick(c, 7);

		set(n, TY_CHAR, k < strlen(name) ? (uint64_t)name[k] : 0);
		put(n->s, "%sname[%u]", recs[r].text, k);
		tag(c, "index-array", "", "");
		tag(c, "char", "", "");
	}
	put(n->g, "%s", n->s);
}

/* A pointer into g_arr: its text and the index it points at (0..8). */
static void gen_intptr(struct ctx *c, struct node *n, int *off)
{
	int k;

	switch (pick(c, 8)) {
	case 0:
		text(n, "g_ip", "g_ip");
		*off = 2;
		return;
	case 1:
		k = (int)pick(c, 9);
		put(n->s, "(g_arr + %d)", k);
		tag(c, "ptr-arith", "", "");
		tag(c, "array-decay", "", "");
		break;
	case 2:
		k = 2 + (int)pick(c, 7);
		put(n->s, "(g_ip + %d)", k - 2);
		tag(c, "ptr-arith", "", "");
		break;
	case 3:
		k = (int)pick(c, 3);
		put(n->s, "(g_ip - %d)", 2 - k);
		tag(c, "ptr-arith", "", "");
		break;
	case 4:
		k = (int)pick(c, 8);
		put(n->s, "&g_arr[%d]", k);
		tag(c, "addr-of", "", "");
		break;
	case 5:
		text(n, "g_rp->ip", "g_rp->ip");
		tag(c, "member", "", "");
		*off = 5;
		return;
	case 6:
		k = 5 + (int)pick(c, 4) - 2;
		put(n->s, "(g_recs[0].ip + %d)", k - 5);
		tag(c, "ptr-arith", "", "");
		tag(c, "member", "", "");
		break;
	default:
		text(n, "cast(g_vp, \"int *\")", "((int *)(g_vp))");
		tag(c, "cast-ptr", "", "");
		*off = 0;
		return;
	}
	*off = k;
	put(n->g, "%s", n->s);
}

static void leaf_element(struct ctx *c, int depth, struct node *n)
{
	struct node p, i;
	int off, k;
	unsigned kind;

	switch (kind = pick(c, 7)) {
	case 0: /* g_arr[i], or (3) the array seen as another array type */
	case 3:
		gen_index(c, depth, 0, 8, &i, &k);
		set(n, kind ? TY_UINT : TY_INT, kind ? (uint64_t)(uint32_t)g_arr[k] :
						       (uint64_t)(int64_t)g_arr[k]);
		put(n->s, kind ? "cast(g_arr, \"uint32_t[8]\")[%s]" : "g_arr[%s]", i.s);
		put(n->g, kind ? "((unsigned int *)g_arr)[%s]" : "g_arr[%s]", i.g);
		tag(c, kind ? "cast-array" : "index-array", "", "");
		return;
	case 1: /* *p */
		do
			gen_intptr(c, &p, &off);
		while (off > 7);
		set(n, TY_INT, (uint64_t)(int64_t)g_arr[off]);
		put(n->s, "(*%s)", p.s);
		put(n->g, "(*%s)", p.g);
		tag(c, "deref", "", "");
		return;
	case 2: /* p[i] */
		gen_intptr(c, &p, &off);
		gen_index(c, depth, -off, 8 - off, &i, &k);
		set(n, TY_INT, (uint64_t)(int64_t)g_arr[off + k]);
		put(n->s, "%s[%s]", p.s, i.s);
		put(n->g, "%s[%s]", p.g, i.g);
		if (p.s[0] == '&') /* &a[k][i] would be &(a[k][i]) */
			goto deref;
		tag(c, "index-ptr", "", "");
		return;
	default: { /* a char of a string */
		unsigned s = pick(c, BASE_ARRAY_SIZE(strs));
		size_t len = strlen(strs[s].s);
		unsigned kk = pick(c, (unsigned)len + 1);

		set(n, TY_CHAR, kk < len ? (uint64_t)strs[s].s[kk] : 0);
		put(n->s, "%s[%u]", strs[s].text, kk);
		put(n->g, "%s", n->s);
		tag(c, strs[s].array ? "index-array" : "index-ptr", "", "");
		tag(c, "char", "", "");
		c->e->live |= strs[s].live;
		return;
	}
	}
deref:
	put(n->s, "(*(%s + %d))", p.s, k);
	put(n->g, "(*(%s + %d))", p.g, k);
	tag(c, "deref", "", "");
	tag(c, "ptr-arith", "", "");
}

static bool gen_leaf(struct ctx *c, int depth, struct node *n)
{
	unsigned k = pick(c, 20);

	if (k < 9)
		leaf_var(c, n);
	else if (k < 13)
		leaf_literal(c, n);
	else if (k < 17)
		leaf_member(c, depth, n);
	else
		leaf_element(c, depth, n);
	return true;
}

static const struct {
	const char *op, *name;
} binops[] = {
	{ "+", "add" }, { "-", "sub" }, { "*", "mul" }, { "/", "div" }, { "%", "mod" },
	{ "<<", "shl" }, { ">>", "shr" }, { "&", "and" }, { "|", "or" }, { "^", "xor" },
	{ "<", "cmp" }, { "<=", "cmp" }, { ">", "cmp" }, { ">=", "cmp" }, { "==", "eq" },
	{ "!=", "eq" },
};

/* C's a OP b, or false where C leaves it undefined. */
static bool binary(unsigned op, struct val a, struct val b, struct val *r, enum ty *optype)
{
	const char *o = binops[op].op;
	enum ty t = usual(a.ty, b.ty);
	struct val x = conv(a, t), y = conv(b, t);
	__int128 X = wide(x), Y = wide(y), R = 0;

	*optype = t;
	if (!strcmp(o, "<<") || !strcmp(o, ">>")) {
		enum ty lt = promote(a.ty);
		__int128 sh = wide(conv(b, promote(b.ty)));

		*optype = lt;
		X = wide(conv(a, lt));
		if (sh < 0 || sh >= tys[lt].width)
			return false;
		if (o[0] == '<') {
			if (tys[lt].sign && (X < 0 || !fits(lt, X << (int)sh)))
				return false;
			r->ty = lt;
			r->v = norm(lt, (uint64_t)conv(a, lt).v << (int)sh);
		} else {
			r->ty = lt;
			r->v = tys[lt].sign ? norm(lt, (uint64_t)(int64_t)(X >> (int)sh)) :
					      norm(lt, conv(a, lt).v >> (int)sh);
		}
		return true;
	}
	r->ty = t;
	switch (o[0]) {
	case '+':
	case '-':
	case '*':
		if (!tys[t].sign) {
			r->v = norm(t, o[0] == '+' ? x.v + y.v : o[0] == '-' ? x.v - y.v : x.v * y.v);
			return true;
		}
		R = o[0] == '+' ? X + Y : o[0] == '-' ? X - Y : X * Y;
		if (!fits(t, R))
			return false;
		r->v = norm(t, (uint64_t)(int64_t)R);
		return true;
	case '/':
	case '%':
		if (Y == 0 || (tys[t].sign && Y == -1 && !fits(t, -X)))
			return false;
		R = o[0] == '/' ? X / Y : X % Y;
		r->v = norm(t, (uint64_t)R);
		return true;
	case '&':
		r->v = norm(t, x.v & y.v);
		return true;
	case '|':
		r->v = norm(t, x.v | y.v);
		return true;
	case '^':
		r->v = norm(t, x.v ^ y.v);
		return true;
	}
	r->ty = TY_INT;
	if (!strcmp(o, "<"))
		r->v = X < Y;
	else if (!strcmp(o, "<="))
		r->v = X <= Y;
	else if (!strcmp(o, ">"))
		r->v = X > Y;
	else if (!strcmp(o, ">="))
		r->v = X >= Y;
	else if (!strcmp(o, "=="))
		r->v = X == Y;
	else
		r->v = X != Y;
	return true;
}

static bool gen_binary(struct ctx *c, int depth, struct node *n)
{
	struct node a, b;
	unsigned op = pick(c, BASE_ARRAY_SIZE(binops));
	enum ty t;
	struct val r;

	if (!gen_int(c, depth - 1, &a))
		return false;
	/* divisors and shift counts a program would use: mostly constants */
	if ((op == 3 || op == 4 || op == 5 || op == 6) && pick(c, 2)) {
		static const char *const small[] = { "1", "2", "3", "7", "8", "13", "31", "16" };
		const char *k = small[pick(c, 8)];

		set(&b, TY_INT, strtoull(k, NULL, 10));
		text(&b, k, k);
	} else if (!gen_int(c, depth - 1, &b)) {
		return false;
	}
	if (!binary(op, a.val, b.val, &r, &t))
		return false;
	n->val = r;
	n->ptr = false;
	put(n->s, "(%s %s %s)", a.s, binops[op].op, b.s);
	/* gdb refuses two _Bool operands and a _Bool shift count ("Invalid
	 * operation on booleans"); C promotes them to int, as this does */
	put(n->g, "(%s%s%s %s %s%s%s)", a.val.ty == TY_BOOL ? "((int)(" : "", a.g,
	    a.val.ty == TY_BOOL ? "))" : "", binops[op].op, b.val.ty == TY_BOOL ? "((int)(" : "",
	    b.g, b.val.ty == TY_BOOL ? "))" : "");
	tag(c, "%s/%s", binops[op].name, tys[t].cls);
	if (op < 5 || op > 6) {
		enum ty pa = promote(a.val.ty), pb = promote(b.val.ty);

		if (tys[pa].sign != tys[pb].sign)
			tag(c, "%s/%s-mixed", binops[op].name, tys[t].cls);
	}
	return true;
}

static bool gen_unary(struct ctx *c, int depth, struct node *n)
{
	struct node a;
	unsigned k = pick(c, 3);
	enum ty t;

	if (!gen_int(c, depth - 1, &a))
		return false;
	t = promote(a.val.ty);
	if (k == 0) {
		if (tys[t].sign && !fits(t, -wide(conv(a.val, t))))
			return false;
		set(n, t, -conv(a.val, t).v);
		tag(c, "neg/%s", tys[t].cls, "");
	} else if (k == 1) {
		set(n, t, ~conv(a.val, t).v);
		tag(c, "not/%s", tys[t].cls, "");
	} else {
		set(n, TY_INT, a.val.v == 0);
		tag(c, "lnot", "", "");
	}
	put(n->s, "(%s%s)", k == 0 ? "-" : k == 1 ? "~" : "!", a.s);
	put(n->g, "(%s%s)", k == 0 ? "-" : k == 1 ? "~" : "!", a.g);
	return true;
}

static bool gen_cast(struct ctx *c, int depth, struct node *n)
{
	struct node a;
	unsigned k = pick(c, BASE_ARRAY_SIZE(casts));

	if (!gen_int(c, depth - 1, &a))
		return false;
	n->val = conv(a.val, casts[k].ty);
	n->ptr = false;
	put(n->s, "cast(%s, \"%s\")", a.s, casts[k].name);
	put(n->g, "((%s)(%s))", casts[k].gdb ? casts[k].gdb : casts[k].name, a.g);
	tag(c, "cast/%s", tys[casts[k].ty].cls, "");
	/* C's spelling of a type DWARF names otherwise ("long int") */
	if (!strcmp(casts[k].name, "long") || !strcmp(casts[k].name, "unsigned long") ||
	    !strcmp(casts[k].name, "short"))
		tag(c, "cast-c-spelling", "", "");
	return true;
}

static bool gen_logical(struct ctx *c, int depth, struct node *n)
{
	struct node a, b;
	bool and = pick(c, 2);

	if (!gen_int(c, depth - 1, &a) || !gen_int(c, depth - 1, &b))
		return false;
	set(n, TY_INT, and ? a.val.v && b.val.v : a.val.v || b.val.v);
	put(n->s, "(%s %s %s)", a.s, and ? "&&" : "||", b.s);
	put(n->g, "(%s %s %s)", a.g, and ? "&&" : "||", b.g);
	tag(c, and ? "land" : "lor", "", "");
	return true;
}

/* && and || whose right side reads through NULL: C never evaluates it. */
static bool gen_short_circuit(struct ctx *c, int depth, struct node *n)
{
	static const char *const unsafe[] = {
		"*g_np", "g_nrp->i32", "g_np[3]", "g_recs[1].ip[0]", "g_nrp->name[0]",
		"(*g_nrp).u64",
	};
	const char *u = unsafe[pick(c, BASE_ARRAY_SIZE(unsafe))];
	bool and = pick(c, 2);

	tag(c, "short-circuit-null", "", "");
	switch (pick(c, 3)) {
	case 0: /* the pointer itself guards */
		set(n, TY_INT, !and);
		if (and)
			put(n->s, "(g_np && %s)", u);
		else
			put(n->s, "(!g_nrp || %s)", u);
		break;
	default: { /* a guard of known truth: false for &&, true for || */
		struct node gd;

		for (int i = 0;; i++) {
			struct mark m;

			if (i == 8) {
				set(&gd, TY_INT, !and);
				text(&gd, and ? "0" : "1", and ? "0" : "1");
				break;
			}
			mark(c, &m);
			if (gen_int(c, depth - 1, &gd) && (gd.val.v != 0) != and)
				break;
			undo(c, &m);
		}
		set(n, TY_INT, !and);
		put(n->s, "(%s %s %s)", gd.s, and ? "&&" : "||", u);
		put(n->g, "(%s %s %s)", gd.g, and ? "&&" : "||", u);
		return true;
	}
	}
	put(n->g, "%s", n->s);
	return true;
}

static bool gen_pointer_int(struct ctx *c, struct node *n)
{
	struct node p, q;
	int a, b;

	unsigned kind = pick(c, 4);

	if (kind < 2) {
		gen_intptr(c, &p, &a);
		gen_intptr(c, &q, &b);
	}
	switch (kind) {
	case 0:
		set(n, TY_LONG, (uint64_t)(int64_t)(a - b));
		put(n->s, "(%s - %s)", p.s, q.s);
		put(n->g, "(%s - %s)", p.g, q.g);
		tag(c, "ptr-diff", "", "");
		return true;
	case 1: {
		static const char *const rel[] = { "<", "<=", ">", ">=", "==", "!=" };
		unsigned k = pick(c, 6);
		int v = k == 0 ? a < b : k == 1 ? a <= b : k == 2 ? a > b : k == 3 ? a >= b :
			k == 4 ? a == b : a != b;

		set(n, TY_INT, (uint64_t)v);
		put(n->s, "(%s %s %s)", p.s, rel[k], q.s);
		put(n->g, "(%s %s %s)", p.g, rel[k], q.g);
		tag(c, "ptr-cmp", "", "");
		return true;
	}
	default: {
		static const struct {
			const char *s;
			int v;
			bool live;
			const char *tag;
		} fixed[] = {
			{ "(!g_np)", 1, false, NULL }, { "(g_np == 0)", 1, false, NULL },
			{ "(g_nrp != 0)", 0, false, NULL },
			{ "(!g_rp)", 0, false, NULL },
			{ "(g_recs[0].next == &g_recs[1])", 1, false, "member-next" },
			{ "(g_rp->next == p_rec)", 1, true, "member-next" },
			{ "(p_rec == &g_recs[1])", 1, true, NULL },
			{ "(g_recs[1].ip == 0)", 1, false, NULL },
			{ "(g_vp == g_arr)", 1, false, "array-decay" },
			{ "(p_rec - g_rp)", 1, true, "ptr-diff" },
			{ "(&g_recs[1] - g_rp)", 1, false, "ptr-diff" },
		};
		unsigned k = pick(c, BASE_ARRAY_SIZE(fixed));

		set(n, strstr(fixed[k].s, " - ") ? TY_LONG : TY_INT, (uint64_t)fixed[k].v);
		text(n, fixed[k].s, fixed[k].s);
		c->e->live |= fixed[k].live;
		tag(c, "ptr-cmp", "", "");
		if (fixed[k].tag)
			tag(c, "%s", fixed[k].tag, "");
		return true;
	}
	}
}

/* C string comparison: the script's operators and builtins against gdb's
 * convenience functions. */
/* fn(text, "lit", k) in the script: k written out, or (as often) a length
 * known at run time only, g_seven - (7 - k) (g_seven is 7). */
static void put_compare(struct ctx *c, struct node *n, const char *fn, const char *text,
			const char *lit, size_t k)
{
	if (pick(c, 2))
		put(n->s, "%s(%s, \"%s\", %zu)", fn, text, lit, k);
	else
		put(n->s, "%s(%s, \"%s\", g_seven - %d)", fn, text, lit, 7 - (int)k);
}

static bool gen_string(struct ctx *c, struct node *n)
{
	unsigned s = pick(c, BASE_ARRAY_SIZE(strs));
	const char *a = strs[s].s;
	char lit[24];
	int v;

	switch (pick(c, 5)) {
	case 0:
		snprintf(lit, sizeof(lit), "%s", a);
		break;
	case 1:
		snprintf(lit, sizeof(lit), "%.*s", (int)(strlen(a) / 2 + 1), a);
		break;
	case 2:
		snprintf(lit, sizeof(lit), "%sx", a);
		break;
	case 3:
		snprintf(lit, sizeof(lit), "%s", strs[pick(c, BASE_ARRAY_SIZE(strs))].s);
		break;
	default:
		snprintf(lit, sizeof(lit), "%s", pick(c, 2) ? "" : "wor");
		break;
	}
	c->e->live |= strs[s].live;
	switch (pick(c, 6)) {
	case 0:
	case 1: {
		bool eq = pick(c, 2);

		v = (strcmp(a, lit) == 0) == eq;
		put(n->s, "(%s %s \"%s\")", strs[s].text, eq ? "==" : "!=", lit);
		put(n->g, "%s$_streq(%s, \"%s\")%s", eq ? "" : "(!",
			 strs[s].text, lit, eq ? "" : ")");
		tag(c, eq ? "str-eq" : "str-ne", "", "");
		break;
	}
	case 2:
		v = strncmp(a, lit, strlen(lit)) == 0;
		put(n->s, "starts_with(%s, \"%s\")", strs[s].text, lit);
		put(n->g, "$_regex(%s, \"^%s\")", strs[s].text, lit);
		tag(c, "starts_with", "", "");
		break;
	case 3: {
		size_t k = 1 + pick(c, (unsigned)strlen(lit) + 1);

		v = strncmp(a, lit, k) == 0;
		put_compare(c, n, "strncmp", strs[s].text, lit, k);
		if (k <= strlen(lit))
			put(n->g, "$_regex(%s, \"^%.*s\")", strs[s].text, (int)k,
				 lit);
		else
			put(n->g, "$_streq(%s, \"%s\")", strs[s].text, lit);
		tag(c, "strncmp", "", "");
		break;
	}
	case 4: {
		/* n within the literal (no NUL in it): the first difference is
		 * at or before the string's NUL, so what follows never counts */
		size_t k;

		if (!lit[0])
			snprintf(lit, sizeof(lit), "%s", "hel");
		k = 1 + pick(c, (unsigned)strlen(lit));
		v = strncmp(a, lit, k) == 0;
		put_compare(c, n, "memcmp", strs[s].text, lit, k);
		put(n->g, "$_regex(%s, \"^%.*s\")", strs[s].text, (int)k, lit);
		tag(c, "memcmp", "", "");
		break;
	}
	default: { /* two char arrays, bytes past the NUL included (zeros) */
		static const struct {
			const char *text, *s;
		} arrs[] = { { "g_name", "hello" }, { "g_rp->name", "alpha" },
			     { "g_recs[1].name", "gamma" }, { "g_recs[0].name", "alpha" } };
		unsigned i = pick(c, 4), j = pick(c, 4);
		size_t k = 1 + pick(c, 16);
		char x[16] = { 0 }, y[16] = { 0 };

		memcpy(x, arrs[i].s, strlen(arrs[i].s));
		memcpy(y, arrs[j].s, strlen(arrs[j].s));
		v = memcmp(x, y, k) == 0;
		put(n->s, "memcmp(%s, %s, %zu)", arrs[i].text, arrs[j].text, k);
		put(n->g, "$_memeq(%s, %s, %zu)", arrs[i].text, arrs[j].text, k);
		tag(c, "memcmp-var", "", "");
		break;
	}
	}
	set(n, TY_INT, (uint64_t)v);
	return true;
}

static bool gen_int(struct ctx *c, int depth, struct node *n)
{
	unsigned k;

	memset(n, 0, sizeof(*n));
	if (depth <= 0 || pick(c, 10) < 2)
		return gen_leaf(c, depth, n);
	for (int tries = 0; tries < 6; tries++) {
		struct mark m;

		mark(c, &m);
		k = pick(c, 100);
		if (k < 12 ? gen_unary(c, depth, n) :
		    k < 50 ? gen_binary(c, depth, n) :
		    k < 58 ? gen_logical(c, depth, n) :
		    k < 72 ? gen_cast(c, depth, n) :
		    k < 80 ? gen_string(c, n) :
		    k < 90 ? gen_pointer_int(c, n) :
		    k < 95 ? gen_short_circuit(c, depth, n) : gen_leaf(c, depth, n))
			return true;
		undo(c, &m);
	}
	return gen_leaf(c, depth, n);
}

/* A pointer-typed expression: its value is an address. */
static void gen_pointer(struct ctx *c, struct node *n)
{
	static const struct {
		const char *s, *tag;
		bool live;
	} ptrs[] = {
		{ "g_rp", NULL, false }, { "p_rec", "param", true }, { "g_np", NULL, false },
		{ "g_vp", NULL, false },
		{ "(g_rp + 1)", "ptr-arith", false }, { "&g_recs[1]", "addr-of", false },
		{ "g_rp->next", "member-next", false }, { "&g_rp->u64", "addr-of", false },
	};
	int off;

	memset(n, 0, sizeof(*n));
	if (pick(c, 2)) {
		gen_intptr(c, n, &off);
	} else {
		unsigned k = pick(c, BASE_ARRAY_SIZE(ptrs));

		text(n, ptrs[k].s, ptrs[k].s);
		if (ptrs[k].tag)
			tag(c, "%s", ptrs[k].tag, "");
		c->e->live |= ptrs[k].live;
	}
	n->ptr = true;
	tag(c, "ptr-value", "", "");
}

void exprgen_next(struct exprgen *g, struct exprgen_expr *e)
{
	struct ctx c = { g, e };
	struct node *n = calloc(1, sizeof(*n));

	memset(e, 0, sizeof(*e));
	if (pick(&c, 10) == 0)
		gen_pointer(&c, n);
	else
		gen_int(&c, 1 + (int)pick(&c, 3), n);
	snprintf(e->script, sizeof(e->script), "%s", n->s);
	snprintf(e->gdb, sizeof(e->gdb), "%s", n->g);
	if (!n->ptr)
	{
		if (tys[n->val.ty].sign)
			snprintf(e->value, sizeof(e->value), "%lld", (long long)n->val.v);
		else
			snprintf(e->value, sizeof(e->value), "%llu", (unsigned long long)n->val.v);
	}
	free(n);
}

bool exprgen_enumerator(const char *name, long *value)
{
	for (size_t i = 0; i < BASE_ARRAY_SIZE(enumerators); i++)
		if (!strcmp(enumerators[i].name, name)) {
			*value = enumerators[i].value;
			return true;
		}
	return false;
}
