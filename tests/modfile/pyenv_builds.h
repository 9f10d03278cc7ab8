/* Where the CPython builds the Python tests check against live: pyenv's
 * (full DWARF, a shared libpython) under $PYENV_ROOT or /root/.pyenv, and
 * the distribution's stripped /usr/bin/python3.11. A version that is not
 * installed is NULL: its test says so and skips. */
#ifndef GS_TESTS_PYENV_BUILDS_H
#define GS_TESTS_PYENV_BUILDS_H

#include <stdbool.h>

/* versions/3.M.x/lib/libpython3.M.so.1.0 (or libpython3.Mm for 3.6
 * and 3.7), NULL when absent. The string is static: copy it. */
const char *pyenv_lib(unsigned minor);
/* versions/3.M.x/bin/python3.M, NULL when absent. */
const char *pyenv_bin(unsigned minor);
/* The distribution's interpreter without DWARF, NULL when absent. */
const char *system_python311(void);

#endif
