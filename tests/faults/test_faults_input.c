/* Inputs that cannot work, refused with the fix before anything is
 * attached: too many lets (at the let's line:column), more probes than
 * --max-probes, a corrupt .eh_frame under `bt` (and a hostile one, whose
 * other functions trace and unwind as usual), and every way of pointing
 * gstrace at something that would never produce an event: a kernel thread,
 * a zombie, a thread id, a program the process does not run; a library it
 * does not map (yet) is a warning. */
#define _GNU_SOURCE /* gettid */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "faults.h"

static void s_lets_70(struct e2e_ctx *c)
{
	/* the 49th let is on line 50, its name at column 7 */
	static const char *const needles[] = { "script:50:7:", "let variable 49",
					       "at most 48", "^", NULL };
	struct e2e_buf s = { 0 };

	e2e_buf_printf(&s, "trace fault_tick {\n");
	for (int i = 0; i < 70; i++)
		e2e_buf_printf(&s, "  let v%d = rdi + %d;\n", i, i);
	e2e_buf_printf(&s, "  print \"{}\", v69;\n}\n");
	faults_run_refused(c, (const char *const[]){ "-t", e2e_fixture_path("fault_target"),
						     "--dry-run", "-s", e2e_buf_str(&s), NULL },
			   2, needles);
	e2e_buf_free(&s);
}

static void s_probe_cap(struct e2e_ctx *c)
{
	static const char *const needles[] = { "script:6:7:", "--max-probes", "5 probes", NULL };
	struct e2e_buf s = { 0 };

	for (int i = 0; i < 6; i++)
		e2e_buf_printf(&s, "trace fault_tick { print \"%d\"; }\n", i);
	faults_run_refused(c, (const char *const[]){ "-t", e2e_fixture_path("fault_target"),
						     "--max-probes", "5", "--dry-run", "-s",
						     e2e_buf_str(&s), NULL },
			   2, needles);
	e2e_buf_free(&s);
}

/* fault_target with its .eh_frame overwritten: said to be corrupt, not
 * "rebuild with -fasynchronous-unwind-tables". */
static bool corrupt_copy(char *path, size_t size)
{
	char dir[] = "/tmp/gs-faults-XXXXXX";

	if (!mkdtemp(dir))
		return false;
	snprintf(path, size, "%s/fault_target", dir);
	return faults_corrupt_copy(path);
}

bool faults_corrupt_copy(const char *path)
{
	FILE *in, *out;
	char *data;
	long len;
	Elf64_Ehdr *eh;
	bool done = false;

	in = fopen(e2e_fixture_path("fault_target"), "rb");
	if (!in)
		return false;
	fseek(in, 0, SEEK_END);
	len = ftell(in);
	rewind(in);
	data = malloc((size_t)len);
	if (!data || fread(data, 1, (size_t)len, in) != (size_t)len) {
		fclose(in);
		free(data);
		return false;
	}
	fclose(in);
	eh = (Elf64_Ehdr *)data;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(data + eh->e_shoff) + i;
		Elf64_Shdr *strs = (Elf64_Shdr *)(data + eh->e_shoff) + eh->e_shstrndx;

		if (strcmp(data + strs->sh_offset + sh->sh_name, ".eh_frame") == 0) {
			memset(data + sh->sh_offset, 0xff, sh->sh_size);
			done = true;
		}
	}
	out = fopen(path, "wb");
	if (out) {
		done = done && fwrite(data, 1, (size_t)len, out) == (size_t)len;
		fclose(out);
	}
	free(data);
	return done && chmod(path, 0755) == 0;
}

static void s_corrupt_eh_frame(struct e2e_ctx *c)
{
	static const char *const needles[] = { ".eh_frame", "corrupt", "malformed entry", NULL };
	char path[PATH_MAX];

	if (!corrupt_copy(path, sizeof(path))) {
		e2e_expect(c, false, "cannot make a corrupt copy of fault_target");
		return;
	}
	faults_run_refused(c, (const char *const[]){ "-t", path, "--dry-run", "-s",
						     "trace fault_tick { bt; }", NULL },
			   2, needles);
	e2e_expect(c, !strstr(e2e_buf_str(&c->log), "-fasynchronous-unwind-tables"),
		   "a corrupt .eh_frame is blamed on the build flags");
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/* hostile_cfi: six FDEs name register 0x07ffffff (libdw: 7 s and 1 GB
 * each, 49 s for the plan). The plan skips them unread: the plain function
 * beside them is traced with its value and a backtrace through main, the
 * hostile ones print, and a bt at one of them is refused with the cause.
 * The ready bound (20 s) is well below what reading them would take. */
static void s_hostile_eh_frame(struct e2e_ctx *c)
{
	static const char *const refused[] = { "is corrupt", "not read", "drop the bt", NULL };
	char pid[16];
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };
	struct e2e_output out;

	if (!faults_fixture_start(&fx, (const char *const[]){ "hostile_cfi", NULL })) {
		e2e_expect(c, false, "fixture did not start");
		return;
	}
	snprintf(pid, sizeof(pid), "%d", (int)fx.pid);
	if (faults_gstrace_start(c, &r, (const char *const[]){
		    "-p", pid, "--duration", "1", "-s",
		    "trace cfi_plain { print \"plain {}\", v; bt; }\n"
		    "trace cfi_hostile_3 { print \"hostile {}\", v; }", NULL })) {
		faults_wait_ready(c, &r, &o, 20000);
		e2e_trace_finish(c, &r, 20000, &out);
		faults_expect_exit(c, &r, 0, NULL);
		e2e_expect(c, strstr(e2e_buf_str(&r.out), "plain ") != NULL, "no event of cfi_plain");
		e2e_expect(c, strstr(e2e_buf_str(&r.out), "hostile ") != NULL,
			   "no event of cfi_hostile_3");
		for (size_t i = 0; i < out.nblocks; i++) {
			const struct e2e_block *b = &out.blocks[i];

			e2e_expect(c, strcmp(b->status, "complete") == 0 && b->nframes >= 2 &&
				   strcmp(b->frames[0].func, "cfi_plain") == 0 &&
				   strstr(e2e_buf_str(&b->text), " main ") != NULL,
				   "cfi_plain does not unwind through main: %s", e2e_buf_str(&b->text));
		}
		e2e_expect(c, out.nblocks > 0, "no backtrace of cfi_plain");
		e2e_output_free(&out);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	faults_run_refused(c, (const char *const[]){ "-p", pid, "-s",
						     "trace cfi_hostile_1 { bt; }", NULL },
			   2, refused);
	faults_fixture_stop(&fx);
}

static void s_pid_kernel_thread(struct e2e_ctx *c)
{
	static const char *const needles[] = { "-p 2:", "kernel thread", "user process", NULL };

	faults_run_refused(c, (const char *const[]){ "-p", "2", "-s",
						     "trace main { print \"x\"; }", NULL },
			   2, needles);
}

static void s_pid_zombie(struct e2e_ctx *c)
{
	static const char *const needles[] = { "zombie", "reaps it", NULL };
	char pid[16];
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	usleep(100000); /* not reaped: a zombie */
	snprintf(pid, sizeof(pid), "%d", (int)child);
	faults_run_refused(c, (const char *const[]){ "-p", pid, "-s",
						     "trace main { print \"x\"; }", NULL },
			   2, needles);
	waitpid(child, NULL, 0);
}

static void *idle_thread(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pause();
	return NULL;
}

static void s_pid_thread_id(struct e2e_ctx *c)
{
	char tid_s[16], want[48];
	const char *needles[] = { "thread (TID)", want, NULL };
	volatile pid_t tid = 0;
	pthread_t t;

	pthread_create(&t, NULL, idle_thread, (void *)&tid);
	while (!tid)
		usleep(1000);
	snprintf(tid_s, sizeof(tid_s), "%d", (int)tid);
	snprintf(want, sizeof(want), "give its TGID: -p %d", (int)getpid());
	faults_run_refused(c, (const char *const[]){ "-p", tid_s, "-s",
						     "trace main { print \"x\"; }", NULL },
			   2, needles);
	pthread_cancel(t);
	pthread_join(t, NULL);
}

static void s_pid_other_program(struct e2e_ctx *c)
{
	static const char *const needles[] = { "runs another program", "alone", NULL };
	char pid[16];
	struct e2e_run fx;

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	faults_run_refused(c, (const char *const[]){ "-p", pid, "-t",
						     e2e_fixture_path("esc_program"), "-s",
						     "trace esc_probe { print \"x\"; }", NULL },
			   2, needles);
	faults_fixture_stop(&fx);
}

/* A library the process does not map yet may come with a dlopen: a
 * warning, and the run goes on. */
static void s_pid_library_not_mapped(struct e2e_ctx *c)
{
	static const char *const needles[] = { "warning:", "does not map", "dlopen", NULL };
	char pid[16];
	struct e2e_run fx, r;
	struct faults_objects o = { 0 };

	if (!faults_loop_start(c, &fx, pid, sizeof(pid)))
		return;
	if (faults_gstrace_start(c, &r, (const char *const[]){
		    "-p", pid, "-t", e2e_fixture_path("libfaults_churn.so"), "--duration", "0.3",
		    "-s", "trace churn_leaf { print \"x\"; }", NULL })) {
		faults_wait_ready(c, &r, &o, 20000);
		faults_finish(c, &r, 20000);
		faults_expect_exit(c, &r, 0, needles);
		faults_expect_released(c, &o);
		faults_objects_free(&o);
		e2e_run_free(&r);
	}
	faults_fixture_stop(&fx);
}

const struct e2e_scenario faults_input_scenarios[] = {
	{ "lets-70", s_lets_70, 0 },
	{ "probe-cap", s_probe_cap, 0 },
	{ "corrupt-eh-frame", s_corrupt_eh_frame, 0 },
	{ "hostile-eh-frame", s_hostile_eh_frame, E2E_NEED_TRACING },
	{ "pid-kernel-thread", s_pid_kernel_thread, 0 },
	{ "pid-zombie", s_pid_zombie, 0 },
	{ "pid-thread-id", s_pid_thread_id, 0 },
	{ "pid-other-program", s_pid_other_program, 0 },
	{ "pid-library-not-mapped", s_pid_library_not_mapped, E2E_NEED_TRACING },
};
const size_t faults_input_nscenarios = BASE_ARRAY_SIZE(faults_input_scenarios);
