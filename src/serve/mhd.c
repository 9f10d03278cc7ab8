/* libmicrohttpd loaded when an agent starts (mhd.h says why), or, in the
 * static gstrace (SRV_MHD_LINKED), the archive's own functions. */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "mhd.h"

const struct mhd_api *mhd;

#ifdef SRV_MHD_LINKED

static const struct mhd_api linked = {
	MHD_start_daemon, MHD_stop_daemon, MHD_run, MHD_get_timeout, MHD_get_daemon_info,
	MHD_is_feature_supported, MHD_get_connection_info, MHD_lookup_connection_value,
	MHD_suspend_connection, MHD_resume_connection, MHD_create_response_from_buffer,
	MHD_create_response_from_buffer_with_free_callback, MHD_add_response_header,
	MHD_queue_response, MHD_destroy_response,
};

int mhd_load(struct gs_error *err)
{
	(void)err;
	mhd = &linked;
	return 0;
}

#else

#define MHD_LIBRARY "libmicrohttpd.so.12"

/* Each member's symbol, in the struct's order. */
static const char *const names[] = {
	"MHD_start_daemon", "MHD_stop_daemon", "MHD_run", "MHD_get_timeout",
	"MHD_get_daemon_info", "MHD_is_feature_supported", "MHD_get_connection_info",
	"MHD_lookup_connection_value", "MHD_suspend_connection", "MHD_resume_connection",
	"MHD_create_response_from_buffer", "MHD_create_response_from_buffer_with_free_callback",
	"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
};
_Static_assert(sizeof(names) / sizeof(names[0]) * sizeof(void (*)(void)) ==
	       sizeof(struct mhd_api), "one name per member of struct mhd_api");

static struct mhd_api loaded;

int mhd_load(struct gs_error *err)
{
	void (**slot)(void) = (void (**)(void))&loaded;
	void *lib;

	if (mhd)
		return 0;
	/* kept for the life of the process: the server's thread runs in it */
	if (!(lib = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL)))
		return gs_errorf(err, -ENOENT, "the agent needs %s (Debian's libmicrohttpd12): "
				 "%s", MHD_LIBRARY, dlerror());
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *f = dlsym(lib, names[i]);

		if (!f)
			return gs_errorf(err, -ENOENT, "%s has no %s: install libmicrohttpd 0.9.71 "
					 "or later", MHD_LIBRARY, names[i]);
		*(void **)&slot[i] = f;
	}
	mhd = &loaded;
	return 0;
}

#endif
