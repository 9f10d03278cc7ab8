/* Running a CPython interpreter on one of the Python tests' scripts
 * (tests/modfile/py/) and reading what it prints line by line. */
#ifndef GS_TESTS_PY_ORACLE_H
#define GS_TESTS_PY_ORACLE_H

#include <stdio.h>
#include <sys/types.h>

/* `python -I dir/script args` with its stdout to read, NULL on failure;
 * close with pclose. */
FILE *py_run(const char *python, const char *script, const char *args);
/* The interpreters to check: each pyenv 3.8-3.13 present, then the
 * system's python3.11; i from 0 until it returns NULL. *minor is set. */
const char *py_interpreter(unsigned i, unsigned *minor);

/* An interpreter running a script, its stdin and stdout ours. */
struct py_child {
	pid_t pid;
	FILE *out; /* its stdout */
	int in;    /* its stdin */
};

/* Starts `python -I dir/script`; 0 or -1. */
int py_spawn(const char *python, const char *script, struct py_child *c);
/* Closes its stdin (the scripts end then) and waits for it; its exit status. */
int py_child_end(struct py_child *c);

#endif
