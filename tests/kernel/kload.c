/* Loading sample programs into the kernel for the kernel suite: maps,
 * relocations, the verifier log of a rejection, verified_insns of an
 * acceptance, and one BPF_PROG_TEST_RUN. libbpf's low-level calls only. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <gs/internal/program.h>
#include <gs/runtime.h>

#include "base.h"
#include "kload.h"
#include "rt_int.h" /* the verifier log readers */

#define TEST_PACKET_SIZE 64
#define LICENSE "GPL" /* bpf_perf_event_output is GPL-only */

void gs_kload_init(struct gs_kload *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < GS_KLOAD_MAX_MAPS; i++)
		k->map_fds[i] = -1;
	k->tail_fd = -1;
	k->prog_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void gs_kload_fini(struct gs_kload *k)
{
	close_fd(&k->prog_fd);
	close_fd(&k->tail_fd);
	for (size_t i = 0; i < GS_KLOAD_MAX_MAPS; i++)
		close_fd(&k->map_fds[i]);
	free(k->log);
	gs_kload_init(k);
}

int gs_kload_bpf_permitted(struct gs_error *err)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "gs_probe", 4, 4, 1, NULL);

	if (fd >= 0) {
		close(fd);
		gs_error_clear(err);
		return 0;
	}
	switch (fd) {
	case -EPERM:
		return gs_errorf(err, fd, "bpf() is not permitted here (EPERM): run as root, or "
				 "with CAP_BPF and CAP_PERFMON (kernel.unprivileged_bpf_disabled "
				 "refuses everyone else)");
	case -ENOSYS:
		return gs_errorf(err, fd, "this kernel has no bpf() system call (ENOSYS): "
				 "it was built without CONFIG_BPF_SYSCALL");
	default:
		return gs_errorf(err, fd, "bpf(BPF_MAP_CREATE) of a 1-entry array failed: %s",
				 strerror(-fd));
	}
}

int gs_kload_create_maps(struct gs_kload *k, const struct gs_kload_desc *prog,
			 struct gs_error *err)
{
	if (prog->nmaps > GS_KLOAD_MAX_MAPS)
		return gs_errorf(err, -E2BIG, "program %s declares %zu maps, more than %d",
				 prog->name, prog->nmaps, GS_KLOAD_MAX_MAPS);
	for (size_t i = 0; i < prog->nmaps; i++) {
		const struct gs_map_spec *m = &prog->maps[i];
		uint32_t max_entries = m->max_entries;
		int fd;

		if (m->type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && max_entries == 0) {
			int ncpus = libbpf_num_possible_cpus();

			if (ncpus < 0)
				return gs_errorf(err, ncpus, "map %s of %s: cannot count the "
						 "possible CPUs: %s", m->name, prog->name,
						 strerror(-ncpus));
			max_entries = (uint32_t)ncpus;
		}
		fd = bpf_map_create(m->type, m->name, m->key_size, m->value_size, max_entries,
				    NULL);
		if (fd < 0)
			return gs_errorf(err, fd, "map %s of %s (type %d, key %u, value %u, "
					 "%u entries) was refused: %s", m->name, prog->name,
					 m->type, m->key_size, m->value_size, max_entries,
					 strerror(-fd));
		k->map_fds[i] = fd;
		k->nmaps = i + 1;
	}
	return 0;
}

int gs_kload_fill_tail_target(struct gs_kload *k, const struct gs_kload_desc *prog,
			      struct gs_error *err)
{
	const struct bpf_insn ret0[] = { GS_MOV64_IMM(GS_R0, 0), GS_EXIT() };
	uint32_t slot = 0;
	size_t i;
	int ret;

	for (i = 0; i < k->nmaps; i++)
		if (prog->maps[i].type == BPF_MAP_TYPE_PROG_ARRAY)
			break;
	if (i == k->nmaps)
		return gs_errorf(err, -ENOENT, "program %s has no PROG_ARRAY map (created) to "
				 "hold a tail-call target", prog->name);
	close_fd(&k->tail_fd);
	k->tail_fd = bpf_prog_load(prog->type, "tail_target", LICENSE, ret0,
				   BASE_ARRAY_SIZE(ret0), NULL);
	if (k->tail_fd < 0) {
		ret = k->tail_fd;
		k->tail_fd = -1;
		return gs_errorf(err, ret, "the tail-call target `r0 = 0; exit` was refused: %s",
				 strerror(-ret));
	}
	ret = bpf_map_update_elem(k->map_fds[i], &slot, &k->tail_fd, BPF_ANY);
	if (ret < 0)
		return gs_errorf(err, ret, "storing the tail-call target in slot 0 of %s failed: %s",
				 prog->maps[i].name, strerror(-ret));
	return 0;
}

/* The verified_insns the kernel reports for a loaded program. */
static int read_verified_insns(int fd, uint32_t *out, struct gs_error *err)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int ret;

	memset(&info, 0, sizeof(info));
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret < 0)
		return gs_errorf(err, ret, "bpf_obj_get_info_by_fd on a loaded program failed: %s",
				 strerror(-ret));
	*out = info.verified_insns;
	return 0;
}

/* Loads insns; on a rejection loads them again with log_level 1 so the log
 * says why (the fast path needs no 1 MiB copy-out). */
static int load(struct gs_kload *k, const struct gs_kload_desc *prog, const struct gs_asm *a,
		const struct bpf_insn *insns, size_t n)
{
	struct bpf_func_info finfo[8];
	int fd, btf_fd = -1;
	size_t nf = a->nfuncs < 8 ? a->nfuncs : 8;

	for (size_t i = 0; i < nf; i++)
		finfo[i] = (struct bpf_func_info){ a->funcs[i].insn, a->funcs[i].type_id };
	if (nf && prog->btf) {
		void *blob;
		size_t size;

		if (gs_btf_finish(prog->btf, &blob, &size, NULL) == 0) {
			btf_fd = bpf_btf_load(blob, size, NULL);
			free(blob);
		}
	}
	{
		LIBBPF_OPTS(bpf_prog_load_opts, quiet, .prog_btf_fd = btf_fd > 0 ? btf_fd : 0,
			    .func_info = nf ? finfo : NULL, .func_info_cnt = (uint32_t)nf,
			    .func_info_rec_size = nf ? sizeof(finfo[0]) : 0,
			    .prog_flags = prog->prog_flags);
		LIBBPF_OPTS(bpf_prog_load_opts, verbose,
			.log_buf = k->log,
			.log_size = GS_KLOAD_LOG_SIZE,
			.log_level = 1, .prog_btf_fd = btf_fd > 0 ? btf_fd : 0,
			.func_info = nf ? finfo : NULL, .func_info_cnt = (uint32_t)nf,
			.func_info_rec_size = nf ? sizeof(finfo[0]) : 0,
			.prog_flags = prog->prog_flags,
		);

		fd = bpf_prog_load(prog->type, prog->name, LICENSE, insns, n, &quiet);
		if (fd < 0)
			fd = bpf_prog_load(prog->type, prog->name, LICENSE, insns, n, &verbose);
	}
	if (btf_fd >= 0)
		close(btf_fd);
	return fd;
}

int gs_kload_prog(struct gs_kload *k, const struct gs_kload_desc *prog, const struct gs_asm *a,
		  struct gs_error *err)
{
	struct bpf_insn *insns;
	char reason[256];
	int fd, ret;

	if (!k->log && !(k->log = calloc(1, GS_KLOAD_LOG_SIZE)))
		return gs_errorf(err, -ENOMEM, "no memory for a %u-byte verifier log",
				 GS_KLOAD_LOG_SIZE);
	k->log[0] = '\0';
	close_fd(&k->prog_fd);
	k->verified_insns = 0;
	insns = malloc(a->len * sizeof(*insns));
	if (!insns)
		return gs_errorf(err, -ENOMEM, "no memory to copy the %zu instructions of %s",
				 a->len, prog->name);
	memcpy(insns, a->insns, a->len * sizeof(*insns));
	ret = gs_reloc_apply(insns, a->len, a->relocs, a->nrelocs, k->map_fds, k->nmaps, err);
	if (ret == 0) {
		fd = load(k, prog, a, insns, a->len);
		if (fd < 0) {
			gs_kload_log_reason(k->log, reason, sizeof(reason));
			ret = gs_errorf(err, fd, "the verifier rejected %s (%s): %s", prog->name,
					strerror(-fd), reason);
		} else {
			k->prog_fd = fd;
			ret = read_verified_insns(fd, &k->verified_insns, err);
		}
	}
	free(insns);
	return ret;
}

int gs_kload_test_run(int prog_fd, uint32_t *retval, struct gs_error *err)
{
	uint8_t packet[TEST_PACKET_SIZE] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, run,
		.data_in = packet,
		.data_size_in = sizeof(packet),
		.repeat = 1,
	);
	int ret = bpf_prog_test_run_opts(prog_fd, &run);

	if (ret < 0)
		return gs_errorf(err, ret, "BPF_PROG_TEST_RUN on a %zu-byte packet failed: %s",
				 sizeof(packet), strerror(-ret));
	*retval = run.retval;
	return 0;
}

const char *gs_kload_log_tail(const char *log, unsigned lines)
{
	return rt_verifier_log_tail(log, lines);
}

void gs_kload_log_reason(const char *log, char *buf, size_t size)
{
	rt_verifier_log_reason(log, buf, size);
}
