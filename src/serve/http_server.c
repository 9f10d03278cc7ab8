/* The agent's HTTP server: its socket, libmicrohttpd, and the thread
 * that runs both (requests are http.c's).
 *
 * The thread runs MHD's epoll loop itself (MHD_run between polls) rather
 * than MHD's internal thread, for one reason: MHD's connection timeout is
 * a time without any byte, so a client sending a byte a second keeps its
 * slot for ever. Between two MHD_run calls this thread gives every
 * connection a deadline to send a whole request (and to take its whole
 * answer) and shuts the socket of one past it; MHD then closes it as any
 * connection its client closed. A request waiting for the command's
 * thread (a profile waits its seconds) has no deadline. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "http_int.h"

/* Per connection: the request line and headers must fit (MHD answers 431
 * or 414 past it and closes); answers' bodies are ours, outside it. */
#define HTTP_CONN_MEMORY (8 * 1024)
#define HTTP_DEFAULT_CONNECTIONS 64
#define HTTP_DEFAULT_TIMEOUT_S 10
/* srv_http_free: how long the waiting requests' 503s may take to leave. */
#define HTTP_STOP_GRACE_MS 1000

/* Defined in the static gstrace only (static_notls.c): why it has no TLS. */
extern const char srv_static_no_tls[] __attribute__((weak));

/* ---- the server's thread ------------------------------------------------------ */

/* Shuts the socket of every connection past its deadline: the next
 * MHD_run reads its end and closes it. The socket is still open: MHD
 * closes it only after its CLOSED notice, which takes it off this list,
 * and both happen on this thread. Returns the next deadline (0: none). */
static int64_t cut_late(struct srv_http *h, int64_t now)
{
	int64_t next = 0;

	for (struct http_conn *c = h->conns; c; c = c->next) {
		if (!c->deadline_ns)
			continue;
		if (c->deadline_ns <= now) {
			shutdown(c->fd, SHUT_RDWR);
			c->deadline_ns = 0;
			continue;
		}
		if (!next || c->deadline_ns < next)
			next = c->deadline_ns;
	}
	return next;
}

static void *serve(void *arg)
{
	struct srv_http *h = arg;
	struct pollfd pfd[2] = {
		{ .fd = h->epoll_fd, .events = POLLIN },
		{ .fd = h->wake_fd, .events = POLLIN },
	};

	for (;;) {
		MHD_UNSIGNED_LONG_LONG mhd_ms;
		int64_t now = http_now_ns(), next = cut_late(h, now);
		long long ms = -1;

		if (mhd->get_timeout(h->d, &mhd_ms) == MHD_YES)
			ms = mhd_ms > INT_MAX ? INT_MAX : (long long)mhd_ms;
		if (next) {
			long long until = (next - now) / 1000000 + 1;

			if (ms < 0 || until < ms)
				ms = until;
		}
		if (poll(pfd, 2, (int)ms) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents) {
			http_wake(h->wake_fd, false);
			if (__atomic_load_n(&h->quit, __ATOMIC_ACQUIRE))
				break;
		}
		mhd->run(h->d);
	}
	return NULL;
}

/* ---- life ----------------------------------------------------------------------- */

static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct srv_http *h = cls;

	/* MHD's notes (a client over its limit, a reset) would go to the
	 * terminal the traced output uses: kept only while starting, for the
	 * message of a failed start */
	if (h->starting) {
		size_t n;

		vsnprintf(h->start_msg, sizeof(h->start_msg), fmt, ap);
		n = strlen(h->start_msg);
		while (n && (h->start_msg[n - 1] == '\n' || h->start_msg[n - 1] == '.'))
			h->start_msg[--n] = '\0';
	}
}

static int make_index(struct srv_http *h)
{
	unsigned secs = SRV_DEFAULT_SECONDS < h->max_seconds ? SRV_DEFAULT_SECONDS
			: h->max_seconds;

	if (asprintf(&h->index_html,
		     "<!DOCTYPE html>\n<html>\n<head><title>/debug/pprof/</title></head>\n"
		     "<body>\n<h1>/debug/pprof/</h1>\n<table>\n"
		     "<tr><th>endpoint</th><th>what it serves</th></tr>\n"
		     "<tr><td><a href=\"/debug/pprof/profile?seconds=%u\">profile</a></td>"
		     "<td>a CPU profile of the traced processes over the next "
		     "<code>seconds</code> (1 to %u), sampled in BPF; gzipped pprof, for "
		     "<code>go tool pprof</code>, Parca, Pyroscope or Grafana Alloy</td></tr>\n"
		     "<tr><td><a href=\"/metrics\">/metrics</a></td><td>the script's "
		     "aggregations and the agent's own health, for Prometheus</td></tr>\n"
		     "</table>\n<p><a href=\"/debug/pprof/?debug=1\">as text</a></p>\n"
		     "</body>\n</html>\n",
		     secs, (unsigned)h->max_seconds) < 0) {
		h->index_html = NULL;
		return -ENOMEM;
	}
	if (asprintf(&h->index_text,
		     "/debug/pprof/\n\nprofile?seconds=%u: CPU profile of the traced "
		     "processes (seconds 1 to %u), gzipped pprof\n/metrics: Prometheus "
		     "metrics\n", secs, (unsigned)h->max_seconds) < 0) {
		h->index_text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Binds the address here rather than in MHD, for the errno of a failed
 * bind (EADDRINUSE, EADDRNOTAVAIL, EACCES) in the message. */
static int bind_listen(const struct srv_listen *l, uint16_t *port, struct gs_error *err)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t slen;
	int fd, one = 1, rc;

	if (l->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(l->port);
		memcpy(&s6->sin6_addr, l->addr, 16);
		slen = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(l->port);
		memcpy(&s4->sin_addr, l->addr, 4);
		slen = sizeof(*s4);
	}
	fd = socket(l->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gs_errorf(err, -errno, "--serve %s: cannot make a socket: %s", l->text,
				 strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l->family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) < 0) {
		rc = -errno;
		close(fd);
		if (rc == -EADDRINUSE)
			return gs_errorf(err, rc, "--serve %s: the address is in use (EADDRINUSE): "
					 "another program listens on that port; give another "
					 "port", l->text);
		if (rc == -EADDRNOTAVAIL)
			return gs_errorf(err, rc, "--serve %s: no interface of this host has that "
					 "address (EADDRNOTAVAIL): give one of its own, or "
					 "127.0.0.1", l->text);
		if (rc == -EACCES)
			return gs_errorf(err, rc, "--serve %s: not allowed to bind that port "
					 "(EACCES): ports below 1024 need privileges; give a "
					 "port from 1024 up", l->text);
		return gs_errorf(err, rc, "--serve %s: cannot bind: %s", l->text, strerror(-rc));
	}
	if (listen(fd, SOMAXCONN) < 0) {
		rc = -errno;
		close(fd);
		return gs_errorf(err, rc, "--serve %s: cannot listen: %s", l->text, strerror(-rc));
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &slen) == 0)
		*port = ntohs(l->family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						    : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* After a failed MHD_start_daemon: MHD closed the listening socket on
 * some of its failure paths and not on others. Closed here only if that
 * descriptor is still the same socket. */
static void close_if_same(int fd, const struct stat *was)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && st.st_dev == was->st_dev && st.st_ino == was->st_ino)
		close(fd);
}

int srv_http_new(const struct srv_http_opts *o, struct srv_http **out, struct gs_error *err)
{
	unsigned conns = o->max_connections ? o->max_connections : HTTP_DEFAULT_CONNECTIONS;
	unsigned per_ip = conns / 4 > 2 ? conns / 4 : 2;
	unsigned timeout = o->timeout_s ? o->timeout_s : HTTP_DEFAULT_TIMEOUT_S;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct srv_http *h;
	struct stat lst;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_cert_pem },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key_pem },
		{ MHD_OPTION_END, 0, NULL },
	};
	sigset_t all, old;
	int lfd, rc;

	*out = NULL;
	if ((rc = mhd_load(err)))
		return rc;
	if ((o->tls_cert_pem == NULL) != (o->tls_key_pem == NULL))
		return gs_errorf(err, -EINVAL, "--serve %s: TLS needs both a certificate and "
				 "its key (--serve-tls-cert and --serve-tls-key)", o->listen.text);
	if (o->tls_cert_pem &&
	    (srv_static_no_tls || mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES))
		return gs_errorf(err, -ENOTSUP, "--serve %s: --serve-tls-cert/--serve-tls-key: %s: "
				 "use the dynamically linked gstrace, or serve plain HTTP "
				 "behind a TLS proxy", o->listen.text,
				 srv_static_no_tls ? srv_static_no_tls
				 : "this libmicrohttpd was built without TLS");
	if (per_ip > conns)
		per_ip = conns;
	h = calloc(1, sizeof(*h));
	if (!h)
		return gs_errorf(err, -ENOMEM, "--serve: out of memory");
	h->event_fd = h->wake_fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->drained, NULL);
	h->max_seconds = o->max_seconds ? o->max_seconds : SRV_DEFAULT_MAX_SECONDS;
	h->timeout_ns = (int64_t)timeout * 1000000000;
	if (o->token) {
		h->token = malloc(o->token_len + 1);
		if (!h->token) {
			rc = gs_errorf(err, -ENOMEM, "--serve: out of memory");
			goto fail;
		}
		memcpy(h->token, o->token, o->token_len);
		h->token[o->token_len] = '\0';
		h->token_len = o->token_len;
	}
	if (make_index(h) < 0) {
		rc = gs_errorf(err, -ENOMEM, "--serve: out of memory");
		goto fail;
	}
	h->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->event_fd < 0 || h->wake_fd < 0) {
		rc = gs_errorf(err, -errno, "--serve: eventfd: %s", strerror(errno));
		goto fail;
	}
	lfd = bind_listen(&o->listen, &h->port, err);
	if (lfd < 0) {
		rc = lfd;
		goto fail;
	}
	fstat(lfd, &lst);
	if (o->listen.family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (o->tls_cert_pem)
		flags |= MHD_USE_TLS;
	h->starting = true;
	h->d = mhd->start_daemon(flags, 0, NULL, NULL, http_on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
		MHD_OPTION_LISTEN_SOCKET, lfd,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY,
		MHD_OPTION_CONNECTION_LIMIT, conns,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout,
		MHD_OPTION_URI_LOG_CALLBACK, http_on_uri, h,
		MHD_OPTION_NOTIFY_COMPLETED, http_on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, http_on_connection, h,
		MHD_OPTION_ARRAY, o->tls_cert_pem ? tls : tls + 2,
		MHD_OPTION_END);
	h->starting = false;
	if (!h->d) {
		close_if_same(lfd, &lst);
		rc = gs_errorf(err, -EINVAL, "--serve %s: the HTTP server did not start%s%s%s",
			       o->listen.text, h->start_msg[0] ? " (" : "", h->start_msg,
			       h->start_msg[0] ? ")" : "");
		if (o->tls_cert_pem)
			snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
				 ": check that --serve-tls-cert and --serve-tls-key are a PEM "
				 "certificate and its unencrypted key");
		goto fail;
	}
	info = mhd->get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (!info) {
		rc = gs_errorf(err, -EINVAL, "--serve %s: libmicrohttpd has no epoll loop",
			       o->listen.text);
		goto fail;
	}
	h->epoll_fd = info->epoll_fd;
	/* the command's thread takes the signals (SIGTERM, SIGINT) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&h->thread, NULL, serve, h);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		gs_errorf(err, rc, "--serve: cannot start the server's thread: %s", strerror(-rc));
		goto fail;
	}
	h->thread_started = true;
	*out = h;
	return 0;
fail:
	srv_http_free(h);
	return rc;
}

int srv_http_fd(const struct srv_http *h)
{
	return h->event_fd;
}

uint16_t srv_http_port(const struct srv_http *h)
{
	return h->port;
}

void srv_http_free(struct srv_http *h)
{
	if (!h)
		return;
	if (h->thread_started) {
		struct timespec until;

		/* every waiting request answered 503, and a moment for those
		 * answers to leave before the connections close */
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		http_refuse_waiting(h);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += HTTP_STOP_GRACE_MS % 1000 * 1000000L;
		until.tv_sec += HTTP_STOP_GRACE_MS / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (h->unsent &&
		       pthread_cond_timedwait(&h->drained, &h->lock, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&h->lock);
		__atomic_store_n(&h->quit, true, __ATOMIC_RELEASE);
		http_wake(h->wake_fd, true);
		pthread_join(h->thread, NULL);
	}
	if (h->d)
		mhd->stop_daemon(h->d);
	if (h->event_fd >= 0)
		close(h->event_fd);
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	pthread_cond_destroy(&h->drained);
	pthread_mutex_destroy(&h->lock);
	if (h->token)
		explicit_bzero(h->token, h->token_len);
	free(h->token);
	free(h->index_html);
	free(h->index_text);
	free(h);
}
