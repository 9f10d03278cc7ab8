/* Numbers in the Prometheus exposition (prom.c): as Go's
 * strconv.FormatFloat(x, 'g', -1, 64) writes them, which is what the
 * Prometheus Go clients write and what OpenMetrics takes as the canonical
 * form of a histogram's bounds: the shortest digits that read back as a
 * double, or the exact digits of an integer scaled by a power of ten
 * (nanoseconds as seconds), in %e form or fixed by Go's rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gs/prom.h>

#include "ev_int.h"

/* A number as decimal digits: -0.d1d2...dn x 10^point (neg), d1 not 0
 * unless the number is 0 (n 1, "0"); at most 20 digits. */
struct decimal {
	char d[24];
	int n, point;
	bool neg;
};

/* dec as Go's strconv.FormatFloat(x, 'g', -1, 64) writes the shortest
 * form of x (what Prometheus' Go clients write): %e for exponents below
 * -4 or from 6 (1e+06, 2.047e-06), else fixed (100000, 0.0001); with
 * ".0" where OpenMetrics would read no '.' or 'e' as an integer. buf
 * holds EV_PROM_NUM_MAX bytes. */
static void put_decimal(char *buf, const struct decimal *dec, bool om)
{
	int exp = dec->point - 1, k = 0;

	if (dec->neg)
		buf[k++] = '-';
	if (dec->n == 1 && dec->d[0] == '0') {
		buf[k++] = '0';
	} else if (exp < -4 || exp >= 6) {
		buf[k++] = dec->d[0];
		if (dec->n > 1)
			buf[k++] = '.';
		memcpy(buf + k, dec->d + 1, (size_t)dec->n - 1);
		k += dec->n - 1;
		k += snprintf(buf + k, 8, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	} else if (dec->point <= 0) { /* 0.000123 */
		buf[k++] = '0';
		buf[k++] = '.';
		for (int i = 0; i < -dec->point; i++)
			buf[k++] = '0';
		memcpy(buf + k, dec->d, (size_t)dec->n);
		k += dec->n;
	} else { /* 123.45, 1200 */
		for (int i = 0; i < dec->point; i++)
			buf[k++] = i < dec->n ? dec->d[i] : '0';
		if (dec->n > dec->point)
			buf[k++] = '.';
		for (int i = dec->point; i < dec->n; i++)
			buf[k++] = dec->d[i];
	}
	buf[k] = '\0';
	if (om && !strpbrk(buf, ".e"))
		strcpy(buf + k, ".0");
}

/* The decimal of i x 10^exp10: exact, whatever the size (nanoseconds as
 * seconds). */
static void scaled_decimal(int64_t i, int exp10, struct decimal *dec)
{
	uint64_t u = i < 0 ? -(uint64_t)i : (uint64_t)i;
	char t[24];
	int n = 0, zeros = 0;

	dec->neg = i < 0;
	while (u && u % 10 == 0) {
		u /= 10;
		zeros++;
	}
	do
		t[n++] = (char)('0' + u % 10);
	while (u /= 10);
	for (int k = 0; k < n; k++)
		dec->d[k] = t[n - 1 - k];
	dec->n = n;
	dec->point = i ? n + exp10 + zeros : 1;
}

/* The fewest significant digits that read back as v. A normal double
 * whose shortest form has up to 15 digits is that form rounded to 15, so
 * 15 digits without their trailing zeros are the shortest; 16 and 17 are
 * tried after; a subnormal, with fewer bits, tries them all. */
static void float_decimal(double v, struct decimal *dec)
{
	char e[40], *p = e;
	int prec = fpclassify(v) == FP_SUBNORMAL ? 1 : 15;

	for (; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", prec - 1, v); /* -d.ddde-XX */
	dec->neg = *p == '-';
	p += dec->neg;
	dec->n = 0;
	for (; *p != 'e'; p++)
		if (*p != '.')
			dec->d[dec->n++] = *p;
	while (dec->n > 1 && dec->d[dec->n - 1] == '0')
		dec->n--;
	dec->point = v == 0 ? 1 : atoi(p + 1) + 1;
}

void ev_prom_num_text(char *buf, struct gs_prom_num v, bool om)
{
	struct decimal dec;

	if (v.is_float && (isnan(v.f) || isinf(v.f))) {
		strcpy(buf, isnan(v.f) ? "NaN" : v.f > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v.is_float)
		float_decimal(v.f, &dec);
	else
		scaled_decimal(v.i, v.exp10, &dec);
	put_decimal(buf, &dec, om);
}

