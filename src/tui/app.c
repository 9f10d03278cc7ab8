/* The interactive mode's loop: one poll over the terminal, the live
 * session's events, the signals and the launched command's output; keys
 * first (their effect drawn at once), then events until the next redraw
 * is due or a key waits, then a redraw at most 30 times a second. Events
 * are always delivered and counted; under load only their rendering is
 * skipped (the history holds the newest anyway). */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NCURSES_WIDECHAR 1
#include <curses.h>

#include <gs/frames.h>
#include <gs/internal/tui.h>
#include <gs/modfile.h>
#include <gs/runtime.h>
#include <gs/script.h>

#include "base.h"
#include "app.h"
#include "fuzzy.h"

#define DRAW_INTERVAL_NS 33000000ll     /* at most 30 redraws a second */
#define RENDER_WINDOW_NS 100000000ll    /* rendering may take ... */
#define RENDER_BUDGET_NS 40000000ll     /* ... this much of each 100 ms */
#define INT_AGAIN_NS 2000000000ll       /* Ctrl-C twice within this quits */
#define TICK_NS 1000000000ll            /* the rate, losses, the target's exit */

static int signal_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int saved = errno;

	if (write(signal_pipe[1], &c, 1) < 0) {
		/* full: a signal is waiting already */
	}
	errno = saved;
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Every event counts; it is rendered while rendering stays within its
 * budget of the current window. */
static int on_event(void *arg, const struct gs_event *ev)
{
	struct tui_app *a = arg;
	int64_t t0 = base_now_ns();
	long len;

	a->events++;
	a->rate_events++;
	if (a->adds_pending)
		tui_app_note_event(a, (uint32_t)ev->trace_id, t0);
	if (t0 - a->render_window_ns >= RENDER_WINDOW_NS) {
		a->render_window_ns = t0;
		a->render_spent_ns = 0;
	}
	if (a->render_spent_ns >= RENDER_BUDGET_NS) {
		a->unrendered++;
		return 0;
	}
	rewind(a->render);
	gs_print_event(a->printer, ev, a->render);
	fflush(a->render);
	len = ftell(a->render);
	if (len > 0 && tui_outbuf_add(a->out, (uint32_t)ev->trace_id, TUI_LINE_HEADER,
				      a->render_buf, (size_t)len))
		a->unrendered++;
	a->render_spent_ns += base_now_ns() - t0;
	a->dirty = true;
	return 0;
}

/* ---- the loop ---------------------------------------------------------- */

static void quit_or_warn(struct tui_app *a)
{
	int64_t now = base_now_ns();

	if (a->last_int_ns && now - a->last_int_ns < INT_AGAIN_NS) {
		a->quit = true;
		return;
	}
	a->last_int_ns = now;
	tui_app_notice(a, "press Ctrl-C again to quit (or type quit)");
}

static void handle_signals(struct tui_app *a)
{
	unsigned char sigs[16];
	ssize_t n = read(signal_pipe[0], sigs, sizeof(sigs));

	for (ssize_t i = 0; i < n; i++) {
		if (sigs[i] == SIGINT)
			quit_or_warn(a);
		else if (sigs[i] == SIGTERM || sigs[i] == SIGHUP)
			a->quit = true;
	}
}

/* Every key waiting; true when there was one. */
static bool handle_keys(struct tui_app *a)
{
	bool any = false;
	wint_t wc;
	int r;

	while ((r = get_wch(&wc)) != ERR) {
		any = true;
		if (r == OK && wc == 3) { /* Ctrl-C in raw mode */
			quit_or_warn(a);
			continue;
		}
		tui_keys_handle(a, (int)wc, r == OK);
		a->dirty = true;
	}
	return any;
}

/* Whether a key or a signal waits: reading events gives way to it. */
static bool input_waits(void)
{
	struct pollfd fds[2] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = signal_pipe[0], .events = POLLIN },
	};

	return poll(fds, 2, 0) > 0 && ((fds[0].revents | fds[1].revents) & POLLIN);
}

/* The launched command's output, a line at a time. */
static void read_command_output(struct tui_app *a, int *fd)
{
	char buf[4096];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0) {
		tui_outbuf_add(a->out, 0, TUI_LINE_MESSAGE, buf, (size_t)n);
		a->dirty = true;
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(*fd);
		*fd = -1;
	}
}

/* Events until none is left, a key or a signal waits, or it is `until`
 * (the next redraw): a producer faster than the reader would otherwise
 * keep the loop here. One pass at least, so a late turn still reads. */
static void read_events(struct tui_app *a, int64_t until)
{
	struct gs_error err = { 0 };
	int n;

	do {
		n = gs_live_poll(a->live, 0, &err);
	} while (n > 0 && base_now_ns() < until && !input_waits());
	if (n < 0 && n != -EINTR) {
		snprintf(a->fatal, sizeof(a->fatal), "reading events failed: %s", err.msg);
		a->status = 1;
		a->quit = true;
	}
}

/* Once a second: the rate, the losses, whether the target is still there. */
static void tick(struct tui_app *a, int64_t now)
{
	struct gs_error err;
	uint64_t lost;
	char why[GS_ERROR_MSG_MAX];

	if (now - a->rate_since_ns < TICK_NS)
		return;
	a->rate = (double)a->rate_events * 1e9 / (double)(now - a->rate_since_ns);
	a->redraw_rate = (double)(a->redraws - a->rate_redraws) * 1e9 /
			 (double)(now - a->rate_since_ns);
	a->rate_redraws = a->redraws;
	a->rate_events = 0;
	a->rate_since_ns = now;
	if (gs_live_lost(a->live, &lost, &err) == 0)
		a->lost = lost;
	a->dirty = true;
	if (a->target_ended || !a->opts->target_ended ||
	    !a->opts->target_ended(a->opts->arg, why, sizeof(why)))
		return;
	a->target_ended = true;
	read_events(a, now + DRAW_INTERVAL_NS);
	for (size_t i = 0; i < gs_live_count(a->live); i++) {
		struct gs_live_trace_info ti;

		if (gs_live_trace_info(a->live, i, &ti) == 0 && ti.state == GS_LIVE_ENABLED)
			gs_live_enable(a->live, ti.id, false, &err);
	}
	tui_app_mark_traces(a);
	tui_outbuf_add(a->out, 0, TUI_LINE_ERROR, why, strlen(why));
	tui_app_answer(a, TUI_LINE_ERROR, "%s: every trace is detached; the output stays "
		       "(save output FILE), quit with `quit`", why);
}

static void draw(struct tui_app *a, int64_t *last_draw)
{
	tui_view_draw(a);
	a->redraws++;
	a->dirty = false;
	*last_draw = base_now_ns();
}

static void run_loop(struct tui_app *a, int cmd_fd)
{
	int64_t last_draw = 0;

	while (!a->quit) {
		struct pollfd fds[4] = {
			{ .fd = STDIN_FILENO, .events = POLLIN },
			{ .fd = signal_pipe[0], .events = POLLIN },
			{ .fd = gs_live_fd(a->live), .events = POLLIN },
			{ .fd = cmd_fd, .events = POLLIN },
		};
		int64_t now = base_now_ns();
		/* Events wake it through the live descriptor (readable on the
		 * live session's tick while a trace runs); otherwise it sleeps
		 * until a redraw or the once-a-second tick is due. */
		int64_t wait = a->rate_since_ns + TICK_NS - now;

		if (a->dirty && last_draw + DRAW_INTERVAL_NS - now < wait)
			wait = last_draw + DRAW_INTERVAL_NS - now;
		poll(fds, cmd_fd >= 0 ? 4 : 3, wait > 0 ? (int)(wait / 1000000) + 1 : 0);
		if (fds[1].revents & POLLIN)
			handle_signals(a);
		/* a key's effect is not held back by the events' redraw rate */
		if (handle_keys(a) && !a->quit)
			draw(a, &last_draw);
		if (a->quit)
			break;
		read_events(a, last_draw + DRAW_INTERVAL_NS);
		if (cmd_fd >= 0 && (fds[3].revents & (POLLIN | POLLHUP)))
			read_command_output(a, &cmd_fd);
		now = base_now_ns();
		tick(a, now);
		if (a->dirty && now - last_draw >= DRAW_INTERVAL_NS)
			draw(a, &last_draw);
	}
}

/* ---- setup and teardown ------------------------------------------------ */

static int install_signals(void)
{
	struct sigaction sa;

	if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static int make_printer(struct tui_app *a, struct gs_error *err)
{
	const char *modules[1] = { a->opts->module ? a->opts->module : a->opts->exe };
	struct gs_frames_opts fo = {
		.sz = sizeof(fo), .pid = a->opts->pid, .modules = modules,
		.nmodules = modules[0] ? 1 : 0, .files = a->opts->files,
		.no_demangle = a->opts->no_demangle,
	};
	struct gs_printer_opts po = {
		.sz = sizeof(po), .format = GS_PRINT_PRETTY, .timestamp = GS_PRINT_TIME_LOCAL,
		.boot_realtime_ns = 0,
	};
	int rc = gs_frames_new(&fo, &a->frames, err);

	if (rc)
		return rc;
	po.boot_realtime_ns = realtime_ns() - base_now_ns();
	po.frames = a->frames;
	rc = gs_printer_new(&po, &a->printer, err);
	if (rc)
		return rc;
	a->render = open_memstream(&a->render_buf, &a->render_size);
	return a->render ? 0 : gs_errorf(err, -ENOMEM, "out of memory rendering events");
}

static int make_live(struct tui_app *a, struct gs_error *err)
{
	struct gs_live_opts lo = {
		.sz = sizeof(lo), .pid = a->opts->pid, .module = a->opts->module,
		.program = a->opts->program, .files = a->opts->files,
		.force_tracefs = a->opts->force_tracefs, .no_multi_link = a->opts->no_multi_link,
		.on_event = on_event, .arg = a,
	};

	return gs_live_new(&lo, &a->live, err);
}

static void app_free(struct tui_app *a)
{
	gs_live_free(a->live);
	if (a->render)
		fclose(a->render);
	free(a->render_buf);
	gs_printer_free(a->printer);
	gs_frames_free(a->frames);
	gs_sources_free(a->sources);
	tui_srcpath_fini(&a->srcpath);
	tui_outbuf_free(a->out);
	tui_outbuf_free(a->answers);
	tui_srcview_fini(&a->src);
	tui_lineedit_fini(&a->cmd);
	tui_lineedit_fini(&a->prompt);
	tui_editor_fini(&a->editor);
}

/* Everything before the screen opens: a wrong script or flag is said on
 * stderr, as the line mode says it (exit 2). */
static int prepare(struct tui_app *a, const struct gs_tui_opts *o)
{
	struct gs_error err = { 0 };
	const char *report;

	a->opts = o;
	a->src_file = -1;
	a->no_color = getenv("NO_COLOR") && getenv("NO_COLOR")[0];
	a->rate_since_ns = base_now_ns();
	tui_srcview_init(&a->src);
	tui_lineedit_init(&a->cmd, 0);
	tui_lineedit_init(&a->prompt, 50);
	tui_editor_init(&a->editor);
	tui_srcpath_init(&a->srcpath);
	a->out = tui_outbuf_new(o->history);
	a->answers = tui_outbuf_new(1000);
	if (!a->out || !a->answers) {
		fprintf(stderr, "gstrace: out of memory starting the interactive mode\n");
		return 1;
	}
	for (size_t i = 0; i < o->nsrcpaths; i++)
		if (tui_srcpath_arg(&a->srcpath, o->srcpaths[i])) {
			fprintf(stderr, "gstrace: --srcpath %s: give absolute paths (FROM=TO or "
				"DIR)\n", o->srcpaths[i]);
			return 2;
		}
	if (make_printer(a, &err) || make_live(a, &err)) {
		fprintf(stderr, "gstrace: %s\n", err.msg);
		return 1;
	}
	if (o->script && gs_live_add(a->live, o->script, o->script_len, o->script_name, false,
				     NULL, 0, NULL, &err)) {
		fprintf(stderr, "%s%s\n", base_has_prefix(err.msg, "trace #") ? "gstrace: " : "",
			err.msg);
		report = gs_live_report(a->live);
		if (report && report[0])
			fprintf(stderr, "%s\n", report);
		return err.code == -EINVAL || err.code == -ENOENT ? 2 : 1;
	}
	if (o->started && o->started(o->arg, &err)) {
		fprintf(stderr, "gstrace: %s\n", err.msg);
		return 1;
	}
	tui_app_load_sources(a);
	return 0;
}

int gs_tui_run(const struct gs_tui_opts *o)
{
	struct tui_app a;
	char msg[GS_ERROR_MSG_MAX];
	int rc, cmd_fd = o->command_output_fd;

	memset(&a, 0, sizeof(a));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "gstrace: --tui needs a terminal on stdin and stdout; run it in "
			"one (or drop --tui and print events as lines)\n");
		return 2;
	}
	rc = install_signals();
	if (rc == 0)
		rc = prepare(&a, o);
	if (rc) {
		app_free(&a);
		return rc < 0 ? 1 : rc;
	}
	if (cmd_fd >= 0)
		fcntl(cmd_fd, F_SETFL, fcntl(cmd_fd, F_GETFL) | O_NONBLOCK);
	if (tui_view_init(&a, msg, sizeof(msg))) {
		app_free(&a);
		fprintf(stderr, "gstrace: %s\n", msg);
		return 2;
	}
	if (gs_sources_count(a.sources))
		tui_app_open_file(&a, tui_app_first_file(&a));
	tui_app_answer(&a, TUI_LINE_MESSAGE, "gstrace %s: `help` lists the commands, F1 the "
		       "keys; %zu source files", o->exe ? o->exe : "", gs_sources_count(a.sources));
	a.dirty = true;
	run_loop(&a, cmd_fd);
	tui_view_fini();
	if (a.fatal[0])
		fprintf(stderr, "gstrace: %s\n", a.fatal);
	app_free(&a);
	if (cmd_fd >= 0)
		close(cmd_fd);
	return a.status;
}
