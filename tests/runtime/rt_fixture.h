/* Helpers of the runtime tests: fixture paths, the fixture process driven
 * over its stdin, and independent references from binutils (nm, objdump,
 * addr2line) to check resolution against. */
#ifndef GS_TEST_RT_FIXTURE_H
#define GS_TEST_RT_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <gs/runtime.h>

/* $GS_RT_FIXTURES/<name> into buf; returns buf. */
char *rt_path(const char *name, char *buf, size_t size);
/* gs_target_resolve() of a target written as text (parsed as scripts do). */
int rt_resolve(const char *input, const struct gs_resolve_opts *o, struct gs_target *t,
	       struct gs_error *err);
/* Output of a shell command (malloc'd), or NULL. */
char *rt_run(const char *cmd);
/* Value of a function symbol as `nm` (dynamic: `nm -D`) prints it. */
bool rt_nm(const char *file, const char *sym, bool dynamic, uint64_t *value);
/* `file:line` of addr as addr2line prints it (basename of the file). */
bool rt_addr2line(const char *file, uint64_t addr, char *buf, size_t size);
/* First `n` code bytes at addr as `objdump -d` shows them. */
bool rt_objdump_bytes(const char *file, uint64_t addr, uint8_t *out, size_t n);
/* Line of the fixture source rt_loop.c that contains marker, or 0. */
int rt_source_line(const char *marker);

/* A running fixture, between "ready" and its end. */
struct rt_child {
	pid_t pid;
	FILE *in, *out;
};

/* Starts prog and waits for its "ready"; false when it did not come. */
bool rt_spawn(const char *prog, struct rt_child *c);
/* Sends one command line and waits for "done"; false on anything else. */
bool rt_command(struct rt_child *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes its stdin and reaps it. */
void rt_stop(struct rt_child *c);

#endif /* GS_TEST_RT_FIXTURE_H */
