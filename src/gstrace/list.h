/* The listing actions of the command line (-l, --list-vars). */
#ifndef GS_CLI_LIST_H
#define GS_CLI_LIST_H

#include "options.h"

/* Lists what cli asks; the exit status (0, 1 runtime failure, 2 bad input). */
int cli_list(const struct cli *cli);

#endif /* GS_CLI_LIST_H */
