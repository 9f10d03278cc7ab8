/* The agent's HTTP requests, on the server's thread (MHD's callbacks):
 * the route and the query from the raw URI, the token, the method, the
 * server's own answers (the index pages, every refusal: fixed texts with
 * nothing of the process or of the request in them), and the queue of
 * requests that need the session, suspended until the command's thread
 * answers them (serve_int.h). The server's life is http_server.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http_int.h"

enum http_route {
	HTTP_NOT_FOUND,
	HTTP_ROOT,
	HTTP_INDEX,
	HTTP_METRICS,
	HTTP_PROFILE,
};

enum req_state {
	REQ_NEW,        /* its headers read by the server's thread */
	REQ_READ,       /* not refused: to serve once read whole */
	REQ_QUEUED,     /* suspended, in the queue for the command's thread */
	REQ_TAKEN,      /* suspended, the command's thread holds it */
	REQ_ANSWERED,   /* resumed: its answer waits to be queued to MHD */
	REQ_SENT,       /* answered to MHD (by either thread's answer) */
};

/* One request (MHD's request context, made by the URI callback). */
struct http_req {
	struct srv_request pub;
	struct srv_http *h;
	struct MHD_Connection *mc;
	enum req_state state;
	enum http_route route;
	bool url_too_long;
	bool enqueued;          /* counted in h->unsent until completed */
	int query_rc;
	struct srv_query query;
	char query_msg[160];
	/* the command's answer (under h->lock until REQ_ANSWERED) */
	unsigned status;
	const char *content_type, *content_encoding;
	char *body;
	size_t len;
	struct http_req *qnext;                 /* the queue */
	struct http_req *wprev, *wnext;         /* every suspended request */
};

int64_t http_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct http_conn *conn_of(struct MHD_Connection *mc)
{
	const union MHD_ConnectionInfo *ci =
		mhd->get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void set_deadline(struct srv_http *h, struct MHD_Connection *mc, bool waiting)
{
	struct http_conn *c = conn_of(mc);

	if (c)
		c->deadline_ns = waiting ? 0 : http_now_ns() + h->timeout_ns;
}

/* ---- the raw URI: the route and the query -------------------------------- */

static enum http_route route_of(const char *path, size_t len)
{
	static const struct {
		const char *path;
		enum http_route route;
	} routes[] = {
		{ "/", HTTP_ROOT },
		{ "/metrics", HTTP_METRICS },
		{ "/debug/pprof", HTTP_INDEX },
		{ "/debug/pprof/", HTTP_INDEX },
		{ "/debug/pprof/profile", HTTP_PROFILE },
	};

	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (strlen(routes[i].path) == len && memcmp(routes[i].path, path, len) == 0)
			return routes[i].route;
	return HTTP_NOT_FOUND;
}

/* MHD calls this with the request's URI as the client sent it, before it
 * unescapes anything: the route is matched on those bytes (no `%2f` or
 * `..` games) and the query parsed from them. What it returns is the
 * request's context for every later call. */
void *http_on_uri(void *cls, const char *uri, struct MHD_Connection *mc)
{
	struct srv_http *h = cls;
	struct http_req *r = calloc(1, sizeof(*r));
	size_t len;
	const char *q;

	if (!r)
		return NULL;
	if (!uri) /* a request line without one */
		uri = "";
	len = strlen(uri);
	r->h = h;
	r->mc = mc;
	r->pub.priv = r;
	r->pub.arrived_ns = http_now_ns();
	if (len > HTTP_URL_MAX) {
		r->url_too_long = true;
		return r;
	}
	q = memchr(uri, '?', len);
	r->route = route_of(uri, q ? (size_t)(q - uri) : len);
	if (q)
		r->query_rc = srv_query_parse(q + 1, len - (size_t)(q + 1 - uri), h->max_seconds,
					      &r->query, r->query_msg, sizeof(r->query_msg) - 1);
	return r;
}

/* ---- answers --------------------------------------------------------------- */

static enum MHD_Result send_answer(struct MHD_Connection *mc, unsigned status,
				   const char *type, const char *encoding, char *body, size_t len,
				   bool owned, const char *hname, const char *hvalue)
{
	struct MHD_Response *resp;
	enum MHD_Result rc;

	if (owned && body)
		resp = mhd->create_response_from_buffer_with_free_callback(len, body, free);
	else
		resp = mhd->create_response_from_buffer(len, body ? body : (char *)"",
						       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd->add_response_header(resp, "X-Content-Type-Options", "nosniff");
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (encoding)
		mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
	if (hname)
		mhd->add_response_header(resp, hname, hvalue);
	rc = mhd->queue_response(mc, status, resp);
	mhd->destroy_response(resp);
	return rc;
}

/* An answer of the server's own: a fixed text (nothing of the process
 * or of the request in it) or the query's message. */
static enum MHD_Result refuse(struct srv_http *h, struct MHD_Connection *mc, unsigned status,
			      const char *text, const char *hname, const char *hvalue)
{
	pthread_mutex_lock(&h->lock);
	h->st.rejected++;
	if (status == MHD_HTTP_UNAUTHORIZED)
		h->st.unauthorized++;
	pthread_mutex_unlock(&h->lock);
	set_deadline(h, mc, false);
	return send_answer(mc, status, "text/plain; charset=utf-8", NULL, (char *)text,
			   strlen(text), false, hname, hvalue);
}

static enum MHD_Result send_page(struct srv_http *h, struct MHD_Connection *mc, const char *type,
				 const char *text)
{
	set_deadline(h, mc, false);
	return send_answer(mc, MHD_HTTP_OK, type, NULL, (char *)text, strlen(text), false, NULL,
			   NULL);
}

/* ---- the queue to the command's thread ------------------------------------ */

void http_wake(int fd, bool on)
{
	uint64_t v = 1;
	ssize_t n;

	if (on)
		n = write(fd, &v, sizeof(v));
	else
		n = read(fd, &v, sizeof(v));
	(void)n; /* EAGAIN: already in that state */
}

/* Under h->lock: r waits no more; its answer is set and its connection
 * resumed (the server's thread queues the answer to MHD). */
static void answer_locked(struct srv_http *h, struct http_req *r, unsigned status,
			  const char *type, const char *encoding, char *body, size_t len)
{
	if (r->wprev)
		r->wprev->wnext = r->wnext;
	else
		h->waiting = r->wnext;
	if (r->wnext)
		r->wnext->wprev = r->wprev;
	r->wprev = r->wnext = NULL;
	r->status = status;
	r->content_type = type;
	r->content_encoding = encoding;
	r->body = body;
	r->len = len;
	r->state = REQ_ANSWERED;
	mhd->resume_connection(r->mc);
	http_wake(h->wake_fd, true);
}

void http_refuse_waiting(struct srv_http *h)
{
	h->qhead = h->qtail = NULL;
	while (h->waiting) {
		h->waiting->qnext = NULL;
		answer_locked(h, h->waiting, MHD_HTTP_SERVICE_UNAVAILABLE, NULL, NULL, NULL, 0);
	}
	http_wake(h->event_fd, false);
}

static enum MHD_Result enqueue(struct srv_http *h, struct http_req *r)
{
	struct MHD_Connection *mc = r->mc;
	const char *accept = mhd->lookup_connection_value(mc, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	const char *coding = mhd->lookup_connection_value(mc, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT_ENCODING);

	r->pub.route = r->route == HTTP_METRICS ? SRV_ROUTE_METRICS : SRV_ROUTE_PROFILE;
	r->pub.openmetrics = srv_accept_openmetrics(accept);
	r->pub.gzip_ok = srv_accept_gzip(coding);
	r->pub.seconds = r->query.has_seconds ? r->query.seconds
			 : SRV_DEFAULT_SECONDS < h->max_seconds ? SRV_DEFAULT_SECONDS
			 : h->max_seconds;
	/* suspended before it is queued: the command's thread may resume it
	 * the moment it sees it */
	mhd->suspend_connection(mc);
	set_deadline(h, mc, true);
	pthread_mutex_lock(&h->lock);
	r->state = REQ_QUEUED;
	r->wnext = h->waiting;
	if (h->waiting)
		h->waiting->wprev = r;
	h->waiting = r;
	r->enqueued = true;
	h->unsent++;
	if (h->stopping) {
		answer_locked(h, r, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
			      NULL, NULL, 0);
	} else {
		if (h->qtail)
			h->qtail->qnext = r;
		else
			h->qhead = r;
		h->qtail = r;
		if (h->qhead == r)
			http_wake(h->event_fd, true);
	}
	pthread_mutex_unlock(&h->lock);
	return MHD_YES;
}

static const char stopping_text[] = "503 service unavailable: the agent is stopping\n";

/* The command's answer, on the server's thread once MHD resumed r. */
static enum MHD_Result send_resumed(struct srv_http *h, struct http_req *r)
{
	bool owned = r->body != NULL;
	char *body = r->body;
	size_t len = r->len;
	const char *type = r->content_type;

	if (r->status == MHD_HTTP_SERVICE_UNAVAILABLE && !body) {
		body = (char *)stopping_text;
		len = strlen(stopping_text);
		type = "text/plain; charset=utf-8";
	}
	r->state = REQ_SENT;
	r->body = NULL;
	set_deadline(h, r->mc, false);
	return send_answer(r->mc, r->status, type ? type : "application/octet-stream",
			   r->content_encoding, body, len, owned,
			   r->pub.disposition && owned ? MHD_HTTP_HEADER_CONTENT_DISPOSITION : NULL,
			   r->pub.disposition);
}

/* ---- requests ---------------------------------------------------------------- */

static bool has_body(struct MHD_Connection *mc)
{
	const char *cl = mhd->lookup_connection_value(mc, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	if (mhd->lookup_connection_value(mc, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return true;
	return cl && strcmp(cl, "0") != 0;
}

/* The first call, once the headers are read: a refusal is answered now
 * (*rc), and MHD then closes the connection, dropping any body. The token
 * is asked before the method, the path or the query are looked at, so a
 * client without it learns nothing of them. */
static bool refused(struct srv_http *h, struct http_req *r, const char *method,
		    enum MHD_Result *rc)
{
	struct MHD_Connection *mc = r->mc;

	pthread_mutex_lock(&h->lock);
	h->st.requests++;
	pthread_mutex_unlock(&h->lock);
	if (r->url_too_long)
		*rc = refuse(h, mc, MHD_HTTP_URI_TOO_LONG, "414 URI too long\n", NULL, NULL);
	else if (h->token &&
		 !srv_token_check(mhd->lookup_connection_value(mc, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_AUTHORIZATION),
				  h->token, h->token_len))
		*rc = refuse(h, mc, MHD_HTTP_UNAUTHORIZED, "401 unauthorized\n",
			     MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	else if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
		 strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		*rc = refuse(h, mc, MHD_HTTP_METHOD_NOT_ALLOWED, "405 method not allowed\n",
			     MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	else if (has_body(mc))
		*rc = refuse(h, mc, MHD_HTTP_BAD_REQUEST,
			     "400 bad request: a request here carries no body\n", NULL, NULL);
	else if (r->route == HTTP_NOT_FOUND)
		*rc = refuse(h, mc, MHD_HTTP_NOT_FOUND, "404 page not found\n", NULL, NULL);
	else if (r->query_rc) {
		strcat(r->query_msg, "\n"); /* room: srv_query_parse had one byte less */
		*rc = refuse(h, mc, MHD_HTTP_BAD_REQUEST, r->query_msg, NULL, NULL);
	} else
		return false;
	return true;
}

/* The final call, the request read whole: a page of the server's own, or
 * the request queued for the command's thread. Answered from this call
 * (not the first), MHD keeps the connection for the client's next
 * request, as a scraper expects. */
static enum MHD_Result serve(struct srv_http *h, struct http_req *r)
{
	switch (r->route) {
	case HTTP_ROOT:
		return send_page(h, r->mc, "text/plain; charset=utf-8",
				 "gstrace agent: Prometheus metrics at /metrics, CPU profiles "
				 "at /debug/pprof/\n");
	case HTTP_INDEX:
		if (r->query.debug)
			return send_page(h, r->mc, "text/plain; charset=utf-8", h->index_text);
		return send_page(h, r->mc, "text/html; charset=utf-8", h->index_html);
	default:
		return enqueue(h, r);
	}
}

enum MHD_Result http_on_request(void *cls, struct MHD_Connection *mc, const char *url,
				const char *method, const char *version, const char *upload,
				size_t *upload_size, void **ctx)
{
	struct srv_http *h = cls;
	struct http_req *r = *ctx;
	enum MHD_Result rc;

	(void)mc;
	(void)url; /* unescaped by MHD: the route comes from the raw URI */
	(void)version;
	(void)upload;
	if (!r) /* out of memory in http_on_uri */
		return MHD_NO;
	switch (r->state) {
	case REQ_NEW:
		if (refused(h, r, method, &rc)) {
			r->state = REQ_SENT;
			return rc;
		}
		r->state = REQ_READ;
		return MHD_YES;
	case REQ_READ:
		if (*upload_size) { /* no body: refused in the first call */
			*upload_size = 0;
			return MHD_YES;
		}
		/* answered here unless serve() queues it (REQ_QUEUED, under
		 * the lock): from then on the command's thread may change it */
		r->state = REQ_SENT;
		return serve(h, r);
	case REQ_ANSWERED: /* resumed */
		return send_resumed(h, r);
	default:
		/* the body of a request already refused: dropped */
		*upload_size = 0;
		return MHD_YES;
	}
}

void http_on_completed(void *cls, struct MHD_Connection *mc, void **ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct srv_http *h = cls;
	struct http_req *r = *ctx;

	(void)toe;
	*ctx = NULL;
	set_deadline(h, mc, false); /* the next request on this connection */
	if (!r)
		return;
	if (r->enqueued) {
		pthread_mutex_lock(&h->lock);
		if (--h->unsent == 0)
			pthread_cond_broadcast(&h->drained);
		pthread_mutex_unlock(&h->lock);
	}
	free(r->body);
	free(r);
}

void http_on_connection(void *cls, struct MHD_Connection *mc, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct srv_http *h = cls;
	struct http_conn *c = *socket_ctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			mhd->get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);

		c = calloc(1, sizeof(*c));
		if (!c || !ci) {
			/* no deadline could be kept for it: refused */
			if (ci)
				shutdown(ci->connect_fd, SHUT_RDWR);
			free(c);
			return;
		}
		c->fd = ci->connect_fd;
		c->deadline_ns = http_now_ns() + h->timeout_ns;
		c->next = h->conns;
		if (h->conns)
			h->conns->prev = c;
		h->conns = c;
		pthread_mutex_lock(&h->lock);
		h->st.connections++;
		pthread_mutex_unlock(&h->lock);
		*socket_ctx = c;
		return;
	}
	/* closed: MHD closes the socket after this returns */
	if (!c)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		h->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
	*socket_ctx = NULL;
	pthread_mutex_lock(&h->lock);
	h->st.connections--;
	pthread_mutex_unlock(&h->lock);
}

/* ---- the command's thread ----------------------------------------------------- */

struct srv_request *srv_http_next(struct srv_http *h)
{
	struct http_req *r;

	pthread_mutex_lock(&h->lock);
	r = h->qhead;
	if (r) {
		h->qhead = r->qnext;
		if (!h->qhead)
			h->qtail = NULL;
		r->qnext = NULL;
		r->state = REQ_TAKEN;
	}
	if (!h->qhead)
		http_wake(h->event_fd, false);
	pthread_mutex_unlock(&h->lock);
	return r ? &r->pub : NULL;
}

void srv_http_answer(struct srv_http *h, struct srv_request *req, unsigned status,
		     const char *content_type, const char *content_encoding, char *body, size_t len)
{
	struct http_req *r = req->priv;

	pthread_mutex_lock(&h->lock);
	answer_locked(h, r, status, content_type, content_encoding, body, len);
	pthread_mutex_unlock(&h->lock);
}

void srv_http_stats(struct srv_http *h, struct srv_http_stats *st)
{
	pthread_mutex_lock(&h->lock);
	*st = h->st;
	pthread_mutex_unlock(&h->lock);
}

