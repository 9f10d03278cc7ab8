/* The words for the wire's status and error codes (gs/render.h): a
 * value's status, a backtrace's status and error code, an event's
 * execution status. The instruction renderer (render.c), the backtrace
 * renderer it calls (backtrace.c) and the JSON printer all name codes so;
 * the words sit below all three, so the backtrace renderer needs nothing
 * of its caller. */
#include <gs/render.h>

#include "base.h"

static const char *const var_status_labels[] = {
	"ok", "null deref", "read error", "access error", "truncated", "offsets unavailable",
	"zero length", "division by zero", "TLS not allocated", "optimized out",
};

static const char *const bt_status_labels[] = {
	"complete", "truncated", "dwarf unavailable", "unsupported CFI", "offsets unavailable",
	"read error", "internal error", "invalid frame", "no unwind rows for PC",
};

static const char *const bt_error_labels[] = {
	NULL, "return-address-read-failed", "frame-pointer-read-failed",
	"next-ip-below-user-range", "next-ip-kernel-like", "next-cfa-zero",
	"next-cfa-not-advancing", "cfa-read-failed", "frame-pointer-chain-invalid",
};

static const char *const exec_status_labels[] = {
	"success", "partial_failure", "complete_failure",
};

const char *gs_var_status_label(uint8_t status)
{
	return status < BASE_ARRAY_SIZE(var_status_labels) ? var_status_labels[status] : "error";
}

const char *gs_bt_status_label(uint8_t status)
{
	if (status >= BASE_ARRAY_SIZE(bt_status_labels))
		status = GS_BT_INTERNAL_ERROR;
	return bt_status_labels[status];
}

static const char *const py_status_labels[] = {
	"complete", "truncated", "not python", "no thread state", "read error",
};

const char *gs_py_status_label(uint8_t status)
{
	return status < BASE_ARRAY_SIZE(py_status_labels) ? py_status_labels[status] : "unknown";
}

const char *gs_bt_error_label(uint16_t code)
{
	return code < BASE_ARRAY_SIZE(bt_error_labels) ? bt_error_labels[code] : "unknown";
}

const char *gs_exec_status_label(uint8_t status)
{
	return status < BASE_ARRAY_SIZE(exec_status_labels) ? exec_status_labels[status]
							     : "unknown";
}
