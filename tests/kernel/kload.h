/* Test-side loading of the sample programs through the real verifier, with
 * libbpf's low-level calls only: maps created in table order, relocations
 * patched on a copy of the program, and the verifier log kept for reports. */
#ifndef GS_TEST_KLOAD_H
#define GS_TEST_KLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <gs/asm.h>
#include <gs/error.h>

#include <gs/btf.h>
#include <gs/program.h>

#define GS_KLOAD_LOG_SIZE (1u << 20) /* verifier log buffer: 1 MiB */
#define GS_KLOAD_MAX_MAPS 16

/* What to load: a name for the kernel and messages, a program type, and
 * the maps in the program's map-index order. */
struct gs_kload_desc {
	const char *name;
	enum bpf_prog_type type;
	const struct gs_map_spec *maps;
	size_t nmaps;
	const struct gs_btf *btf; /* the program's func_info types, when it has subprograms */
	uint32_t prog_flags;      /* e.g. BPF_F_SLEEPABLE */
};

/* Everything one loaded program holds; gs_kload_fini() releases it all. */
struct gs_kload {
	int map_fds[GS_KLOAD_MAX_MAPS]; /* in the program's map order; -1 if none */
	size_t nmaps;
	int tail_fd;             /* program in a PROG_ARRAY slot 0, or -1 */
	int prog_fd;             /* -1 until the kernel accepts the program */
	uint32_t verified_insns; /* bpf_prog_info.verified_insns once loaded */
	char *log;               /* NULL before gs_kload_prog(), then the verifier
				  * log of a rejection, or "" */
};

void gs_kload_init(struct gs_kload *k);
/* Closes every fd k holds and frees its log. */
void gs_kload_fini(struct gs_kload *k);

/* 0 when this process may call bpf(); else -errno and, in err, why not
 * (no privileges, no bpf() in the kernel) so a test can skip saying so. */
int gs_kload_bpf_permitted(struct gs_error *err);

/* Creates d's maps into k->map_fds. A PERF_EVENT_ARRAY declared with
 * max_entries 0 gets one slot per possible CPU, as libbpf does. */
int gs_kload_create_maps(struct gs_kload *k, const struct gs_kload_desc *d,
			 struct gs_error *err);

/* Loads `r0 = 0; exit` of d's type and stores it in slot 0 of d's
 * PROG_ARRAY map (maps must exist). */
int gs_kload_fill_tail_target(struct gs_kload *k, const struct gs_kload_desc *d,
			      struct gs_error *err);

/* Loads the finished program in a with k's maps patched in. 0 with
 * prog_fd and verified_insns set; or -errno when the kernel rejects it,
 * with the verifier log (log_level 1) in k->log and the verifier's reason
 * line in err. */
int gs_kload_prog(struct gs_kload *k, const struct gs_kload_desc *d, const struct gs_asm *a,
		  struct gs_error *err);

/* Runs a loaded socket filter once on a zeroed 64-byte packet
 * (BPF_PROG_TEST_RUN) and stores what it returned. */
int gs_kload_test_run(int prog_fd, uint32_t *retval, struct gs_error *err);

/* The start of the last `lines` lines of a verifier log. */
const char *gs_kload_log_tail(const char *log, unsigned lines);

/* The verifier's verdict: the last non-empty line of the log that is not
 * its closing statistics ("processed N insns ..."), copied into buf. */
void gs_kload_log_reason(const char *log, char *buf, size_t size);

#endif /* GS_TEST_KLOAD_H */
