/* The script parser's entry point and top level: the arena every script
 * owns and the `trace <pattern> { ... }` blocks with their four target
 * forms. Error messages are script_diag.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "script_int.h"

/* ---- trace targets ------------------------------------------------------------ */

static bool parse_target(struct parser *p, struct gs_script_trace *t)
{
	size_t off = p->pos, n = 0;
	struct sp_target_error e;
	struct sp_target form;
	const char *s;
	unsigned line, col;
	size_t line_start;
	char *text;

	if (!sp_lex_skip(p, &off))
		return false;
	s = p->src + off;
	n = sp_target_span(s, p->len - off);
	/* a space after a qualified name's closing bracket ends the target */
	while (n && s[n - 1] == ' ')
		n--;
	if (n == 0) {
		struct token tok;
		char desc[64];
		size_t at = off;

		sp_lex_token(p, &at, &tok);
		sp_tok_describe(p, &tok, desc, sizeof(desc));
		sp_err(p, off, "expected a trace target after 'trace', found %s: write a "
		       "function name, 0xADDR, module:0xADDR or file:line", desc);
		return false;
	}
	p->pos = off + n;
	p->prev_end = off + n;
	/* Targets come in order: count lines from the previous one. */
	sp_locate_from(p->src, p->len, off, p->target_line_start, p->target_line, &line, &col,
		       &line_start);
	p->target_line = line;
	p->target_line_start = line_start;
	t->line = line;
	t->column = col;
	t->offset = off;
	if (!sp_target_classify(s, n, &form, &e)) {
		sp_err(p, off + e.at, "%s", e.msg);
		return false;
	}
	text = base_arena_strndup(p->arena, s, n);
	t->target = (struct gs_target_pattern){ .kind = form.kind, .text = text,
						.address = form.address, .line = form.line };
	if (text && form.name_len)
		t->target.name = form.name_len == n ? text :
				 base_arena_strndup(p->arena, s, form.name_len);
	if (!text || (form.name_len && !t->target.name)) {
		sp_nomem(p);
		return false;
	}
	return true;
}

/* ---- top level ---------------------------------------------------------------- */

static int parse_trace(struct parser *p, struct gs_script_trace *t)
{
	size_t open;

	sp_next(p); /* trace */
	p->nvars = 0;
	p->nscope = 0;
	p->var_names = NULL;
	p->var_names_cap = 0;
	if (!parse_target(p, t))
		return -1;
	/* `trace FN return { ... }`: the function's return (a uretprobe). */
	if (sp_tok_is(p, sp_peek(p), "return")) {
		if (t->target.kind != GS_TARGET_FUNCTION) {
			sp_err(p, sp_peek(p)->off, "'return' follows a function name only: a "
			       "return probe fires when a function returns, and %s is not a "
			       "function name", t->target.text);
			return -1;
		}
		sp_next(p);
		t->retprobe = true;
	}
	p->in_return = t->retprobe;
	if (!sp_at(p, T_LBRACE)) {
		sp_expect(p, T_LBRACE, "'{'", "after the trace target");
		return -1;
	}
	open = sp_peek(p)->off;
	sp_next(p);
	if (sp_block(p, open, "trace block", &t->body, &t->nbody))
		return -1;
	t->nvars = p->nvars;
	t->var_names = p->var_names;
	return 0;
}

static const char *const statement_words[] = { "print", "bt", "backtrace", "if", "let", "else" };

static void top_level_error(struct parser *p, const struct token *t)
{
	char desc[64];

	for (size_t i = 0; i < BASE_ARRAY_SIZE(statement_words); i++) {
		if (sp_tok_is(p, t, statement_words[i])) {
			sp_err(p, t->off, "'%s' must be inside a trace block: trace <target> "
			       "{ %s ... }", statement_words[i], statement_words[i]);
			return;
		}
	}
	if (t->kind == T_RBRACE) {
		sp_err(p, t->off, "unmatched '}': no block is open here");
		return;
	}
	sp_tok_describe(p, t, desc, sizeof(desc));
	sp_err(p, t->off, "expected 'trace' at the top level, found %s: a script is a list "
	       "of trace <target> { ... } blocks", desc);
}

static int parse_script(struct parser *p, struct gs_script *s)
{
	struct gs_script_trace *traces = NULL;
	size_t n = 0, cap = 0;

	if (sp_at(p, T_EOF) && !p->code) {
		sp_err(p, 0, "the script is empty: write at least one trace <target> { ... }");
		return -1;
	}
	while (!p->code && !sp_at(p, T_EOF)) {
		const struct token *t = sp_peek(p);

		if (!sp_tok_is(p, t, "trace")) {
			top_level_error(p, t);
			break;
		}
		if (base_arena_grow(p->arena, &traces, &cap, n, sizeof(*traces))) {
			sp_nomem(p);
			break;
		}
		if (parse_trace(p, &traces[n]))
			break;
		n++;
	}
	s->traces = traces;
	s->ntraces = n;
	return p->code;
}

int gs_script_parse(const char *text, size_t len, const struct gs_script_opts *opts,
		    struct gs_script **out, struct gs_error *err)
{
	struct gs_arena *arena = NULL;
	struct gs_script_opts o;
	struct parser p = { 0 };
	const char *name;
	struct gs_script *s;
	char *src = NULL, *name_copy = NULL;

	*out = NULL;
	gs_error_clear(err);
	if (OPTS_COPY(&o, opts, gs_script_opts, err))
		return -EINVAL;
	if (!text && len)
		return gs_errorf(err, -EINVAL, "gs_script_parse: no script text");
	name = o.name ? o.name : "script";
	/* The script, a copy of its text (for later messages) and its name. */
	s = base_arena_alloc(&arena, sizeof(*s));
	if (s)
		src = base_arena_strndup(&arena, text ? text : "", len);
	if (src)
		name_copy = base_arena_strndup(&arena, name, strlen(name));
	if (!name_copy) {
		base_arena_free(&arena);
		return gs_errorf(err, -ENOMEM, "out of memory parsing the script");
	}
	s->name = name_copy;
	s->source = src;
	s->source_len = len;
	p.src = src;
	p.len = len;
	p.name = s->name;
	p.input_pid = o.input_pid;
	p.target_line = 1;
	p.arena = &arena;
	p.err = err;
	if (parse_script(&p, s)) {
		base_arena_free(&arena);
		return p.code;
	}
	s->arena = arena;
	*out = s;
	return 0;
}

void gs_script_free(struct gs_script *s)
{
	struct gs_arena *arena;

	if (!s)
		return;
	arena = s->arena; /* s lives in its own arena */
	base_arena_free(&arena);
}

void gs_script_trace_spec(const struct gs_script_trace *t, uint32_t trace_id,
			  struct gs_trace_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->trace_id = trace_id;
	spec->target = t->target.text;
	spec->body = t->body;
	spec->nbody = t->nbody;
	spec->nvars = t->nvars;
	spec->var_names = t->var_names;
	spec->retprobe = t->retprobe;
}
