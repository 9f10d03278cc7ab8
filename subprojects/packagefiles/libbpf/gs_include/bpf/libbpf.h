/* Forwarding header: <bpf/libbpf.h> for the meson fallback build. */
#include "../../src/libbpf.h"
