/* Naming Python frames: (code object, instruction) to function, file and
 * line, with each code object read once per process and kept in a
 * bounded cache. A hit is checked against the process (the object at the
 * address still has the cached co_name pointer and first line), so a
 * freed and reused address is read afresh. The line is computed per call
 * from the cached table: it depends on the instruction. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gs/python.h>

#include "mf_int.h"

/* 4096 sets of 4: 16,384 code objects, the least recently used of a set
 * evicted; and a byte budget for the tables, past which the cache starts
 * afresh (a process can make its tables up to MF_PY_TABLE_MAX each). */
#define SETS 4096
#define WAYS 4
#define TABLE_BUDGET (64u << 20)

struct slot {
	pid_t pid;
	uint64_t code;  /* 0: empty */
	uint64_t used;  /* the namer's clock at the last hit */
	struct mf_py_code c;
};

struct gs_py_namer {
	struct slot *slots; /* SETS * WAYS */
	uint64_t clock;
	size_t table_bytes;
};

struct gs_py_namer *gs_py_namer_new(void)
{
	struct gs_py_namer *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->slots = calloc(SETS * WAYS, sizeof(*n->slots));
	if (!n->slots) {
		free(n);
		return NULL;
	}
	return n;
}

static void slot_clear(struct gs_py_namer *n, struct slot *s)
{
	n->table_bytes -= s->c.table_len;
	mf_py_code_free(&s->c);
	s->code = 0;
	s->pid = 0;
}

static void clear_where(struct gs_py_namer *n, bool all, pid_t pid)
{
	size_t i;

	for (i = 0; i < SETS * WAYS; i++)
		if (n->slots[i].code && (all || n->slots[i].pid == pid))
			slot_clear(n, &n->slots[i]);
}

void gs_py_namer_forget(struct gs_py_namer *n, pid_t pid)
{
	if (n)
		clear_where(n, false, pid);
}

void gs_py_namer_free(struct gs_py_namer *n)
{
	if (!n)
		return;
	clear_where(n, true, 0);
	free(n->slots);
	free(n);
}

static struct slot *set_of(struct gs_py_namer *n, pid_t pid, uint64_t code)
{
	/* splitmix64's finalizer: code objects are 8-aligned and close */
	uint64_t h = code ^ ((uint64_t)(uint32_t)pid << 32);

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return &n->slots[(h % SETS) * WAYS];
}

/* The cached code object, checked to be still there; NULL on a miss
 * (a stale entry is dropped). */
static struct slot *lookup(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l,
			   uint64_t code)
{
	struct slot *set = set_of(n, pid, code);
	int w;

	for (w = 0; w < WAYS; w++) {
		struct slot *s = &set[w];

		if (s->code != code || s->pid != pid)
			continue;
		if (!mf_py_code_still(pid, l, code, &s->c)) {
			slot_clear(n, s);
			return NULL;
		}
		return s;
	}
	return NULL;
}

/* The slot a new entry takes: an empty one, else the least recently used. */
static struct slot *victim(struct gs_py_namer *n, pid_t pid, uint64_t code)
{
	struct slot *set = set_of(n, pid, code), *v = &set[0];
	int w;

	for (w = 0; w < WAYS; w++) {
		if (!set[w].code)
			return &set[w];
		if (set[w].used < v->used)
			v = &set[w];
	}
	slot_clear(n, v);
	return v;
}

static int insert(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l, uint64_t code,
		  struct slot **out, struct gs_error *err)
{
	struct mf_py_code c;
	struct slot *s;
	int rc = mf_py_code_read(pid, l, code, &c, err);

	if (rc)
		return rc;
	if (n->table_bytes + c.table_len > TABLE_BUDGET)
		clear_where(n, true, 0);
	s = victim(n, pid, code);
	s->pid = pid;
	s->code = code;
	s->c = c;
	n->table_bytes += c.table_len;
	*out = s;
	return 0;
}

static int line_of(const struct gs_py_layout *l, const struct mf_py_code *c, uint64_t code,
		   uint64_t instr)
{
	int64_t offset = gs_py_offset(l, code, instr);
	int line;

	/* before the first instruction: the function's own line, as CPython */
	if (offset < 0)
		return c->firstlineno;
	if (offset > UINT32_MAX || !c->table ||
	    gs_py_addr2line(l->minor, c->table, c->table_len, c->firstlineno, (uint32_t)offset, &line))
		return -1;
	return line;
}

int gs_py_name(struct gs_py_namer *n, pid_t pid, const struct gs_py_layout *l, uint64_t code,
	       uint64_t instr, struct gs_py_name *out, struct gs_error *err)
{
	struct slot *s;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!n || !l || !code)
		return gs_errorf(err, -EINVAL, "gs_py_name: %s", !code ? "a null code object" :
				 "no namer or no layout");
	s = lookup(n, pid, l, code);
	if (!s && (rc = insert(n, pid, l, code, &s, err)) != 0)
		return rc;
	s->used = ++n->clock;
	out->function = s->c.function;
	out->file = s->c.file;
	out->firstlineno = s->c.firstlineno;
	out->line = line_of(l, &s->c, code, instr);
	return 0;
}
