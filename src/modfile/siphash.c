/* SipHash-1-3 (one compression round, three finalization rounds), the hash
 * behind Rust's DefaultHasher and therefore behind the reference's module
 * cookies (docs/unwind.md, "Module identity"). */
#include <stdint.h>
#include <string.h>

#include <gs/modfile.h>

#include "mf_int.h"

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = ROTL(s->v2, 32);
}

static uint64_t le64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void sip_compress(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	s->v0 ^= m;
}

uint64_t mf_siphash13(uint64_t k0, uint64_t k1, const void *data, size_t len)
{
	struct sip s = {
		k0 ^ 0x736f6d6570736575ULL,
		k1 ^ 0x646f72616e646f6dULL,
		k0 ^ 0x6c7967656e657261ULL,
		k1 ^ 0x7465646279746573ULL,
	};
	const uint8_t *p = data;
	size_t tail = len & 7;

	for (size_t i = 0; i + 8 <= len; i += 8)
		sip_compress(&s, le64(p + i, 8));
	sip_compress(&s, (uint64_t)len << 56 | le64(p + len - tail, tail));
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
