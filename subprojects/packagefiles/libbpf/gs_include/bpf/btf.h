/* Forwarding header: <bpf/btf.h> for the meson fallback build. */
#include "../../src/btf.h"
