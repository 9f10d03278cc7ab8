/* The streaming decoder of trace events (docs/protocol.md): bytes
 * from the ring buffer or perf buffer in, validated events out, pointing into
 * the fed bytes so the hot path neither copies nor allocates per event. */
#ifndef GS_DECODE_H
#define GS_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>
#include <gs/context.h>
#include <gs/error.h>
#include <gs/protocol.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_decode_mode {
	/* One continuous byte stream (BPF ring buffer): chunks may split an
	 * event anywhere; bytes after an event start the next one. */
	GS_DECODE_RINGBUF = 0,
	/* One record per event (perf buffer sample): each pushed record holds
	 * a whole event; bytes after its EndInstruction are padding. */
	GS_DECODE_PERF = 1,
};

/* One captured value: a PrintComplexVariable (or legacy PrintVariableIndex)
 * payload, or one argument of a PrintComplexFormat. */
struct gs_value {
	const char *name;           /* NULL when var_name_index is not in the table
				     * (allowed for format arguments only) */
	const struct gs_type *type; /* NULL when type_index is not in the table */
	const char *access_path;    /* access_path_len bytes, not NUL-terminated */
	const uint8_t *data;        /* data_len bytes: the value, or a
				     * gs_read_error_payload on a read error */
	uint16_t var_name_index;
	uint16_t type_index;
	uint16_t data_len;
	uint8_t access_path_len;
	uint8_t status; /* enum gs_var_status */
	uint8_t kind;   /* enum gs_type_kind to render by: the type's kind, the
			 * legacy type_encoding, or GS_TYPE_UNKNOWN */
	const struct gs_view_caps *view_caps; /* the trace context's: how the
					       * views' extension is laid out */
};

/* One decoded instruction; `type` (enum gs_inst_type) selects the member. */
struct gs_inst {
	uint8_t type;
	uint32_t offset; /* of its header, from the start of the event */
	union {
		struct {
			uint16_t index;
			const char *text;
		} string; /* GS_INST_PRINT_STRING_INDEX */
		struct gs_value variable; /* PRINT_COMPLEX_VARIABLE, PRINT_VARIABLE_INDEX */
		struct {
			uint16_t format_index;
			uint8_t arg_count;
			const char *format;
			const struct gs_value *args; /* arg_count values */
		} format; /* GS_INST_PRINT_COMPLEX_FORMAT */
		struct {
			uint16_t requested_depth;
			uint16_t frame_count;
			uint8_t flags;  /* GS_BT_FLAG_* */
			uint8_t status; /* enum gs_bt_status, raw */
			uint16_t error_code;
			const struct gs_backtrace_frame *frames; /* frame_count, unaligned */
		} backtrace; /* GS_INST_BACKTRACE; GS_INST_BACKTRACE_COMPACT is
			      * decoded into this form and reported as
			      * GS_INST_BACKTRACE (its frames: module table
			      * entry's cookie, raw ip - bias, raw ip; cookie 0
			      * and pc = raw ip when the module is unknown) */
		struct {
			uint16_t requested_depth;
			uint16_t frame_count;
			/* frame_count little-endian u64 kernel addresses,
			 * innermost first (unaligned: read with memcpy) */
			const uint8_t *addrs;
		} kernel_stack; /* GS_INST_KERNEL_STACK */
		struct {
			uint16_t requested_depth;
			uint16_t frame_count;
			uint8_t status; /* enum gs_py_status, raw */
			uint8_t minor;  /* 3.minor, 0 when none */
			/* frame_count struct gs_python_frame records, innermost
			 * first (unaligned: read with gs_python_frame_at) */
			const uint8_t *frames;
		} python_stack; /* GS_INST_PYTHON_STACK */
		struct {
			uint16_t string_index;
			uint8_t error_code; /* enum gs_var_status numbering */
			uint8_t flags;      /* GS_EXPR_ERR_* */
			uint64_t failing_addr;
			const char *expr;   /* the expression, or "<INVALID_EXPR_INDEX_n>" */
		} expr_error; /* GS_INST_EXPR_ERROR */
		struct {
			uint16_t total_instructions;
			uint8_t execution_status; /* enum gs_exec_status, raw */
		} end; /* GS_INST_END */
	};
};

/* A decoded event. Everything it points to stays valid until the next call
 * on the decoder that produced it. */
struct gs_event {
	uint64_t trace_id;
	uint64_t timestamp; /* CLOCK_MONOTONIC ns */
	uint32_t pid;       /* host TGID */
	uint32_t tid;
	uint64_t stream_offset; /* of its magic, in bytes fed since new/reset */
	uint32_t size;          /* bytes from the magic through EndInstruction */
	const uint8_t *bytes;   /* those bytes */
	const struct gs_trace_context *ctx;
	const struct gs_inst *insts; /* the EndInstruction last */
	size_t ninsts;
};

/* The context of a trace id, or NULL when the session has none. */
typedef const struct gs_trace_context *(*gs_context_lookup_fn)(void *arg, uint64_t trace_id);

/* Options (GS_OPTS); zero is the default of every field. */
struct gs_decoder_opts {
	size_t sz;
	enum gs_decode_mode mode;
	/* Contexts indexed by trace id (ids are 0..N-1 per session) ... */
	const struct gs_trace_context *const *contexts;
	size_t ncontexts;
	/* ... or, when set, this lookup instead. */
	gs_context_lookup_fn lookup;
	void *lookup_arg;
	/* Longest event accepted; 0 means GS_DEFAULT_MAX_TRACE_EVENT_SIZE. A
	 * ring buffer stream without an EndInstruction within it is an error. */
	size_t max_event_size;
};

struct gs_decoder;

/* A new decoder in *out (opts may be NULL: ring buffer mode, no contexts),
 * freed with gs_decoder_free() (NULL is fine). The contexts array, the
 * contexts and lookup_arg are borrowed: they outlive the decoder. 0, or
 * -EINVAL (bad options: mode, max_event_size, ncontexts without contexts)
 * / -ENOMEM with err filled and *out NULL. */
GS_API int gs_decoder_new(const struct gs_decoder_opts *opts, struct gs_decoder **out,
			  struct gs_error *err);
GS_API void gs_decoder_free(struct gs_decoder *d);

/* Pull interface. push() hands over a chunk (ring buffer mode) or one record
 * (perf mode) without copying it: it must stay valid until next() returns 0
 * or an error. push() fails with -EBUSY while the previous chunk still has
 * bytes next() has not consumed. next() returns 1 with *ev set, 0 when the
 * chunk is used up (an incomplete ring buffer event is kept for the next
 * chunk), or -EBADMSG for a malformed stream (-ENOMEM when out of memory).
 * The error message names the stream offset and the reason; the event being
 * decoded and the rest of the chunk are dropped, and decoding resumes at the
 * next chunk, which must start a new event. */
GS_API int gs_decoder_push(struct gs_decoder *d, const void *data, size_t len,
			   struct gs_error *err);
GS_API int gs_decoder_next(struct gs_decoder *d, const struct gs_event **ev, struct gs_error *err);

/* What receives decoded events (here, and from a session or a live
 * session): ev is valid during the call only; a non-zero return stops. */
typedef int (*gs_event_fn)(void *arg, const struct gs_event *ev);
/* Push interface: push() then on_event for each event. Returns the number
 * of events delivered, a decode error as next() does, or the first non-zero
 * value on_event returns (the rest of the chunk is then dropped). data is
 * not kept past the call, but for an incomplete ring buffer event's bytes,
 * which the decoder copies. */
GS_API int gs_decoder_feed(struct gs_decoder *d, const void *data, size_t len, gs_event_fn on_event,
			   void *arg, struct gs_error *err);

/* End of stream: 0, or -EBADMSG when an incomplete event is pending (a
 * truncated stream). The pending bytes are dropped either way. */
GS_API int gs_decoder_finish(struct gs_decoder *d, struct gs_error *err);

/* Drops any pending bytes and restarts stream offsets at 0. */
GS_API void gs_decoder_reset(struct gs_decoder *d);

/* Stream offset of the byte the last error is about (0 before any). */
GS_API uint64_t gs_decoder_error_offset(const struct gs_decoder *d);

#ifdef __cplusplus
}
#endif

#endif /* GS_DECODE_H */
