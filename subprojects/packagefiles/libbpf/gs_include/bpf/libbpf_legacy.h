/* Forwarding header: <bpf/libbpf_legacy.h> for the meson fallback build. */
#include "../../src/libbpf_legacy.h"
