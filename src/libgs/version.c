/* gs_version(): the version the library was built as, from the same
 * generated header embedders compile against. */
#include <gs/version.h>

const char *gs_version(void)
{
	return GS_VERSION;
}
