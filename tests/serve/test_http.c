/* The agent's HTTP server (src/serve/http.c) on 127.0.0.1 with a port the
 * kernel picks, played against by raw sockets (what a client sends is
 * exactly what the test wrote, malformed or slow where it means to be) and
 * by openssl for TLS. A thread plays the command's: it takes the queued
 * requests (srv_http_next) and answers them (srv_http_answer), a scrape at
 * once and a profile when its seconds are over, as the agent does. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve_int.h"

#define TIMEOUT_S 2 /* the server's: short, so the slow client is cut in seconds */
#define TOKEN "0123456789abcdef-test-token"

/* ---- the command's thread ------------------------------------------------- */

struct player {
	struct srv_http *h;
	int stop_fd;
	pthread_t thread;
	bool answer_profiles;      /* false: profiles are taken and held */
	struct srv_request *held[64];
	int64_t due[64];
	size_t nheld;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void answer_text(struct srv_http *h, struct srv_request *r, const char *fmt, ...)
{
	char *body;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&body, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	srv_http_answer(h, r, 200, "text/plain; version=0.0.4; charset=utf-8", NULL, body,
			(size_t)n);
}

static void *play(void *arg)
{
	struct player *p = arg;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = srv_http_fd(p->h), .events = POLLIN },
			{ .fd = p->stop_fd, .events = POLLIN },
		};
		bool answer = __atomic_load_n(&p->answer_profiles, __ATOMIC_ACQUIRE);
		struct srv_request *r;
		int64_t now = mono_ns();
		int ms = -1;

		for (size_t i = 0; i < p->nheld;) {
			if (answer && p->due[i] <= now) {
				answer_text(p->h, p->held[i], "profile seconds=%u\n",
					    p->held[i]->seconds);
				p->held[i] = p->held[--p->nheld];
				p->due[i] = p->due[p->nheld];
				continue;
			}
			if (answer &&
			    (ms < 0 || (p->due[i] - now) / 1000000 + 1 < ms))
				ms = (int)((p->due[i] - now) / 1000000 + 1);
			i++;
		}
		poll(pfd, 2, ms);
		if (pfd[1].revents)
			return NULL;
		while ((r = srv_http_next(p->h))) {
			if (r->route == SRV_ROUTE_METRICS) {
				answer_text(p->h, r, "# openmetrics=%d gzip=%d\nup 1\n",
					    r->openmetrics, r->gzip_ok);
				continue;
			}
			assert_true(p->nheld < 64);
			p->held[p->nheld] = r;
			p->due[p->nheld] = r->arrived_ns + (int64_t)r->seconds * 1000000000;
			__atomic_store_n(&p->nheld, p->nheld + 1, __ATOMIC_RELEASE);
		}
	}
}

static struct player *start(struct srv_http_opts *o)
{
	struct player *p = calloc(1, sizeof(*p));
	struct gs_error err = { 0 };
	int rc;

	o->listen.family = AF_INET;
	memcpy(o->listen.addr, (uint8_t[]){ 127, 0, 0, 1 }, 4);
	o->listen.port = 0;
	snprintf(o->listen.text, sizeof(o->listen.text), "127.0.0.1:0");
	if (!o->timeout_s)
		o->timeout_s = TIMEOUT_S;
	if (!o->max_seconds)
		o->max_seconds = 300;
	rc = srv_http_new(o, &p->h, &err);
	if (rc)
		fail_msg("srv_http_new: %d %s", rc, err.msg);
	assert_int_not_equal(srv_http_port(p->h), 0);
	p->stop_fd = eventfd(0, EFD_CLOEXEC);
	p->answer_profiles = true;
	assert_int_equal(pthread_create(&p->thread, NULL, play, p), 0);
	return p;
}

/* The command's thread stops first (its held requests stay unanswered),
 * then the server: srv_http_free answers what still waits. */
static void stop(struct player *p)
{
	uint64_t one = 1;

	assert_int_equal(write(p->stop_fd, &one, sizeof(one)), sizeof(one));
	pthread_join(p->thread, NULL);
	srv_http_free(p->h);
	close(p->stop_fd);
	free(p);
}

/* ---- a client that sends exactly what it is given ------------------------- */

struct reply {
	int status;              /* 0: no status line came back */
	char head[8192];
	char body[65536];
	size_t blen;
	bool closed;             /* the server closed the connection (not a timeout) */
};

static int dial(uint16_t port, const char *src)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	if (src) {
		struct sockaddr_in from = { .sin_family = AF_INET };

		inet_pton(AF_INET, src, &from.sin_addr);
		if (bind(fd, (struct sockaddr *)&from, sizeof(from)) < 0)
			fail_msg("bind %s: %s", src, strerror(errno));
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail_msg("connect: %s", strerror(errno));
	return fd;
}

static bool send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* Reads to the end of the stream (the requests say Connection: close)
 * and splits the answer. */
static void read_reply(int fd, struct reply *rp)
{
	size_t size = sizeof(rp->head) + sizeof(rp->body);
	char *buf = malloc(size);
	size_t got = 0;
	ssize_t n = 0;
	char *end;

	memset(rp, 0, sizeof(*rp));
	assert_non_null(buf);
	while (got < size - 1 && (n = recv(fd, buf + got, size - 1 - got, 0)) > 0)
		got += (size_t)n;
	rp->closed = n == 0 || (n < 0 && errno == ECONNRESET);
	buf[got] = '\0';
	if (sscanf(buf, "HTTP/1.%*d %d", &rp->status) != 1)
		rp->status = 0;
	end = strstr(buf, "\r\n\r\n");
	if (end && (size_t)(end - buf) < sizeof(rp->head) - 2 &&
	    got - (size_t)(end + 4 - buf) < sizeof(rp->body)) {
		snprintf(rp->head, sizeof(rp->head), "%.*s", (int)(end - buf + 2), buf);
		rp->blen = got - (size_t)(end + 4 - buf);
		memcpy(rp->body, end + 4, rp->blen);
		rp->body[rp->blen] = '\0';
	}
	free(buf);
}

static int request(uint16_t port, const char *src, const char *req, struct reply *rp)
{
	int fd = dial(port, src);

	assert_true(send_all(fd, req, strlen(req)));
	read_reply(fd, rp);
	close(fd);
	return rp->status;
}

static int get(uint16_t port, const char *path, const char *headers, struct reply *rp)
{
	char req[16384];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n",
		 path, headers ? headers : "");
	return request(port, NULL, req, rp);
}

/* The value of a header of the answer, or NULL. */
static const char *header(const struct reply *rp, const char *name)
{
	static char value[256];
	size_t nlen = strlen(name);

	for (const char *line = strstr(rp->head, "\r\n"); line && line[2];
	     line = strstr(line + 2, "\r\n")) {
		if (strncasecmp(line + 2, name, nlen) == 0 && line[2 + nlen] == ':') {
			const char *v = line + 3 + nlen, *e = strstr(v, "\r\n");

			while (*v == ' ')
				v++;
			snprintf(value, sizeof(value), "%.*s", (int)(e - v), v);
			return value;
		}
	}
	return NULL;
}

/* ---- routes ----------------------------------------------------------------- */

static void test_metrics_answered_by_the_command_thread(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct srv_http_stats st;
	struct reply rp;

	(void)state;
	assert_int_equal(get(port, "/metrics", NULL, &rp), 200);
	assert_string_equal(rp.body, "# openmetrics=0 gzip=0\nup 1\n");
	assert_string_equal(header(&rp, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
	assert_int_equal(get(port, "/metrics",
			     "Accept: application/openmetrics-text;version=1.0.0,text/plain;"
			     "version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\n", &rp),
			 200);
	assert_string_equal(rp.body, "# openmetrics=1 gzip=1\nup 1\n");
	/* a query the endpoint does not know is no reason to refuse it */
	assert_int_equal(get(port, "/metrics?module=x&target=y", NULL, &rp), 200);
	/* HEAD: the same headers, no body */
	assert_int_equal(request(port, NULL, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: "
				 "close\r\n\r\n", &rp), 200);
	assert_int_equal(rp.blen, 0);
	srv_http_stats(p->h, &st);
	assert_int_equal(st.requests, 4);
	assert_int_equal(st.rejected, 0);
	stop(p);
}

struct fetch {
	uint16_t port;
	const char *path;
	struct reply rp;
	pthread_t t;
};

static void *fetch(void *arg)
{
	struct fetch *f = arg;

	get(f->port, f->path, NULL, &f->rp);
	return NULL;
}

/* GET path from p's server in a thread of its own, answered or not. */
static void fetch_start(struct fetch *f, struct player *p, const char *path)
{
	f->port = srv_http_port(p->h);
	f->path = path;
	assert_int_equal(pthread_create(&f->t, NULL, fetch, f), 0);
}

/* The status of f's answer, once it came. */
static int fetch_status(struct fetch *f)
{
	pthread_join(f->t, NULL);
	return f->rp.status;
}

static void test_two_profiles_at_once_both_answered(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	static struct fetch f[3];
	struct reply rp;

	(void)state;
	/* longer than the server's timeout (2 s): a profile waiting for the
	 * command's thread is not cut */
	fetch_start(&f[0], p, "/debug/pprof/profile?seconds=3");
	fetch_start(&f[1], p, "/debug/pprof/profile?seconds=1");
	fetch_start(&f[2], p, "/debug/pprof/profile?seconds=1");
	/* a scrape while they wait: not queued behind them */
	assert_int_equal(get(srv_http_port(p->h), "/metrics", NULL, &rp), 200);
	for (int i = 0; i < 3; i++)
		assert_int_equal(fetch_status(&f[i]), 200);
	assert_string_equal(f[0].rp.body, "profile seconds=3\n");
	assert_string_equal(f[1].rp.body, "profile seconds=1\n");
	assert_string_equal(f[2].rp.body, "profile seconds=1\n");
	stop(p);
}

static void test_profile_seconds_default_and_capped(void **state)
{
	struct srv_http_opts o = { .max_seconds = 20 };
	struct player *p = start(&o);
	struct srv_request *r;
	int fd;

	(void)state;
	/* the command's thread is stopped: the request is read here */
	{
		uint64_t one = 1;

		assert_int_equal(write(p->stop_fd, &one, sizeof(one)), sizeof(one));
		pthread_join(p->thread, NULL);
	}
	fd = dial(srv_http_port(p->h), NULL);
	{
		static const char req[] = "GET /debug/pprof/profile HTTP/1.1\r\nHost: x\r\n"
					  "Connection: close\r\n\r\n";

		assert_true(send_all(fd, req, strlen(req)));
	}
	{
		struct pollfd pfd = { .fd = srv_http_fd(p->h), .events = POLLIN };

		assert_int_equal(poll(&pfd, 1, 5000), 1);
	}
	r = srv_http_next(p->h);
	assert_non_null(r);
	assert_int_equal(r->route, SRV_ROUTE_PROFILE);
	assert_int_equal(r->seconds, 20); /* 30 by default, but the cap is 20 */
	assert_null(srv_http_next(p->h));
	{
		struct pollfd pfd = { .fd = srv_http_fd(p->h), .events = POLLIN };

		assert_int_equal(poll(&pfd, 1, 0), 0); /* not readable once empty */
	}
	srv_http_answer(p->h, r, 200, "application/octet-stream", NULL, strdup("pb"), 2);
	{
		struct reply rp;

		read_reply(fd, &rp);
		assert_int_equal(rp.status, 200);
		assert_int_equal(rp.blen, 2);
	}
	close(fd);
	srv_http_free(p->h);
	close(p->stop_fd);
	free(p);
}

/* Reads one answer from a connection that stays open: the headers, then
 * Content-Length bytes. The status, or 0 when the connection closed first. */
static int read_one(int fd, struct reply *rp)
{
	size_t got = 0, want = 0;
	char *end = NULL;
	ssize_t n;

	memset(rp, 0, sizeof(*rp));
	while (got < sizeof(rp->head) - 1) {
		n = recv(fd, rp->head + got, 1, 0);
		if (n <= 0)
			return 0;
		got++;
		if (got >= 4 && memcmp(rp->head + got - 4, "\r\n\r\n", 4) == 0) {
			end = rp->head + got;
			break;
		}
	}
	if (!end || sscanf(rp->head, "HTTP/1.%*d %d", &rp->status) != 1)
		return 0;
	if (header(rp, "Content-Length"))
		want = strtoul(header(rp, "Content-Length"), NULL, 10);
	assert_true(want < sizeof(rp->body));
	while (rp->blen < want && (n = recv(fd, rp->body + rp->blen, want - rp->blen, 0)) > 0)
		rp->blen += (size_t)n;
	return rp->blen == want ? rp->status : 0;
}

static void test_connection_kept_for_the_next_request(void **state)
{
	static const char metrics[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char profile[] = "GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char index[] = "GET /debug/pprof/ HTTP/1.1\r\nHost: x\r\n\r\n";
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	struct reply rp;
	int fd = dial(srv_http_port(p->h), NULL);

	(void)state;
	/* a scrape, a profile (suspended, then resumed) and a page, one
	 * connection: as Prometheus and pprof clients reuse theirs */
	assert_true(send_all(fd, metrics, strlen(metrics)));
	assert_int_equal(read_one(fd, &rp), 200);
	assert_string_equal(rp.body, "# openmetrics=0 gzip=0\nup 1\n");
	assert_true(send_all(fd, profile, strlen(profile)));
	assert_int_equal(read_one(fd, &rp), 200);
	assert_string_equal(rp.body, "profile seconds=1\n");
	assert_true(send_all(fd, index, strlen(index)));
	assert_int_equal(read_one(fd, &rp), 200);
	assert_null(header(&rp, "Connection"));
	close(fd);
	stop(p);
}

static void test_index_pages(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct reply rp;

	(void)state;
	assert_int_equal(get(port, "/debug/pprof/", NULL, &rp), 200);
	assert_string_equal(header(&rp, "Content-Type"), "text/html; charset=utf-8");
	assert_non_null(strstr(rp.body, "href=\"/debug/pprof/profile?seconds=30\""));
	assert_int_equal(get(port, "/debug/pprof", NULL, &rp), 200);
	assert_non_null(strstr(rp.body, "profile?seconds=30"));
	assert_int_equal(get(port, "/debug/pprof/?debug=1", NULL, &rp), 200);
	assert_string_equal(header(&rp, "Content-Type"), "text/plain; charset=utf-8");
	assert_non_null(strstr(rp.body, "profile?seconds=30"));
	assert_int_equal(get(port, "/", NULL, &rp), 200);
	assert_non_null(strstr(rp.body, "/metrics"));
	stop(p);
}

static void test_unknown_path_is_a_fixed_404(void **state)
{
	static const char *paths[] = {
		"/nope", "/metrics/", "/metricsx", "/debug/pprof/heap", "/debug/pprof/../../etc/passwd",
		"/%6detrics", "/debug/pprof/profile/", "/<script>alert(1)</script>",
		"http://127.0.0.1/metrics", "*",
	};
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct srv_http_stats st;
	struct reply rp;
	char pid[32];

	(void)state;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (get(port, paths[i], NULL, &rp) != 404)
			fail_msg("%s: %d, not 404", paths[i], rp.status);
		assert_string_equal(rp.body, "404 page not found\n");
		/* nothing of the process in the headers either */
		assert_null(strcasestr(rp.head, "server:"));
		assert_null(strstr(rp.head, pid));
		assert_null(strstr(rp.head, "script"));
	}
	srv_http_stats(p->h, &st);
	assert_int_equal(st.rejected, sizeof(paths) / sizeof(paths[0]));
	stop(p);
}

static void test_other_methods_405_and_bodies_refused(void **state)
{
	static const char *methods[] = { "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE" };
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct reply rp;
	char req[256];

	(void)state;
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		snprintf(req, sizeof(req), "%s /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n", methods[i]);
		if (request(port, NULL, req, &rp) != 405)
			fail_msg("%s: %d, not 405", methods[i], rp.status);
		assert_string_equal(header(&rp, "Allow"), "GET, HEAD");
	}
	assert_int_equal(request(port, NULL, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
				 "Connection: close\r\n\r\nhello", &rp), 400);
	assert_non_null(strstr(rp.body, "no body"));
	assert_int_equal(request(port, NULL, "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
				 "chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n", &rp),
			 400);
	assert_int_equal(get(port, "/metrics", NULL, &rp), 200);
	stop(p);
}

static void test_token_required(void **state)
{
	struct srv_http_opts o = { .token = TOKEN, .token_len = strlen(TOKEN) };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct srv_http_stats st;
	struct reply rp;

	(void)state;
	assert_int_equal(get(port, "/metrics", NULL, &rp), 401);
	assert_string_equal(header(&rp, "WWW-Authenticate"), "Bearer");
	assert_string_equal(rp.body, "401 unauthorized\n");
	assert_int_equal(get(port, "/metrics", "Authorization: Bearer wrong-token-0123456789\r\n",
			     &rp), 401);
	assert_int_equal(get(port, "/metrics", "Authorization: Bearer " TOKEN "x\r\n", &rp), 401);
	assert_int_equal(get(port, "/metrics", "Authorization: Basic " TOKEN "\r\n", &rp), 401);
	/* unauthorized, a path that does not exist says no more than one that does */
	assert_int_equal(get(port, "/nope", NULL, &rp), 401);
	assert_int_equal(get(port, "/debug/pprof/", NULL, &rp), 401);
	assert_int_equal(get(port, "/metrics", "Authorization: Bearer " TOKEN "\r\n", &rp), 200);
	assert_string_equal(rp.body, "# openmetrics=0 gzip=0\nup 1\n");
	assert_int_equal(get(port, "/debug/pprof/", "Authorization: Bearer " TOKEN "\r\n", &rp),
			 200);
	srv_http_stats(p->h, &st);
	assert_int_equal(st.unauthorized, 6);
	stop(p);
}

static void test_malformed_queries_400_and_server_lives(void **state)
{
	static const char *queries[] = {
		"seconds=abc", "seconds=0", "seconds=301", "seconds=99999999999999999999",
		"seconds=1&seconds=2", "seconds=%zz", "x=%4", "seconds=-1", "seconds=1%00",
		"%", "seconds=%<script>",
	};
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	struct reply rp;
	char path[256];

	(void)state;
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++) {
		snprintf(path, sizeof(path), "/debug/pprof/profile?%s", queries[i]);
		if (get(port, path, NULL, &rp) != 400)
			fail_msg("?%s: %d, not 400", queries[i], rp.status);
		assert_null(strstr(rp.body, "script"));
		assert_null(strstr(rp.body, "abc"));
		assert_null(strstr(rp.body, "zz"));
		assert_int_equal(rp.body[rp.blen - 1], '\n');
	}
	assert_int_equal(get(port, "/metrics?seconds=%zz", NULL, &rp), 400);
	assert_int_equal(get(port, "/debug/pprof/?debug=x", NULL, &rp), 400);
	assert_int_equal(get(port, "/metrics", NULL, &rp), 200);
	stop(p);
}

/* ---- limits ------------------------------------------------------------------ */

static void test_10k_header_refused_and_others_served(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	uint16_t port = srv_http_port(p->h);
	static char req[16384];
	struct reply rp;
	char pad[10 * 1024 + 1];
	int fd;

	(void)state;
	memset(pad, 'a', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	snprintf(req, sizeof(req), "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n", pad);
	fd = dial(port, NULL);
	send_all(fd, req, strlen(req)); /* the server may close before it has all */
	read_reply(fd, &rp);            /* to the end: the server closes */
	close(fd);
	if (rp.status != 431 && rp.status != 400)
		fail_msg("a 10 KB header: %d, not 431 or 400", rp.status);
	assert_true(rp.closed);
	/* a URL past the bound */
	memset(pad, 'b', 3000);
	pad[0] = '/';
	pad[3000] = '\0';
	assert_true(get(port, pad, NULL, &rp) == 414 || rp.status == 431);
	assert_int_equal(get(port, "/metrics", NULL, &rp), 200);
	stop(p);
}

struct slow {
	uint16_t port;
	size_t sent;          /* bytes the server took before it cut */
	bool cut;             /* the server closed the connection */
	pthread_t t;
};

/* Sends a request a byte a second, as a slow-loris client does: never
 * idle for long enough for an idle timeout, and never done. */
static void *slowloris(void *arg)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n\r\n";
	struct slow *s = arg;
	int fd = dial(s->port, NULL);

	for (s->sent = 0; s->sent < sizeof(req) - 1; s->sent++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char c;

		if (send(fd, req + s->sent, 1, MSG_NOSIGNAL) != 1)
			break;
		/* a second, or less if the server speaks (closes) first */
		if (poll(&pfd, 1, 1000) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0) {
			s->cut = true;
			break;
		}
	}
	if (!s->cut) {
		char c;

		s->cut = recv(fd, &c, 1, MSG_DONTWAIT) == 0 || errno == ECONNRESET ||
			 errno == EPIPE;
	}
	close(fd);
	return NULL;
}

static void test_slowloris_cut_while_others_served(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	struct slow s = { .port = srv_http_port(p->h) };
	struct reply rp;
	int served = 0;

	(void)state;
	assert_int_equal(pthread_create(&s.t, NULL, slowloris, &s), 0);
	for (int i = 0; i < 4; i++) {
		sleep(1);
		served += get(s.port, "/metrics", NULL, &rp) == 200;
	}
	pthread_join(s.t, NULL);
	assert_int_equal(served, 4);
	if (!s.cut)
		fail_msg("the slow client sent its whole request (%zu bytes) and was never cut",
			 s.sent);
	/* cut at the deadline (2 s), long before its 52 bytes */
	assert_true(s.sent < 10);
	stop(p);
}

static long rss_kb(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &pages, &resident), 2);
	fclose(f);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_thousand_connections_one_address_others_served(void **state)
{
	enum { N = 1000 };
	struct srv_http_opts o = { 0 };
	struct player *p;
	struct rlimit rl;
	static int fds[N];
	struct srv_http_stats st;
	struct reply rp;
	long before, after;
	uint16_t port;

	(void)state;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_max < N + 100) {
		print_message("skipped: %d connections need %d descriptors, the hard limit is "
			      "%lu\n", N, N + 100, (unsigned long)rl.rlim_max);
		skip();
	}
	if (rl.rlim_cur < N + 100) {
		rl.rlim_cur = N + 100;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	p = start(&o);
	port = srv_http_port(p->h);
	assert_int_equal(get(port, "/metrics", NULL, &rp), 200); /* warm: first allocations */
	before = rss_kb();
	for (int i = 0; i < N; i++) {
		fds[i] = dial(port, "127.0.0.1");
		/* half a request: each would hold its slot if it had one */
		send(fds[i], "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
	}
	/* another address is still served: 127.0.0.1 holds its share only */
	assert_int_equal(request(port, "127.0.0.2", "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				 "Connection: close\r\n\r\n", &rp), 200);
	srv_http_stats(p->h, &st);
	assert_true(st.connections <= 64);
	after = rss_kb();
	for (int i = 0; i < N; i++)
		close(fds[i]);
	/* the server kept no more than its limits: a few MB, not a slot per
	 * connection tried (each holds 8 KB and its state) */
	if (after - before > 8 * 1024)
		fail_msg("RSS grew %ld KB over %d connections", after - before, N);
	print_message("RSS %ld KB before, %ld KB with %d connections open\n", before, after, N);
	stop(p);
}

static void test_bind_error_names_the_address(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	struct srv_http_opts o2 = { 0 };
	struct srv_http *h2 = NULL;
	struct gs_error err = { 0 };
	char text[64];

	(void)state;
	o2.listen = o.listen;
	o2.listen.port = srv_http_port(p->h);
	snprintf(text, sizeof(text), "127.0.0.1:%u", (unsigned)o2.listen.port);
	snprintf(o2.listen.text, sizeof(o2.listen.text), "%s", text);
	assert_int_equal(srv_http_new(&o2, &h2, &err), -EADDRINUSE);
	assert_null(h2);
	assert_non_null(strstr(err.msg, text));
	assert_non_null(strstr(err.msg, "in use"));
	/* an address no interface has */
	memcpy(o2.listen.addr, (uint8_t[]){ 192, 0, 2, 1 }, 4);
	snprintf(o2.listen.text, sizeof(o2.listen.text), "192.0.2.1:%u", (unsigned)o2.listen.port);
	assert_int_equal(srv_http_new(&o2, &h2, &err), -EADDRNOTAVAIL);
	assert_non_null(strstr(err.msg, "192.0.2.1"));
	stop(p);
}

static void test_stop_answers_waiting_requests_503(void **state)
{
	struct srv_http_opts o = { 0 };
	struct player *p = start(&o);
	static struct fetch f[2];
	struct srv_http_stats st;

	(void)state;
	__atomic_store_n(&p->answer_profiles, false, __ATOMIC_RELEASE);
	fetch_start(&f[0], p, "/debug/pprof/profile?seconds=1");
	fetch_start(&f[1], p, "/debug/pprof/profile?seconds=60");
	/* both taken by the command's thread (held), then the agent stops */
	for (int i = 0; i < 50; i++) {
		srv_http_stats(p->h, &st);
		if (st.requests == 2 && __atomic_load_n(&p->nheld, __ATOMIC_ACQUIRE) == 2)
			break;
		usleep(100 * 1000);
	}
	stop(p);
	for (int i = 0; i < 2; i++)
		assert_int_equal(fetch_status(&f[i]), 503);
}

/* ---- TLS ----------------------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int run(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	return pclose(f);
}

static void test_tls_with_a_self_signed_certificate(void **state)
{
	char dir[] = "/tmp/gs-tls-XXXXXX", cmd[1024], out[16384];
	struct srv_http_opts o = { 0 };
	struct player *p;
	struct reply rp;
	uint16_t port;
	char *cert, *key;
	int rc;

	(void)state;
	if (system("openssl version >/dev/null 2>&1") != 0) {
		print_message("skipped: openssl is not installed (it makes the certificate and "
			      "is the client)\n");
		skip();
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
		 "-nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 "
		 "-keyout %s/key.pem -out %s/cert.pem 2>&1", dir, dir);
	rc = run(cmd, out, sizeof(out));
	if (rc != 0)
		fail_msg("openssl req: %s", out);
	snprintf(cmd, sizeof(cmd), "%s/cert.pem", dir);
	cert = slurp(cmd);
	snprintf(cmd, sizeof(cmd), "%s/key.pem", dir);
	key = slurp(cmd);
	o.tls_cert_pem = cert;
	o.tls_key_pem = key;
	{
		/* the static gstrace's libmicrohttpd has no TLS (static_notls.c) */
		struct srv_http_opts probe = o;
		struct srv_http *h = NULL;
		struct gs_error err = { 0 };

		probe.listen.family = AF_INET;
		memcpy(probe.listen.addr, (uint8_t[]){ 127, 0, 0, 1 }, 4);
		if (srv_http_new(&probe, &h, &err) == -ENOTSUP) {
			print_message("skipped: %s\n", err.msg);
			free(cert);
			free(key);
			skip();
		}
		srv_http_free(h);
	}
	p = start(&o);
	port = srv_http_port(p->h);
	/* the certificate checked against itself as the only authority */
	snprintf(cmd, sizeof(cmd), "printf 'GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n"
		 "Connection: close\\r\\n\\r\\n' | openssl s_client -connect 127.0.0.1:%u "
		 "-CAfile %s/cert.pem -verify_return_error -verify_ip 127.0.0.1 -quiet 2>&1",
		 (unsigned)port, dir);
	rc = run(cmd, out, sizeof(out));
	if (rc != 0 || !strstr(out, "HTTP/1.1 200 OK") || !strstr(out, "up 1"))
		fail_msg("openssl s_client (%d): %s", rc, out);
	/* plain HTTP on the TLS port is not served */
	assert_true(get(port, "/metrics", NULL, &rp) != 200);
	assert_null(strstr(rp.body, "up 1"));
	stop(p);
	/* a key that is not one: refused at start, saying what to check */
	{
		struct srv_http_opts bad = o;
		struct srv_http *h = NULL;
		struct gs_error err = { 0 };

		bad.tls_key_pem = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n";
		assert_true(srv_http_new(&bad, &h, &err) < 0);
		assert_null(h);
		assert_non_null(strstr(err.msg, "--serve-tls-key"));
		bad.tls_key_pem = NULL;
		assert_int_equal(srv_http_new(&bad, &h, &err), -EINVAL);
	}
	free(cert);
	free(key);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_answered_by_the_command_thread),
		cmocka_unit_test(test_two_profiles_at_once_both_answered),
		cmocka_unit_test(test_profile_seconds_default_and_capped),
		cmocka_unit_test(test_connection_kept_for_the_next_request),
		cmocka_unit_test(test_index_pages),
		cmocka_unit_test(test_unknown_path_is_a_fixed_404),
		cmocka_unit_test(test_other_methods_405_and_bodies_refused),
		cmocka_unit_test(test_token_required),
		cmocka_unit_test(test_malformed_queries_400_and_server_lives),
		cmocka_unit_test(test_10k_header_refused_and_others_served),
		cmocka_unit_test(test_slowloris_cut_while_others_served),
		cmocka_unit_test(test_thousand_connections_one_address_others_served),
		cmocka_unit_test(test_bind_error_names_the_address),
		cmocka_unit_test(test_stop_answers_waiting_requests_503),
		cmocka_unit_test(test_tls_with_a_self_signed_certificate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
