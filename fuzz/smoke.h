/* The libFuzzer entry point every target defines; smoke_main.c calls it
 * outside libFuzzer. */
#ifndef GS_FUZZ_SMOKE_H
#define GS_FUZZ_SMOKE_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* GS_FUZZ_SMOKE_H */
