/* --config FILE (config.c): a YAML mapping of gstrace's long flags
 * without their dashes (`serve: 127.0.0.1:9464`, `all: true`,
 * `serve-label: [env=prod, team=db]`), turned into the words of a command
 * line that the one parser reads before argv's, so the command line wins
 * where both give a flag that takes one value. */
#ifndef CLI_CONFIG_H
#define CLI_CONFIG_H

#include <stddef.h>

#include "options.h"

/* A config file is flags: more is not one (a mistaken path to a log). */
#define CLI_CONFIG_MAX_BYTES (1u << 20)

/* The words a run's flags came from: the file's, and the argv the parser
 * read (argv[0], the file's words, then the command line's), which struct
 * cli points into. Zero is empty. */
struct cli_words {
	char **v;      /* the file's words, each malloc'd */
	size_t n, cap;
	char **argv;   /* NULL-terminated, argc words; NULL without a file */
	int argc;
};

/* The words len bytes of YAML text stand for (name: the file, for
 * messages), appended to w: `--name=value` or `--name` each, every value
 * checked as the parser checks the flag's. 0, or -EINVAL with one line in
 * msg: `NAME:LINE: what is wrong and the fix`. */
int cli_config_words(const char *text, size_t len, const char *name, struct cli_words *w,
		     char *msg, size_t size);

/* cli_parse, with --config FILE read first: the file's flags, then argv's
 * (argv as cli_parse takes it). keep owns what *out points into: free it
 * with cli_words_free after the last use of *out. 0, or -EINVAL with msg
 * (a file that cannot be read, is over CLI_CONFIG_MAX_BYTES or is no
 * config: NAME:LINE and the fix). */
int cli_parse_config(int argc, char *const *argv, struct cli *out, struct cli_words *keep,
		     char *msg, size_t size);
void cli_words_free(struct cli_words *w);

#endif /* CLI_CONFIG_H */
