/* The dlopen hook's program in each of its forms, loaded through the real
 * verifier: counting (-p), holding with the doorbell (a launched command),
 * holding without it (a kernel without the ring buffer), each with and
 * without the r_debug.r_state check. The site is this process's own
 * dynamic linker; nothing is attached. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/runtime.h>

#include "rt_int.h"

static void load_variant(const struct rt_dlhook_site *site, bool hold, bool doorbell)
{
	struct gs_bpf_map map[2] = {
		{ .type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1 },
		{ .type = BPF_MAP_TYPE_RINGBUF, .max_entries = RT_DLHOOK_DOORBELL_SIZE },
	};
	struct gs_bpf_maps maps = { .v = map, .n = hold && doorbell ? 2 : 1 };
	struct gs_error err = { 0 };
	char *report = NULL;
	struct gs_asm a;
	int fd = -1, rc;

	snprintf(map[0].name, sizeof(map[0].name), "%s", RT_DLHOOK_MAP);
	snprintf(map[1].name, sizeof(map[1].name), "%s", RT_DLHOOK_DOORBELL);
	for (size_t i = 0; i < maps.n; i++) {
		map[i].fd = bpf_map_create(map[i].type, map[i].name, map[i].key_size,
					   map[i].value_size, map[i].max_entries, NULL);
		assert_true(map[i].fd >= 0);
	}
	gs_asm_init(&a);
	rc = rt_dlhook_program(&a, site, hold, doorbell, &err);
	if (rc)
		fail_msg("hold %d doorbell %d state %d: %s", hold, doorbell, site->has_state,
			 err.msg);
	rc = gs_asm_load(&a, RT_DLHOOK_PROG, &maps, NULL, &fd, &report, &err);
	if (rc)
		fail_msg("hold %d doorbell %d state %d: %s\n%s", hold, doorbell, site->has_state,
			 err.msg, report ? report : "");
	free(report);
	close(fd);
	gs_asm_fini(&a);
	for (size_t i = 0; i < maps.n; i++)
		close(map[i].fd);
}

static void test_every_form_of_the_dlopen_hook_loads(void **state)
{
	struct rt_dlhook_site site;
	struct gs_error err = { 0 };

	(void)state;
	if (geteuid() != 0)
		skip(); /* bpf() needs CAP_BPF or root: said in main */
	if (rt_dlhook_locate(getpid(), &site, &err))
		fail_msg("this process's dynamic linker: %s", err.msg);
	for (int state_check = 0; state_check < 2; state_check++) {
		bool has_state = site.has_state;

		/* Without _r_debug the state check is left out: load that too. */
		site.has_state = state_check ? has_state : false;
		load_variant(&site, false, false);
		load_variant(&site, true, false);
		load_variant(&site, true, true);
		site.has_state = has_state;
	}
	rt_dlhook_site_free(&site);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_form_of_the_dlopen_hook_loads),
	};

	if (geteuid() != 0)
		fprintf(stderr, "runtime-kernel-dlhook: skipped: not root: loading BPF programs "
			"needs CAP_BPF+CAP_PERFMON or CAP_SYS_ADMIN\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
