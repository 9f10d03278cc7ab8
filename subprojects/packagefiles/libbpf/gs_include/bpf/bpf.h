/* Forwarding header: <bpf/bpf.h> for the meson fallback build. */
#include "../../src/bpf.h"
