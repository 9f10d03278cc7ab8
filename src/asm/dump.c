/* The text of a finished assembler: one line per instruction in the
 * verifier-log syntax, with label lines, maps by name and each
 * instruction's note where it changes. Two forms: by label (the golden
 * files), where a jump names its target and no line carries an index, so
 * an inserted instruction changes only its own lines; and indexed
 * (GS_DUMP_INDEXED: the index column and `pc+N`, as the verifier log
 * counts), for reading a verifier error beside the program. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/disasm.h>

#include "insn_text.h"
#include "scope.h"

#define NOTE_COLUMN 56      /* where `; note` starts when the line is shorter */
#define DUMP_TEXT_SIZE 128  /* longest gs_disasm_insn() line, with room */
#define LABEL_INDENT "    " /* instructions under the label lines, by label */

/* Lookups built once so that a dump is linear in the program's size, in one
 * allocation that starts at `fixup`. Each entry is an index + 1 into the
 * assembler's array, 0 for none. */
struct dump_index {
	uint32_t *fixup;       /* [len]: fixups[] entry of the instruction */
	uint32_t *reloc;       /* [len]: relocs[] entry of the instruction */
	uint32_t *first_label; /* [len + 1]: first label (by creation) bound there */
	uint32_t *next_label;  /* [nlabels]: next label bound at the same place */
	uint32_t *ord;         /* [nlabels]: ordinal of the label's qualified name */
	/* By label only: a jump written with a raw offset (no fixup) to an
	 * instruction no label is bound at gets a local label there, named
	 * after the nearest real label before it and counted from it
	 * ("loop~2"): an insertion elsewhere renames none of them. */
	uint32_t *local;       /* [len]: the local label's count at the instruction, 0: none */
	uint32_t *local_base;  /* [len]: the real label it counts from (0: the start) */
};

/* One dump in progress. */
struct dump {
	const struct gs_asm *a;
	struct dump_index ix;
	bool indexed;
	FILE *out;
};

/* Where a dumped line starts at instruction i, and its slots: a label
 * between the two slots of an ld_imm64 breaks the pair, so both halves
 * show as the invalid instructions they become. jump (may be NULL) gets
 * the instruction's pc-relative target. */
static size_t line_at(const struct dump *d, size_t i, struct asm_jump *jump, char *text,
		      size_t size)
{
	size_t avail = d->a->len - i;

	if (avail > 1 && d->ix.first_label[i + 1])
		avail = 1;
	return asm_disasm_insn(&d->a->insns[i], avail, jump, text, size);
}

/* Marks the local labels (see struct dump_index): first which instructions
 * start a line and where each raw jump goes, then the targets that start a
 * line and have no label, then their names in program order. */
static int find_local_labels(struct dump *d)
{
	const struct gs_asm *a = d->a;
	struct dump_index *ix = &d->ix;
	size_t len = a->len, i, slots, since = 0;
	uint32_t *target = calloc(len + 1, sizeof(*target)); /* raw jump's target + 1 */
	bool *starts = calloc(len + 1, sizeof(*starts));
	uint32_t base = 0;

	if (!target || !starts) {
		free(target);
		free(starts);
		return -ENOMEM;
	}
	for (i = 0; i < len; i += slots) {
		struct asm_jump jump = { 0 };
		uint8_t class = BPF_CLASS(a->insns[i].code);
		int64_t to;

		/* Only an ld_imm64 takes two slots, only jumps name a target:
		 * the rest need no formatting here. */
		slots = 1;
		if (class == BPF_LD || class == BPF_JMP || class == BPF_JMP32)
			slots = line_at(d, i, &jump, NULL, 0);
		starts[i] = true;
		to = (int64_t)i + 1 + jump.rel;
		if (jump.has && !ix->fixup[i] && to >= 0 && to < (int64_t)len)
			target[i] = (uint32_t)to + 1;
	}
	for (i = 0; i < len; i++)
		if (target[i] && starts[target[i] - 1] && !ix->first_label[target[i] - 1])
			ix->local[target[i] - 1] = 1;
	for (i = 0; i < len; i++) {
		if (ix->first_label[i]) {
			base = ix->first_label[i];
			since = 0;
		}
		if (ix->local[i]) {
			ix->local[i] = (uint32_t)++since;
			ix->local_base[i] = base;
		}
	}
	free(target);
	free(starts);
	return 0;
}

static int index_build(struct dump *d)
{
	const struct gs_asm *a = d->a;
	struct dump_index *ix = &d->ix;
	size_t len = a->len, k;
	uint32_t *mem = calloc(5 * len + 1 + 2 * a->nlabels, sizeof(*mem));

	if (!mem)
		return -ENOMEM;
	ix->ord = mem + 3 * len + 1 + a->nlabels;
	if (asm_label_ordinals(a, ix->ord)) {
		free(mem);
		return -ENOMEM;
	}
	ix->fixup = mem;
	ix->reloc = mem + len;
	ix->first_label = mem + 2 * len;
	ix->next_label = mem + 3 * len + 1;
	ix->local = ix->ord + a->nlabels;
	ix->local_base = ix->local + len;
	for (k = 0; k < a->nfixups; k++)
		if (a->fixups[k].insn < len)
			ix->fixup[a->fixups[k].insn] = (uint32_t)k + 1;
	for (k = 0; k < a->nrelocs; k++)
		if (a->relocs[k].insn < len)
			ix->reloc[a->relocs[k].insn] = (uint32_t)k + 1;
	/* Pushing in reverse leaves each position's list in creation order. */
	for (k = a->nlabels; k-- > 0;) {
		int64_t pos = a->labels[k].pos;

		if (pos < 0 || (uint64_t)pos > len)
			continue;
		ix->next_label[k] = ix->first_label[pos];
		ix->first_label[pos] = (uint32_t)k + 1;
	}
	if (!d->indexed && find_local_labels(d)) {
		free(mem);
		return -ENOMEM;
	}
	return 0;
}

/* fprintf that returns the columns written (0 on error) for note padding. */
__attribute__((format(printf, 2, 3)))
static size_t emit(FILE *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(out, fmt, ap);
	va_end(ap);
	return n > 0 ? (size_t)n : 0;
}

/* The label's qualified name (scope.c): "s2.f3.search_not_below.4". A
 * label outside any scope with a name of its own is printed as it is:
 * the common case costs no formatting. */
struct label_text {
	char buf[160];
};

static const char *label_name(const struct dump *d, uint32_t id, struct label_text *t)
{
	const struct gs_asm *a = d->a;

	if (id < a->nlabels && !a->labels[id].scope && !d->ix.ord[id] && a->labels[id].name)
		return a->labels[id].name;
	asm_label_format(a, id, id < a->nlabels ? d->ix.ord[id] : 0, t->buf, sizeof(t->buf));
	return t->buf;
}

/* The local label at instruction pos: "loop~2", or "~1" before any label
 * (no label name has a '~'). A long base name is cut to leave the count. */
static const char *local_name(const struct dump *d, size_t pos, struct label_text *t)
{
	uint32_t base = d->ix.local_base[pos];
	struct label_text b;
	const char *bname = base ? label_name(d, base - 1, &b) : "";

	snprintf(t->buf, sizeof(t->buf), "%.*s~%u", (int)sizeof(t->buf) - 12, bname,
		 d->ix.local[pos]);
	return t->buf;
}

/* Prints the `name:` lines of the labels bound at instruction `pos` (the
 * local one last), and returns whether there were any but the local one:
 * after a label the next note shows again, but the indexed form has no
 * local labels, and both forms must show the same notes for the label
 * form to lose nothing. */
static bool print_labels(const struct dump *d, size_t pos)
{
	const struct dump_index *ix = &d->ix;
	struct label_text t;
	uint32_t k;

	for (k = ix->first_label[pos]; k; k = ix->next_label[k - 1])
		fprintf(d->out, "%s:\n", label_name(d, k - 1, &t));
	if (!d->indexed && pos < d->a->len && ix->local[pos])
		fprintf(d->out, "%s:\n", local_name(d, pos, &t));
	return ix->first_label[pos] != 0;
}

/* A relocated map load, naming the map instead of its (not yet known) fd.
 * Returns 0 when the relocation does not fit the instruction, so the caller
 * prints the plain text instead. */
static size_t print_map_load(const struct gs_asm *a, const struct gs_reloc *r,
			     const struct bpf_insn *in, FILE *out)
{
	const char *name = r->map < a->nmaps ? a->maps[r->map] : NULL;

	if (!name)
		return 0;
	if (in->src_reg == BPF_PSEUDO_MAP_FD)
		return emit(out, "(%02x) r%d = map[%s]", in->code, in->dst_reg, name);
	if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
		return emit(out, "(%02x) r%d = map[%s][0]+%u", in->code, in->dst_reg, name,
			    (uint32_t)in[1].imm);
	return 0;
}

/* The label a jump of the label form names: the one of its fixup (what the
 * code generator meant), else the label or local label where its raw
 * offset lands; NULL when it lands on none (outside the program, inside an
 * ld_imm64), and the jump keeps its `pc+N`. */
static const char *raw_target(const struct dump *d, size_t i, const struct asm_jump *jump,
			      struct label_text *t)
{
	int64_t to = (int64_t)i + 1 + jump->rel;

	if (!jump->has || to < 0 || to >= (int64_t)d->a->len)
		return NULL;
	if (d->ix.first_label[to])
		return label_name(d, d->ix.first_label[to] - 1, t);
	return d->ix.local[to] ? local_name(d, (size_t)to, t) : NULL;
}

/* The instruction line without its note; returns its width in columns and
 * the slots the instruction takes in *slots. By index, a jump reads
 * `goto pc+3 <name>`; by label, `goto <name>`; a fixup on an instruction
 * that names no target (an invalid encoding) shows as ` <name>` after it. */
static size_t print_insn(const struct dump *d, size_t i, size_t *slots)
{
	const struct gs_asm *a = d->a;
	uint32_t fixup = d->ix.fixup[i];
	struct asm_jump jump = { 0 };
	char text[DUMP_TEXT_SIZE];
	struct label_text t;
	const char *target = fixup ? label_name(d, a->fixups[fixup - 1].label, &t) : NULL;
	size_t col, map_col = 0;

	jump.name = d->indexed ? NULL : target;
	*slots = line_at(d, i, &jump, text, sizeof(text));
	if (!d->indexed && !fixup && (jump.name = raw_target(d, i, &jump, &t)))
		line_at(d, i, &jump, text, sizeof(text));
	col = d->indexed ? emit(d->out, "%5zu: ", i) : emit(d->out, LABEL_INDENT);
	if (*slots == 2 && d->ix.reloc[i])
		map_col = print_map_load(a, &a->relocs[d->ix.reloc[i] - 1], &a->insns[i], d->out);
	col += map_col ? map_col : emit(d->out, "%s", text);
	if (target && (d->indexed || !jump.has))
		col += emit(d->out, " <%s>", target);
	return col;
}

static bool same_note(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static int dump(const struct gs_asm *a, unsigned int flags, FILE *out)
{
	struct dump d = { .a = a, .indexed = flags & GS_DUMP_INDEXED, .out = out };
	const char *prev = NULL;
	size_t i = 0;

	if (flags & ~(unsigned int)GS_DUMP_INDEXED)
		return -EINVAL;
	if (index_build(&d))
		return -ENOMEM;
	for (;;) {
		const char *note;
		size_t slots, col;

		if (print_labels(&d, i))
			prev = NULL;
		if (i >= a->len)
			break;
		col = print_insn(&d, i, &slots);
		note = a->notes ? a->notes[i] : NULL;
		if (note && !same_note(prev, note)) {
			int pad = col < NOTE_COLUMN ? (int)(NOTE_COLUMN - col) : 1;

			fprintf(out, "%*s; %s", pad, "", note);
		}
		fputc('\n', out);
		prev = note;
		i += slots;
	}
	free(d.ix.fixup);
	return 0;
}

int gs_asm_dump_flags(const struct gs_asm *a, unsigned int flags, FILE *out)
{
	return dump(a, flags, out);
}

void gs_asm_dump(const struct gs_asm *a, FILE *out)
{
	if (dump(a, 0, out))
		fputs("; gs_asm_dump: out of memory\n", out);
}

char *gs_asm_dump_str(const struct gs_asm *a)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	int failed;

	if (!f)
		return NULL;
	failed = dump(a, 0, f) || ferror(f);
	if (fclose(f) || failed) {
		free(s);
		return NULL;
	}
	return s;
}
