/* The contract between generated BPF programs and userspace: the wire
 * format (gs/wire.h) and the layouts of the maps both sides share
 * (gs/map_abi.h), as docs/protocol.md describes them. One include for the
 * layers that use both. */
#ifndef GS_PROTOCOL_H
#define GS_PROTOCOL_H

#include <gs/map_abi.h>
#include <gs/wire.h>

#endif /* GS_PROTOCOL_H */
