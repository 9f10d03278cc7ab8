/* The script parser on wrong scripts: each case states a script and the
 * first line of its message (`script:L:C: what to do`); the check also
 * wants the source line L echoed under it and a caret at column C. Then the
 * display itself (tabs, long lines, UTF-8, CRLF, control bytes), the
 * nesting and argument limits, and large inputs. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base.h"

#include <gs/script.h>


struct error_case {
	const char *script;
	const char *first_line;
};

/* Line `line` (1-based) of text, without its newline. */
static void source_line(const char *text, unsigned line, char *out, size_t size)
{
	const char *s = text;
	size_t n;

	for (unsigned l = 1; l < line && s; l++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!s)
		s = "";
	n = strcspn(s, "\n");
	snprintf(out, size, "%.*s", (int)n, s);
}

/* The message a case must give: its first line, then " L | <line L>", then
 * the caret under column C (scripts of these cases are ASCII without tabs). */
static void expected_message(const struct error_case *c, char *out, size_t size)
{
	unsigned line = 0, col = 0;
	char src[256], gutter[16];
	const char *pos = strchr(c->first_line, ':');

	if (!pos || sscanf(pos + 1, "%u:%u", &line, &col) != 2)
		fail_msg("case header without line:column: %s", c->first_line);
	source_line(c->script, line, src, sizeof(src));
	snprintf(gutter, sizeof(gutter), "%u", line);
	snprintf(out, size, "%s\n %s | %s\n %*s | %*s^", c->first_line, gutter, src,
		 (int)strlen(gutter), "", (int)col - 1, "");
}

static void check_errors(const struct error_case *cases, size_t n)
{
	size_t failures = 0;

	for (size_t i = 0; i < n; i++) {
		struct gs_script *s = NULL;
		struct gs_error err;
		char want[1024];
		int rc = gs_script_parse(cases[i].script, strlen(cases[i].script), NULL, &s, &err);

		expected_message(&cases[i], want, sizeof(want));
		if (rc != -EINVAL || s || err.code != -EINVAL || strcmp(err.msg, want)) {
			print_message("case %zu: %s\n  rc %d\n  expected:\n%s\n  got:\n%s\n", i,
				      cases[i].script, rc, want, rc ? err.msg : "(parsed)");
			failures++;
		}
		gs_script_free(s);
	}
	assert_int_equal(failures, 0);
}

#define CHECK_ERRORS(cases) check_errors(cases, BASE_ARRAY_SIZE(cases))

#define PLACEHOLDERS "a placeholder is {}, {:x}, {:X}, {:p} or {:s}, with a length .N, .* or " \
	".name$ after x, X or s"
#define LENGTHS "the length after '.' is a number (.16, .0x10), '*' or a let variable (.len$)"

static void test_lexical_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { print \"abc; }",
		  "script:1:17: unterminated string: close it with '\"' on the same line "
		  "(write \\n for a line break)" },
		{ "trace f { print \"abc\n\"; }",
		  "script:1:17: unterminated string: close it with '\"' on the same line "
		  "(write \\n for a line break)" },
		{ "trace f { /* never closed", "script:1:11: unterminated comment: '/*' has no "
		  "matching '*/'" },
		{ "trace f { print \"a\\qb\"; }",
		  "script:1:19: unknown escape '\\q' in string: the escapes are \\n \\t \\r \\\\ \\\"" },
		{ "trace f { print 1 ` 2; }", "script:1:19: unexpected character '`'" },
		{ "trace f { print $; }", "script:1:17: expected a special variable name after '$' "
		  "($pid, $tid, $timestamp, ...)" },
		{ "trace f { print 0x; }", "script:1:17: hex literal '0x' has no digits" },
		{ "trace f { print 0b; }", "script:1:17: binary literal '0b' has no digits" },
		{ "trace f { print 0b102; }",
		  "script:1:21: invalid digit '2' in binary literal '0b102'" },
		{ "trace f { print 0o9; }", "script:1:19: invalid digit '9' in octal literal '0o9'" },
		{ "trace f { print 12ab; }",
		  "script:1:19: invalid suffix 'ab' on integer literal '12ab'" },
		{ "trace f { print 0x1g; }",
		  "script:1:20: invalid suffix 'g' on integer literal '0x1g'" },
		{ "trace f { print 18446744073709551616; }",
		  "script:1:17: integer literal '18446744073709551616' does not fit in 64 bits" },
		{ "trace f { print 0x10000000000000000; }",
		  "script:1:17: integer literal '0x10000000000000000' does not fit in 64 bits" },
		{ "trace f { print 1.5; }", "script:1:17: floating point numbers are not supported: "
		  "script values are 64-bit integers" },
		{ "trace f { print 017; }", "script:1:17: a leading zero is ambiguous ('017' is "
		  "octal in C): write 0o17 for octal or 17 for decimal" },
		/* digit separators: only between two digits, with the fix spelled out */
		{ "trace f { print 1__000; }", "script:1:18: a digit separator '_' goes between "
		  "two digits, one at a time: write 1_000" },
		{ "trace f { print 1000_; }", "script:1:21: a digit separator '_' goes between "
		  "two digits, not at the end: write 1000" },
		{ "trace f { print 0x_ff; }", "script:1:19: a digit separator '_' goes between "
		  "two digits, not right after the base prefix: write 0xff" },
		{ "trace f { print 0xff__ff_; }", "script:1:21: a digit separator '_' goes "
		  "between two digits, one at a time: write 0xff_ff" },
		{ "trace f { print 0x_; }", "script:1:17: hex literal '0x_' has no digits" },
		{ "trace f { print 0b1_2; }",
		  "script:1:21: invalid digit '2' in binary literal '0b1_2'" },
		{ "trace f { print 0_1; }", "script:1:17: a leading zero is ambiguous ('0_1' is "
		  "octal in C): write 0o1 for octal or 1 for decimal" },
		{ "trace f { print 0; print 00; }", "script:1:26: a leading zero is ambiguous ('00' "
		  "is octal in C): write 0o0 for octal or 0 for decimal" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

#define FORMS "write a function name, 0xADDR, module:0xADDR or file:line"
#define QUALIFIED "ns::Class::f, ns::f(int), ns::maxof<int> or crate::module::f"

static void test_target_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace { }", "script:1:7: expected a trace target after 'trace', found '{': "
		  FORMS },
		{ "trace", "script:1:6: expected a trace target after 'trace', found the end of "
		  "the script: " FORMS },
		{ "trace 123 { }", "script:1:7: '123' is not a trace target: addresses are hex "
		  "(0x123), source lines are file:line" },
		{ "trace foo.c { }", "script:1:7: 'foo.c' is not a function name: " FORMS
		  " (a source line is file:line)" },
		{ "trace foo* { }", "script:1:7: wildcard trace patterns ('foo*') are not supported "
		  "yet: name one function" },
		{ "trace f*o { }", "script:1:7: invalid trace target 'f*o': " FORMS },
		{ "trace a.so:1:2 { }", "script:1:7: invalid trace target 'a.so:1:2': only one ':' "
		  "may separate a module or file from its 0xADDR or line; a C++ or Rust name is "
		  "joined by '::'" },
		{ "trace ns::3f { }", "script:1:11: invalid qualified name 'ns::3f': each part "
		  "between '::' is an identifier; write " QUALIFIED },
		{ "trace ns:: { }", "script:1:11: invalid qualified name 'ns::': each part "
		  "between '::' is an identifier; write " QUALIFIED },
		{ "trace lib.so::f { }", "script:1:10: invalid qualified name 'lib.so::f': parts "
		  "are joined by '::' (a module or file is never qualified); write " QUALIFIED },
		{ "trace ns::max<int { }", "script:1:18: unbalanced '<' in qualified name "
		  "'ns::max<int': close every template argument list" },
		{ "trace ns::f(int)::g { }", "script:1:12: the parameter list of 'ns::f(int)::g' "
		  "must close it and end the target: write ns::f(int, char const*)" },
		{ "trace :0x10 { }", "script:1:7: missing module or file before ':' in trace "
		  "target ':0x10'" },
		{ "trace a.c:0 { }", "script:1:11: line number 0 is out of range (1..4294967295)" },
		{ "trace a.c:4294967296 { }",
		  "script:1:11: line number 4294967296 is out of range (1..4294967295)" },
		{ "trace a.c:x1 { }", "script:1:11: expected a line number or 0xADDR after ':' in "
		  "trace target 'a.c:x1'" },
		{ "trace a.c: { }", "script:1:11: expected a line number or 0xADDR after ':' in "
		  "trace target 'a.c:'" },
		{ "trace 0xZZ { }",
		  "script:1:9: invalid address '0xZZ': write 0x followed by hex digits" },
		{ "trace 0x { }", "script:1:9: invalid address '0x': write 0x followed by hex digits" },
		{ "trace lib.so:0x1g { }",
		  "script:1:17: invalid address '0x1g': write 0x followed by hex digits" },
		{ "trace 0x10000000000000000 { }",
		  "script:1:7: address '0x10000000000000000' does not fit in 64 bits" },
		{ "trace f print \"x\"; }",
		  "script:1:8: expected '{' after the trace target, found 'print'" },
		{ "trace f { } trace g",
		  "script:1:20: expected '{' after the trace target, found the end of the script" },
		{ "trace f 2 { }", "script:1:8: expected '{' after the trace target, found '2'" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

static void test_structure_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "", "script:1:1: the script is empty: write at least one trace <target> { ... }" },
		{ "// only a comment\n", "script:1:1: the script is empty: write at least one "
		  "trace <target> { ... }" },
		{ "print \"x\";", "script:1:1: 'print' must be inside a trace block: trace <target> "
		  "{ print ... }" },
		{ "bt;", "script:1:1: 'bt' must be inside a trace block: trace <target> { bt ... }" },
		{ "trace f { }\n}", "script:2:1: unmatched '}': no block is open here" },
		{ "foo", "script:1:1: expected 'trace' at the top level, found 'foo': a script is a "
		  "list of trace <target> { ... } blocks" },
		{ "trace f { }; trace g { }", "script:1:12: expected 'trace' at the top level, "
		  "found ';': a script is a list of trace <target> { ... } blocks" },
		{ "trace f { trace g { } }", "script:1:11: 'trace' cannot be nested: close this "
		  "trace block with '}' before the next trace" },
		{ "trace f {\n  print 1;\n",
		  "script:2:11: expected '}' to close the trace block opened at 1:9" },
		{ "trace f {", "script:1:10: expected '}' to close the trace block opened at 1:9" },
		{ "trace f { if 1 { bt; }",
		  "script:1:23: expected '}' to close the trace block opened at 1:9" },
		{ "trace f { if 1 { bt;",
		  "script:1:21: expected '}' to close the if block opened at 1:16" },
		{ "trace f { if 1 { } else { bt;",
		  "script:1:30: expected '}' to close the else block opened at 1:25" },
		{ "trace f { else { } }", "script:1:11: 'else' without 'if': else follows the '}' "
		  "of an if block" },
		{ "trace f { if 1 { } bt; else { } }", "script:1:24: 'else' without 'if': else "
		  "follows the '}' of an if block" },
		{ "trace f { { bt; } }", "script:1:11: a block needs 'if' or 'else' in front: bare "
		  "{ } blocks are not supported" },
		{ "trace f { bt;; }", "script:1:14: empty statement: remove this ';'" },
		{ "trace f { let x = 1; x = 2; }", "script:1:22: variables are immutable: 'x' was "
		  "bound at 1:15 and cannot be assigned; bind the new value to a new name with let" },
		{ "trace f { y = 2; }", "script:1:11: variables are immutable, there is no "
		  "assignment: bind 'y' once with let y = ...;" },
		{ "trace f { $pid = 2; }", "script:1:11: variables are immutable, there is no "
		  "assignment: bind a value once with let name = ...;" },
		{ "trace f { rdi  +  1; }", "script:1:11: an expression alone does nothing: print "
		  "it with print rdi + 1;" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

static void test_print_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { print; }", "script:1:16: print needs something to print: a string, a "
		  "format string with arguments, or an expression" },
		{ "trace f { print \"x\" 1; }",
		  "script:1:20: expected ';' or ',' after the print string, found '1'" },
		{ "trace f { print \"x\" }",
		  "script:1:20: expected ';' or ',' after the print string, found '}'" },
		{ "trace f { print \"x={}\"; }", "script:1:20: placeholder 1 has no argument: pass "
		  "values after the string (print \"x={}\", expr;) or write {{ and }} for literal "
		  "braces" },
		{ "trace f { print \"a\", 1; }", "script:1:22: the format string has no placeholder "
		  "for this argument: add {} where its value goes" },
		{ "trace f { print \"{} {}\", 1; }", "script:1:21: placeholder 2 has no argument: "
		  "the format string has 2 placeholders but 1 argument follows" },
		{ "trace f { print \"{} {} {}\", 1, 2; }", "script:1:24: placeholder 3 has no "
		  "argument: the format string has 3 placeholders but 2 arguments follow" },
		{ "trace f { print \"{}\", 1, 2; }", "script:1:26: the format string has 1 "
		  "placeholder but 2 arguments follow: add a placeholder for this argument or "
		  "remove it" },
		{ "trace f { print \"{}{{}}{}\", 1, 2, 3; }", "script:1:35: the format string has "
		  "2 placeholders but 3 arguments follow: add a placeholder for this argument or "
		  "remove it" },
		{ "trace f { print \"{0}\", 1; }", "script:1:18: placeholder '{0}' is not "
		  "understood: " PLACEHOLDERS },
		{ "trace f { print \"{:q}\", 1; }", "script:1:18: placeholder '{:q}' is not "
		  "understood: " PLACEHOLDERS },
		{ "trace f { print \"{:p.4}\", p; }", "script:1:18: placeholder '{:p.4}' is not "
		  "understood: " PLACEHOLDERS },
		{ "trace f { print \"a\\t{:x.}\", p; }", "script:1:21: placeholder '{:x.}' is not "
		  "understood: " LENGTHS },
		{ "trace f { print \"{:x.0}\", p; }", "script:1:18: placeholder '{:x.0}' is not "
		  "understood: the length after '.' must be 1..65535 bytes" },
		{ "trace f { print \"{:s.65536}\", p; }", "script:1:18: placeholder '{:s.65536}' is "
		  "not understood: the length after '.' must be 1..65535 bytes" },
		{ "trace f { print \"{:x.0x1g}\", p; }", "script:1:18: placeholder '{:x.0x1g}' is "
		  "not understood: " LENGTHS },
		{ "trace f { print \"{:x.1n$}\", p; }", "script:1:18: placeholder '{:x.1n$}' is "
		  "not understood: the length .name$ takes the name of a let variable" },
		{ "trace f { print \"{:x.n$}\", p; }", "script:1:22: 'n' in '{:x.n$}' is not a let "
		  "variable bound before this print: bind the length first (let n = ...;) or write "
		  "a number" },
		{ "trace f { print \"{:x.*}\", p; }", "script:1:18: placeholder 1 has no argument: "
		  "the format string takes more arguments than the 1 that follow ({:x.*} takes two: "
		  "the length, then the value)" },
		{ "trace f { print \"{:s.*} {}\", 4, p, 1, 2; }", "script:1:39: the format string "
		  "has 2 placeholders but 4 arguments follow: add a placeholder for this argument or "
		  "remove it" },
		{ "trace f { print \"a { b\", 1; }", "script:1:20: unclosed '{' in the format "
		  "string: write {} for a value or '{{' for a literal brace" },
		{ "trace f { print \"a {{ { b\"; }", "script:1:23: unclosed '{' in the format "
		  "string: write {} for a value or '{{' for a literal brace" },
		{ "trace f { print \"a } b\"; }", "script:1:20: unmatched '}' in the format string: "
		  "write '}}' for a literal brace" },
		{ "trace f { print 1 }",
		  "script:1:18: expected ';' after the print statement, found '}'" },
		{ "trace f { print \"{}\", 1 }",
		  "script:1:24: expected ';' or ',' after the print argument, found '}'" },
		{ "trace f { print \"{}\", ; }", "script:1:23: expected an expression, found ';'" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

static void test_bt_and_let_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { bt 5; }", "script:1:14: bt takes no depth: the backtrace depth is "
		  "global, set it with --backtrace-depth N (1..512)" },
		{ "trace f { backtrace full 16; }", "script:1:26: bt takes no depth: the backtrace "
		  "depth is global, set it with --backtrace-depth N (1..512)" },
		{ "trace f { bt deep; }", "script:1:14: unknown bt option 'deep': the options are "
		  "raw, full, inline and noinline" },
		{ "trace f { bt raw }", "script:1:17: expected ';' after bt, found '}'" },
		{ "trace f { bt(8); }", "script:1:13: expected ';' after bt, found '('" },
		{ "trace f { bt\n  print 1; }", "script:1:13: expected ';' after bt, found 'print'" },
		{ "trace f { let; }", "script:1:14: expected a variable name after 'let', found ';'" },
		{ "trace f { let 1 = 2; }",
		  "script:1:15: expected a variable name after 'let', found '1'" },
		{ "trace f { let $pid = 1; }", "script:1:15: '$pid' is a special variable: a let "
		  "name is a plain identifier" },
		{ "trace f { let rax = 1; }",
		  "script:1:15: 'rax' is a register name and cannot name a variable" },
		{ "trace f { let u8 = 1; }",
		  "script:1:15: 'u8' is a type name and cannot name a variable" },
		{ "trace f { let print = 1; }",
		  "script:1:15: 'print' is a keyword and cannot name a variable" },
		{ "trace f { let cast = 1; }",
		  "script:1:15: 'cast' is a builtin function and cannot name a variable" },
		{ "trace f { let x = 1; let x = 2; }", "script:1:26: 'x' is already bound at 1:15: "
		  "script variables cannot be redefined or shadowed, pick another name" },
		{ "trace f { let x = 1; if 1 { let x = 2; } }", "script:1:33: 'x' is already bound "
		  "at 1:15: script variables cannot be redefined or shadowed, pick another name" },
		{ "trace f { let x 1; }", "script:1:16: expected '=' after 'let x', found '1'" },
		{ "trace f { let x == 1; }", "script:1:16: expected '=' after 'let x', found '=='" },
		{ "trace f { let x = 1 }",
		  "script:1:20: expected ';' after the let statement, found '}'" },
		{ "trace f { let p = &x; let p = 1; }", "script:1:27: 'p' is already bound at "
		  "1:15: script variables cannot be redefined or shadowed, pick another name" },
		{ "trace f { let p = &x; p = 1; }", "script:1:23: variables are immutable: 'p' was "
		  "bound at 1:15 and cannot be assigned; bind the new value to a new name with let" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

static void test_if_and_expression_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { if { } }", "script:1:14: expected a condition after 'if'" },
		{ "trace f { if rdi = 1 { } }",
		  "script:1:18: '=' is not a comparison: write '==' to compare" },
		{ "trace f { if rdi print 1; }",
		  "script:1:17: expected '{' after the if condition, found 'print'" },
		{ "trace f { if 1 { } else print 1; }",
		  "script:1:24: expected '{' or 'if' after 'else', found 'print'" },
		{ "trace f { if 1 { } else if { } }", "script:1:28: expected a condition after 'if'" },
		{ "trace f { print foo(1); }", "script:1:17: function calls are not supported: "
		  "'foo' cannot be called (the builtins are cast, len, memcmp, strncmp, starts_with and "
		  "hex)" },
		{ "trace f { print 1 + \"a\"; }", "script:1:21: a string is not a number: compare it "
		  "with == or != (C string equality: p == \"GET\"), pass it to memcmp, strncmp or "
		  "starts_with, or print it" },
		{ "trace f { print -\"a\"; }", "script:1:17: a string is not a number: compare it "
		  "with == or != (C string equality: p == \"GET\"), pass it to memcmp, strncmp or "
		  "starts_with, or print it" },
		{ "trace f { print p < \"a\"; }", "script:1:21: a string is not a number: compare it "
		  "with == or != (C string equality: p == \"GET\"), pass it to memcmp, strncmp or "
		  "starts_with, or print it" },
		{ "trace f { print (u32)rdi; }", "script:1:17: C casts are not supported: write "
		  "cast(expr, \"TYPE\"), e.g. cast(p, \"struct foo *\"), or *(u64 *)addr to read "
		  "memory" },
		{ "trace f { print (struct foo *)p; }", "script:1:17: C casts are not supported: "
		  "write cast(expr, \"TYPE\"), e.g. cast(p, \"struct foo *\"), or *(u64 *)addr to "
		  "read memory" },
		{ "trace f { print u32; }", "script:1:17: 'u32' is a type: convert a value with "
		  "cast(expr, \"u32\"), or read memory with *(u32 *)addr" },
		{ "trace f { print $foo; }", "script:1:17: unknown special variable '$foo': the "
		  "special variables are $pid $tid $host_pid $input_pid $timestamp $pc $sp $retval $duration" },
		{ "trace f { print $input_pid; }", "script:1:17: $input_pid is the PID given with "
		  "-p, and there is none: trace with -p PID or use $pid" },
		{ "trace f { print *rdi; }", "script:1:17: 'rdi' is a register, a 64-bit integer: a "
		  "memory read needs a size, *(u64 *)rdi, or a pointer type, *cast(rdi, \"int *\")" },
		{ "trace f { print *(rdi); }", "script:1:17: 'rdi' is a register, a 64-bit integer: "
		  "a memory read needs a size, *(u64 *)rdi, or a pointer type, *cast(rdi, "
		  "\"int *\")" },
		{ "trace f { print *(u128 *)rdi; }", "script:1:17: 'u128' is not a size of a memory "
		  "read: write *(u64 *)addr (the types are u8 u16 u32 u64 i8 i16 i32 i64), or "
		  "*cast(addr, \"TYPE *\") for a DWARF type" },
		{ "trace f { print *(u64 **)rdi; }", "script:1:24: expected ')' to close the type "
		  "of the memory read, found '*'" },
		{ "trace f { print (1 + 2; }",
		  "script:1:23: expected ')' to close the '(' at 1:17, found ';'" },
		{ "trace f { print if; }", "script:1:17: expected an expression, found the keyword "
		  "'if'" },
		{ "trace f { print 1 +; }", "script:1:20: expected an expression, found ';'" },
		{ "trace f { print -; }", "script:1:18: expected an expression, found ';'" },
		{ "trace f { print +1; }", "script:1:17: expected an expression, found '+'" },
		{ "trace f { print rdi << 64; }", "script:1:24: shift count 64 is outside 0..63: a "
		  "shift of a 64-bit value by it has no meaning" },
		{ "trace f { print rdi >> 0xffffffffffffffff; }", "script:1:24: shift count "
		  "0xffffffffffffffff is outside 0..63: a shift of a 64-bit value by it has no "
		  "meaning" },
		{ "trace f { print rdi +\n}", "script:2:1: expected an expression, found '}'" },
		{ "trace f {\n  print 1;\n  bt 3;\n}", "script:3:6: bt takes no depth: the "
		  "backtrace depth is global, set it with --backtrace-depth N (1..512)" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

/* Names, members, elements, casts and builtins: what the parser can tell
 * without DWARF (unknown names and members are the runtime's, with the
 * same position and caret: see gs_script_expr_errorf). */
static void test_value_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { print rdi.x; }", "script:1:20: 'rdi' is a register, a 64-bit integer "
		  "and has no members: cast it to a pointer type first, e.g. cast(rdi, \"struct "
		  "foo *\")" },
		{ "trace f { print rdi[1]; }", "script:1:20: 'rdi' is a register, a 64-bit integer "
		  "and has no elements: cast it to a pointer type first, e.g. cast(rdi, \"struct "
		  "foo *\")" },
		{ "trace f { let n = 1; print n->x; }", "script:1:29: 'n' is a let variable holding "
		  "a 64-bit integer and has no members: cast it to a pointer type first, e.g. "
		  "cast(n, \"struct foo *\")" },
		{ "trace f { print $pid.x; }", "script:1:21: '$pid' is a special variable, a 64-bit "
		  "integer and has no members: cast it to a pointer type first, e.g. cast($pid, "
		  "\"struct foo *\")" },
		{ "trace f { print (1 + 2).x; }", "script:1:24: '1 + 2' is a computed 64-bit integer "
		  "and has no members: cast it to a pointer type first, e.g. cast(1 + 2, \"struct "
		  "foo *\")" },
		{ "trace f { print (1 - a).x; }", "script:1:24: '1 - a' is a computed 64-bit integer "
		  "and has no members: cast it to a pointer type first, e.g. cast(1 - a, \"struct "
		  "foo *\")" },
		{ "trace f { print a.; }", "script:1:19: expected a member name after '.', found "
		  "';'" },
		{ "trace f { print a->1; }", "script:1:20: expected a member name after '->', "
		  "found '1'" },
		{ "trace f { print a[1; }", "script:1:20: expected ']' to close the '[' at 1:18, "
		  "found ';'" },
		{ "trace f { print &rdi; }", "script:1:17: '&' takes a variable, a member or an "
		  "element, and 'rdi' is a register, a 64-bit integer" },
		{ "trace f { print &&x; }", "script:1:17: expected an expression, found '&&'" },
		{ "trace f { print & &x; }", "script:1:17: '&' takes a variable, a member or an "
		  "element, and '&x' is an address or a cast, not stored anywhere" },
		{ "trace f { print &1; }", "script:1:17: '&' takes a variable, a member or an "
		  "element, and '1' is a number" },
		{ "trace f { print cast; }", "script:1:17: cast is a builtin function: call it, "
		  "cast(...)" },
		{ "trace f { print cast(p); }", "script:1:23: expected ',' after cast's value: "
		  "cast(expr, \"TYPE\"), found ')'" },
		{ "trace f { print cast(p, int); }", "script:1:25: cast's type is a string: "
		  "cast(expr, \"struct foo *\")" },
		{ "trace f { print cast(p, \" \"); }", "script:1:25: cast's type is empty: name one, "
		  "e.g. \"int\" or \"struct foo *\"" },
		{ "trace f { print cast(p, \"int\"; }", "script:1:30: expected ')' to close cast(, "
		  "found ';'" },
		{ "trace f { print hex(\"00\"); }", "script:1:17: hex(\"..\") is an operand of "
		  "memcmp, e.g. memcmp(buf, hex(\"de ad\"), 2)" },
		{ "trace f { if memcmp(p, hex(\"0g\"), 1) { } }", "script:1:30: hex() takes pairs of "
		  "hex digits (0-9, a-f), spaces between pairs allowed: hex(\"de ad be ef\")" },
		{ "trace f { if memcmp(p, hex(\"abc\"), 1) { } }", "script:1:31: hex() takes pairs "
		  "of hex digits (0-9, a-f), spaces between pairs allowed: hex(\"de ad be ef\")" },
		{ "trace f { if memcmp(p, hex(\"\"), 1) { } }", "script:1:28: hex() needs at least "
		  "one byte, e.g. hex(\"00\")" },
		{ "trace f { if memcmp(p, hex(1), 1) { } }", "script:1:28: hex() takes a string of "
		  "hex digits, e.g. hex(\"de ad be ef\")" },
		{ "trace f { if memcmp(p, q) { } }", "script:1:25: memcmp needs a length: "
		  "memcmp(a, b, n)" },
		{ "trace f { if memcmp(\"a\", \"b\", 1) { } }", "script:1:14: memcmp compares "
		  "memory of the target: one operand must be a variable or an address, not both "
		  "literals" },
		{ "trace f { if memcmp(p, \"ab\", 3) { } }", "script:1:30: memcmp of 3 bytes "
		  "against a literal of 2: the literal has no more bytes to compare" },
		{ "trace f { if strncmp(p, \"ab\", -2) { } }", "script:1:31: the length of strncmp "
		  "is a number of bytes, 0 or more, and '-2' is not" },
		{ "trace f { if memcmp(p, q, -1) { } }", "script:1:27: the length of memcmp is a "
		  "number of bytes, 0 or more, and '-1' is not" },
		{ "trace f { if strncmp(p, q, 4) { } }", "script:1:25: strncmp compares with a "
		  "string literal: write strncmp(value, \"text\", n)" },
		{ "trace f { if strncmp(p, \"ab\") { } }", "script:1:29: strncmp needs a length: "
		  "strncmp(a, b, n)" },
		{ "trace f { if starts_with(p, \"ab\", 2) { } }", "script:1:33: expected ')' to "
		  "close starts_with(value, \"prefix\"), found ','" },
		{ "trace f { if starts_with(p) { } }", "script:1:27: expected ',' between "
		  "starts_with's arguments, found ')'" },
		{ "trace f { print memcmp; }", "script:1:17: memcmp is a builtin function: call it, "
		  "memcmp(...)" },
		{ "trace f { let cast = 1; }", "script:1:15: 'cast' is a builtin function and "
		  "cannot name a variable" },
	};

	(void)state;
	CHECK_ERRORS(cases);
}

/* Aggregations: the function, its arguments, the keys, and a second use
 * of a name that differs from its first (in any trace of the script). */
static void test_aggregation_errors(void **state)
{
	static const struct error_case cases[] = {
		{ "trace f { @a = cnt(); }", "script:1:16: expected an aggregation function after "
		  "'@a =', found 'cnt': the functions are count() sum(x) min(x) max(x) avg(x) "
		  "stats(x) hist(x) lhist(x, min, max, step)" },
		{ "trace f { @a = count(1); }", "script:1:22: expected ')' after count(, found '1'" },
		{ "trace f { @a = hist(); }", "script:1:21: expected an expression, found ')'" },
		{ "trace f { @a = sum(1) }", "script:1:22: expected ';' after the aggregation, "
		  "found '}'" },
		{ "trace f { @a[1 = count(); }", "script:1:15: expected ']' after the aggregation's "
		  "keys, found '='" },
		{ "trace f { @a = count(); @a = sum(1); }", "script:1:25: @a is count() since 1:11 "
		  "and cannot also be sum(): use another name" },
		{ "trace f { @a[1] = count(); }\ntrace g { @a[1, 2] = count(); }", "script:2:11: "
		  "@a has 1 key since 1:11, not 2: every use of an aggregation has the same keys" },
		{ "trace f { @a = lhist(x, 0, 10, 0); }", "script:1:16: lhist()'s step is 0: it must "
		  "be 1..2147483647" },
		{ "trace f { @a = lhist(x, 10, 0, 1); }", "script:1:16: lhist()'s bounds [10, 0) are "
		  "empty or outside the 32-bit range: write min < max" },
		{ "trace f { @a = lhist(x, 0, 100000, 1); }", "script:1:16: lhist() would have "
		  "100000 buckets, more than 1000: raise the step" },
		{ "trace f { @a = lhist(x, 0, y, 1); }", "script:1:28: lhist()'s max must be an "
		  "integer literal: the buckets are fixed when the program is built" },
		{ "trace f { @a[1, 2, 3, 4, 5, 6, 7, 8, 9] = count(); }", "script:1:38: @a has more "
		  "than 8 keys" },
		{ "trace f { @a = avg($duration); }", "script:1:20: $duration is the time since the "
		  "call's entry, known only in a return probe: write trace <function> return "
		  "{ ... }" },
	};

	(void)state;
	check_errors(cases, BASE_ARRAY_SIZE(cases));
}

/* ---- the display ------------------------------------------------------------------------ */

static void check_message(const char *text, size_t len, const struct gs_script_opts *o,
			  const char *want)
{
	struct gs_script *s = NULL;
	struct gs_error err;

	assert_int_equal(gs_script_parse(text, len, o, &s, &err), -EINVAL);
	assert_null(s);
	assert_string_equal(err.msg, want);
}

static void test_caret_follows_tabs(void **state)
{
	static const char text[] = "trace f {\n\tprint \"x\" bt;\n}";

	(void)state;
	check_message(text, strlen(text), NULL,
		"script:2:11: expected ';' or ',' after the print string, found 'bt'\n"
		" 2 | \tprint \"x\" bt;\n"
		"   | \t         ^");
}

static void test_message_names_the_script(void **state)
{
	static const char text[] = "trace f {\n\n\n\n\n\n\n\n\n  bt 1;\n}";
	struct gs_script_opts o = { .sz = sizeof(o), .name = "demo.gs" };

	(void)state;
	check_message(text, strlen(text), &o,
		"demo.gs:10:6: bt takes no depth: the backtrace depth is global, set it with "
		"--backtrace-depth N (1..512)\n"
		" 10 |   bt 1;\n"
		"    |      ^");
}

/* Columns count characters, not bytes. */
static void test_columns_count_utf8_characters(void **state)
{
	static const char text[] = "trace f { print \"héllo\"; print é; }";

	(void)state;
	check_message(text, strlen(text), NULL,
		"script:1:32: unexpected byte 0xc3 (outside a string, a script is ASCII)\n"
		" 1 | trace f { print \"héllo\"; print é; }\n"
		"   |                                ^");
}

static void test_crlf_and_control_bytes_are_shown_plainly(void **state)
{
	static const char crlf[] = "trace f {\r\n  print x.;\r\n}\r\n";
	static const char ctrl[] = "trace f { print \"a\x01\"; }";
	static const char nul[] = "trace f { print 1; }\0";

	(void)state;
	check_message(crlf, strlen(crlf), NULL,
		"script:2:11: expected a member name after '.', found ';'\n"
		" 2 |   print x.;\n"
		"   |           ^");
	check_message(ctrl, strlen(ctrl), NULL,
		"script:1:19: control character 0x01 in string: write \\n, \\t or \\r\n"
		" 1 | trace f { print \"a?\"; }\n"
		"   |                   ^");
	check_message(nul, sizeof(nul) - 1, NULL,
		"script:1:21: unexpected byte 0x00 (outside a string, a script is ASCII)\n"
		" 1 | trace f { print 1; }?\n"
		"   |                     ^");
}

/* A long line is cut around the column so the message stays whole. */
static void test_long_lines_are_cut_around_the_column(void **state)
{
	char text[512], want[1024], shown[128];
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "trace f { print 1");
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " + 1");
	n += (size_t)snprintf(text + n, sizeof(text) - n, " `; print 2; print 3; print 4; print 5; "
			      "print 6; print 7; print 8; print 9; }");
	/* '`' is at offset 258 (column 259); the line shown starts 80 bytes before */
	assert_int_equal(strchr(text, '`') - text, 258);
	snprintf(shown, sizeof(shown), "%.100s", text + 178);
	snprintf(want, sizeof(want),
		 "script:1:259: unexpected character '`'\n"
		 " 1 | %s\n"
		 "   | %80s^", shown, "");
	check_message(text, n, NULL, want);
}

/* ---- limits ---------------------------------------------------------------------------- */

static char *repeat_script(const char *head, const char *unit, int count, const char *tail)
{
	size_t len = strlen(head) + strlen(unit) * (size_t)count + strlen(tail) + 1;
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	p += sprintf(p, "%s", head);
	for (int i = 0; i < count; i++)
		p += sprintf(p, "%s", unit);
	sprintf(p, "%s", tail);
	return s;
}

static int parse_text(const char *text, struct gs_script **s, struct gs_error *err)
{
	return gs_script_parse(text, strlen(text), NULL, s, err);
}

static void expect_first_line(const char *text, const char *first)
{
	struct gs_script *s = NULL;
	struct gs_error err;

	assert_int_equal(parse_text(text, &s, &err), -EINVAL);
	if (strncmp(err.msg, first, strlen(first)) || err.msg[strlen(first)] != '\n')
		fail_msg("expected first line:\n%s\ngot:\n%s", first, err.msg);
}

static void test_nesting_is_limited(void **state)
{
	struct gs_script *s = NULL;
	struct gs_error err;
	char *text, *open;

	(void)state;
	/* 127 parentheses around a literal parse: 128 levels of nesting */
	open = repeat_script("trace f { print ", "(", 127, "1");
	text = repeat_script(open, ")", 127, "; }");
	assert_int_equal(parse_text(text, &s, &err), 0);
	gs_script_free(s);
	free(text);
	free(open);
	/* deeper is refused where the 129th level starts */
	text = repeat_script("trace f { print ", "(", 100000, "");
	expect_first_line(text, "script:1:145: expression is nested too deeply (more than 128 "
			  "levels): split it with let");
	free(text);
	text = repeat_script("trace f { print ", "-", 100000, "1; }");
	expect_first_line(text, "script:1:145: expression is nested too deeply (more than 128 "
			  "levels): split it with let");
	free(text);
	/* operator chains build deep trees without recursing in the parser */
	text = repeat_script("trace f { print 1", " + 1", 200, "; }");
	expect_first_line(text, "script:1:17: expression is nested too deeply (more than 128 "
			  "levels): split it with let");
	free(text);
	text = repeat_script("trace f { ", "if 1 { ", 100000, "");
	expect_first_line(text, "script:1:907: if / else is nested too deeply (more than 128 "
			  "levels)");
	free(text);
	text = repeat_script("trace f { if 1 { } ", "else if 1 { } ", 200, "}");
	expect_first_line(text, "script:1:1803: if / else is nested too deeply (more than 128 "
			  "levels)");
	free(text);
}

static void test_print_takes_at_most_255_arguments(void **state)
{
	struct gs_script *s = NULL;
	struct gs_error err;
	char *text, *fmt;

	(void)state;
	fmt = repeat_script("trace f { print \"", "{}", 255, "\"");
	text = repeat_script(fmt, ", 1", 255, "; }");
	assert_int_equal(parse_text(text, &s, &err), 0);
	assert_int_equal(s->traces[0].body[0].nargs, 255);
	gs_script_free(s);
	free(text);
	free(fmt);
	fmt = repeat_script("trace f { print \"", "{}", 256, "\"");
	text = repeat_script(fmt, ", 1", 256, "; }");
	/* the 256th argument: 17 + 512 + 1 + 3 * 255 + 2 bytes in */
	expect_first_line(text, "script:1:1298: a print takes at most 255 arguments: split it");
	free(text);
	free(fmt);
}

/* Big inputs go through the arena's growth and its large blocks. */
static void test_large_scripts(void **state)
{
	struct gs_script *s = NULL;
	struct gs_error err;
	char *text, *big;

	(void)state;
	text = repeat_script("", "trace f { let a = 1; if a { print \"x={}\", a; } bt; }\n", 2000, "");
	assert_int_equal(parse_text(text, &s, &err), 0);
	assert_int_equal(s->ntraces, 2000);
	assert_int_equal(s->traces[1999].nbody, 3);
	gs_script_free(s);
	free(text);
	big = repeat_script("trace f { print \"", "abcdefgh", 4000, "\"; }");
	assert_int_equal(parse_text(big, &s, &err), 0);
	assert_int_equal(strlen(s->traces[0].body[0].text), 32000);
	gs_script_free(s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lexical_errors),
		cmocka_unit_test(test_target_errors),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_print_errors),
		cmocka_unit_test(test_bt_and_let_errors),
		cmocka_unit_test(test_if_and_expression_errors),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_caret_follows_tabs),
		cmocka_unit_test(test_message_names_the_script),
		cmocka_unit_test(test_columns_count_utf8_characters),
		cmocka_unit_test(test_crlf_and_control_bytes_are_shown_plainly),
		cmocka_unit_test(test_aggregation_errors),
		cmocka_unit_test(test_long_lines_are_cut_around_the_column),
		cmocka_unit_test(test_nesting_is_limited),
		cmocka_unit_test(test_print_takes_at_most_255_arguments),
		cmocka_unit_test(test_large_scripts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
