/* Messages of the gstrace command on stderr. Paths and names in them may
 * come from the target (a module path, a command name), so terminal
 * controls are escaped (gs/render.h); line breaks stay. */
#ifndef CLI_SAY_H
#define CLI_SAY_H

/* prefix (not escaped: "gstrace: " or ""), the formatted text, '\n'. */
__attribute__((format(printf, 2, 3)))
void cli_say(const char *prefix, const char *fmt, ...);

#endif /* CLI_SAY_H */
