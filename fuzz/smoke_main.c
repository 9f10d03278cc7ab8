/* Runs a fuzz target without libFuzzer: every file of the seed corpus given
 * as argv[1] (if it exists), then a fixed number of inputs from a seeded
 * generator that mixes raw random bytes with instruction-shaped ones (valid
 * opcodes, registers mostly 0..10, small offsets), so parsers see both. The
 * run is deterministic: GS_FUZZ_SEED and GS_FUZZ_RUNS override the defaults. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smoke.h"

#define GS_SMOKE_MAX_INPUT 4096

static uint64_t next(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Opcodes of every instruction class, and a few reserved ones. */
static const uint8_t opcodes[] = {
	0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f,
	0x67, 0x6f, 0x77, 0x7f, 0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7,
	0xcf, 0xd7, 0x04, 0x0c, 0x14, 0x24, 0x34, 0x3c, 0x44, 0x54, 0x64, 0x74,
	0x84, 0x94, 0x9c, 0xa4, 0xb4, 0xbc, 0xc4, 0xd4, 0xdc, 0x05, 0x06, 0x15,
	0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x55, 0x5d, 0x65, 0x75, 0xa5, 0xad,
	0xb5, 0xc5, 0xd5, 0x16, 0x1e, 0x56, 0xa6, 0x85, 0x95, 0x61, 0x69, 0x71,
	0x79, 0x81, 0x89, 0x91, 0x99, 0x63, 0x6b, 0x73, 0x7b, 0x62, 0x6a, 0x72,
	0x7a, 0xc3, 0xdb, 0x18, 0x20, 0x28, 0x30, 0x40, 0x48, 0x00, 0xff, 0x8f,
};

static size_t shaped(uint64_t *s, uint8_t *buf)
{
	size_t n = 8 * (1 + next(s) % 64);

	for (size_t i = 0; i < n; i += 8) {
		uint64_t r = next(s);
		int16_t off = (int16_t)((int)(r >> 8 & 0x3f) - 32);

		buf[i] = opcodes[r % sizeof(opcodes)];
		buf[i + 1] = (uint8_t)((r >> 16) % 11 | ((r >> 20) % 11) << 4);
		if ((r >> 40) % 16 == 0)
			buf[i + 1] = (uint8_t)(r >> 24); /* any register nibbles */
		if ((r >> 44) % 4 == 0)
			off = (int16_t)(-8 * (int)((r >> 46) % 70)); /* stack-like */
		memcpy(buf + i + 2, &off, 2);
		memcpy(buf + i + 4, (const char *)&(uint32_t){ (uint32_t)(r >> 32) % 80 }, 4);
		if ((r >> 50) % 8 == 0)
			memcpy(buf + i + 4, (const char *)&(uint32_t){ (uint32_t)next(s) }, 4);
	}
	return n;
}

static size_t random_bytes(uint64_t *s, uint8_t *buf)
{
	size_t n = next(s) % GS_SMOKE_MAX_INPUT;

	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)next(s);
	return n;
}

static int run_corpus(const char *dir)
{
	static uint8_t buf[1 << 20];
	struct dirent *e;
	DIR *d = opendir(dir);
	int count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[4096];
		FILE *f;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		count++;
	}
	closedir(d);
	return count;
}

int main(int argc, char **argv)
{
	static uint8_t buf[GS_SMOKE_MAX_INPUT];
	const char *seed_env = getenv("GS_FUZZ_SEED"), *runs_env = getenv("GS_FUZZ_RUNS");
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) : 0x9e3779b97f4a7c15ULL;
	long runs = runs_env ? strtol(runs_env, NULL, 0) : 20000;
	int corpus = argc > 1 ? run_corpus(argv[1]) : 0;

	if (seed == 0)
		seed = 1;
	for (long i = 0; i < runs; i++) {
		size_t n = (i % 4 == 0) ? random_bytes(&seed, buf) : shaped(&seed, buf);

		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("%s: %d corpus inputs and %ld generated inputs ran without a fault\n",
	       argv[0], corpus, runs);
	return 0;
}
