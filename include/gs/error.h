/* The error every libgs call can fill: a negative errno for code, and a
 * sentence for the user saying what failed, on what input, and what to do.
 * Functions return 0 or -errno and take a `struct gs_error *` (may be NULL). */
#ifndef GS_ERROR_H
#define GS_ERROR_H

#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_ERROR_MSG_MAX 512

struct gs_error {
	int code;                    /* 0 or a negative errno */
	char msg[GS_ERROR_MSG_MAX];  /* empty when code == 0 */
};

/* Records `code` and the formatted message in err (when err is not NULL)
 * and returns code, so callers can write `return gs_errorf(err, -EINVAL, ...)`. */
__attribute__((format(printf, 3, 4)))
static inline int gs_errorf(struct gs_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

static inline void gs_error_clear(struct gs_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

#ifdef __cplusplus
}
#endif

#endif /* GS_ERROR_H */
