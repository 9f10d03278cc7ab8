/* The interactive mode (gstrace --tui, docs/tui.md): the tui layer's one
 * entry. The command (src/gstrace) finds the target, launches a command
 * when asked, and hands over; the mode runs until the user quits, a signal
 * ends it, or an error does, and leaves the terminal as it found it. Not
 * installed, not exported. */
#ifndef GS_INTERNAL_TUI_H
#define GS_INTERNAL_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <gs/error.h>
#include <gs/modfile.h>
#include <gs/program.h>

struct gs_tui_opts {
	pid_t pid;                /* -p or the launched command's; 0: -t alone */
	const char *module;       /* -t PATH, or NULL */
	const char *exe;          /* the program shown in the title: its path */
	const struct gs_program_opts *program;
	struct gs_modfiles *files;
	bool force_tracefs, no_multi_link, no_demangle;
	/* Traces to start with (-s, --script-file), or NULL. */
	const char *script;
	size_t script_len;
	const char *script_name;
	const char *const *srcpaths; /* --srcpath values */
	size_t nsrcpaths;
	size_t history;              /* output lines kept; 0: 10,000 */
	/* Called once the first traces are attached (launch mode lets the
	 * command run): 0, or -errno with err set. NULL: nothing to do. */
	int (*started)(void *arg, struct gs_error *err);
	/* Polled a few times a second: true once the target has ended, with
	 * why in msg. NULL: never. */
	bool (*target_ended)(void *arg, char *msg, size_t size);
	void *arg;
	/* A descriptor whose lines (the launched command's output) the output
	 * panel shows, or -1. */
	int command_output_fd;
};

/* Runs the interactive mode: 0 when the user quit, 1 when an error ended
 * it (said on stderr once the terminal is restored), 2 when the terminal
 * cannot hold it (not a terminal, smaller than 80x24: said why). */
int gs_tui_run(const struct gs_tui_opts *o);

#endif /* GS_INTERNAL_TUI_H */
