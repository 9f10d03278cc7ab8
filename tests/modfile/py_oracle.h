/* Running a CPython interpreter on one of the Python tests' scripts
 * (tests/modfile/py/) and reading what it prints line by line. */
#ifndef GS_TESTS_PY_ORACLE_H
#define GS_TESTS_PY_ORACLE_H

#include <stdio.h>

/* `python -I dir/script args` with its stdout to read, NULL on failure;
 * close with pclose. */
FILE *py_run(const char *python, const char *script, const char *args);
/* The interpreters to check: each pyenv 3.8-3.13 present, then the
 * system's python3.11; i from 0 until it returns NULL. *minor is set. */
const char *py_interpreter(unsigned i, unsigned *minor);

#endif
