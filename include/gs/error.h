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

/* Room for a sentence naming a file by a path of up to PATH_MAX (4096)
 * bytes and saying what to do, with 4 KiB to spare for a second name or
 * an excerpt: a message is never cut by the path it names (at 512 bytes,
 * a 200-byte build directory cut the CFI refusals before their fix).
 * Objects kept by the thousand (a plan's programs, a
 * cache's modules) hold their messages out of line, never one of these
 * each. */
#define GS_ERROR_MSG_MAX 8192

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
		int n;

		va_start(ap, fmt);
		n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		/* past the room (several names of PATH_MAX): say so at its end
		 * rather than stop mid-word */
		if (n >= (int)sizeof(err->msg))
			snprintf(err->msg + sizeof(err->msg) - 32, 32, " [%d more bytes]",
				 n - (int)sizeof(err->msg) + 32);
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
