/* Runs the gstrace binary the build made ($GSTRACE_BIN, which meson sets)
 * and keeps what it said: the tests of the command line state an argv and
 * the exit status, stdout and stderr it must give. */
#ifndef GS_TEST_RUN_GSTRACE_H
#define GS_TEST_RUN_GSTRACE_H

struct ran {
	int status; /* the exit status, or 128 + the signal that ended it */
	char *out, *err; /* all it wrote, NUL-terminated, malloc'd */
};

/* Runs gstrace with argv (NULL-terminated; argv[0] is set to the binary)
 * and waits for it. r is zeroed or holds an earlier run, whose strings are
 * freed first, so one r serves a test's runs in turn. stderr is read after
 * stdout: a run that writes more than a pipe holds to stderr would block.
 * A failure to start it fails the test. */
void run_gstrace(char **argv, struct ran *r);

/* Frees r's strings and zeroes it. */
void ran_free(struct ran *r);

#endif /* GS_TEST_RUN_GSTRACE_H */
