/* Programs built with the assembler that the golden and kernel suites share:
 * each is dumped and diffed against tests/golden/asm_<name>.txt, and loaded
 * through the real verifier, so the text a reviewer reads is the program the
 * kernel accepted (or, for the broken ones, rejected). */
#ifndef GS_TEST_SAMPLE_PROGS_H
#define GS_TEST_SAMPLE_PROGS_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/internal/program.h>
#include <gs/asm.h>
#include <gs/program.h> /* struct gs_map_spec */

struct gs_test_prog {
	const char *name;            /* golden file tests/golden/asm_<name>.txt */
	enum bpf_prog_type type;     /* BPF_PROG_TYPE_KPROBE or _SOCKET_FILTER */
	void (*build)(struct gs_asm *a); /* declares the maps below, in order */
	struct gs_map_spec maps[4];
	size_t nmaps;
	/* For a PROG_ARRAY map: slot 0 gets a trivial program of the same type. */
	bool needs_tail_target;
	/* Broken programs: gs_check and the kernel must both reject them;
	 * check_error is a substring of gs_check's message. */
	bool broken;
	const char *check_error;
};

extern const struct gs_test_prog gs_test_progs[];
extern const size_t gs_test_nprogs;

/* Builds and finishes prog into a (initialised by the caller); 0 or -errno. */
int gs_test_prog_build(const struct gs_test_prog *prog, struct gs_asm *a, struct gs_error *err);

#endif /* GS_TEST_SAMPLE_PROGS_H */
