/* Embedding libgs: trace FUNCTION in process PID and print each hit, its
 * backtrace symbolized, exactly as gstrace prints it, COUNT times (default
 * 1). Build: cc embed.c $(pkg-config --cflags --libs libgs) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gs/frames.h>
#include <gs/print.h>
#include <gs/runtime.h>
#include <gs/version.h>

struct run { struct gs_frames *frames; struct gs_printer *out; int hits, want; };

static int on_event(void *arg, const struct gs_event *ev)
{
	struct run *r = arg;

	r->hits++;
	gs_print_event(r->out, ev, stdout); /* gstrace's pretty layout */
	return r->hits >= r->want; /* non-zero ends the poll */
}

int main(int argc, char **argv)
{
	pid_t pid = argc > 2 ? atoi(argv[1]) : 0;
	int rc, waits = 0;
	struct gs_script *script = NULL;
	struct gs_plan *plan = NULL;
	struct gs_session *session = NULL;
	struct gs_error err = { 0 };
	struct run r = { .want = argc > 3 ? atoi(argv[3]) : 1 };
	char text[256];

	if (pid <= 0)
		return fprintf(stderr, "usage: %s PID FUNCTION [COUNT]\n", argv[0]), 2;
	printf("libgs %s (headers %s)\n", gs_version(), GS_VERSION);
	snprintf(text, sizeof(text), "trace %s { bt; }", argv[2]);
	GS_OPTS(gs_program_opts, prog, .filter_pid = (uint32_t)pid);
	GS_OPTS(gs_plan_opts, popts, .pid = pid, .program = &prog);
	GS_OPTS(gs_frames_opts, fopts, .pid = pid);
	GS_OPTS(gs_session_opts, sopts, .on_event = on_event, .arg = &r);
	/* Lifetimes: the script outlives the plan, the plan the session. */
	rc = gs_script_parse(text, strlen(text), NULL, &script, &err);
	if (!rc)
		rc = gs_plan_from_script(script, &popts, &plan, &err);
	if (!rc) {
		fopts.files = gs_plan_modfiles(plan); /* the files (and debug files) it read */
		rc = gs_frames_new(&fopts, &r.frames, &err);
	}
	if (!rc) {
		GS_OPTS(gs_printer_opts, pr, .frames = r.frames);
		rc = gs_printer_new(&pr, &r.out, &err);
	}
	if (!rc)
		rc = gs_session_new(&sopts, &session, &err);
	if (!rc && (rc = gs_session_start(session, plan, &err)) > 0)
		printf("attached %d probe(s) to %s in pid %d\n", rc, argv[2], (int)pid);
	while (rc >= 0 && r.hits < r.want && waits++ < 30) /* 30 s at most */
		rc = gs_session_poll(session, 1000, &err);
	if (rc < 0)
		fprintf(stderr, "embed: %s\n", err.msg);
	gs_session_free(session);
	gs_printer_free(r.out);
	gs_frames_free(r.frames);
	gs_plan_free(plan);
	gs_script_free(script);
	return rc < 0 || r.hits < r.want;
}
