/* libFuzzer target for the interactive mode's command panel and the text
 * it shows: any bytes, as a command line, either parse into a command
 * whose arguments fit its kind or fail with a message; completion of
 * every prefix gives words of the level typed; and the same bytes, added
 * to the output panel or loaded as a source file, come out as valid UTF-8
 * without a control byte (what reaches the terminal). Never a crash or a
 * leak. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "outbuf.h"
#include "smoke.h"
#include "srcview.h"

#define FUZZ_COMPLETE_MAX 512 /* prefixes completed: each is a split */

static void check_parse(const char *line)
{
	struct tui_cmd c;
	char msg[256];
	int rc = tui_cmd_parse(line, &c, msg, sizeof(msg));

	if (rc) {
		if ((rc != -EINVAL && rc != -ENOMEM) || !msg[0] || c.arg || c.arg2 ||
		    c.kind != TUI_CMD_NONE)
			abort();
		return;
	}
	if (c.kind > TUI_CMD_QUIT || (c.arg2 && !c.arg))
		abort();
	if ((c.kind == TUI_CMD_SRCPATH_MAP) != (c.arg2 != NULL))
		abort();
	if (c.kind == TUI_CMD_EDIT && !c.id)
		abort();
	if (c.kind == TUI_CMD_INFO_LINE && !strchr(c.arg, ':'))
		abort();
	tui_cmd_fini(&c);
}

static void check_complete(const char *line, size_t len)
{
	const char *words[16];

	for (size_t n = 0; n <= len && n < FUZZ_COMPLETE_MAX; n++) {
		size_t nwords = 99;
		enum tui_complete_kind k = tui_cmd_complete(line, n, words, 16, &nwords);

		if (k > TUI_COMPLETE_NOTHING || nwords > 16 ||
		    (k != TUI_COMPLETE_WORDS && nwords))
			abort();
		for (size_t i = 0; i < nwords; i++)
			if (!words[i] || !words[i][0])
				abort();
	}
}

/* Valid UTF-8 with no C0, DEL or C1 control: safe to draw. */
static void check_shown(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80 ? 1 : *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;

		if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && *p < 0xc2) || *p > 0xf4)
			abort();
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			abort();
		for (size_t i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				abort();
		p += n;
	}
}

static void check_escaping(const char *data, size_t size)
{
	struct tui_outbuf *o = tui_outbuf_new(8);
	struct tui_srcview v;

	if (!o)
		abort();
	if (tui_outbuf_add(o, 1, TUI_LINE_HEADER, data, size))
		abort();
	for (size_t i = 0; i < tui_outbuf_count(o); i++)
		check_shown(tui_outbuf_line(o, i)->text);
	tui_outbuf_free(o);
	tui_srcview_init(&v);
	if (tui_srcview_load(&v, "f.c", "f.c", data, size))
		abort();
	for (size_t i = 0; i < v.nlines; i++)
		check_shown(v.lines[i]);
	tui_srcview_fini(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);

	if (!line)
		abort();
	memcpy(line, data, size);
	line[size] = '\0';
	check_parse(line);
	check_complete(line, strlen(line));
	check_escaping(line, size);
	free(line);
	return 0;
}
