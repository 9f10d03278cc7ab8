/* The growable array of base.h: doubling realloc with the overflow check
 * every caller would otherwise write again. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base.h"

int base_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	if (!elem)
		return -EINVAL;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

void base_shrink(void **v, size_t *cap, size_t n, size_t elem)
{
	void *p;

	if (n == 0 || n >= *cap || !(p = realloc(*v, n * elem)))
		return;
	*v = p;
	*cap = n;
}
