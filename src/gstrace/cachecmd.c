/* `gstrace --cache-info` and `gstrace --cache-clear`: the on-disk cache
 * (cachedir.c chooses it) shown by kind, or emptied of the files gstrace
 * wrote; one `key: value` line each, for people and scripts alike. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <gs/modfile.h>

#include "cachedir.h"
#include "say.h"

static const char *const kind_names[GS_CACHE_NKINDS] = {
	[GS_CACHE_CFI] = "cfi",
	[GS_CACHE_INDEX] = "index",
	[GS_CACHE_DEBUG] = "debug",
	[GS_CACHE_TEMP] = "temporary",
};

static const char *human(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

static const char *files(uint64_t n)
{
	return n == 1 ? "file" : "files";
}

static void when(const char *key, int64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ll);
	struct tm tm;
	char buf[64];

	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		return;
	printf("%s: %s\n", key, buf);
}

static int info(const struct cli_cache *k)
{
	struct gs_cache_usage u;
	struct gs_error err = { 0 };
	char a[32];

	printf("directory: %s (%s)\n", k->dir, k->dir_from);
	if (k->off)
		printf("cap: off (%s): runs neither read nor write it\n", k->size_from);
	else
		printf("cap: %s (%s)\n", human(k->max_bytes ? k->max_bytes :
					      GS_CACHE_DEFAULT_MAX_BYTES, a, sizeof(a)),
		       k->size_from ? k->size_from : "default");
	if (gs_cache_usage_of(k->dir, &u, &err)) {
		fflush(stdout);
		cli_say("gstrace: ", "%s", err.msg);
		return 2;
	}
	printf("total: %s in %llu %s\n", human(u.total_bytes, a, sizeof(a)),
	       (unsigned long long)u.total_files, files(u.total_files));
	for (int i = 0; i < GS_CACHE_NKINDS; i++)
		if (i != GS_CACHE_TEMP || u.files[i])
			printf("%s: %llu %s, %s\n", kind_names[i], (unsigned long long)u.files[i],
			       files(u.files[i]), human(u.bytes[i], a, sizeof(a)));
	when("oldest use", u.oldest_ns);
	when("newest use", u.newest_ns);
	return 0;
}

static int clear(const struct cli_cache *k)
{
	struct gs_cache_usage u;
	struct gs_error err = { 0 };
	char a[32];
	int rc = gs_cache_clear(k->dir, &u, &err);

	if (rc) {
		cli_say("gstrace: ", "%s", err.msg);
		return rc == -EAGAIN ? 1 : 2;
	}
	printf("removed %llu %s (%s) from %s:", (unsigned long long)u.total_files,
	       files(u.total_files), human(u.total_bytes, a, sizeof(a)), k->dir);
	for (int i = 0; i < GS_CACHE_NKINDS; i++)
		printf(" %s %llu%s", kind_names[i], (unsigned long long)u.files[i],
		       i + 1 < GS_CACHE_NKINDS ? "," : "\n");
	return 0;
}

int cli_cache_cmd(const struct cli *c)
{
	struct cli_cache k;

	cli_cache_where(c, &k);
	if (!k.dir) {
		printf("no cache directory (%s): nothing to %s; give --cache-dir DIR\n",
		       k.dir_from ? k.dir_from : "no $XDG_CACHE_HOME nor $HOME",
		       c->action == CLI_CACHE_INFO ? "show" : "clear");
		return 0;
	}
	return c->action == CLI_CACHE_INFO ? info(&k) : clear(&k);
}
