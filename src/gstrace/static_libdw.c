/* Linked into the static gstrace on x86_64 hosts only (src/gstrace/meson.build):
 * definitions that keep the parts of Debian's libdw.a that gstrace cannot
 * reach out of the binary (246 kB; docs/cli.md, "The static binary").
 *
 * libdw.a holds one backend per machine (register names, ABI CFI, return
 * values, core notes, relocations, disassembler), and its backend table
 * (libebl/eblopenbackend.c) names every backend's init function, so the
 * static link takes them all. gstrace traces processes of the host it runs
 * on: on x86_64 their modules are x86_64 or i386 ELF files, whose backends
 * stay. The others' init functions are defined here and report "no backend"
 * (a null return), which elfutils' own table already does for the machines
 * it has no backend for (tilegx, parisc...): the Ebl keeps its generic
 * defaults. A foreign ELF file (an aarch64 program given as -t PATH on an
 * x86_64 host, which the host cannot run) is thus read as libdw reads an
 * unknown machine's; gstrace could not attach to it anyway.
 *
 * The disassemblers the kept backends install (x86_64_disasm, i386_disasm)
 * are called only through ebl->disasm, whose one caller is libasm's
 * disasm_cb (elfutils' libasm/disasm_cb.c): libasm is not linked and nothing
 * in gstrace or libdw disassembles, so no code path reaches them. Here they
 * fail with -1, the disassembler's error return, should that ever change.
 *
 * A linker takes an archive member only for a symbol still undefined: these
 * definitions come first on the command line, so the members that would
 * define them (and the members only they need) stay out. With another
 * libdw whose backends are named differently, the real ones are linked
 * again: the binary grows, nothing breaks. Built without LTO (meson.build):
 * its only callers are in libdw.a. */
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct ebl;

#define NO_BACKEND(name)                                                                   \
	struct ebl *name(Elf *elf, GElf_Half machine, struct ebl *eh);                     \
	struct ebl *name(Elf *elf, GElf_Half machine, struct ebl *eh)                      \
	{                                                                                  \
		(void)elf;                                                                 \
		(void)machine;                                                             \
		(void)eh;                                                                  \
		return NULL;                                                               \
	}

NO_BACKEND(aarch64_init)
NO_BACKEND(alpha_init)
NO_BACKEND(arm_init)
NO_BACKEND(bpf_init)
NO_BACKEND(csky_init)
NO_BACKEND(ia64_init)
NO_BACKEND(m68k_init)
NO_BACKEND(ppc_init)
NO_BACKEND(ppc64_init)
NO_BACKEND(riscv_init)
NO_BACKEND(s390_init)
NO_BACKEND(sh_init)
NO_BACKEND(sparc_init)

/* libasm.h's callback types. */
typedef int (*disasm_output_cb)(char *, size_t, void *);
typedef int (*disasm_getsym_cb)(GElf_Addr, Elf32_Word, GElf_Addr, char **, size_t *, void *);

#define NO_DISASM(name)                                                                    \
	int name(struct ebl *ebl, const uint8_t **startp, const uint8_t *end, GElf_Addr addr, \
		 const char *fmt, disasm_output_cb outcb, disasm_getsym_cb symcb,          \
		 void *outcbarg, void *symcbarg);                                          \
	int name(struct ebl *ebl, const uint8_t **startp, const uint8_t *end, GElf_Addr addr, \
		 const char *fmt, disasm_output_cb outcb, disasm_getsym_cb symcb,          \
		 void *outcbarg, void *symcbarg)                                           \
	{                                                                                  \
		(void)ebl, (void)startp, (void)end, (void)addr, (void)fmt;                 \
		(void)outcb, (void)symcb, (void)outcbarg, (void)symcbarg;                  \
		return -1;                                                                 \
	}

NO_DISASM(x86_64_disasm)
NO_DISASM(i386_disasm)
