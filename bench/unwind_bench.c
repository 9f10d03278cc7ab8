/* Unwind-data throughput: all CFI rows of the system libc.so.6 (table build
 * time, rows per second, bytes per row in bt_unwind_rows), node's own
 * binary where installed (ready in 300 ms cold), and symbolizer
 * lookups on a -O2 -g fixture, cold (fresh cache, every .text address once)
 * and warm (cached). readelf's frames-interp dump of the same libc and
 * node is timed as the peer where binutils is installed. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gs/unwind.h>

#include "base.h"

#ifndef GS_BENCH_FIXTURE
#define GS_BENCH_FIXTURE "bt_bench_fixture"
#endif

#define CFI_REPS 20
#define NODE_REPS 3
#define WARM_REPS 200

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *find_libc(void)
{
	static const char *const c[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib64/libc.so.6", "/lib64/libc.so.6",
	};

	for (size_t i = 0; i < BASE_ARRAY_SIZE(c); i++)
		if (access(c[i], R_OK) == 0)
			return c[i];
	return NULL;
}

/* The best of reps cold table builds of path, in seconds (< 0: failed);
 * its row counts before and after merging. */
static double best_build_s(const char *path, int reps, size_t *rows, size_t *exported)
{
	double best = 1e9;
	struct gs_cfi_table t;
	struct gs_error err = { 0 };

	for (int i = 0; i < reps; i++) {
		double t0 = now_s(), dt;

		if (gs_cfi_table_from_file(path, NULL, &t, &err)) {
			fprintf(stderr, "unwind_bench: %s\n", err.msg);
			return -1;
		}
		dt = now_s() - t0;
		if (dt < best)
			best = dt;
		*rows = t.stats.rows;
		*exported = t.nrows;
		gs_cfi_table_free(&t);
	}
	return best;
}

static int bench_rows(const char *libc)
{
	size_t rows = 0, exported = 0;
	double best = best_build_s(libc, CFI_REPS, &rows, &exported);

	if (best < 0)
		return 1;
	printf("# %s: %zu CFI rows, %zu in the table after merging\n", libc, rows, exported);
	printf("BENCH unwind.rows.libc_ms %.2f ms\n", best * 1e3);
	printf("BENCH unwind.rows.per_s %.0f rows/s\n", (double)rows / best);
	printf("BENCH unwind.rows.bytes_per_row %zu B\n", sizeof(struct gs_unwind_row));
	return 0;
}

static void bench_readelf_peer(const char *path, const char *metric)
{
	char cmd[4200];
	double t0;
	int rc;

	if (system("command -v readelf >/dev/null 2>&1") != 0)
		return;
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' >/dev/null 2>&1", path);
	t0 = now_s();
	rc = system(cmd);
	/* readelf exits 1 when it only warns (e.g. no separate debug file). */
	if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) <= 1)
		printf("BENCH %s.peer_readelf %.2f ms\n", metric, (now_s() - t0) * 1e3);
}

/* node's binary: the largest table a user meets, cold (no disk cache). */
static int bench_node_rows(void)
{
	static const char *const c[] = { "/usr/bin/node", "/usr/local/bin/node" };
	const char *node = NULL;
	size_t rows = 0, exported = 0;
	double best;

	for (size_t i = 0; i < BASE_ARRAY_SIZE(c) && !node; i++)
		if (access(c[i], R_OK) == 0)
			node = c[i];
	if (!node) {
		printf("# skipped: unwind.rows.node_ms: node not installed\n");
		return 0;
	}
	best = best_build_s(node, NODE_REPS, &rows, &exported);
	if (best < 0)
		return 1;
	printf("# %s: %zu CFI rows, %zu in the table after merging\n", node, rows, exported);
	printf("BENCH unwind.rows.node_ms %.2f ms\n", best * 1e3);
	bench_readelf_peer(node, "unwind.rows.node_ms");
	return 0;
}

/* [lo, hi) of the fixture's .text section. */
static int text_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	int fd = open(path, O_RDONLY), found = -1;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && strcmp(name, ".text") == 0) {
				*lo = sh.sh_addr;
				*hi = sh.sh_addr + sh.sh_size;
				found = 0;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static int bench_symbolize(const char *path)
{
	uint64_t lo, hi, n, lookups = 0;
	double cold = 0, warm;
	const struct gs_sym_info *info;
	struct gs_symbolizer *s = NULL;
	int mod = -1;

	if (text_range(path, &lo, &hi)) {
		fprintf(stderr, "unwind_bench: cannot read .text of %s\n", path);
		return 1;
	}
	n = hi - lo;
	/* Cold: a fresh symbolizer each round; the module is opened untimed. */
	for (int r = 0; r < 10; r++) {
		double t0;

		gs_symbolizer_free(s);
		s = gs_symbolizer_new(NULL, NULL);
		mod = gs_symbolizer_module(s, path, NULL);
		if (!s || mod < 0) {
			fprintf(stderr, "unwind_bench: cannot open %s\n", path);
			return 1;
		}
		t0 = now_s();
		for (uint64_t pc = lo; pc < hi; pc++)
			gs_symbolize(s, mod, pc, &info, NULL);
		cold += now_s() - t0;
		lookups += n;
	}
	printf("# %s: %llu addresses of .text\n", path, (unsigned long long)n);
	printf("BENCH symbolize.lookups_per_s.cold %.0f lookups/s\n", (double)lookups / cold);
	warm = now_s();
	for (int r = 0; r < WARM_REPS; r++)
		for (uint64_t pc = lo; pc < hi; pc++)
			gs_symbolize(s, mod, pc, &info, NULL);
	warm = now_s() - warm;
	printf("BENCH symbolize.lookups_per_s.warm %.0f lookups/s\n", (double)(n * WARM_REPS) / warm);
	gs_symbolizer_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	const char *libc = find_libc();
	const char *fixture = argc > 1 ? argv[1] : GS_BENCH_FIXTURE;
	int rc = 0;

	if (libc) {
		rc |= bench_rows(libc);
		bench_readelf_peer(libc, "unwind.rows.libc_ms");
		rc |= bench_node_rows();
	} else {
		printf("# libc.so.6 not found: row benchmarks skipped\n");
	}
	rc |= bench_symbolize(fixture);
	return rc;
}
