/* Reading another process's memory with process_vm_readv: one call per
 * span, a short read reported as the bytes that came (a span may run
 * into an unmapped page past the object it covers). */
#define _GNU_SOURCE /* process_vm_readv */
#include <errno.h>
#include <sys/uio.h>

#include "mf_int.h"

ssize_t mf_proc_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got;

	if (len == 0)
		return 0;
	if (addr == 0 || addr + len < addr)
		return -EFAULT;
	got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return got < 0 ? -errno : got;
}
