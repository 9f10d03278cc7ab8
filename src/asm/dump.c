/* The golden-file text of a finished assembler: one line per instruction in
 * the verifier-log syntax, with label lines, jump targets and maps by name,
 * and each instruction's note where it changes. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/disasm.h>

#include "scope.h"

#define NOTE_COLUMN 56      /* where `; note` starts when the line is shorter */
#define DUMP_TEXT_SIZE 128  /* longest gs_disasm_insn() line, with room */

/* Lookups built once so that a dump is linear in the program's size, in one
 * allocation that starts at `fixup`. Each entry is an index + 1 into the
 * assembler's array, 0 for none. */
struct dump_index {
	uint32_t *fixup;       /* [len]: fixups[] entry of the instruction */
	uint32_t *reloc;       /* [len]: relocs[] entry of the instruction */
	uint32_t *first_label; /* [len + 1]: first label (by creation) bound there */
	uint32_t *next_label;  /* [nlabels]: next label bound at the same place */
	uint32_t *ord;         /* [nlabels]: ordinal of the label's qualified name */
};

static int index_build(struct dump_index *ix, const struct gs_asm *a)
{
	size_t len = a->len, k;
	uint32_t *mem = calloc(3 * len + 1 + 2 * a->nlabels, sizeof(*mem));

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
	const char *s;
	char buf[160];
};

static const char *label_name(const struct gs_asm *a, const struct dump_index *ix, uint32_t id,
			      struct label_text *t)
{
	if (id < a->nlabels && !a->labels[id].scope && !ix->ord[id] && a->labels[id].name)
		return a->labels[id].name;
	asm_label_format(a, id, id < a->nlabels ? ix->ord[id] : 0, t->buf, sizeof(t->buf));
	return t->buf;
}

/* Prints the `name:` lines of the labels bound at instruction `pos`, and
 * returns whether there were any. */
static bool print_labels(const struct gs_asm *a, const struct dump_index *ix, size_t pos,
			 FILE *out)
{
	struct label_text t;
	uint32_t k;

	for (k = ix->first_label[pos]; k; k = ix->next_label[k - 1])
		fprintf(out, "%s:\n", label_name(a, ix, k - 1, &t));
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

/* The instruction line without its note; returns its width in columns and
 * the slots the instruction takes in *slots. */
static size_t print_insn(const struct gs_asm *a, const struct dump_index *ix, size_t i,
			 size_t avail, size_t *slots, FILE *out)
{
	const struct bpf_insn *in = &a->insns[i];
	char text[DUMP_TEXT_SIZE];
	struct label_text t;
	size_t col, map_col = 0;

	*slots = gs_disasm_insn(in, avail, text, sizeof(text));
	col = emit(out, "%5zu: ", i);
	if (*slots == 2 && ix->reloc[i])
		map_col = print_map_load(a, &a->relocs[ix->reloc[i] - 1], in, out);
	col += map_col ? map_col : emit(out, "%s", text);
	if (ix->fixup[i])
		col += emit(out, " <%s>", label_name(a, ix, a->fixups[ix->fixup[i] - 1].label, &t));
	return col;
}

static bool same_note(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static int dump(const struct gs_asm *a, FILE *out)
{
	struct dump_index ix;
	const char *prev = NULL;
	size_t i = 0;

	if (index_build(&ix, a))
		return -ENOMEM;
	for (;;) {
		const char *note;
		size_t avail, slots, col;

		if (print_labels(a, &ix, i, out))
			prev = NULL;
		if (i >= a->len)
			break;
		/* A label between the two slots of an ld_imm64 breaks the pair:
		 * show both halves as the invalid instructions they become. */
		avail = a->len - i;
		if (avail > 1 && ix.first_label[i + 1])
			avail = 1;
		col = print_insn(a, &ix, i, avail, &slots, out);
		note = a->notes ? a->notes[i] : NULL;
		if (note && !same_note(prev, note)) {
			int pad = col < NOTE_COLUMN ? (int)(NOTE_COLUMN - col) : 1;

			fprintf(out, "%*s; %s", pad, "", note);
		}
		fputc('\n', out);
		prev = note;
		i += slots;
	}
	free(ix.fixup);
	return 0;
}

void gs_asm_dump(const struct gs_asm *a, FILE *out)
{
	if (dump(a, out))
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
	failed = dump(a, f) || ferror(f);
	if (fclose(f) || failed) {
		free(s);
		return NULL;
	}
	return s;
}
