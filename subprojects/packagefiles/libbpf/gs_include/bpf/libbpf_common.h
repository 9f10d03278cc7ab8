/* Forwarding header: <bpf/libbpf_common.h> for the meson fallback build. */
#include "../../src/libbpf_common.h"
