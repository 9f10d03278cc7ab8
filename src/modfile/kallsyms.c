/* The kernel's symbols (/proc/kallsyms), for the kernel frames of CPU
 * samples: every text symbol ('t'/'T', and 'w'/'W' weak ones) with its
 * address, sorted; a frame's function is the last symbol at or below it.
 * Addresses read as 0 (kptr_restrict, or no CAP_SYSLOG) give an empty
 * table, and frames then show their addresses only. The file is hostile
 * input like any other: lines that do not parse are skipped. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/internal/modfile.h>

#include "base.h"

struct kallsym {
	uint64_t addr;
	char *name;
};

struct gs_kallsyms {
	struct kallsym *v;
	size_t n;
	char *names; /* every name, NUL-separated */
};

static int by_addr(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int gs_kallsyms_load(const char *path, struct gs_kallsyms **out, struct gs_error *err)
{
	FILE *f = fopen(path ? path : "/proc/kallsyms", "r");
	struct gs_kallsyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, ncap = 0, nlen = 0;
	size_t *offs = NULL;
	char line[512];

	*out = NULL;
	if (!f || !k) {
		int rc = f ? -ENOMEM : -errno;

		if (f)
			fclose(f);
		free(k);
		return gs_errorf(err, rc, "cannot read %s: %s", path ? path : "/proc/kallsyms",
				 strerror(-rc));
	}
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		unsigned long long addr;
		size_t len;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || addr == 0 ||
		    !strchr("tTwW", type))
			continue;
		len = strlen(name) + 1;
		if (k->n == cap) {
			void *v = realloc(k->v, (cap = cap ? 2 * cap : 4096) * sizeof(*k->v));
			void *o = v ? realloc(offs, cap * sizeof(*offs)) : NULL;

			if (v)
				k->v = v;
			if (!o)
				goto oom;
			offs = o;
		}
		if (nlen + len > ncap) {
			char *s = realloc(k->names, ncap = 2 * (nlen + len) + 65536);

			if (!s)
				goto oom;
			k->names = s;
		}
		memcpy(k->names + nlen, name, len);
		offs[k->n] = nlen;
		k->v[k->n++].addr = addr;
		nlen += len;
	}
	fclose(f);
	for (size_t i = 0; i < k->n; i++)
		k->v[i].name = k->names + offs[i];
	free(offs);
	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), by_addr);
	*out = k;
	return 0;
oom:
	fclose(f);
	free(offs);
	gs_kallsyms_free(k);
	return gs_errorf(err, -ENOMEM, "out of memory reading the kernel's symbols");
}

struct addr_key {
	const struct gs_kallsyms *k;
	uint64_t addr;
};

static bool starts_at_or_before(const void *ctx, size_t i)
{
	const struct addr_key *key = ctx;

	return key->k->v[i].addr <= key->addr;
}

const char *gs_kallsyms_find(const struct gs_kallsyms *k, uint64_t addr, uint64_t *off)
{
	struct addr_key key = { k, addr };
	/* the first symbol past addr: addr is in the one before it */
	size_t past = base_lower_bound(0, k ? k->n : 0, &key, starts_at_or_before);

	if (past == 0)
		return NULL;
	*off = addr - k->v[past - 1].addr;
	return k->v[past - 1].name;
}

void gs_kallsyms_free(struct gs_kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->names);
	free(k);
}
