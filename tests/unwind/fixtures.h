/* Test helpers: where the fixture binaries are, running a command and
 * reading its output, and ELF symbol values of a fixture. */
#ifndef GS_TEST_UNWIND_FIXTURES_H
#define GS_TEST_UNWIND_FIXTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* $GS_UNWIND_FIXTURES/<name> into buf (size bytes); returns buf. */
char *fx_path(const char *name, char *buf, size_t size);
/* Output of a shell command (malloc'd, NUL-terminated), or NULL. */
char *fx_run(const char *cmd);
/* st_value and st_size of a symbol in the ELF's .symtab; false if absent. */
bool fx_symbol(const char *file, const char *name, uint64_t *value, uint64_t *size);
/* The system C library, or NULL when it is not found. */
const char *fx_libc(void);

#endif /* GS_TEST_UNWIND_FIXTURES_H */
