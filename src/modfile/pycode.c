/* One CPython code object read from a live process: its function name
 * (co_qualname from 3.11, co_name before), file, first line and line
 * table, the fields that tell a cached copy still describes the object
 * at that address, and where an instruction is in its bytecode. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/python.h>

#include "mf_int.h"

#define UNKNOWN "<?>"
/* A code object's fields gstrace reads all lie in its first bytes. */
#define CODE_HEAD_MAX 512

/* The bytes [0, end) of the code object that hold every field read. */
static size_t head_end(const struct gs_py_layout *l)
{
	uint16_t f[] = { l->code_name, l->code_qualname, l->code_filename, l->code_linetable,
			 l->code_firstlineno };
	size_t end = 0, i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i] != GS_PY_NONE && f[i] + 8u > end)
			end = f[i] + 8u;
	return end;
}

static uint64_t ptr_at(const uint8_t *head, uint16_t off)
{
	uint64_t v = 0;

	if (off != GS_PY_NONE)
		memcpy(&v, head + off, 8);
	return v;
}

static char *str_or_unknown(pid_t pid, const struct gs_py_layout *l, uint64_t addr)
{
	char buf[4 * MF_PY_STR_MAX + 8];

	if (!addr || mf_py_str_read(pid, l, addr, buf, sizeof(buf)) != 0)
		return strdup(UNKNOWN);
	return strdup(buf);
}

/* The bytes object at addr: its ob_size, then its characters, at most
 * MF_PY_TABLE_MAX of them. */
static void table_read(pid_t pid, const struct gs_py_layout *l, uint64_t addr, struct mf_py_code *c)
{
	int64_t size;
	ssize_t got;

	if (!addr || mf_proc_read(pid, addr + l->var_size, &size, 8) != 8 || size < 0 ||
	    size > (int64_t)MF_PY_TABLE_MAX)
		return;
	c->table = malloc(size ? (size_t)size : 1);
	if (!c->table)
		return;
	got = mf_proc_read(pid, addr + l->bytes_data, c->table, (size_t)size);
	if (got != size) {
		free(c->table);
		c->table = NULL;
		return;
	}
	c->table_len = (size_t)size;
}

int mf_py_code_read(pid_t pid, const struct gs_py_layout *l, uint64_t code, struct mf_py_code *out,
		    struct gs_error *err)
{
	uint8_t head[CODE_HEAD_MAX];
	size_t end = head_end(l);
	ssize_t got;
	int32_t first;

	memset(out, 0, sizeof(*out));
	if (end > sizeof(head))
		return gs_errorf(err, -EINVAL, "python 3.%u layout: a code object field past byte %d",
				 l->minor, CODE_HEAD_MAX);
	got = mf_proc_read(pid, code, head, end);
	if (got != (ssize_t)end)
		return gs_errorf(err, got < 0 ? (int)got : -EFAULT, "cannot read the code object at "
				 "0x%llx in process %d: %s", (unsigned long long)code, (int)pid,
				 got < 0 ? strerror((int)-got) : "a short read");
	memcpy(&first, head + l->code_firstlineno, 4);
	out->firstlineno = first;
	out->name_ptr = ptr_at(head, l->code_name);
	out->function = str_or_unknown(pid, l, ptr_at(head, l->code_qualname != GS_PY_NONE ?
							  l->code_qualname : l->code_name));
	out->file = str_or_unknown(pid, l, ptr_at(head, l->code_filename));
	table_read(pid, l, ptr_at(head, l->code_linetable), out);
	if (!out->function || !out->file) {
		mf_py_code_free(out);
		return gs_errorf(err, -ENOMEM, "out of memory naming a Python code object");
	}
	return 0;
}

bool mf_py_code_still(pid_t pid, const struct gs_py_layout *l, uint64_t code,
		      const struct mf_py_code *c)
{
	uint8_t head[CODE_HEAD_MAX];
	size_t lo = l->code_firstlineno < l->code_name ? l->code_firstlineno : l->code_name;
	size_t hi = (l->code_firstlineno > l->code_name ? l->code_firstlineno : l->code_name) + 8u;
	int32_t first;

	if (hi > sizeof(head) || mf_proc_read(pid, code + lo, head, hi - lo) != (ssize_t)(hi - lo))
		return false;
	memcpy(&first, head + (l->code_firstlineno - lo), 4);
	return first == c->firstlineno && ptr_at(head, (uint16_t)(l->code_name - lo)) == c->name_ptr;
}

void mf_py_code_free(struct mf_py_code *c)
{
	free(c->function);
	free(c->file);
	free(c->table);
	memset(c, 0, sizeof(*c));
}

int64_t gs_py_offset(const struct gs_py_layout *l, uint64_t code, uint64_t instr)
{
	instr &= ~GS_PY_FRAME_CALL_END;
	if (l->walk.style == GS_PY_STYLE_FRAME_OBJECT) {
		/* an int f_lasti: -1 before the first instruction; code
		 * units from 3.10, bytes before */
		int32_t lasti = (int32_t)(uint32_t)instr;

		return l->minor >= 10 ? 2 * (int64_t)lasti : lasti;
	}
	/* a pointer into co_code_adaptive: before it (3.11's prev_instr
	 * starts one unit early) is before the first instruction */
	return (int64_t)(instr - (code + l->code_adaptive));
}
