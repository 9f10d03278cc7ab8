/* Where gdb 13's `break` stops, so that a probe fires where a user's
 * breakpoint would: symtab.c's find_function_start_sal and
 * skip_prologue_sal with amd64-tdep.c's prologue analyzer, over the line
 * tables and units of gdbview.h. The rule, case by case:
 *
 * - A unit gdb trusts ("locations valid": gcc >= 4.5 with any variable
 *   located by a location list, i.e. every optimized gcc build) or written
 *   in assembler: the entry itself. Its variables are right there, and the
 *   first "line" of an optimized function may be its whole body (a
 *   one-line function's probe would sit on its `ret`) or a loop's head.
 * - Otherwise (gcc -O0, clang, rustc, no DWARF), skip the prologue: at the
 *   first row of the function flagged prologue_end (clang marks it);
 *   else, for LLVM's units, where the line table says the prologue ends
 *   (skip_prologue_using_sal); else past the `push %rbp; mov %rsp,%rbp`
 *   the analyzer finds (none: the entry), moved on to the next row when
 *   that lands inside a row.
 * - An inline copy: its entry, moved past its caller's prologue only when
 *   it lies inside it. A `file:line` row likewise. */
#include <gelf.h>
#include <string.h>

#include "gdbview.h"

/* ---- code bytes ---------------------------------------------------------- */

/* n bytes of the module's code at DWARF address addr; false past its
 * sections' data (the analyzer then sees no prologue, as gdb reading
 * unreadable memory does). */
static bool read_code(const struct gv_view *v, uint64_t addr, uint8_t *buf, size_t n)
{
	uint64_t at = addr + v->bias;
	Elf_Scn *scn = NULL;

	while (v->code && (scn = elf_nextscn(v->code, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || at < sh.sh_addr || at - sh.sh_addr >= sh.sh_size)
			continue;
		if (sh.sh_size - (at - sh.sh_addr) < n || !(d = elf_getdata(scn, NULL)) ||
		    d->d_size < sh.sh_size)
			return false;
		memcpy(buf, (const uint8_t *)d->d_buf + (at - sh.sh_addr), n);
		return true;
	}
	return false;
}

/* ---- amd64_skip_prologue ---------------------------------------------------- */

/* amd64_analyze_stack_align: `[push %reg;] lea 8|16(%rsp),%reg; and
 * $-N,%rsp; push -8(%reg)` (a frame realigned through a DRAP register):
 * the first instruction after it, or pc. */
static uint64_t skip_stack_align(const struct gv_view *v, uint64_t pc)
{
	uint8_t b[18];
	int reg, r, off;

	if (!read_code(v, pc, b, sizeof(b)))
		return pc;
	if ((b[0] & 0xfb) == 0x48 && b[1] == 0x8d && b[3] == 0x24 && b[4] == 0x8) {
		if ((b[2] & 0xc7) != 0x44)
			return pc;
		reg = ((b[2] >> 3) & 7) + (b[0] == 0x4c ? 8 : 0);
		off = 5;
	} else {
		if ((b[0] & 0xf8) == 0x50) {
			reg = 0;
			off = 0;
		} else if ((b[0] & 0xf6) == 0x40 && (b[1] & 0xf8) == 0x50) {
			reg = (b[0] & 1) ? 8 : 0;
			off = 1;
		} else {
			return pc;
		}
		reg += b[off] & 7;
		off++;
		if ((b[off] & 0xfb) != 0x48 || b[off + 1] != 0x8d || b[off + 3] != 0x24 ||
		    b[off + 4] != 0x10 || (b[off + 2] & 0xc7) != 0x44)
			return pc;
		r = ((b[off + 2] >> 3) & 7) + (b[off] == 0x4c ? 8 : 0);
		if (reg != r)
			return pc;
		off += 5;
	}
	if (reg == 4 || reg == 5)
		return pc;
	if (b[off] != 0x48 || b[off + 2] != 0xe4 || (b[off + 1] != 0x81 && b[off + 1] != 0x83))
		return pc;
	off += b[off + 1] == 0x81 ? 7 : 4;
	r = 0;
	if (b[off] == 0xff) {
		off++;
	} else if ((b[off] & 0xf6) == 0x40 && b[off + 1] == 0xff) {
		r = (b[off] & 1) ? 8 : 0;
		off += 2;
	} else {
		return pc;
	}
	if (b[off + 1] != 0xf8 || (b[off] & 0xf8) != 0x70)
		return pc;
	r += b[off] & 7;
	return reg == r ? pc + (uint64_t)off + 2 : pc;
}

/* amd64_analyze_prologue: past `[endbr64;] push %rbp; mov %rsp,%rbp`,
 * *frame when the mov is there (anything else is "frameless"). */
static uint64_t analyze(const struct gv_view *v, uint64_t pc, bool *frame)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	uint8_t b[4];

	*frame = false;
	pc = skip_stack_align(v, pc);
	if (!read_code(v, pc, b, 1))
		return pc;
	if (b[0] == endbr64[0] && read_code(v, pc, b, 4) && memcmp(b, endbr64, 4) == 0)
		pc += 4;
	if (!read_code(v, pc, b, 1) || b[0] != 0x55)
		return pc;
	if (!read_code(v, pc + 1, b, 3))
		return pc + 1;
	if ((b[0] == 0x48 && b[1] == 0x89 && b[2] == 0xe5) ||
	    (b[0] == 0x48 && b[1] == 0x8b && b[2] == 0xec)) {
		*frame = true;
		return pc + 4;
	}
	return pc + 1;
}

/* amd64_skip_xmm_prologue: gcc >= 4.6's varargs prologue saves the xmm
 * registers after a false end of prologue (GCC PR debug/48827): skip the
 * `test %al,%al; je; movaps x8` block to the row after it. */
static uint64_t skip_xmm(const struct gv_view *v, const struct gv_unit *u, uint64_t pc,
			 uint64_t start)
{
	struct gv_sal first, next;
	uint8_t b[4 + 8 * 7];
	int off = 4;

	if (pc == start || !u)
		return pc;
	first = gv_find_line(u, start);
	if (first.file < 0 || u->producer != GV_GCC ||
	    (u->gcc_major == 4 && u->gcc_minor < 6) || u->gcc_major < 4 || first.pc != start ||
	    pc >= first.end)
		return pc;
	next = gv_find_line(u, first.end);
	if (next.line != first.line || !read_code(v, next.pc - 4, b, sizeof(b)))
		return pc;
	if (b[0] != 0x84 || b[1] != 0xc0 || b[2] != 0x74)
		return pc;
	for (int x = 0; x < 8; x++) {
		if (b[off] != 0x0f || b[off + 1] != 0x29 || (b[off + 2] & 0x3f) != (x << 3 | 0x5))
			return pc;
		if ((b[off + 2] & 0xc0) == 0x40)
			off += 4;
		else if ((b[off + 2] & 0xc0) == 0x80)
			off += 7;
		else
			return pc;
	}
	return off - 4 == b[3] ? next.end : pc;
}

/* skip_prologue_using_sal for the function range fn: where a second row
 * of a line not before the first one starts, 0 when the function is one
 * row. */
static uint64_t using_sal(struct gv_view *v, const struct gv_unit *u, const struct gv_fn *fn)
{
	uint64_t start = fn->lo, end = fn->hi;
	struct gv_sal p = gv_find_line(u, start);

	if (p.line != 0) {
		const struct gv_file *f = &u->files[p.file];
		size_t i = 0;

		/* Two rows at the entry: a prologue of no instructions. */
		while (i < f->n && (f->v[i].pc != p.pc || f->v[i].line == 0))
			i++;
		if (!u->asm_lang && i + 1 < f->n && f->v[i + 1].line != 0 && f->v[i + 1].pc == start)
			return start;
		if (p.end >= end)
			return 0;
		while (p.end < end) {
			struct gv_sal s = gv_find_line(u, p.end);

			/* Rows of a lower line before the body are the
			 * scheduler's, unless inlined code brought them. */
			if (s.line == 0 || s.line >= p.line || s.file != p.file ||
			    gv_in_inlined(v, fn, p.end))
				break;
			p = s;
		}
	}
	return p.end < end ? p.end : p.pc;
}

static uint64_t amd64_skip(struct gv_view *v, const struct gv_unit *u, const struct gv_fn *fn,
			   uint64_t start)
{
	uint64_t pc;
	bool frame;

	/* LLVM always marks the prologue's end in its line table. */
	if (u && fn && u->producer == GV_LLVM) {
		uint64_t post = using_sal(v, u, fn);

		if (post)
			return post > start ? post : start;
	}
	pc = analyze(v, start, &frame);
	return frame ? skip_xmm(v, u, pc, start) : start;
}

/* skip_prologue_using_linetable: the first row of fn's range (the table
 * of the file of its first row) flagged prologue_end. */
static bool prologue_end_row(const struct gv_unit *u, const struct gv_fn *fn, uint64_t *out)
{
	struct gv_sal s = gv_find_line(u, fn->lo);
	const struct gv_file *f;

	if (s.file < 0 || u->asm_lang)
		return false;
	f = &u->files[s.file];
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].pc >= fn->lo && f->v[i].pc <= fn->hi && f->v[i].prologue_end) {
			*out = f->v[i].pc;
			return true;
		}
	return false;
}

/* The pc skip_prologue_sal computes for the function fn of unit u (u may
 * be NULL for a symbol without DWARF): in two passes where u's locations
 * are valid, the second (not skipping) deciding unless the compiler
 * marked the prologue's end. */
static uint64_t post_prologue(struct gv_view *v, const struct gv_unit *u, const struct gv_fn *fn,
			      bool dwarf_fn)
{
	bool force = !(dwarf_fn && u && u->locations_valid);
	uint64_t pc = fn->entry;

	for (int skip = 1;; skip--) {
		struct gv_sal s;
		uint64_t row;

		pc = fn->entry;
		if (skip && u && prologue_end_row(u, fn, &row))
			return row;
		if (skip)
			pc = amd64_skip(v, u, dwarf_fn ? fn : NULL, pc);
		/* Left inside a row: on to the next row, in the function. */
		s = u ? gv_find_line(u, pc) : (struct gv_sal){ .pc = pc, .file = -1 };
		if (skip && s.file >= 0 && s.pc != pc && fn->entry <= s.end && s.end < fn->end)
			pc = s.end;
		if (force || skip == 0)
			return pc;
	}
}

uint64_t gv_break_at(struct gv_view *v, uint64_t entry, const struct gv_fn *symbol)
{
	const struct gv_fn *fn;
	struct gv_unit *u;
	uint64_t pc;
	int rc;

	u = gv_unit_at(v, entry, &rc);
	if (u && (u->locations_valid || u->asm_lang) && gv_find_line(u, entry).file >= 0)
		return entry;
	/* skip_prologue_sal: the function holding the entry, by its DWARF
	 * block, else by its symbol. */
	if (u && gv_unit_walk(v, u))
		return entry; /* out of memory: the entry, gdb's answer where valid */
	fn = u ? gv_fn_at(u, entry) : NULL;
	if (!fn && !symbol)
		return entry;
	pc = post_prologue(v, u, fn ? fn : symbol, fn != NULL);
	return pc > entry ? pc : entry;
}

uint64_t gv_break_line(struct gv_view *v, uint64_t addr, bool *moved, uint64_t *entry)
{
	const struct gv_fn *fn;
	struct gv_unit *u;
	uint64_t pc;
	int rc;

	*moved = false;
	u = gv_unit_at(v, addr, &rc);
	/* In assembler a line is an instruction: gdb keeps it. */
	if (!u || u->asm_lang || gv_unit_walk(v, u) || !(fn = gv_fn_at(u, addr)))
		return addr;
	pc = post_prologue(v, u, fn, true);
	if (addr >= pc)
		return addr;
	*moved = true;
	*entry = fn->entry;
	return pc;
}
