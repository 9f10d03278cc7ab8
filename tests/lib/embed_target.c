/* The process the embedding example traces (tests/lib, .ci/run):
 * main -> embed_outer -> embed_inner every 10 ms until it is killed. Built
 * -O2 -fomit-frame-pointer so the backtrace needs the CFI rows. */
#include <unistd.h>

__attribute__((noinline)) int embed_inner(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

__attribute__((noinline)) int embed_outer(int x)
{
	return embed_inner(x) + 1;
}

int main(void)
{
	volatile int sum = 0;

	for (;;) {
		sum += embed_outer(sum);
		usleep(10000);
	}
}
