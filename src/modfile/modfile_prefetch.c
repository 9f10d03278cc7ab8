/* Debug information read ahead: a file's separate debug file found and its
 * compressed sections inflated (libc's takes tens of milliseconds), its
 * symbols and address ranges indexed, on one worker thread while the
 * caller goes on (resolving, verifying, attaching). The worker opens the
 * file again and reads it through a Dwfl of its own, so it never shares a
 * libelf or libdw handle with the caller; whoever needs the result first
 * waits for it, or reads it itself when the worker has not started it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mf_int.h"
#include "base.h"

void mf_prefetch_init(struct gs_modfiles *c)
{
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->done, NULL);
	pthread_cond_init(&c->work, NULL);
}

/* The reading itself, with nothing locked: the file again (the same one:
 * device, inode, size and time as when the cache opened it), its DWARF,
 * symbol table and the CU index of its address ranges. */
static void read_ahead(struct gs_modfile *m, struct prefetch *out)
{
	int fd = open(m->open_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	Dwarf_Addr low = 0, bias;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != m->dev ||
	    (uint64_t)st.st_ino != m->ino || (uint64_t)st.st_size != m->size ||
	    (int64_t)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec != m->mtime_ns) {
		close(fd);
		return;
	}
	if (mf_modfile_dwfl_open(m, fd, &out->dwfl, &out->mod) != 0) {
		dwfl_end(out->dwfl);
		memset(out, 0, sizeof(*out));
		return;
	}
	out->dw = dwfl_module_getdwarf(out->mod, &out->bias);
	/* Its compressed sections inflated: stored so the next start reads
	 * them plain (once, by whoever read them: mostly the worker). */
	if (out->dw && m->owner->cfi_cache_dir && m->id.build_id_len) {
		const char *debug_path = NULL;

		dwfl_module_info(out->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug_path);
		mf_debugcache_store(m->owner->cfi_cache_dir, m->id.build_id, m->id.build_id_len,
				    dwarf_getelf(out->dw), debug_path);
	}
	dwfl_module_getsymtab(out->mod);
	dwfl_module_info(out->mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	if (out->dw)
		dwfl_module_addrdie(out->mod, low, &bias);
}

/* Takes the next queued file for the worker; false when there is none. */
static bool take(struct gs_modfiles *c, struct gs_modfile **m)
{
	while (c->qhead < c->qend) {
		struct gs_modfile *next = c->queue[c->qhead++];

		if (next->pre.state == PREFETCH_QUEUED) { /* else taken by a reader */
			next->pre.state = PREFETCH_RUNNING;
			*m = next;
			return true;
		}
	}
	c->qhead = c->qend = 0;
	return false;
}

static void finish(struct gs_modfiles *c, struct gs_modfile *m, const struct prefetch *got)
{
	pthread_mutex_lock(&c->lock);
	m->pre.dwfl = got->dwfl;
	m->pre.mod = got->mod;
	m->pre.dw = got->dw;
	m->pre.bias = got->bias;
	m->pre.state = PREFETCH_DONE;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
}

static void *worker(void *arg)
{
	struct gs_modfiles *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct gs_modfile *m;
		struct prefetch got;

		while (!c->stop && !take(c, &m))
			pthread_cond_wait(&c->work, &c->lock);
		if (c->stop)
			break;
		pthread_mutex_unlock(&c->lock);
		read_ahead(m, &got);
		finish(c, m, &got);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

void gs_modfile_prefetch_debug(struct gs_modfile *m)
{
	struct gs_modfiles *c = m->owner;

	pthread_mutex_lock(&c->lock);
	/* Once per file, and not when its DWARF is read already. */
	if (m->pre.state == PREFETCH_NONE && !m->dwarf_done && !c->stop &&
	    base_grow((void **)&c->queue, &c->qcap, c->qend + 1, sizeof(*c->queue)) == 0) {
		if (!c->worker_started)
			c->worker_started = pthread_create(&c->worker, NULL, worker, c) == 0;
		if (c->worker_started) { /* else read on first use */
			c->queue[c->qend++] = m;
			m->pre.state = PREFETCH_QUEUED;
			pthread_cond_signal(&c->work);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

void mf_prefetch_finish(struct gs_modfile *m)
{
	struct gs_modfiles *c = m->owner;
	struct prefetch got;

	pthread_mutex_lock(&c->lock);
	if (m->pre.state == PREFETCH_QUEUED) {
		m->pre.state = PREFETCH_RUNNING; /* the worker skips it */
		pthread_mutex_unlock(&c->lock);
		read_ahead(m, &got);
		finish(c, m, &got);
		return;
	}
	while (m->pre.state == PREFETCH_RUNNING)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

void mf_prefetch_stop(struct gs_modfiles *c)
{
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	if (c->worker_started)
		pthread_join(c->worker, NULL);
	c->worker_started = false;
	/* Queued files nobody read: read on first use, were the cache used. */
	for (size_t i = c->qhead; i < c->qend; i++)
		if (c->queue[i]->pre.state == PREFETCH_QUEUED)
			c->queue[i]->pre.state = PREFETCH_NONE;
	free(c->queue);
	c->queue = NULL;
	c->qhead = c->qend = c->qcap = 0;
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->work);
}
