/* The help of the command panel (command.h): one line per command, built
 * once from the table of command_table.c, and each command's own text. */
#include <stdio.h>
#include <string.h>

#include "command_int.h"

static char listing[4096];

/* One line of the listing for d: its usage, what it does. */
static size_t list_one(size_t used, const struct cmd_def *d)
{
	if (used >= sizeof(listing))
		return used;
	return used + (size_t)snprintf(listing + used, sizeof(listing) - used, "  %-28s %s\n",
				       d->usage, d->summary);
}

/* Every command, those with subcommands as one line each. */
static const char *list_all(void)
{
	size_t used;

	if (listing[0])
		return listing;
	used = (size_t)snprintf(listing, sizeof(listing),
				"Commands (any unambiguous prefix will do: i f main):\n");
	for (size_t i = 0; i < tui_cmd_ntop; i++) {
		const struct cmd_def *d = &tui_cmd_top[i];

		if (!d->sub)
			used = list_one(used, d);
		if (d->bare)
			used = list_one(used, d->bare);
		for (size_t k = 0; k < d->nsub; k++)
			used = list_one(used, &d->sub[k]);
	}
	if (used < sizeof(listing))
		snprintf(listing + used, sizeof(listing) - used,
			 "help COMMAND tells more (help info line).\n");
	return listing;
}

const char *tui_cmd_help(const char *command)
{
	const struct cmd_def *defs = tui_cmd_top, *d = NULL;
	size_t ndefs = tui_cmd_ntop;
	char word[32];

	if (!command || !*command)
		return list_all();
	/* One word after the other: "info", "info line". */
	while (*command) {
		size_t n = strcspn(command, " ");
		bool amb;

		if (!defs || n >= sizeof(word))
			return NULL;
		memcpy(word, command, n);
		word[n] = '\0';
		d = tui_cmd_lookup(defs, ndefs, word, &amb);
		if (!d)
			return NULL;
		defs = d->sub;
		ndefs = d->nsub;
		command += n;
		command += strspn(command, " ");
	}
	return d ? d->help : NULL;
}
