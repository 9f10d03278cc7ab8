/* The wire format between generated BPF programs and the decoder
 * (docs/protocol.md, "One event"): event framing, instruction types, payloads,
 * variable statuses, backtraces. Little-endian, packed and unaligned;
 * every size and offset is pinned by a _Static_assert, so a layout change
 * cannot slip in unnoticed. The maps both sides share are gs/map_abi.h;
 * gs/protocol.h includes both. */
#ifndef GS_WIRE_H
#define GS_WIRE_H

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

#include <gs/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_PACKED __attribute__((packed))
/* C11's _Static_assert is C++11's static_assert: the header serves both. */
#ifdef __cplusplus
#define GS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define GS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define GS_ASSERT_LAYOUT(type, field, off) \
	GS_STATIC_ASSERT(offsetof(type, field) == (off), #type "." #field " must be at " #off)
#define GS_ASSERT_SIZE(type, size) \
	GS_STATIC_ASSERT(sizeof(type) == (size), #type " must be " #size " bytes")

/* ---- 1.1-1.4: event framing ------------------------------------------ */

#define GS_MAGIC 0x43484C53u /* "CHLS"; LE bytes 53 4c 48 43 */

/* Event = header, message, instructions, EndInstruction (36 bytes at least). */
struct gs_event_header {
	uint32_t magic;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_event_header, 4);

struct gs_event_message {
	uint64_t trace_id;  /* compile-time id of the trace */
	uint64_t timestamp; /* bpf_ktime_get_ns() */
	uint32_t pid;       /* host TGID */
	uint32_t tid;       /* host thread id */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_event_message, 24);
GS_ASSERT_LAYOUT(struct gs_event_message, trace_id, 0);
GS_ASSERT_LAYOUT(struct gs_event_message, timestamp, 8);
GS_ASSERT_LAYOUT(struct gs_event_message, pid, 16);
GS_ASSERT_LAYOUT(struct gs_event_message, tid, 20);

struct gs_inst_header {
	uint8_t inst_type;    /* enum gs_inst_type */
	uint16_t data_length; /* payload bytes after this header */
	uint8_t reserved;     /* never written by BPF */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_inst_header, 4);
GS_ASSERT_LAYOUT(struct gs_inst_header, inst_type, 0);
GS_ASSERT_LAYOUT(struct gs_inst_header, data_length, 1);
GS_ASSERT_LAYOUT(struct gs_inst_header, reserved, 3);

#define GS_EVENT_PREFIX_SIZE (sizeof(struct gs_event_header) + sizeof(struct gs_event_message))
#define GS_INST_HEADER_SIZE 4
#define GS_MIN_EVENT_SIZE 36

/* ---- instruction types ----------------------------------------------- */

enum gs_inst_type {
	GS_INST_PRINT_STRING_INDEX = 0x01,
	GS_INST_PRINT_VARIABLE_INDEX = 0x02, /* legacy: decoded, never emitted */
	GS_INST_PRINT_COMPLEX_VARIABLE = 0x03,
	GS_INST_PRINT_COMPLEX_FORMAT = 0x05,
	GS_INST_BACKTRACE = 0x10,
	GS_INST_BACKTRACE_COMPACT = 0x11, /* the bpf_loop walker's frames (below) */
	GS_INST_KERNEL_STACK = 0x12,      /* a sample's kernel frames (below) */
	GS_INST_PYTHON_STACK = 0x13,      /* the hit thread's Python frames (below) */
	GS_INST_EXPR_ERROR = 0x20,
	GS_INST_END = 0xFF,
};

/* ---- payloads --------------------------------------------------------- */

struct gs_print_string_index {
	uint16_t string_index;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_print_string_index, 2);

struct gs_print_variable_index { /* legacy */
	uint16_t var_name_index;
	uint8_t type_encoding; /* enum gs_type_kind */
	uint16_t data_len;
	uint16_t type_index;
	uint8_t status;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_print_variable_index, 8);
GS_ASSERT_LAYOUT(struct gs_print_variable_index, type_encoding, 2);
GS_ASSERT_LAYOUT(struct gs_print_variable_index, data_len, 3);
GS_ASSERT_LAYOUT(struct gs_print_variable_index, type_index, 5);
GS_ASSERT_LAYOUT(struct gs_print_variable_index, status, 7);

/* Followed by access_path_len path bytes, then the value (data_len bytes,
 * or a gs_read_error_payload when status is GS_VAR_READ_ERROR). */
struct gs_print_complex_variable {
	uint16_t var_name_index;
	uint16_t type_index;
	uint8_t access_path_len;
	uint8_t status; /* enum gs_var_status */
	uint16_t data_len;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_print_complex_variable, 8);
GS_ASSERT_LAYOUT(struct gs_print_complex_variable, type_index, 2);
GS_ASSERT_LAYOUT(struct gs_print_complex_variable, access_path_len, 4);
GS_ASSERT_LAYOUT(struct gs_print_complex_variable, status, 5);
GS_ASSERT_LAYOUT(struct gs_print_complex_variable, data_len, 6);

/* Followed by arg_count arguments, each a gs_format_arg, its access path
 * bytes, a u16 data_len, then data_len bytes (the reserved slot). */
struct gs_print_complex_format {
	uint16_t format_string_index;
	uint8_t arg_count;
	uint8_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_print_complex_format, 4);
GS_ASSERT_LAYOUT(struct gs_print_complex_format, arg_count, 2);

struct gs_format_arg {
	uint16_t var_name_index;
	uint16_t type_index;
	uint8_t access_path_len;
	uint8_t status; /* enum gs_var_status */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_format_arg, 6);
GS_ASSERT_LAYOUT(struct gs_format_arg, type_index, 2);
GS_ASSERT_LAYOUT(struct gs_format_arg, access_path_len, 4);
GS_ASSERT_LAYOUT(struct gs_format_arg, status, 5);
#define GS_FORMAT_ARG_DATA_LEN_SIZE 2
#define GS_FORMAT_ARG_FIXED_HEADER_LEN 8 /* fixed fields + data_len */

/* An argument as generated programs write it: access_path_len 0, so the
 * u16 data_len follows the fixed fields at once. */
struct gs_format_arg_fixed {
	struct gs_format_arg arg;
	uint16_t data_len;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_format_arg_fixed, GS_FORMAT_ARG_FIXED_HEADER_LEN);
GS_ASSERT_LAYOUT(struct gs_format_arg_fixed, data_len, 6);

struct gs_expr_error {
	uint16_t string_index; /* the expression's text */
	uint8_t error_code;    /* enum gs_var_status numbering */
	uint8_t flags;         /* GS_EXPR_ERR_* */
	uint64_t failing_addr; /* 0: unknown ("at NULL") */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_expr_error, 12);
GS_ASSERT_LAYOUT(struct gs_expr_error, error_code, 2);
GS_ASSERT_LAYOUT(struct gs_expr_error, flags, 3);
GS_ASSERT_LAYOUT(struct gs_expr_error, failing_addr, 4);

#define GS_EXPR_ERR_FIRST_ARG_READ 0x01  /* memcmp; strncmp/starts_with read fail */
#define GS_EXPR_ERR_SECOND_ARG_READ 0x02
#define GS_EXPR_ERR_LEN_CLAMPED 0x04
#define GS_EXPR_ERR_LEN_ZERO 0x08

struct gs_end_instruction {
	uint16_t total_instructions; /* compile-time upper bound */
	uint8_t execution_status;    /* enum gs_exec_status */
	uint8_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_end_instruction, 4);
GS_ASSERT_LAYOUT(struct gs_end_instruction, execution_status, 2);
#define GS_END_INSTRUCTION_SIZE 8 /* header + payload */

enum gs_exec_status {
	GS_EXEC_SUCCESS = 0,
	GS_EXEC_PARTIAL_FAILURE = 1,
	GS_EXEC_COMPLETE_FAILURE = 2,
};

/* ---- variable status -------------------------------------------------- */

enum gs_var_status {
	GS_VAR_OK = 0,
	GS_VAR_NULL_DEREF = 1,
	GS_VAR_READ_ERROR = 2,
	GS_VAR_ACCESS_ERROR = 3,
	GS_VAR_TRUNCATED = 4,
	GS_VAR_OFFSETS_UNAVAILABLE = 5,
	GS_VAR_ZERO_LENGTH = 6,
	/* gstrace's own (docs/protocol.md): a division or modulo by zero in a
	 * script expression; ExprError code and value status alike. */
	GS_VAR_DIV_BY_ZERO = 7,
	/* gstrace's own: a thread-local of a dlopen'ed module that the hit
	 * thread has not touched yet (its DTV slot is unallocated or older
	 * than the module), where gdb says the inferior "has not yet
	 * allocated storage for thread-local variables" (docs/tls.md). */
	GS_VAR_TLS_UNALLOCATED = 8,
	/* gstrace's own: the value has no location at this hit although the
	 * probe has one for it (a DW_OP_entry_value whose caller's call site
	 * did not match): gdb's <optimized out>. */
	GS_VAR_OPTIMIZED_OUT = 9,
};

struct gs_read_error_payload {
	int32_t errno_value; /* the helper's negative return */
	uint64_t addr;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_read_error_payload, 12);
GS_ASSERT_LAYOUT(struct gs_read_error_payload, addr, 4);

/* ---- backtrace ---------------------------------------------------------- */

/* Followed by requested_depth frame slots (all reserved; only frame_count
 * are meaningful). data_length = 8 + 32 * requested_depth. */
struct gs_backtrace_data {
	uint8_t requested_depth; /* 1..128 */
	uint8_t frame_count;
	uint8_t flags;  /* GS_BT_FLAG_* */
	uint8_t status; /* enum gs_bt_status */
	uint16_t error_code; /* enum gs_bt_error */
	uint16_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_backtrace_data, 8);
GS_ASSERT_LAYOUT(struct gs_backtrace_data, frame_count, 1);
GS_ASSERT_LAYOUT(struct gs_backtrace_data, flags, 2);
GS_ASSERT_LAYOUT(struct gs_backtrace_data, status, 3);
GS_ASSERT_LAYOUT(struct gs_backtrace_data, error_code, 4);

struct gs_backtrace_frame {
	uint64_t module_cookie;
	uint64_t pc;     /* raw_ip - load bias when the module was found, else raw_ip */
	uint64_t raw_ip;
	uint16_t flags;  /* written as 0 */
	uint16_t reserved;
	uint32_t reserved2;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_backtrace_frame, 32);
GS_ASSERT_LAYOUT(struct gs_backtrace_frame, pc, 8);
GS_ASSERT_LAYOUT(struct gs_backtrace_frame, raw_ip, 16);
GS_ASSERT_LAYOUT(struct gs_backtrace_frame, flags, 24);

#define GS_BT_FLAG_RAW 0x01
#define GS_BT_FLAG_FULL 0x02
#define GS_BT_FLAG_INLINE 0x04
/* A CPU sample's `bt` (gs_trace_spec.sample): the interrupted task's kernel
 * stack follows the backtrace as a KernelStack instruction. */
#define GS_BT_FLAG_KERNEL 0x08
/* The hit thread's CPython frames follow the backtrace (after its
 * KernelStack instruction when there is one) as a PythonStack
 * instruction, walked in BPF from the process's py_procs entry (docs/
 * protocol.md "Python stack"). The bpf_loop walker's only. */
#define GS_BT_FLAG_PYTHON 0x10
#define GS_BT_MAX_DEPTH 128       /* the tail-call walker (GS_INST_BACKTRACE) */
#define GS_BT_DEFAULT_DEPTH 128
#define GS_BT_LOOP_MAX_DEPTH 512  /* the bpf_loop walker (GS_INST_BACKTRACE_COMPACT) */

enum gs_bt_status {
	GS_BT_COMPLETE = 0,
	GS_BT_TRUNCATED = 1,
	GS_BT_DWARF_UNAVAILABLE = 2,
	GS_BT_UNSUPPORTED_CFI = 3,
	GS_BT_OFFSETS_UNAVAILABLE = 4,
	GS_BT_READ_ERROR = 5,
	GS_BT_INTERNAL_ERROR = 6,
	GS_BT_INVALID_FRAME = 7,
	GS_BT_NO_UNWIND_ROWS_FOR_PC = 8,
};

enum gs_bt_error {
	GS_BT_ERROR_NONE = 0,
	GS_BT_ERROR_RETURN_ADDRESS_READ = 1,
	GS_BT_ERROR_FRAME_POINTER_READ = 2,
	GS_BT_ERROR_NEXT_IP_BELOW_USER = 3,
	GS_BT_ERROR_NEXT_IP_KERNEL_LIKE = 4,
	GS_BT_ERROR_NEXT_CFA_ZERO = 5,
	GS_BT_ERROR_NEXT_CFA_NOT_ADVANCING = 6,
	GS_BT_ERROR_CFA_READ = 7, /* the loop walker: a CFA that is read (REG_DEREF) was not readable */
	/* the loop walker: a pc without unwind rows, and its frame pointer
	 * failed the checks of a frame-pointer step (docs/unwind.md) */
	GS_BT_ERROR_FRAME_POINTER_CHAIN = 8,
};
/* The frame-pointer step's bound: a frame record above frame 0's sp by
 * more than this is not on the stack the walk started on. */
#define GS_BT_FP_STACK_SPAN (64u << 20)

/* ---- compact backtrace (the bpf_loop walker, docs/protocol.md) ---------

 * Followed by module_slots gs_bt_wire_module entries, then requested_depth
 * u64 frame words (all reserved; only frame_count are meaningful):
 * data_length = 12 + 16 * module_slots + 8 * requested_depth. A frame word
 * is the raw ip in bits 0-55 (a user address: the walk rejects any ip with
 * a bit set above 55) and, in bits 56-63, the index of its module in the
 * table, or GS_BT_WIRE_NO_MODULE when the module is not known (then the
 * decoder reports cookie 0 and pc = raw ip). */
struct gs_backtrace_compact {
	uint16_t requested_depth; /* 1..512 */
	uint16_t frame_count;
	uint8_t flags;            /* GS_BT_FLAG_* */
	uint8_t status;           /* enum gs_bt_status */
	uint16_t error_code;      /* enum gs_bt_error */
	uint8_t module_count;     /* table entries in use */
	uint8_t module_slots;     /* table entries reserved: min(depth, 32) */
	uint16_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_backtrace_compact, 12);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, frame_count, 2);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, flags, 4);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, status, 5);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, error_code, 6);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, module_count, 8);
GS_ASSERT_LAYOUT(struct gs_backtrace_compact, module_slots, 9);

struct gs_bt_wire_module {
	uint64_t cookie;
	uint64_t bias; /* pc = raw ip - bias */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_bt_wire_module, 16);
GS_ASSERT_LAYOUT(struct gs_bt_wire_module, bias, 8);

#define GS_BT_WIRE_MODULES 32          /* module table entries at most */
#define GS_BT_WIRE_NO_MODULE 0xFFu     /* frame word: module unknown */
#define GS_BT_WIRE_IP_BITS 56
#define GS_BT_COMPACT_SIZE(depth, slots) \
	(sizeof(struct gs_backtrace_compact) + 16u * (slots) + 8u * (depth))

/* ---- kernel stack (docs/protocol.md "kernel stack") ---------------------

 * What bpf_get_stack() gives for the sampled task's kernel side, innermost
 * first: followed by requested_depth u64 kernel addresses (all reserved;
 * only frame_count are meaningful, the rest zero). data_length = 8 + 8 *
 * requested_depth. A sample taken in user mode has none (frame_count 0). */
struct gs_kernel_stack {
	uint16_t requested_depth; /* GS_KSTACK_DEPTH */
	uint16_t frame_count;
	uint32_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_kernel_stack, 8);
GS_ASSERT_LAYOUT(struct gs_kernel_stack, frame_count, 2);

#define GS_KSTACK_DEPTH 64 /* kernel frames kept per sample */
#define GS_KSTACK_SIZE (sizeof(struct gs_kernel_stack) + 8u * GS_KSTACK_DEPTH)

/* ---- Python stack (docs/protocol.md "Python stack") ----------------------

 * The hit thread's CPython frames, innermost first, as the BPF walk found
 * them from its PyThreadState (map py_procs, struct gs_py_proc): followed
 * by requested_depth frame records (all reserved; only frame_count are
 * meaningful, the rest zero). data_length = 8 + 16 * requested_depth. It
 * follows the backtrace it belongs to (after the KernelStack instruction
 * when there is one); user space names each code object and shows each
 * native _PyEval_EvalFrameDefault frame as the Python frames it ran. */
struct gs_python_stack {
	uint16_t requested_depth; /* 1..GS_PY_MAX_DEPTH */
	uint16_t frame_count;
	uint8_t status;           /* enum gs_py_status */
	uint8_t minor;            /* 3.minor of the interpreter, 0 when none */
	uint16_t reserved;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_python_stack, 8);
GS_ASSERT_LAYOUT(struct gs_python_stack, frame_count, 2);
GS_ASSERT_LAYOUT(struct gs_python_stack, status, 4);
GS_ASSERT_LAYOUT(struct gs_python_stack, minor, 5);

/* One frame: its code object's address and where it was: f_lasti (3.8 to
 * 3.10, an int) or the instruction pointer (prev_instr 3.11/3.12,
 * instr_ptr 3.13), as read; user space turns it into an offset. Bit 63 of
 * instr (GS_PY_FRAME_CALL_END): the outermost frame of one C call of
 * _PyEval_EvalFrameDefault (every frame before 3.11; the is_entry frame in
 * 3.11; the frame under a C-stack-owned one from 3.12). */
struct gs_python_frame {
	uint64_t code;
	uint64_t instr;
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_python_frame, 16);
GS_ASSERT_LAYOUT(struct gs_python_frame, instr, 8);

#define GS_PY_FRAME_CALL_END (1ull << 63)
#define GS_PY_MAX_DEPTH 128
#define GS_PYTHON_STACK_SIZE(depth) (sizeof(struct gs_python_stack) + 16u * (depth))

enum gs_py_status {
	GS_PY_COMPLETE = 0,        /* to the thread's first frame */
	GS_PY_TRUNCATED = 1,       /* requested_depth frames, more left */
	GS_PY_NOT_PYTHON = 2,      /* the process has no interpreter gstrace knows */
	GS_PY_NO_THREAD_STATE = 3, /* no PyThreadState for this thread (not a Python thread) */
	GS_PY_READ_ERROR = 4,      /* a read of the interpreter's memory failed */
};

/* Counting in BPF (gs_program_opts.count_stacks, map stack_counts): a
 * trace whose body is one `bt` counts each distinct stack in a HASH map
 * instead of emitting the event. The key is the event's bytes from the
 * message's tgid on: this head, then the 0x11 payload (gs_backtrace_compact,
 * module table, frame words) with every module entry past module_count and
 * every frame word past frame_count zero, so one stack of one process is
 * one key. The value is a u64 count. */
struct gs_stack_count_key {
	uint32_t tgid;
	uint32_t tid;  /* 0: threads of a process count together (unless
			* gs_program_opts.count_per_thread keeps it) */
	uint32_t inst; /* GS_INST_BACKTRACE_COMPACT | data_length << 8 */
} GS_PACKED;
GS_ASSERT_SIZE(struct gs_stack_count_key, 12);
#define GS_STACK_COUNT_KEY_SIZE(depth, slots) \
	(sizeof(struct gs_stack_count_key) + GS_BT_COMPACT_SIZE(depth, slots))
/* With GS_BT_FLAG_KERNEL the key goes on with the KernelStack instruction
 * (its 4-byte header, then GS_KSTACK_SIZE bytes). */
#define GS_STACK_COUNT_KSTACK_SIZE (4u + GS_KSTACK_SIZE)
/* With GS_BT_FLAG_PYTHON it goes on with the PythonStack instruction (its
 * 4-byte header, then its payload, every record past frame_count zero). */
#define GS_STACK_COUNT_PYSTACK_SIZE(depth) (4u + GS_PYTHON_STACK_SIZE(depth))

/* ---- type kinds (legacy PrintVariableIndex) ----------------------------- */

enum gs_type_kind {
	GS_TYPE_U8 = 0x01, GS_TYPE_U16 = 0x02, GS_TYPE_U32 = 0x03, GS_TYPE_U64 = 0x04,
	GS_TYPE_I8 = 0x05, GS_TYPE_I16 = 0x06, GS_TYPE_I32 = 0x07, GS_TYPE_I64 = 0x08,
	GS_TYPE_F32 = 0x09, GS_TYPE_F64 = 0x0A, GS_TYPE_BOOL = 0x0B, GS_TYPE_CHAR = 0x0C,
	GS_TYPE_POINTER = 0x20, GS_TYPE_NULL_POINTER = 0x21,
	GS_TYPE_STRUCT = 0x40, GS_TYPE_ARRAY = 0x41, GS_TYPE_UNION = 0x42, GS_TYPE_ENUM = 0x43,
	GS_TYPE_CSTRING = 0x50, GS_TYPE_STRING = 0x51,
	GS_TYPE_UNKNOWN = 0x80, GS_TYPE_OPTIMIZED_OUT = 0x81,
};

#ifdef __cplusplus
}
#endif

#endif /* GS_WIRE_H */
