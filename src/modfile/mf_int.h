/* The module-file cache's own structures, shared by modfile.c (opening,
 * layout, CFI, symbols) and modfile_prefetch.c (reading a file's debug
 * information ahead of time on a worker thread). Not part of the API. */
#ifndef GS_UNWIND_MODFILE_INT_H
#define GS_UNWIND_MODFILE_INT_H

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdbool.h>

#include <gs/modfile.h>

#include "unwind_int.h"

/* One CFI table, shared by every file with its cookie. */
struct cfi_entry {
	uint64_t cookie;
	int rc;
	char msg[GS_ERROR_MSG_MAX];
	struct gs_cfi_table table;
};

enum prefetch_state { PREFETCH_NONE, PREFETCH_QUEUED, PREFETCH_RUNNING, PREFETCH_DONE };

/* A file's debug information read ahead through a Dwfl of its own (the
 * file opened again), so the worker shares no libelf or libdw handle with
 * the thread using the cache; once done, the cache answers DWARF and
 * symbol questions from it. */
struct prefetch {
	enum prefetch_state state; /* under gs_modfiles.lock */
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: it could not be read; the file's own Dwfl serves */
	Dwarf *dw;
	Dwarf_Addr bias;
};

struct gs_modfile {
	char *path;
	char *open_path; /* what was opened: the prefetch opens it again */
	uint64_t dev, ino, size;
	int64_t mtime_ns;
	struct gs_module_id id;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	bool layout_done;
	int layout_rc;
	struct uw_elf_layout layout;
	struct cfi_entry *cfi;
	bool dwarf_done;
	Dwarf *dw;
	Dwarf_Addr dwbias;
	bool funcs_done, funcs_from_disk;
	int funcs_rc;
	struct uw_funcindex *funcs;
	struct prefetch pre;
	struct gs_modfiles *owner;
};

struct gs_modfiles {
	Dwfl_Callbacks cb;
	char *debug_dirs;
	char *cfi_cache_dir; /* NULL: CFI tables and function indexes not on disk */
	struct gs_modfile **v; /* never move: handed out */
	size_t n, cap;
	struct cfi_entry **cfi;
	size_t ncfi, cfi_cap;
	size_t opened;
	/* The prefetch worker: started on the first request, joined at free. */
	pthread_mutex_t lock;
	pthread_cond_t done; /* a prefetch finished */
	pthread_cond_t work; /* a request came, or stop */
	pthread_t worker;
	bool worker_started, stop;
	struct gs_modfile **queue; /* [qhead, qend): not taken yet */
	size_t qhead, qend, qcap;
};

/* A Dwfl of its own with fd (which it owns from then on, or closes on
 * failure) reported as m's main file at bias 0, its debug-file search
 * pointed at m. 0, -ENOMEM or -EINVAL (not an ELF file libdwfl reads). */
int uw_modfile_dwfl_open(struct gs_modfile *m, int fd, Dwfl **dwfl, Dwfl_Module **mod);

/* modfile_prefetch.c */
void uw_prefetch_init(struct gs_modfiles *c);
/* Joins the worker after the file it reads now; the queue is dropped. */
void uw_prefetch_stop(struct gs_modfiles *c);
/* Makes m.pre final: reads it here when it is queued but not started,
 * waits when the worker reads it, returns at once otherwise. */
void uw_prefetch_finish(struct gs_modfile *m);

#endif /* GS_UNWIND_MODFILE_INT_H */
