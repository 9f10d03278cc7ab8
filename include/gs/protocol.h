/* The contract between generated BPF programs and userspace: the wire
 * format (gs/wire.h) and the layouts of the maps both sides share
 * (gs/map_abi.h), reference spec sections 1 and 2. One include for the
 * layers that use both. */
#ifndef GS_PROTOCOL_H
#define GS_PROTOCOL_H

#include <gs/map_abi.h>
#include <gs/wire.h>

#endif /* GS_PROTOCOL_H */
