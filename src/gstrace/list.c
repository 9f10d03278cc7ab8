/* `gstrace -l PATTERN` and `gstrace --list-vars TARGET`: the runtime's
 * listings on stdout (or -o FILE), with gstrace's exit statuses. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gs/modfile.h>
#include <gs/runtime.h>

#include "cachedir.h"
#include "list.h"
#include "outfile.h"
#include "say.h"

int cli_list(const struct cli *cli)
{
	struct gs_list_opts o = { .sz = sizeof(o), .pid = cli->pid, .module = cli->target };
	struct gs_modfiles_opts mo = { .sz = sizeof(mo), .debug_dirs = cli->debug_dirs };
	struct gs_error err = { 0 };
	struct cli_cache cache;
	char msg[GS_ERROR_MSG_MAX];
	FILE *f = stdout;
	int rc;

	/* the module files of the run, with the cache of function indexes */
	mo.cfi_cache_dir = cli_cache_dir(cli, &cache);
	mo.cache_max_bytes = cache.max_bytes;
	if (gs_modfiles_new(&mo, &o.files, &err)) {
		fprintf(stderr, "gstrace: %s\n", err.msg);
		return err.code == -ENOMEM ? 1 : 2;
	}

	if (cli->output && cli_open_write("-o", cli->output, &f, msg, sizeof(msg))) {
		cli_say("gstrace: ", "%s", msg);
		gs_modfiles_free(o.files);
		return 2;
	}
	if (cli->list_functions)
		rc = gs_list_functions(cli->list_functions, &o, f, &err);
	else
		rc = gs_list_vars(cli->list_vars, &o, f, &err);
	if ((fflush(f) || ferror(f)) && rc == 0)
		rc = gs_errorf(&err, -EIO, "cannot write the listing: %s", strerror(errno));
	if (f != stdout)
		fclose(f);
	gs_modfiles_free(o.files);
	if (rc)
		fprintf(stderr, "gstrace: %s\n", err.msg);
	/* bad input (no such function or file) is 2; a failure to read or write 1 */
	return rc == 0 ? 0 : rc == -ENOMEM || rc == -EIO ? 1 : 2;
}
