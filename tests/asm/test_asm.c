/* The assembler: labels forward and backward, fixups resolved once with the
 * 16-bit range enforced, sticky errors, map relocations, notes and the
 * stack slot allocator. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gs/internal/asm.h>
#include <gs/asm.h>
#include <gs/disasm.h>

static void filler(struct gs_asm *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gs_asm_emit(a, GS_MOV64_IMM(GS_R0, 0));
}

static void test_forward_jump_gets_distance_to_label(void **state)
{
	struct gs_asm a;
	struct gs_label done;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	done = gs_asm_label(&a, "done");
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, done);   /* insn 1 */
	filler(&a, 3);                                /* insns 2..4 */
	gs_asm_bind(&a, done);
	gs_asm_emit(&a, GS_EXIT());                   /* insn 5 */
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_int_equal(a.len, 6);
	assert_int_equal(a.insns[1].off, 3); /* 5 - (1 + 1) */
	assert_int_equal(a.insns[1].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(a.nfixups, 1);
	gs_asm_fini(&a);
}

static void test_backward_jump_gets_negative_distance(void **state)
{
	struct gs_asm a;
	struct gs_label loop;

	(void)state;
	gs_asm_init(&a);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	loop = gs_asm_label(&a, "loop");
	gs_asm_bind(&a, loop);                                   /* insn 1 */
	gs_asm_emit(&a, GS_ALU64_IMM(BPF_ADD, GS_R0, 1));
	gs_asm_jmp_imm(&a, BPF_JLT, GS_R0, 10, loop);           /* insn 2 */
	gs_asm_ja(&a, loop);                                     /* insn 3 */
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.insns[2].off, -2);
	assert_int_equal(a.insns[3].off, -3);
	gs_asm_fini(&a);
}

static void test_many_labels_each_resolve_to_their_own_target(void **state)
{
	enum { N = 2000 };
	struct gs_asm a;
	struct gs_label l[N];
	size_t jump_at[N];

	(void)state;
	gs_asm_init(&a);
	for (int i = 0; i < N; i++)
		l[i] = gs_asm_label(&a, "l");
	/* each label i is jumped to from before (forward) and bound in order */
	for (int i = 0; i < N; i++) {
		jump_at[i] = gs_asm_pc(&a);
		gs_asm_jmp_imm(&a, BPF_JNE, GS_R1, i, l[(i * 7) % N]);
	}
	for (int i = 0; i < N; i++) {
		gs_asm_bind(&a, l[i]);
		filler(&a, (size_t)(i % 3));
	}
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	for (int i = 0; i < N; i++) {
		const struct gs_label_info *t = &a.labels[(i * 7) % N];

		assert_int_equal(jump_at[i] + 1 + a.insns[jump_at[i]].off, t->pos);
	}
	gs_asm_fini(&a);
}

/* A jump at insn 0 to a label `dist` + 1 instructions later. */
static int forward_span(int64_t dist, struct gs_error *err)
{
	struct gs_asm a;
	struct gs_label far;
	int rc;

	gs_asm_init(&a);
	far = gs_asm_label(&a, "far_target");
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, far);
	filler(&a, (size_t)dist);
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	rc = gs_asm_finish(&a, err);
	if (rc == 0)
		assert_int_equal(a.insns[0].off, dist);
	gs_asm_fini(&a);
	return rc;
}

/* A jump after `dist` - 1 instructions back to a label at insn 0. */
static int backward_span(int64_t dist, struct gs_error *err)
{
	struct gs_asm a;
	struct gs_label back;
	size_t at;
	int rc;

	gs_asm_init(&a);
	back = gs_asm_label(&a, "back_target");
	gs_asm_bind(&a, back);
	filler(&a, (size_t)(-dist - 1));
	at = gs_asm_pc(&a);
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, back);
	gs_asm_emit(&a, GS_EXIT());
	rc = gs_asm_finish(&a, err);
	if (rc == 0)
		assert_int_equal(a.insns[at].off, dist);
	gs_asm_fini(&a);
	return rc;
}

static void test_jump_of_exactly_plus_32767_is_accepted(void **state)
{
	(void)state;
	assert_int_equal(forward_span(32767, NULL), 0);
}

/* Helper calls between a jump and its target leave room for the kernel's
 * inlining (up to 12 instructions each): 31000 instructions with 200 calls
 * among them would span 33400 once patched, so the jump is widened before
 * the kernel could find it "cannot be patched due to 16-bit range". */
static void test_jump_over_helper_calls_keeps_room_for_their_inlining(void **state)
{
	struct gs_asm a;
	struct gs_label far;

	(void)state;
	gs_asm_init(&a);
	far = gs_asm_label(&a, "far_target");
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, far);
	for (int i = 0; i < 200; i++) {
		gs_asm_call(&a, BPF_FUNC_map_lookup_elem);
		filler(&a, 154);
	}
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.relaxed, 1);
	assert_int_equal(a.len, 31000 + 4);
	gs_asm_fini(&a);
}

/* Past 16 bits a conditional jump becomes `if .. goto +1; ja +1; gotol L`:
 * taken lands on the gotol, not taken skips it; later code moves by two. */
static void test_jump_of_plus_32768_is_widened_with_gotol(void **state)
{
	struct gs_asm a;
	struct gs_label far;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	far = gs_asm_label(&a, "far_target");
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, far);
	filler(&a, 32768);
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_int_equal(a.len, 32768 + 4);
	assert_int_equal(a.relaxed, 1);
	assert_int_equal(a.insns[0].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(a.insns[0].off, 1);
	assert_int_equal(a.insns[1].code, BPF_JMP | BPF_JA);
	assert_int_equal(a.insns[1].off, 1);
	assert_int_equal(a.insns[2].code, BPF_JMP32 | BPF_JA);
	assert_int_equal(2 + 1 + a.insns[2].imm, a.len - 1); /* the exit */
	assert_int_equal(a.labels[far.id].pos, (int64_t)a.len - 1);
	gs_asm_fini(&a);
}

/* An unconditional jump needs no room: ja becomes gotol in place. */
static void test_ja_past_the_16_bit_range_becomes_gotol(void **state)
{
	struct gs_asm a;
	struct gs_label far;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	far = gs_asm_label(&a, "far_target");
	gs_asm_ja(&a, far);
	filler(&a, 40000);
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_int_equal(a.len, 40002);
	assert_int_equal(a.insns[0].code, BPF_JMP32 | BPF_JA);
	assert_int_equal(a.insns[0].imm, 40000);
	gs_asm_fini(&a);
}

static void test_jump_of_exactly_minus_32768_is_accepted(void **state)
{
	(void)state;
	assert_int_equal(backward_span(-32768, NULL), 0);
}

static void test_jump_of_minus_32769_is_widened_with_gotol(void **state)
{
	struct gs_asm a;
	struct gs_label back;
	struct gs_error err;
	size_t at;

	(void)state;
	gs_asm_init(&a);
	back = gs_asm_label(&a, "back_target");
	gs_asm_bind(&a, back);
	filler(&a, 32768);
	at = gs_asm_pc(&a);
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R1, 0, back);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	assert_int_equal(a.insns[at].off, 1);
	assert_int_equal((int64_t)at + 2 + 1 + a.insns[at + 2].imm, 0);
	assert_int_equal(a.insns[at + 3].code, BPF_JMP | BPF_EXIT);
	gs_asm_fini(&a);
}

static void test_gotol_reaches_past_the_16_bit_range(void **state)
{
	struct gs_asm a;
	struct gs_label far;

	(void)state;
	gs_asm_init(&a);
	far = gs_asm_label(&a, "far");
	gs_asm_gotol(&a, far);
	filler(&a, 70000);
	gs_asm_bind(&a, far);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.insns[0].code, BPF_JMP32 | BPF_JA);
	assert_int_equal(a.insns[0].imm, 70000);
	assert_int_equal(a.insns[0].off, 0);
	gs_asm_fini(&a);
}

static void test_call_to_subprogram_label_sets_imm(void **state)
{
	struct gs_asm a;
	struct gs_label sub;

	(void)state;
	gs_asm_init(&a);
	sub = gs_asm_label(&a, "subprog");
	gs_asm_call_label(&a, sub);
	gs_asm_emit(&a, GS_EXIT());
	gs_asm_bind(&a, sub);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 1));
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.insns[0].src_reg, BPF_PSEUDO_CALL);
	assert_int_equal(a.insns[0].imm, 1);
	gs_asm_fini(&a);
}

static void test_unbound_label_is_rejected_naming_it_and_the_jump(void **state)
{
	struct gs_asm a;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	gs_asm_note(&a, "reserve check");
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R0, 0, gs_asm_label(&a, "reserve_overflow"));
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'reserve_overflow'"));
	assert_non_null(strstr(err.msg, "never bound"));
	assert_non_null(strstr(err.msg, "reserve check"));
	gs_asm_fini(&a);
}

static void test_label_bound_twice_is_rejected(void **state)
{
	struct gs_asm a;
	struct gs_label l;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	l = gs_asm_label(&a, "twice");
	gs_asm_bind(&a, l);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_bind(&a, l);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'twice' bound twice"));
	gs_asm_fini(&a);
}

static void test_label_name_carries_its_scopes_outermost_first(void **state)
{
	struct gs_asm a;
	struct gs_label in_frame, in_stmt, outside;
	uint32_t stmt, frame;
	char name[64];

	(void)state;
	gs_asm_init(&a);
	outside = gs_asm_label(&a, "exit");
	stmt = gs_asm_scope_enter(&a, "s", 2);
	in_stmt = gs_asm_label(&a, "bt_done");
	frame = gs_asm_scope_enter(&a, "f", 3);
	in_frame = gs_asm_label(&a, "search_not_below");
	gs_asm_scope_set(&a, frame);
	gs_asm_scope_set(&a, stmt);
	gs_asm_scope_enter(&a, "step", -1);
	assert_int_equal(gs_asm_label_name(&a, in_frame, name, sizeof(name)),
			 strlen("s2.f3.search_not_below"));
	assert_string_equal(name, "s2.f3.search_not_below");
	gs_asm_label_name(&a, in_stmt, name, sizeof(name));
	assert_string_equal(name, "s2.bt_done");
	gs_asm_label_name(&a, outside, name, sizeof(name));
	assert_string_equal(name, "exit");
	gs_asm_label_name(&a, gs_asm_label(&a, "exit"), name, sizeof(name));
	assert_string_equal(name, "step.exit");
	gs_asm_label_name(&a, in_frame, name, 6); /* truncated as snprintf does */
	assert_string_equal(name, "s2.f3");
	gs_asm_fini(&a);
}

static void test_labels_repeating_scope_and_name_take_ordinals_in_the_dump(void **state)
{
	struct gs_asm a;
	struct gs_label l[3];
	struct gs_error err;
	char *text;

	(void)state;
	gs_asm_init(&a);
	gs_asm_scope_enter(&a, "f", 1);
	for (int i = 0; i < 3; i++)
		l[i] = gs_asm_label(&a, "search_next");
	gs_asm_label(&a, "never_used"); /* shows nowhere: takes no ordinal */
	gs_asm_label(&a, "never_used");
	for (int i = 0; i < 3; i++) {
		gs_asm_jmp_imm(&a, BPF_JEQ, GS_R0, 0, l[i]);
		gs_asm_bind(&a, l[i]);
	}
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), 0);
	text = gs_asm_dump_str(&a);
	assert_non_null(text);
	assert_non_null(strstr(text, "<f1.search_next.1>\nf1.search_next.1:\n"));
	assert_non_null(strstr(text, "<f1.search_next.3>\nf1.search_next.3:\n"));
	assert_null(strstr(text, "never_used"));
	free(text);
	gs_asm_fini(&a);
}

static void test_label_error_names_the_label_with_its_scopes(void **state)
{
	struct gs_asm a;
	struct gs_label twice, other;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	gs_asm_scope_enter(&a, "s", 4);
	other = gs_asm_label(&a, "read_ok");
	twice = gs_asm_label(&a, "read_ok");
	gs_asm_bind(&a, other);
	gs_asm_bind(&a, twice);
	gs_asm_emit(&a, GS_EXIT());
	gs_asm_bind(&a, twice);
	assert_int_equal(gs_asm_finish(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "label 's4.read_ok.2' bound twice"));
	gs_asm_fini(&a);
}

static void test_label_bound_after_last_insn_is_rejected_when_used(void **state)
{
	struct gs_asm a;
	struct gs_label end;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	end = gs_asm_label(&a, "end");
	gs_asm_ja(&a, end);
	gs_asm_bind(&a, end);
	assert_int_equal(gs_asm_finish(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'end' is bound after the last instruction"));
	gs_asm_fini(&a);
}

static void test_first_error_is_sticky_and_later_emits_are_ignored(void **state)
{
	struct gs_asm a;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_slot(&a, "huge", 600, 8); /* first error */
	gs_asm_bind(&a, gs_asm_label(&a, "x"));
	gs_asm_emit(&a, GS_EXIT());
	gs_asm_jmp_imm(&a, BPF_JEQ, GS_R0, 0, gs_asm_label(&a, "never"));
	assert_int_equal(a.len, 1);
	assert_int_equal(gs_asm_failed(&a), -ENOSPC);
	assert_int_equal(gs_asm_finish(&a, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "'huge'"));
	gs_asm_fini(&a);
}

static void test_emit_after_finish_is_an_error(void **state)
{
	struct gs_asm a;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(a.len, 1);
	assert_int_equal(gs_asm_failed(&a), -EINVAL);
	assert_int_equal(gs_asm_finish(&a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "after gs_asm_finish"));
	gs_asm_fini(&a);
}

static void test_map_loads_record_relocations_patched_at_load(void **state)
{
	struct gs_asm a;
	uint32_t ring, accum;
	int fds[] = { 41, 42 };

	(void)state;
	gs_asm_init(&a);
	ring = gs_asm_map(&a, "events");
	accum = gs_asm_map(&a, "event_accum_buffer");
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	gs_asm_ld_map(&a, GS_R1, ring);                 /* insns 1-2 */
	gs_asm_ld_map_value(&a, GS_R2, accum, 24);      /* insns 3-4 */
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.len, 6);
	assert_int_equal(a.nrelocs, 2);
	assert_int_equal(a.relocs[0].insn, 1);
	assert_int_equal(a.relocs[0].map, ring);
	assert_int_equal(a.relocs[0].kind, GS_RELOC_MAP_FD);
	assert_int_equal(a.relocs[1].insn, 3);
	assert_int_equal(a.relocs[1].map, accum);
	assert_int_equal(a.relocs[1].kind, GS_RELOC_MAP_VALUE);
	assert_string_equal(a.maps[accum], "event_accum_buffer");
	/* before patching: pseudo sources, fd 0, value offset in the 2nd slot */
	assert_int_equal(a.insns[1].src_reg, BPF_PSEUDO_MAP_FD);
	assert_int_equal(a.insns[1].imm, 0);
	assert_int_equal(a.insns[3].src_reg, BPF_PSEUDO_MAP_VALUE);
	assert_int_equal(a.insns[4].imm, 24);
	assert_int_equal(gs_reloc_apply(a.insns, a.len, a.relocs, a.nrelocs, fds, 2, NULL), 0);
	assert_int_equal(a.insns[1].imm, 41);
	assert_int_equal(a.insns[3].imm, 42);
	assert_int_equal(a.insns[4].imm, 24);
	gs_asm_fini(&a);
}

static void test_reloc_apply_rejects_missing_fd_and_bad_target(void **state)
{
	struct bpf_insn prog[] = { GS_LD_MAP_FD(GS_R1, 0), GS_EXIT() };
	struct gs_reloc r = { .insn = 0, .map = 1, .kind = GS_RELOC_MAP_FD };
	struct gs_reloc bad = { .insn = 2, .map = 0, .kind = GS_RELOC_MAP_FD };
	int fds[] = { 5 };
	struct gs_error err;

	(void)state;
	assert_int_equal(gs_reloc_apply(prog, 3, &r, 1, fds, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs map 1"));
	assert_int_equal(gs_reloc_apply(prog, 3, &bad, 1, fds, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not an ld_imm64"));
}

static void test_undeclared_map_is_an_error(void **state)
{
	struct gs_asm a;

	(void)state;
	gs_asm_init(&a);
	gs_asm_ld_map(&a, GS_R1, 3);
	assert_int_equal(gs_asm_failed(&a), -EINVAL);
	assert_int_equal(a.len, 0);
	gs_asm_fini(&a);
}

static void test_notes_travel_with_each_instruction(void **state)
{
	struct gs_asm a;
	const char *prev;

	(void)state;
	gs_asm_init(&a);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R0, 0));
	prev = gs_asm_note(&a, "header");
	assert_null(prev);
	gs_asm_emit(&a, GS_MOV64_IMM(GS_R1, 0));
	gs_asm_notef(&a, "frame %d", 3);
	gs_asm_ld_imm64(&a, GS_R2, 7);
	prev = gs_asm_note(&a, NULL);
	assert_string_equal(prev, "frame 3");
	gs_asm_emit(&a, GS_EXIT());
	assert_null(a.notes[0]);
	assert_string_equal(a.notes[1], "header");
	assert_string_equal(a.notes[2], "frame 3");
	assert_string_equal(a.notes[3], "frame 3");
	assert_null(a.notes[4]);
	gs_asm_fini(&a);
}

static void test_stack_slots_are_aligned_and_released_to_a_mark(void **state)
{
	struct gs_asm a;
	size_t mark;

	(void)state;
	gs_asm_init(&a);
	assert_int_equal(gs_asm_slot(&a, "flag", 1, 1), -1);
	assert_int_equal(gs_asm_slot(&a, "cursor", 4, 4), -8);
	assert_int_equal(gs_asm_slot(&a, "key", 16, 8), -24);
	mark = gs_asm_stack_mark(&a);
	assert_int_equal(gs_asm_slot(&a, "scratch", 200, 8), -224);
	gs_asm_stack_release(&a, mark);
	assert_int_equal(a.stack_used, 24);
	assert_int_equal(gs_asm_slot(&a, "reused", 8, 8), -32);
	assert_int_equal(a.stack_max, 224);
	assert_int_equal(gs_asm_failed(&a), 0);
	gs_asm_fini(&a);
}

static void test_stack_past_512_bytes_fails_naming_the_slot(void **state)
{
	struct gs_asm a;
	struct gs_error err;

	(void)state;
	gs_asm_init(&a);
	assert_int_equal(gs_asm_slot(&a, "frames", 504, 8), -504);
	assert_int_equal(gs_asm_slot(&a, "last", 8, 8), -512); /* exactly full */
	gs_asm_slot(&a, "one_more", 1, 1);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "'one_more'"));
	assert_non_null(strstr(err.msg, "512"));
	gs_asm_fini(&a);
}

static void test_invalid_slot_alignment_is_rejected(void **state)
{
	struct gs_asm a;

	(void)state;
	gs_asm_init(&a);
	gs_asm_slot(&a, "odd", 8, 3);
	assert_int_equal(gs_asm_failed(&a), -EINVAL);
	gs_asm_fini(&a);
}

static void test_reset_reuses_the_assembler(void **state)
{
	struct gs_asm a;
	struct gs_label l;

	(void)state;
	gs_asm_init(&a);
	gs_asm_slot(&a, "big", 600, 8);
	gs_asm_reset(&a);
	assert_int_equal(gs_asm_failed(&a), 0);
	l = gs_asm_label(&a, "again");
	assert_int_equal(l.id, 0);
	gs_asm_ja(&a, l);
	gs_asm_bind(&a, l);
	gs_asm_emit(&a, GS_EXIT());
	assert_int_equal(gs_asm_finish(&a, NULL), 0);
	assert_int_equal(a.insns[0].off, 0);
	gs_asm_fini(&a);
}

static void test_foreign_label_handle_is_rejected(void **state)
{
	struct gs_asm a;

	(void)state;
	gs_asm_init(&a);
	gs_asm_ja(&a, (struct gs_label){ 7 });
	assert_int_equal(gs_asm_failed(&a), -EINVAL);
	assert_non_null(strstr(a.error->msg, "label handle 7"));
	gs_asm_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_jump_gets_distance_to_label),
		cmocka_unit_test(test_backward_jump_gets_negative_distance),
		cmocka_unit_test(test_many_labels_each_resolve_to_their_own_target),
		cmocka_unit_test(test_jump_of_exactly_plus_32767_is_accepted),
		cmocka_unit_test(test_jump_over_helper_calls_keeps_room_for_their_inlining),
		cmocka_unit_test(test_jump_of_plus_32768_is_widened_with_gotol),
		cmocka_unit_test(test_ja_past_the_16_bit_range_becomes_gotol),
		cmocka_unit_test(test_jump_of_exactly_minus_32768_is_accepted),
		cmocka_unit_test(test_jump_of_minus_32769_is_widened_with_gotol),
		cmocka_unit_test(test_gotol_reaches_past_the_16_bit_range),
		cmocka_unit_test(test_call_to_subprogram_label_sets_imm),
		cmocka_unit_test(test_unbound_label_is_rejected_naming_it_and_the_jump),
		cmocka_unit_test(test_label_bound_twice_is_rejected),
		cmocka_unit_test(test_label_name_carries_its_scopes_outermost_first),
		cmocka_unit_test(test_labels_repeating_scope_and_name_take_ordinals_in_the_dump),
		cmocka_unit_test(test_label_error_names_the_label_with_its_scopes),
		cmocka_unit_test(test_label_bound_after_last_insn_is_rejected_when_used),
		cmocka_unit_test(test_first_error_is_sticky_and_later_emits_are_ignored),
		cmocka_unit_test(test_emit_after_finish_is_an_error),
		cmocka_unit_test(test_map_loads_record_relocations_patched_at_load),
		cmocka_unit_test(test_reloc_apply_rejects_missing_fd_and_bad_target),
		cmocka_unit_test(test_undeclared_map_is_an_error),
		cmocka_unit_test(test_notes_travel_with_each_instruction),
		cmocka_unit_test(test_stack_slots_are_aligned_and_released_to_a_mark),
		cmocka_unit_test(test_stack_past_512_bytes_fails_naming_the_slot),
		cmocka_unit_test(test_invalid_slot_alignment_is_rejected),
		cmocka_unit_test(test_reset_reuses_the_assembler),
		cmocka_unit_test(test_foreign_label_handle_is_rejected),
	};

	return cmocka_run_group_tests_name("asm", tests, NULL, NULL);
}
