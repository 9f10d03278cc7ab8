/* The script parser on valid scripts: each case states a script and the
 * tree the code generator is given (script_dump.h), for every statement,
 * every bt option combination, C precedence, literals and the four target
 * forms; then the expression texts shown as variable names, let scopes,
 * $input_pid, and every parsed trace built by gs_program_build(). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/program.h> /* scripts built into programs */
#include <gs/script.h>
#include "base.h"
#include "script_dump.h"


struct tree_case {
	const char *script;
	const char *tree;
};

static struct gs_script *parse_ok(const char *text)
{
	struct gs_script *s = NULL;
	struct gs_error err;

	if (gs_script_parse(text, strlen(text), NULL, &s, &err))
		fail_msg("script did not parse: %s\n%s", text, err.msg);
	return s;
}

static void check_trees(const struct tree_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		struct gs_script *s = NULL;
		struct gs_error err;
		char got[4096];

		if (gs_script_parse(cases[i].script, strlen(cases[i].script), NULL, &s, &err)) {
			print_message("case %zu: %s\n  did not parse: %s\n", i, cases[i].script,
				      err.msg);
			failures++;
			continue;
		}
		dump_script(s, got, sizeof(got));
		if (strcmp(got, cases[i].tree)) {
			print_message("case %zu: %s\n  expected: %s\n       got: %s\n", i,
				      cases[i].script, cases[i].tree, got);
			failures++;
		}
		gs_script_free(s);
	}
	assert_int_equal(failures, 0);
}

static void test_statements_give_their_trees(void **state)
{
	static const struct tree_case cases[] = {
		{ "trace main { print \"hello\"; }", "fn main { str \"hello\"; }" },
		{ "trace main { }", "fn main { }" },
		{ "trace f{print\"x\";bt;}", "fn f { str \"x\"; bt 0x04; }" },
		{ "trace f { print \"pid={} tid={:x} sp={:p} pc={:X}\", $pid, $tid, $sp, $pc; }",
		  "fn f { fmt \"pid={} tid={:x} sp={:p} pc={:X}\" $pid, $tid, $sp, $pc; }" },
		{ "trace f { print \"{}\", $host_pid; print \"{}\", $timestamp; }",
		  "fn f { fmt \"{}\" $host_pid; fmt \"{}\" $timestamp; }" },
		/* format strings keep {{ }} for the renderer; literals resolve them */
		{ "trace f { print \"{{lit}} {}\", 1; print \"{{x}}\"; }",
		  "fn f { fmt \"{{lit}} {}\" 1; str \"{x}\"; }" },
		{ "trace f { print \"a\\tb\\n\\\"q\\\" \\\\\"; }",
		  "fn f { str \"a\tb\n\"q\" \\\"; }" },
		{ "trace f { print $pid; print rdi + 1; }",
		  "fn f { print $pid; print (+ reg5 1); }" },
		{ "trace f { let x = rdi; let y = x + 1; print y; }",
		  "fn f { let x#0 = reg5; let y#1 = (+ var0 1); print var1; }" },
		{ "trace f { if rdi == 1 { print \"one\"; } }",
		  "fn f { if (== reg5 1) { str \"one\"; } }" },
		{ "trace f { if rdi { } else { bt; } }",
		  "fn f { if reg5 { } else { bt 0x04; } }" },
		{ "trace f { if rdi == 1 { print \"one\"; } else if rdi == 2 { print \"two\"; } "
		  "else { print \"many\"; } }",
		  "fn f { if (== reg5 1) { str \"one\"; } else { if (== reg5 2) { str \"two\"; } "
		  "else { str \"many\"; } } }" },
		{ "trace f { if 1 { if 2 { bt; } } else if 3 { } }",
		  "fn f { if 1 { if 2 { bt 0x04; } } else { if 3 { } } }" },
		{ "// leading\ntrace /* a */ f /* b */ { /* c */ print 1; // end\n}\n/* tail */",
		  "fn f { print 1; }" },
		{ "trace a.c:1// after the target\n{ } trace /lib/x.so:0x1/**/{ }",
		  "line a.c 1 { }\nmod /lib/x.so 0x1 { }" },
		{ "trace f { print *(u64 *)$sp; print *(i32)(rdi + 4); print *(u8 *)*(u64 *)rsp; }",
		  "fn f { print (u64* $sp); print (i32* (+ reg5 4)); print (u8* (u64* reg7)); }" },
		{ "trace f { print *(u16*)rdi; print *(i8 *)rdi; print *(i16 *)rdi; "
		  "print *(u32)rdi; print *(i64 *)rdi; }",
		  "fn f { print (u16* reg5); print (i8* reg5); print (i16* reg5); "
		  "print (u32* reg5); print (i64* reg5); }" },
		{ "trace f { print true; print false; }", "fn f { print 1; print 0; }" },
		{ "trace f { print -5; print - -5; print !~rdi; }",
		  "fn f { print (- 5); print (- (- 5)); print (! (~ reg5)); }" },
		{ "trace a { bt; }\ntrace b { bt raw; }\ntrace c { backtrace full; }",
		  "fn a { bt 0x04; }\nfn b { bt 0x05; }\nfn c { bt 0x06; }" },
		/* a function may be named like a keyword: a target is not an expression */
		{ "trace print { }", "fn print { }" },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* Aggregations: one id per @name across the script's traces (in the
 * order of first use), the function, the keys in order, the value;
 * lhist's bounds; under an if; $duration in a return probe. */
static void test_aggregations_give_their_trees(void **state)
{
	static const struct tree_case cases[] = {
		{ "trace f { @ = count(); }", "fn f { agg @#0 fn0 [] NULL; }" },
		{ "trace f { @calls[1] = count(); } trace g { @calls[2] = count(); @s = sum(rdi); }",
		  "fn f { agg @calls#0 fn0 [1] NULL; }\n"
		  "fn g { agg @calls#0 fn0 [2] NULL; agg @s#1 fn1 [] reg5; }" },
		{ "trace f { @m[$pid, $tid] = min(rdi); @x[rsi] = max(-rdi); @a = avg(rdi * 2); }",
		  "fn f { agg @m#0 fn2 [$pid, $tid] reg5; agg @x#1 fn3 [reg4] (- reg5); "
		  "agg @a#2 fn4 [] (* reg5 2); }" },
		{ "trace f { @st[p->name] = stats(n); @h = hist(n / 1000); }",
		  "fn f { agg @st#0 fn5 [(. p name)] n; agg @h#1 fn6 [] (/ n 1000); }" },
		{ "trace f { @l = lhist(rdi, -10, 100, 5); }",
		  "fn f { agg @l#0 fn7 [] reg5 -10..100/5; }" },
		{ "trace f { if rdi > 2 { @big = count(); } else { @small = count(); } }",
		  "fn f { if (> reg5 2) { agg @big#0 fn0 [] NULL; } else { agg @small#1 fn0 [] NULL; "
		  "} }" },
		{ "trace f return { @lat[$retval] = hist($duration); }",
		  "fn f return { agg @lat#0 fn6 [$retval] $duration; }" },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* Source-level values: names, postfix chains (tighter than unary * and &),
 * casts, builtins with string and hex operands, aliases, run-time lengths. */
static void test_source_values_give_their_trees(void **state)
{
	static const struct tree_case cases[] = {
		{ "trace f { print x; print g_counter; }", "fn f { print x; print g_counter; }" },
		{ "trace f { print a.b.c; print p->x; print p.x; }",
		  "fn f { print (. (. a b) c); print (. p x); print (. p x); }" },
		/* a Rust tuple's field: its member __N */
		{ "trace f { print t.0; print p.1.x; print (t.0).12; }",
		  "fn f { print (. t __0); print (. (. p __1) x); print (. (. t __0) __12); }" },
		{ "trace f { print a[1]; print a[i + 1].f; print m[1][2]; }",
		  "fn f { print ([] a 1); print (. ([] a (+ i 1)) f); print ([] ([] m 1) 2); }" },
		{ "trace f { print *p; print *p.next; print (*p).next; print **pp; }",
		  "fn f { print (* p); print (* (. p next)); print (. (* p) next); "
		  "print (* (* pp)); }" },
		{ "trace f { print &x; print &a[2]; print &p->y; print *&x; }",
		  "fn f { print (& x); print (& ([] a 2)); print (& (. p y)); print (* (& x)); }" },
		{ "trace f { print cast(rdi, \"struct point *\")->x; }",
		  "fn f { print (. (cast reg5 \"struct point *\") x); }" },
		{ "trace f { print -p->x * 2 + s.n; }",
		  "fn f { print (+ (* (- (. p x)) 2) (. s n)); }" },
		{ "trace f { print *(u64 *)p + *q; }", "fn f { print (+ (u64* p) (* q)); }" },
		{ "trace f { if memcmp(buf, hex(\"de ad BE\"), 3) { } }",
		  "fn f { if (memcmp buf bytes[de ad be] 3) { } }" },
		{ "trace f { if memcmp(a, b, 4) && memcmp(\"ab\", q) { } }",
		  "fn f { if (&& (memcmp a b 4) (memcmp bytes[61 62] q 2)) { } }" },
		{ "trace f { if strncmp(name, \"GET\", 3) || starts_with(p->s, \"x\\n\") { } }",
		  "fn f { if (|| (strncmp name bytes[47 45 54] 3) (starts_with (. p s) "
		  "bytes[78 0a])) { } }" },
		{ "trace f { let r = rec->next; print r.id; print r; }",
		  "fn f { print (. (. rec next) id); print (. rec next); }" },
		{ "trace f { let p = &g; let n = 3; print \"{:x.n$} {:s.*}\", p, n + 1, p; }",
		  "fn f { let n#0 = 3; fmt \"{:x.n$} {:s.*}\" var0, (& g), (+ var0 1), (& g); }" },
		{ "trace f { let n = p->len; print \"{:s.n$}\", p->buf; }",
		  "fn f { fmt \"{:s.n$}\" (. p len), (. p buf); }" },
		{ "trace f { print \"{:s} {:x.16} {:X.0x10} {:s.0o20} {:x.0b1}\", a, a, a, a, a; }",
		  "fn f { fmt \"{:s} {:x.16} {:X.0x10} {:s.0o20} {:x.0b1}\" a, a, a, a, a; }" },
		{ "trace f { print len(v) + len; print len(vs[1]); if len(s) > 2 { } }",
		  "fn f { print (+ (len v) len); print (len ([] vs 1)); if (> (len s) 2) { } }" },
		{ "trace f return { print $retval.x; print *$retval; }",
		  "fn f return { print (. $retval x); print (* $retval); }" },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* An alias shows its own name, and a message about it points at the use. */
static void test_aliases_are_named_where_used(void **state)
{
	struct gs_script *s = parse_ok("trace f { let r = rec->next; print r.id; }");
	const struct gs_expr *e = s->traces[0].body[0].expr;

	(void)state;
	assert_int_equal(s->traces[0].nbody, 1);
	assert_int_equal(s->traces[0].nvars, 0);
	assert_string_equal(e->text, "r.id");
	assert_string_equal(e->lhs->text, "r");
	assert_int_equal(e->lhs->pos, strlen("trace f { let r = rec->next; print "));
	assert_int_equal(e->pos, strlen("trace f { let r = rec->next; print r."));
	gs_script_free(s);
}

static void test_registers_map_to_dwarf_numbers(void **state)
{
	static const struct tree_case cases[] = {
		{ "trace f { print rax; print rdx; print rcx; print rbx; print rsi; print rdi; }",
		  "fn f { print reg0; print reg1; print reg2; print reg3; print reg4; print reg5; }" },
		{ "trace f { print rbp; print rsp; print r8; print r9; print r10; print r11; }",
		  "fn f { print reg6; print reg7; print reg8; print reg9; print reg10; "
		  "print reg11; }" },
		{ "trace f { print r12; print r13; print r14; print r15; print rip; }",
		  "fn f { print reg12; print reg13; print reg14; print reg15; print reg16; }" },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

/* Reference 1.7: inline by default; raw and full add their bit; noinline
 * clears inline and inline sets it again, the last one winning. */
static void test_every_bt_option_combination(void **state)
{
	static const struct tree_case cases[] = {
		{ "trace f { bt; }", "fn f { bt 0x04; }" },
		{ "trace f { backtrace; }", "fn f { bt 0x04; }" },
		{ "trace f { bt raw; }", "fn f { bt 0x05; }" },
		{ "trace f { bt full; }", "fn f { bt 0x06; }" },
		{ "trace f { bt inline; }", "fn f { bt 0x04; }" },
		{ "trace f { bt noinline; }", "fn f { bt 0x00; }" },
		{ "trace f { bt raw noinline; }", "fn f { bt 0x01; }" },
		{ "trace f { bt noinline raw; }", "fn f { bt 0x01; }" },
		{ "trace f { bt full noinline; }", "fn f { bt 0x02; }" },
		{ "trace f { bt noinline full; }", "fn f { bt 0x02; }" },
		{ "trace f { bt raw full; }", "fn f { bt 0x07; }" },
		{ "trace f { bt full raw; }", "fn f { bt 0x07; }" },
		{ "trace f { bt raw inline; }", "fn f { bt 0x05; }" },
		{ "trace f { bt full inline; }", "fn f { bt 0x06; }" },
		{ "trace f { bt raw full noinline; }", "fn f { bt 0x03; }" },
		{ "trace f { bt inline noinline; }", "fn f { bt 0x00; }" },
		{ "trace f { bt noinline inline; }", "fn f { bt 0x04; }" },
		{ "trace f { bt raw raw; }", "fn f { bt 0x05; }" },
		{ "trace f { bt noinline noinline; }", "fn f { bt 0x00; }" },
		{ "trace f { backtrace raw noinline; }", "fn f { bt 0x01; }" },
		{ "trace f { bt full; bt raw noinline; }", "fn f { bt 0x06; bt 0x01; }" },
		{ "trace f { bt\n  raw /* x */ noinline\n; }", "fn f { bt 0x01; }" },
	};

	(void)state;
	check_trees(cases, BASE_ARRAY_SIZE(cases));
}

static void check_exprs(const struct tree_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		char text[512], got[1024];
		struct gs_script *s = NULL;
		struct gs_error err;

		snprintf(text, sizeof(text), "trace f { print %s; }", cases[i].script);
		if (gs_script_parse(text, strlen(text), NULL, &s, &err)) {
			print_message("case %zu: %s\n  did not parse: %s\n", i, text, err.msg);
			failures++;
			continue;
		}
		dump_expr(s->traces[0].body[0].expr, got, sizeof(got));
		if (strcmp(got, cases[i].tree)) {
			print_message("case %zu: %s\n  expected: %s\n       got: %s\n", i,
				      cases[i].script, cases[i].tree, got);
			failures++;
		}
		gs_script_free(s);
	}
	assert_int_equal(failures, 0);
}

static void test_operators_follow_c_precedence(void **state)
{
	static const struct tree_case cases[] = {
		{ "1 + 2 * 3", "(+ 1 (* 2 3))" },
		{ "(1 + 2) * 3", "(* (+ 1 2) 3)" },
		{ "1 - 2 - 3", "(- (- 1 2) 3)" },
		{ "8 / 4 / 2", "(/ (/ 8 4) 2)" },
		{ "7 % 3 * 2", "(* (% 7 3) 2)" },
		{ "1 - 2 + 3", "(+ (- 1 2) 3)" },
		{ "1 << 2 + 3", "(<< 1 (+ 2 3))" },
		{ "1 >> 2 << 3", "(<< (>> 1 2) 3)" },
		{ "1 << 0 >> 63", "(>> (<< 1 0) 63)" },
		{ "1 << -1", "(<< 1 (- 1))" }, /* not a constant: masked at run time */
		{ "1 << 2 < 3", "(< (<< 1 2) 3)" },
		{ "1 < 2 == 3 > 4", "(== (< 1 2) (> 3 4))" },
		{ "1 <= 2 != 3 >= 4", "(!= (<= 1 2) (>= 3 4))" },
		{ "1 < 2 < 3", "(< (< 1 2) 3)" },
		{ "1 & 2 == 2", "(& 1 (== 2 2))" },
		{ "1 ^ 2 & 3", "(^ 1 (& 2 3))" },
		{ "1 | 2 ^ 3 & 4", "(| 1 (^ 2 (& 3 4)))" },
		{ "1 && 2 | 3", "(&& 1 (| 2 3))" },
		{ "1 || 2 && 3", "(|| 1 (&& 2 3))" },
		{ "1 && 2 || 3 && 4", "(|| (&& 1 2) (&& 3 4))" },
		{ "1 || 2 || 3", "(|| (|| 1 2) 3)" },
		{ "-1 * -2", "(* (- 1) (- 2))" },
		{ "!1 == 0", "(== (! 1) 0)" },
		{ "~0 >> 1", "(>> (~ 0) 1)" },
		{ "-(1 + 2)", "(- (+ 1 2))" },
		{ "((((1))))", "1" },
		{ "*(u32 *)rdi * 2", "(* (u32* reg5) 2)" },
		{ "*(u64 *)rsp + 8", "(+ (u64* reg7) 8)" },
		{ "*(u64 *)(rsp + 8)", "(u64* (+ reg7 8))" },
		{ "- *(i8 *)rsp", "(- (i8* reg7))" },
		{ "*(u64 *)-rdi", "(u64* (- reg5))" },
		{ "$pid % 2 == 0 && $tid != 0", "(&& (== (% $pid 2) 0) (!= $tid 0))" },
		{ "rdi > 2048 && rdi % 64 == 1", "(&& (> reg5 2048) (== (% reg5 64) 1))" },
	};

	(void)state;
	check_exprs(cases, BASE_ARRAY_SIZE(cases));
}

static void test_integer_literals(void **state)
{
	static const struct tree_case cases[] = {
		{ "0", "0" },
		{ "42", "42" },
		{ "0x10", "16" },
		{ "0X1f", "31" },
		{ "0xDEADbeef", "3735928559" },
		{ "0o17", "15" },
		{ "0b101", "5" },
		{ "9223372036854775807", "9223372036854775807" },
		/* any 64-bit pattern: the i64 it stands for */
		{ "18446744073709551615", "-1" },
		{ "0xffffffffffffffff", "-1" },
		{ "0x8000000000000000", "-9223372036854775808" },
		{ "0b1111111111111111111111111111111111111111111111111111111111111111", "-1" },
		{ "0o1777777777777777777777", "-1" },
		/* digit separators, as GhostScope's docs write sizes and masks */
		{ "1_048_576", "1048576" },
		{ "0xffff_ffff", "4294967295" },
		{ "0b1010_0101", "165" },
		{ "0o7_7", "63" },
		{ "1_8446_7440_7370_9551_615", "-1" },
	};

	(void)state;
	check_exprs(cases, BASE_ARRAY_SIZE(cases));
}

static void test_targets_in_their_four_forms(void **state)
{
	static const char text[] =
		"trace main { }\n"
		"  trace 0x1139 { }\n"
		"trace /usr/lib/x86_64-linux-gnu/libc++.so.1:0xAbC0 { }\n"
		"trace src/demo-1.c:43 { }\n"
		"trace 0x0 { }\n";
	struct gs_script *s = parse_ok(text);
	const struct gs_script_trace *t = s->traces;

	(void)state;
	assert_int_equal(s->ntraces, 5);
	assert_int_equal(t[0].target.kind, GS_TARGET_FUNCTION);
	assert_string_equal(t[0].target.name, "main");
	assert_string_equal(t[0].target.text, "main");
	assert_int_equal(t[0].line, 1);
	assert_int_equal(t[0].column, 7);

	assert_int_equal(t[1].target.kind, GS_TARGET_ADDRESS);
	assert_null(t[1].target.name);
	assert_string_equal(t[1].target.text, "0x1139");
	assert_int_equal(t[1].target.address, 0x1139);
	assert_int_equal(t[1].line, 2);
	assert_int_equal(t[1].column, 9);

	assert_int_equal(t[2].target.kind, GS_TARGET_MODULE_ADDRESS);
	assert_string_equal(t[2].target.name, "/usr/lib/x86_64-linux-gnu/libc++.so.1");
	assert_string_equal(t[2].target.text, "/usr/lib/x86_64-linux-gnu/libc++.so.1:0xAbC0");
	assert_int_equal(t[2].target.address, 0xabc0);

	assert_int_equal(t[3].target.kind, GS_TARGET_FILE_LINE);
	assert_string_equal(t[3].target.name, "src/demo-1.c");
	assert_int_equal(t[3].target.line, 43);
	assert_int_equal(t[3].line, 4);
	assert_int_equal(t[3].column, 7);

	assert_int_equal(t[4].target.kind, GS_TARGET_ADDRESS);
	assert_int_equal(t[4].target.address, 0);
	gs_script_free(s);
}

static void test_large_addresses_and_lines(void **state)
{
	struct gs_script *s = parse_ok("trace 0xffffffffffffffff { } trace m.so:0x000000000000000001 { } "
				       "trace a.c:4294967295 { }");

	(void)state;
	assert_int_equal(s->traces[0].target.address, UINT64_MAX);
	assert_int_equal(s->traces[1].target.address, 1);
	assert_int_equal(s->traces[2].target.line, UINT32_MAX);
	gs_script_free(s);
}

/* The text of each node is the name the output shows for its value. */
static void test_expression_texts_are_normalized_source(void **state)
{
	static const char text[] =
		"trace f {\n"
		"  print   rdi   +\n\t1 ;\n"
		"  print /*c*/ rdi/*d*/+1;\n"
		"  print (rdi + 1) * 2;\n"
		"  print *(u64 *)( $sp + 8 );\n"
		"  print \"{} {}\", true, - rdi;\n"
		"  let x = 7; print x;\n"
		"  if $pid  ==  1 { }\n"
		"}\n";
	struct gs_script *s = parse_ok(text);
	const struct gs_stmt *b = s->traces[0].body;

	(void)state;
	assert_int_equal(s->traces[0].nbody, 8);
	assert_string_equal(b[0].expr->text, "rdi + 1");
	assert_string_equal(b[0].expr->lhs->text, "rdi");
	assert_string_equal(b[0].expr->rhs->text, "1");
	assert_string_equal(b[1].expr->text, "rdi +1");
	assert_string_equal(b[2].expr->text, "(rdi + 1) * 2");
	assert_string_equal(b[2].expr->lhs->text, "rdi + 1");
	assert_string_equal(b[3].expr->text, "*(u64 *)( $sp + 8 )");
	assert_string_equal(b[3].expr->lhs->text, "$sp + 8");
	assert_string_equal(b[4].args[0]->text, "true");
	assert_string_equal(b[4].args[1]->text, "- rdi");
	assert_string_equal(b[5].text, "x");
	assert_string_equal(b[5].expr->text, "7");
	assert_string_equal(b[6].expr->text, "x");
	assert_null(b[7].text);
	assert_string_equal(b[7].expr->text, "$pid == 1");
	gs_script_free(s);
}

/* Each let gets its own index; a name is free again after its block. */
static void test_let_variables_are_block_scoped(void **state)
{
	static const char text[] =
		"trace f {\n"
		"  let a = 1;\n"
		"  if a { let b = a + 1; print b; } else { let b = 3; print b; }\n"
		"  if 1 { let c = 1; if c { print a + c; } }\n"
		"  let b = 4; print b;\n"
		"}\n"
		"trace g { let a = 9; print a; }\n";
	struct gs_script *s = parse_ok(text);
	const struct gs_script_trace *t = s->traces;
	char got[1024];

	(void)state;
	dump_script(s, got, sizeof(got));
	assert_string_equal(got,
		"fn f { let a#0 = 1; if var0 { let b#1 = (+ var0 1); print var1; } "
		"else { let b#2 = 3; print var2; } if 1 { let c#3 = 1; if var3 "
		"{ print (+ var0 var3); } } let b#4 = 4; print var4; }\n"
		"fn g { let a#0 = 9; print var0; }");
	assert_int_equal(t[0].nvars, 5);
	assert_string_equal(t[0].var_names[0], "a");
	assert_string_equal(t[0].var_names[1], "b");
	assert_string_equal(t[0].var_names[3], "c");
	assert_string_equal(t[0].var_names[4], "b");
	assert_int_equal(t[1].nvars, 1);
	assert_string_equal(t[1].var_names[0], "a");
	gs_script_free(s);
}

static void test_input_pid_is_the_callers_constant(void **state)
{
	static const char text[] = "trace f { if $pid == $input_pid { print $input_pid; } }";
	struct gs_script_opts o = { .sz = sizeof(o), .input_pid = 4242 };
	struct gs_script *s = NULL;
	struct gs_error err;
	char got[256];

	(void)state;
	assert_int_equal(gs_script_parse(text, strlen(text), &o, &s, &err), 0);
	dump_script(s, got, sizeof(got));
	assert_string_equal(got, "fn f { if (== $pid 4242) { print 4242; } }");
	assert_string_equal(s->traces[0].body[0].then_body[0].expr->text, "$input_pid");
	gs_script_free(s);
}

/* The text need not end with a NUL: only len bytes are read. */
static void test_text_is_bounded_by_its_length(void **state)
{
	static const char text[] = "trace f { print 12; }trace g { garbage";
	struct gs_script *s = NULL;
	struct gs_error err;
	char got[256];

	(void)state;
	assert_int_equal(gs_script_parse(text, 21, NULL, &s, &err), 0);
	dump_script(s, got, sizeof(got));
	assert_string_equal(got, "fn f { print 12; }");
	gs_script_free(s);
}

/* `bt` is counted in every branch; `bt raw` is not symbolized. */
static void test_bt_statements_are_counted_in_every_branch(void **state)
{
	struct gs_script *s = parse_ok("trace f { bt; if ($pid == 1) { bt raw; } else if "
				       "($pid == 2) { bt; } else { print 1; } } "
				       "trace g { if ($pid == 3) { bt raw; } } trace h { print 2; }");
	const struct gs_script_trace *t = s->traces;

	(void)state;
	assert_int_equal(gs_stmts_count_bt(t[0].body, t[0].nbody), 3);
	assert_int_equal(gs_stmts_count_bt_symbolized(t[0].body, t[0].nbody), 2);
	assert_int_equal(gs_stmts_count_bt(t[1].body, t[1].nbody), 1);
	assert_int_equal(gs_stmts_count_bt_symbolized(t[1].body, t[1].nbody), 0);
	assert_int_equal(gs_stmts_count_bt(t[2].body, t[2].nbody), 0);
	gs_script_free(s);
}

static void test_spec_of_a_trace(void **state)
{
	struct gs_script *s = parse_ok("trace f { print 1; } trace lib.so:0x10 { let x = 1; bt; }");
	struct gs_trace_spec spec;

	(void)state;
	gs_script_trace_spec(&s->traces[1], 7, &spec);
	assert_int_equal(spec.trace_id, 7);
	assert_string_equal(spec.target, "lib.so:0x10");
	assert_ptr_equal(spec.body, s->traces[1].body);
	assert_int_equal(spec.nbody, 2);
	assert_int_equal(spec.nvars, 1);
	assert_null(spec.bt);
	gs_script_free(s);
}

/* Every statement and expression kind, through the code generator. */
static void test_every_parsed_trace_builds(void **state)
{
	static const char text[] =
		"trace hot_bt_probe {\n"
		"  print \"HOT\";\n"
		"  print \"pid={} v={:x} p={:p} V={:X}\", $pid, rdi, *(u64 *)$sp, $tid;\n"
		"  print $timestamp;\n"
		"  let v = rdi * 3 + *(i32 *)(rsp + 8);\n"
		"  if v % 2 == 0 && !(rdi < 0) { print \"EVEN\"; bt full; }\n"
		"  else if ~v >> 2 != 1 || $host_pid == 1 { bt raw noinline; }\n"
		"  else { print v / 3 - r15; }\n"
		"}\n"
		"trace demo.c:43 { print *(u8 *)*(u64 *)rdi; backtrace; }\n"
		"trace 0x1139 { print -rip; }\n";
	struct gs_script *s = parse_ok(text);

	(void)state;
	assert_int_equal(s->ntraces, 3);
	for (size_t i = 0; i < s->ntraces; i++) {
		struct gs_trace_spec spec;
		struct gs_program *prog = NULL;
		struct gs_error err;

		gs_script_trace_spec(&s->traces[i], (uint32_t)i, &spec);
		if (gs_program_build(&spec, NULL, &prog, &err))
			fail_msg("trace %zu (%s) did not build: %s", i, spec.target, err.msg);
		gs_program_free(prog);
	}
	gs_script_free(s);
}

static void test_trace_errors_point_at_the_target(void **state)
{
	struct gs_script *s = parse_ok("trace f { }\ntrace   nosuch { bt; }");
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_script_trace_errorf(s, &s->traces[1], &err, -2,
						"unknown function '%s'", s->traces[1].target.name), -2);
	assert_int_equal(err.code, -2);
	assert_string_equal(err.msg,
		"script:2:9: unknown function 'nosuch'\n"
		" 2 | trace   nosuch { bt; }\n"
		"   |         ^");
	gs_script_free(s);
}

/* A target given alone is read by the parser's rules: same forms, same
 * messages, one block to free. */
static void test_target_pattern_parse_matches_the_parser(void **state)
{
	static const struct {
		const char *text;
		enum gs_target_kind kind;
		const char *name;
		uint64_t address;
		uint32_t line;
	} ok[] = {
		{ "main", GS_TARGET_FUNCTION, "main", 0, 0 },
		{ "0x1139", GS_TARGET_ADDRESS, NULL, 0x1139, 0 },
		{ "/lib/libc.so.6:0xAB", GS_TARGET_MODULE_ADDRESS, "/lib/libc.so.6", 0xab, 0 },
		{ "demo.c:43", GS_TARGET_FILE_LINE, "demo.c", 0, 43 },
		/* C++ and Rust names: a module or file never holds "::" */
		{ "ns::Class::method", GS_TARGET_FUNCTION, "ns::Class::method", 0, 0 },
		{ "ns::f(int, char const*)", GS_TARGET_FUNCTION, "ns::f(int, char const*)", 0, 0 },
		{ "ns::maxof<std::pair<int, long>>", GS_TARGET_FUNCTION,
		  "ns::maxof<std::pair<int, long>>", 0, 0 },
		{ "ns::C::~C", GS_TARGET_FUNCTION, "ns::C::~C", 0, 0 },
		{ "f(int)", GS_TARGET_FUNCTION, "f(int)", 0, 0 },
		{ "mycrate::inner::ident::<u64>", GS_TARGET_FUNCTION,
		  "mycrate::inner::ident::<u64>", 0, 0 },
		{ "mycrate::inner::lv_path_probe", GS_TARGET_FUNCTION,
		  "mycrate::inner::lv_path_probe", 0, 0 },
		/* what gdb's break takes: destructors, operators, gcc's parts
		 * and copies of a function, template instances by name */
		{ "~vector", GS_TARGET_FUNCTION, "~vector", 0, 0 },
		{ "operator==", GS_TARGET_FUNCTION, "operator==", 0, 0 },
		{ "operator()", GS_TARGET_FUNCTION, "operator()", 0, 0 },
		{ "operator<<", GS_TARGET_FUNCTION, "operator<<", 0, 0 },
		{ "operator*", GS_TARGET_FUNCTION, "operator*", 0, 0 },
		{ "std::vector<int>::operator[]", GS_TARGET_FUNCTION,
		  "std::vector<int>::operator[]", 0, 0 },
		{ "spin_sys.cold", GS_TARGET_FUNCTION, "spin_sys.cold", 0, 0 },
		{ "halves.constprop.0.isra.0", GS_TARGET_FUNCTION, "halves.constprop.0.isra.0", 0,
		  0 },
		{ "copy<int const*, int*>", GS_TARGET_FUNCTION, "copy<int const*, int*>", 0, 0 },
	};
	static const char *const bad[] = { "", "12", "a::", "a:::b", ":0x1", "f*", "x y", "a.c:0",
					   "a.so:1:2", "ns::f(int", "ns::f<int", "main.c", "f.",
					   "~", "f..cold" };
	struct gs_target_pattern *p;
	struct gs_error err;

	(void)state;
	for (size_t i = 0; i < BASE_ARRAY_SIZE(ok); i++) {
		struct gs_script *s;
		char script[96];

		assert_int_equal(gs_target_pattern_parse(ok[i].text, &p, &err), 0);
		assert_int_equal(p->kind, ok[i].kind);
		assert_string_equal(p->text, ok[i].text);
		if (ok[i].name)
			assert_string_equal(p->name, ok[i].name);
		else
			assert_null(p->name);
		assert_int_equal(p->address, ok[i].address);
		assert_int_equal(p->line, ok[i].line);
		snprintf(script, sizeof(script), "trace %s { }", ok[i].text);
		s = parse_ok(script);
		assert_int_equal(s->traces[0].target.kind, p->kind);
		assert_int_equal(s->traces[0].target.address, p->address);
		gs_script_free(s);
		free(p);
	}
	for (size_t i = 0; i < BASE_ARRAY_SIZE(bad); i++) {
		p = (struct gs_target_pattern *)&err; /* must be reset */
		assert_int_equal(gs_target_pattern_parse(bad[i], &p, &err), -EINVAL);
		assert_null(p);
		assert_non_null(strstr(err.msg, "trace target"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statements_give_their_trees),
		cmocka_unit_test(test_aggregations_give_their_trees),
		cmocka_unit_test(test_target_pattern_parse_matches_the_parser),
		cmocka_unit_test(test_source_values_give_their_trees),
		cmocka_unit_test(test_aliases_are_named_where_used),
		cmocka_unit_test(test_registers_map_to_dwarf_numbers),
		cmocka_unit_test(test_every_bt_option_combination),
		cmocka_unit_test(test_operators_follow_c_precedence),
		cmocka_unit_test(test_integer_literals),
		cmocka_unit_test(test_targets_in_their_four_forms),
		cmocka_unit_test(test_large_addresses_and_lines),
		cmocka_unit_test(test_expression_texts_are_normalized_source),
		cmocka_unit_test(test_let_variables_are_block_scoped),
		cmocka_unit_test(test_input_pid_is_the_callers_constant),
		cmocka_unit_test(test_text_is_bounded_by_its_length),
		cmocka_unit_test(test_bt_statements_are_counted_in_every_branch),
		cmocka_unit_test(test_spec_of_a_trace),
		cmocka_unit_test(test_every_parsed_trace_builds),
		cmocka_unit_test(test_trace_errors_point_at_the_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
