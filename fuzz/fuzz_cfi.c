/* libFuzzer target for the row builder on mutated ELF files: the input is
 * either a whole ELF image, or CFI bytes placed as .eh_frame / .debug_frame
 * of a small in-memory ELF, or byte edits of that ELF's well-formed CFI.
 * Building the table must succeed or fail cleanly, every exported row
 * must be non-empty, sorted and follow the export rules, and no unit may
 * cost libdw more than 100 ms (below). */
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gs/unwind.h>

#include "smoke.h"

#define EH_ADDR 0x2000

/* No unit slower than 100 ms, counted rather than timed (a timer is noisy
 * under ASan on a loaded machine): the CFA instructions libdw was asked to
 * run (stats.steps), about 1 ns each in a release build (gcc 12's lto1:
 * 89 M steps, 95 ms). An input of up to 8 KB cannot come near it (at most
 * its instructions squared) unless a check on what libdw is given is gone.
 * What the count does not model (libdw sizing its register array by a
 * huge register number: seconds and gigabytes) trips a CPU-time bound
 * twenty times as large, GS_FUZZ_CFI_MAX_MS (0: off). */
#define MAX_STEPS 100000000u
#define BOUNDED_INPUT 8192
#define DEFAULT_MAX_CPU_MS 2000

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CIE "zR" pcrel|sdata4, CFA rsp+8, RA at CFA-8; an FDE for 0x1000..0x1040
 * (push rbp; mov rsp, rbp); an FDE for 0x1040..0x1050 with a CFA
 * expression; the zero terminator. The FDE start fields are patched. */
static const uint8_t eh_template[] = {
	0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
	0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
	/* FDE 1 @24 */
	0x1c, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0,
	0x41, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x48, 0x0c, 0x07, 0x08, 0, 0, 0,
	/* FDE 2 @56 */
	0x18, 0, 0, 0, 0x3c, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0,
	0x41, 0x0f, 0x02, 0x77, 0x10, 0, 0, 0,
	0, 0, 0, 0,
};

/* .debug_frame: CIE (no augmentation) and one FDE for 0x3000..0x3020. */
static const uint8_t debug_template[] = {
	0x14, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 1, 0x78, 0x10,
	0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0, 0, 0, 0, 0,
	0x1c, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x30, 0, 0, 0, 0, 0, 0,
	0x20, 0, 0, 0, 0, 0, 0, 0, 0x41, 0x0e, 0x10, 0, 0, 0, 0, 0,
};

static const char shstrtab[] = "\0.text\0.eh_frame\0.debug_frame\0.shstrtab";

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* An ELF64 image: header, .eh_frame, .debug_frame, .shstrtab, section headers. */
static uint8_t *build_elf(const uint8_t *eh, size_t neh, const uint8_t *dbg, size_t ndbg,
			  size_t *size)
{
	size_t off_eh = sizeof(Elf64_Ehdr), off_dbg = off_eh + neh, off_str = off_dbg + ndbg;
	size_t off_sh = (off_str + sizeof(shstrtab) + 7) & ~(size_t)7;
	uint8_t *img = calloc(1, off_sh + 5 * sizeof(Elf64_Shdr));
	Elf64_Ehdr *eh_hdr = (Elf64_Ehdr *)img;
	Elf64_Shdr sh[5] = { { 0 } };

	if (!img)
		abort();
	memcpy(eh_hdr->e_ident, ELFMAG, SELFMAG);
	eh_hdr->e_ident[EI_CLASS] = ELFCLASS64;
	eh_hdr->e_ident[EI_DATA] = ELFDATA2LSB;
	eh_hdr->e_ident[EI_VERSION] = EV_CURRENT;
	eh_hdr->e_type = ET_DYN;
	eh_hdr->e_machine = EM_X86_64;
	eh_hdr->e_version = EV_CURRENT;
	eh_hdr->e_ehsize = sizeof(Elf64_Ehdr);
	eh_hdr->e_shoff = off_sh;
	eh_hdr->e_shentsize = sizeof(Elf64_Shdr);
	eh_hdr->e_shnum = 5;
	eh_hdr->e_shstrndx = 4;
	memcpy(img + off_eh, eh, neh);
	memcpy(img + off_dbg, dbg, ndbg);
	memcpy(img + off_str, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = 0x1000, .sh_offset = off_eh, .sh_size = 0x3000, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = EH_ADDR, .sh_offset = off_eh, .sh_size = neh, .sh_addralign = 8 };
	sh[3] = (Elf64_Shdr){ .sh_name = 17, .sh_type = SHT_PROGBITS, .sh_offset = off_dbg,
			      .sh_size = ndbg, .sh_addralign = 8 };
	sh[4] = (Elf64_Shdr){ .sh_name = 30, .sh_type = SHT_STRTAB, .sh_offset = off_str,
			      .sh_size = sizeof(shstrtab), .sh_addralign = 1 };
	memcpy(img + off_sh, sh, sizeof(sh));
	*size = off_sh + sizeof(sh);
	return img;
}

static void check_table(const struct gs_cfi_table *t, size_t input_size)
{
	size_t dropped = 0;

	if (input_size <= BOUNDED_INPUT && t->stats.steps > MAX_STEPS) {
		fprintf(stderr, "fuzz_cfi: libdw was asked for %zu steps (> %u)\n", t->stats.steps,
			MAX_STEPS);
		abort();
	}
	for (int i = 0; i < GS_CFI_DROP_NREASONS; i++)
		dropped += t->stats.dropped[i];
	if (t->stats.rows != t->stats.exported + dropped || t->nrows + t->stats.merged != t->stats.exported)
		abort();
	for (size_t i = 0; i < t->nrows; i++) {
		const struct gs_unwind_row *r = &t->rows[i];

		if (r->pc_start >= r->pc_end || (i && t->rows[i - 1].pc_start > r->pc_start))
			abort();
		if ((r->cfa_register != 6 && r->cfa_register != 7) || r->ra_kind != GS_RECOVERY_AT_CFA_OFFSET)
			abort();
		if (r->rbp_kind < GS_RECOVERY_AT_CFA_OFFSET || r->rbp_kind > GS_RECOVERY_SAME_VALUE)
			abort();
		gs_cfi_table_lookup(t, r->pc_start, NULL, NULL);
	}
}

static void run(const uint8_t *img, size_t size, size_t input_size)
{
	const char *env = getenv("GS_FUZZ_CFI_MAX_MS");
	double max_ms = env ? strtod(env, NULL) : DEFAULT_MAX_CPU_MS, start = cpu_ms();
	uint8_t *copy = malloc(size ? size : 1);
	struct gs_cfi_opts opts[2] = { { .sz = sizeof(opts[0]) },
				       { .sz = sizeof(opts[0]), .no_merge = true } };
	Elf *elf;

	if (!copy)
		abort();
	memcpy(copy, img, size);
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)copy, size);
	for (int k = 0; elf && k < 2; k++) {
		struct gs_cfi_table t;
		struct gs_error err;

		if (gs_cfi_table_from_elf(elf, &opts[k], &t, &err) == 0) {
			check_table(&t, input_size);
			gs_cfi_table_free(&t);
		} else if (!err.msg[0]) {
			abort();
		}
	}
	if (elf)
		elf_end(elf);
	free(copy);
	if (input_size <= BOUNDED_INPUT && max_ms > 0 && cpu_ms() - start > max_ms) {
		fprintf(stderr, "fuzz_cfi: %.0f ms of CPU for one unit (> %.0f)\n", cpu_ms() - start,
			max_ms);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t eh[sizeof(eh_template)], dbg[sizeof(debug_template)], *img;
	size_t img_size;

	memcpy(eh, eh_template, sizeof(eh));
	memcpy(dbg, debug_template, sizeof(dbg));
	/* pc_begin is relative to its own address: 0x1000 and 0x1040. */
	put32(eh + 32, (uint32_t)(0x1000 - (EH_ADDR + 32)));
	put32(eh + 64, (uint32_t)(0x1040 - (EH_ADDR + 64)));
	if (size >= 4 && memcmp(data, ELFMAG, SELFMAG) == 0) {
		run(data, size, size);
		return 0;
	}
	switch (size ? data[0] % 4 : 3) {
	case 0: /* the input is .eh_frame */
		img = build_elf(data + 1, size - 1, dbg, sizeof(dbg), &img_size);
		break;
	case 1: /* the input is .debug_frame, .eh_frame empty */
		img = build_elf(eh, 0, data + 1, size - 1, &img_size);
		break;
	case 2: /* byte edits of the well-formed CFI: (position, value) pairs */
		for (size_t i = 1; i + 1 < size; i += 2) {
			size_t pos = data[i] % (sizeof(eh) + sizeof(dbg));

			if (pos < sizeof(eh))
				eh[pos] = data[i + 1];
			else
				dbg[pos - sizeof(eh)] = data[i + 1];
		}
		/* fall through */
	default:
		img = build_elf(eh, sizeof(eh), dbg, sizeof(dbg), &img_size);
		break;
	}
	run(img, img_size, size);
	free(img);
	return 0;
}
