/* Inside the HTTP server: how its two files meet. http_server.c owns the
 * server's life (the socket, MHD, the thread and its deadlines); http.c
 * reads each request (MHD's callbacks, on the server's thread) and keeps
 * the queue to the command's thread. Private to src/serve's http*.c. */
#ifndef SRV_HTTP_INT_H
#define SRV_HTTP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

#include "mhd.h"

#include "serve_int.h"

/* A URI longer than this is answered 414 (MHD answers 414 or 431 itself
 * when the request line and headers pass the connection's memory). */
#define HTTP_URL_MAX 2048

/* One TCP connection (MHD's socket context), server's thread only. */
struct http_conn {
	struct http_conn *prev, *next;
	int fd;
	int64_t deadline_ns;    /* 0: none (a request waits for the command's thread) */
};

struct http_req;

struct srv_http {
	struct MHD_Daemon *d;
	pthread_t thread;
	bool thread_started;
	int event_fd;           /* readable while the queue is not empty */
	/* Wakes the server's thread: a request was resumed (MHD run without
	 * its own thread has no channel of its own for that), or quit. */
	int wake_fd;
	bool quit;
	int epoll_fd;           /* MHD's */
	uint16_t port;
	char *token;
	size_t token_len;
	uint32_t max_seconds;
	int64_t timeout_ns;
	char *index_html, *index_text;
	struct http_conn *conns; /* server's thread (and srv_http_free after it) */
	char start_msg[256];     /* MHD's last message while starting */
	bool starting;

	pthread_mutex_t lock;    /* what follows */
	pthread_cond_t drained;  /* unsent came to 0 */
	struct http_req *qhead, *qtail;
	struct http_req *waiting;   /* suspended: queued, or taken and not answered */
	size_t unsent;              /* suspended requests not yet completed */
	bool stopping;
	struct srv_http_stats st;
};

int64_t http_now_ns(void);
/* An eventfd made readable (on) or read back to not readable. */
void http_wake(int fd, bool on);

/* MHD's callbacks (http.c), with the srv_http as their closure. */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *mc);
enum MHD_Result http_on_request(void *cls, struct MHD_Connection *mc, const char *url,
				const char *method, const char *version, const char *upload,
				size_t *upload_size, void **ctx);
void http_on_completed(void *cls, struct MHD_Connection *mc, void **ctx,
		       enum MHD_RequestTerminationCode toe);
void http_on_connection(void *cls, struct MHD_Connection *mc, void **socket_ctx,
			enum MHD_ConnectionNotificationCode toe);

/* Under h->lock, at the stop: every waiting request answered 503 and
 * resumed; the queue emptied. */
void http_refuse_waiting(struct srv_http *h);

#endif /* SRV_HTTP_INT_H */
