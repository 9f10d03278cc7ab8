/* The agent: what --serve starts beside a run. Its HTTP server queues the
 * requests that need the session; here, on the command's thread, each is
 * answered (a scrape at once, a profile once its seconds are over) and the
 * stacks counted in BPF are drained when due. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gs/formats.h>

#include "serve_int.h"

/* A certificate or key file: PEM text, a few KiB. */
#define PEM_MAX (1u << 20)

struct srv_agent {
	struct srv_opts opts;
	struct srv_ctx ctx;
	struct srv_profiler *prof;
	char *token;
	size_t token_len;
	char *tls_cert, *tls_key;
	int stats_fd;
};

/* A PEM file read whole into a NUL-terminated buffer. */
static int read_pem(const char *path, const char *flag, char **out, struct gs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t got = 0;

	*out = NULL;
	if (fd < 0)
		return gs_errorf(err, -EINVAL, "%s %s: %s", flag, path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > PEM_MAX) {
		close(fd);
		return gs_errorf(err, -EINVAL, "%s %s: not a PEM file of at most %u KiB", flag,
				 path, PEM_MAX >> 10);
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return gs_errorf(err, -ENOMEM, "out of memory reading %s", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if (got != (size_t)st.st_size || !strstr(buf, "-----BEGIN ")) {
		free(buf);
		return gs_errorf(err, -EINVAL, "%s %s: not a PEM file (no -----BEGIN line)", flag,
				 path);
	}
	*out = buf;
	return 0;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* What the agent needs before it binds: the token and the TLS files. */
static int check_opts(struct srv_agent *a, struct gs_error *err)
{
	const struct srv_opts *o = &a->opts;
	int rc;

	if (!srv_listen_loopback(&o->listen) && !o->token_file)
		return gs_errorf(err, -EINVAL, "--serve %s is not a loopback address: anyone who "
				 "reaches it could read the traced processes' stacks; give "
				 "--serve-token FILE (a bearer token, mode 0600), or serve on "
				 "127.0.0.1", o->listen.text);
	if (!o->tls_cert != !o->tls_key)
		return gs_errorf(err, -EINVAL, "TLS needs both --serve-tls-cert FILE and "
				 "--serve-tls-key FILE");
	if ((rc = srv_labels_parse(o->labels, o->nlabels, &a->ctx.labels, err)))
		return rc;
	if (o->token_file && (rc = srv_token_read(o->token_file, &a->token, &a->token_len, err)))
		return rc;
	if (o->tls_cert && ((rc = read_pem(o->tls_cert, "--serve-tls-cert", &a->tls_cert, err)) ||
			    (rc = read_pem(o->tls_key, "--serve-tls-key", &a->tls_key, err))))
		return rc;
	return 0;
}

int srv_agent_new(const struct srv_opts *o, struct srv_agent **out, struct gs_error *err)
{
	struct srv_agent *a = calloc(1, sizeof(*a));
	struct srv_http_opts ho;
	int rc;

	*out = NULL;
	if (!a)
		return gs_errorf(err, -ENOMEM, "out of memory starting the agent");
	a->opts = *o;
	a->stats_fd = -1;
	a->ctx.opts = &a->opts;
	a->ctx.start_realtime_ns = realtime_ns();
	if ((rc = check_opts(a, err)))
		goto fail;
	ho = (struct srv_http_opts){
		.listen = o->listen, .token = a->token, .token_len = a->token_len,
		.tls_cert_pem = a->tls_cert, .tls_key_pem = a->tls_key,
		.max_seconds = o->max_seconds ? o->max_seconds : SRV_DEFAULT_MAX_SECONDS,
	};
	/* The kernel's run time of each program, for the health metrics; a
	 * kernel without it (before 5.8) shows 0. */
	a->stats_fd = gs_bpf_run_stats_enable(&(struct gs_error){ 0 });
	if ((rc = srv_profiler_new(&a->ctx, &a->prof, err)) ||
	    (rc = srv_http_new(&ho, &a->ctx.http, err)) ||
	    (rc = gs_session_wake_on(o->session, srv_http_fd(a->ctx.http), err)))
		goto fail;
	*out = a;
	return 0;
fail:
	srv_agent_free(a);
	return rc;
}

/* A scrape: the exposition now. */
static int answer_metrics(struct srv_agent *a, struct srv_request *r)
{
	static const char failed[] = "gstrace: the metrics could not be read\n";
	const struct gs_output_format *f = gs_output_format(r->openmetrics ? GS_OUTPUT_OPENMETRICS :
							     GS_OUTPUT_PROMETHEUS);
	char *body = NULL;
	size_t len = 0;
	struct gs_error err = { 0 };
	int rc = srv_metrics_render(&a->ctx, r->openmetrics, &body, &len, &err);

	if (rc) {
		free(body);
		srv_http_answer(a->ctx.http, r, 500, "text/plain; charset=utf-8", NULL,
				strdup(failed), sizeof(failed) - 1);
		/* the scraper sees the failure; the run goes on (a map read
		 * that failed once may work at the next scrape) */
		return 0;
	}
	srv_http_answer(a->ctx.http, r, 200, f->content_type, NULL, body, len);
	return 0;
}

int srv_agent_work(struct srv_agent *a, struct gs_error *err)
{
	struct srv_request *r;
	int rc = 0;

	while (rc == 0 && (r = srv_http_next(a->ctx.http)))
		rc = r->route == SRV_ROUTE_METRICS ? answer_metrics(a, r) :
						     srv_profiler_add(a->prof, r, err);
	return rc ? rc : srv_profiler_tick(a->prof, err);
}

int srv_agent_wait_ms(const struct srv_agent *a)
{
	return srv_profiler_wait_ms(a->prof);
}

int srv_agent_finish(struct srv_agent *a, struct gs_error *err)
{
	return srv_profiler_finish(a->prof, err);
}

void srv_agent_free(struct srv_agent *a)
{
	if (!a)
		return;
	/* the server first: nothing is queued for a profiler that is gone */
	srv_http_free(a->ctx.http);
	srv_profiler_free(a->prof);
	if (a->stats_fd >= 0)
		close(a->stats_fd);
	if (a->token) {
		memset(a->token, 0, a->token_len);
		free(a->token);
	}
	free(a->tls_cert);
	if (a->tls_key) {
		memset(a->tls_key, 0, strlen(a->tls_key));
		free(a->tls_key);
	}
	free(a);
}
