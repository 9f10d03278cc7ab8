/* libmicrohttpd's functions as the agent calls them. The dynamic gstrace
 * loads the library (dlopen) only when an agent starts: linked, it and the
 * GnuTLS it links were mapped and started at every start of gstrace, even
 * for --version (2.9 ms became 7.2 ms). The static gstrace links the
 * archive and the table points at its functions. Private to src/serve's
 * http*.c. */
#ifndef SRV_MHD_H
#define SRV_MHD_H

#include <microhttpd.h>

#include <gs/error.h>

struct mhd_api {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_run) run;
	__typeof__(&MHD_get_timeout) get_timeout;
	__typeof__(&MHD_get_daemon_info) get_daemon_info;
	__typeof__(&MHD_is_feature_supported) is_feature_supported;
	__typeof__(&MHD_get_connection_info) get_connection_info;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_suspend_connection) suspend_connection;
	__typeof__(&MHD_resume_connection) resume_connection;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_create_response_from_buffer_with_free_callback)
		create_response_from_buffer_with_free_callback;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
};

/* The table, once mhd_load succeeded (read-only after). */
extern const struct mhd_api *mhd;

/* Loads the library and its functions once (from srv_http_new, before the
 * server's thread exists). 0, or -ENOENT with err naming the library and
 * the package that holds it. */
int mhd_load(struct gs_error *err);

#endif /* SRV_MHD_H */
