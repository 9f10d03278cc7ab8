/* The running kernel's BTF, for the one layout fact a generated program
 * needs from it: where task_struct keeps the user thread pointer
 * (thread.fsbase on x86-64), which thread-locals start from (docs/tls.md).
 * libbpf parses /sys/kernel/btf/vmlinux, as its CO-RE relocation would
 * at load time; nothing else of it is used here. */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "rt_int.h"

/* The byte offset of member `name` of struct/union `id` (following
 * typedefs and qualifiers), and its type. */
static int member(const struct btf *btf, int id, const char *name, uint32_t *off, int *type)
{
	const struct btf_type *t;
	const struct btf_member *m;

	id = btf__resolve_type(btf, (uint32_t)id);
	t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return -ENOENT;
	m = btf_members(t);
	for (uint16_t i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && strcmp(n, name) == 0 && btf_member_bit_offset(t, i) % 8 == 0) {
			*off = btf_member_bit_offset(t, i) / 8;
			*type = (int)m->type;
			return 0;
		}
	}
	return -ENOENT;
}

int rt_task_fsbase_offset(uint32_t *off, struct gs_error *err)
{
	struct btf *btf = btf__load_vmlinux_btf();
	uint32_t thread, fsbase;
	int task, type, rc;

	*off = 0;
	if (!btf)
		return gs_errorf(err, -errno, "the kernel's BTF (/sys/kernel/btf/vmlinux) cannot be "
				 "read: %s; thread-local variables need it (CONFIG_DEBUG_INFO_BTF, "
				 "Linux 5.4+)", strerror(errno));
	task = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	rc = task < 0 ? -ENOENT : member(btf, task, "thread", &thread, &type);
	if (rc == 0)
		rc = member(btf, type, "fsbase", &fsbase, &type);
	btf__free(btf);
	if (rc)
		return gs_errorf(err, rc, "the kernel's BTF has no task_struct.thread.fsbase (not "
				 "x86-64?): thread-local variables cannot find the thread pointer");
	*off = thread + fsbase;
	return 0;
}
