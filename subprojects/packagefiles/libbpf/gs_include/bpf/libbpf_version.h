/* Forwarding header: <bpf/libbpf_version.h> for the meson fallback build. */
#include "../../src/libbpf_version.h"
