/* Context switch for x86-64, System V ABI (ELF, GNU as): implements
 * wf_ctx_make() and wf_ctx_switch() from ctx.h.
 *
 * Design. A context is its stack pointer and nothing else. wf_ctx_switch
 * pushes the callee-saved registers and the floating-point control state
 * onto the stack it is leaving, stores %rsp in from->sp, loads to->sp and
 * pops the same frame from the other stack, then `ret`s into whatever that
 * stack was doing. Caller-saved registers need no saving: the C caller
 * already assumes a call clobbers them. wf_ctx_make writes a frame of the
 * same shape on a fresh stack whose return address is a trampoline, so the
 * first switch to a new context is just another switch.
 *
 * Rejected: swapcontext (saves and restores the signal mask with a system
 * call on every switch, ~100x slower, and the sigmask must stay the
 * worker's, not the thread's); setjmp/longjmp tricks (glibc mangles the
 * saved sp, and longjmp onto another stack is undefined). Cost here: 6
 * pushes, 6 pops, stmxcsr/ldmxcsr, fnstcw/fldcw; a few ns per switch.
 *
 * Saved frame, from the saved sp upwards (offsets in bytes):
 *
 *   +------+--------------------------------------------------+
 *   | off  | contents                                         |
 *   +------+--------------------------------------------------+
 *   |   0  | MXCSR (4 bytes)                                  |
 *   |   4  | x87 control word (2 bytes), 2 bytes padding      |
 *   |   8  | r15                                              |
 *   |  16  | r14                                              |
 *   |  24  | r13  (new context: entry)                        |
 *   |  32  | r12  (new context: arg)                          |
 *   |  40  | rbx                                              |
 *   |  48  | rbp  (new context: 0, ends frame-pointer chains) |
 *   |  56  | return address (new context: ctx_trampoline)     |
 *   +------+--------------------------------------------------+
 *   |  64  | new context only: 16 zero bytes at the stack top |
 *   |  80  | = top of stack, (stack_lo + size) & ~15          |
 *   +------+--------------------------------------------------+
 *
 * Invariants.
 *  - The saved sp is 16-byte aligned (entry to wf_ctx_switch has
 *    %rsp = 8 mod 16; 6 pushes and an 8-byte slot make it 0 mod 16).
 *  - A new context's saved sp is top - 80, so after the `ret` into the
 *    trampoline %rsp = top - 16, 16-byte aligned at the `call` of entry,
 *    as the ABI demands. entry must not return; if it does, abort().
 *  - A new context inherits the creator's MXCSR and x87 control word, as
 *    pthread_create does; after that each context keeps its own.
 *  - No signal mask, no TLS base, no shadow-stack handling: the library is
 *    not marked CET/SHSTK-compatible, so the loader never enables a shadow
 *    stack that these stack swaps would violate.
 */

        .text

/* void wf_ctx_switch(wf_ctx *from %rdi, wf_ctx *to %rsi) */
        .globl  wf_ctx_switch
        .type   wf_ctx_switch, @function
        .p2align 4
wf_ctx_switch:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbp, 0
        pushq   %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset rbx, 0
        pushq   %r12
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r12, 0
        pushq   %r13
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r13, 0
        pushq   %r14
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r14, 0
        pushq   %r15
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset r15, 0
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        stmxcsr (%rsp)
        fnstcw  4(%rsp)

        movq    %rsp, (%rdi)            /* from->sp = %rsp */
        movq    (%rsi), %rsp            /* %rsp = to->sp   */

        /* From here on the frame is the target's; the CFI above still
         * describes it, since both frames have the same shape. */
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %r15
        .cfi_adjust_cfa_offset -8
        .cfi_restore r15
        popq    %r14
        .cfi_adjust_cfa_offset -8
        .cfi_restore r14
        popq    %r13
        .cfi_adjust_cfa_offset -8
        .cfi_restore r13
        popq    %r12
        .cfi_adjust_cfa_offset -8
        .cfi_restore r12
        popq    %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbx
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        .cfi_restore rbp
        ret
        .cfi_endproc
        .size   wf_ctx_switch, .-wf_ctx_switch

/* void wf_ctx_make(wf_ctx *ctx %rdi, void *stack_lo %rsi, size_t size %rdx,
 *                  wf_ctx_entry entry %rcx, void *arg %r8) */
        .globl  wf_ctx_make
        .type   wf_ctx_make, @function
        .p2align 4
wf_ctx_make:
        .cfi_startproc
        leaq    (%rsi,%rdx), %rax       /* top = stack_lo + size     */
        andq    $-16, %rax              /* aligned down to 16        */
        subq    $80, %rax               /* saved sp of the new frame */
        xorl    %edx, %edx
        movq    %rdx, 72(%rax)          /* zeroed top 16 bytes       */
        movq    %rdx, 64(%rax)
        leaq    ctx_trampoline(%rip), %r9
        movq    %r9, 56(%rax)           /* return address            */
        movq    %rdx, 48(%rax)          /* rbp                       */
        movq    %rdx, 40(%rax)          /* rbx                       */
        movq    %r8, 32(%rax)           /* r12 = arg                 */
        movq    %rcx, 24(%rax)          /* r13 = entry               */
        movq    %rdx, 16(%rax)          /* r14                       */
        movq    %rdx, 8(%rax)           /* r15                       */
        movq    %rdx, (%rax)
        stmxcsr (%rax)                  /* inherit the FP control    */
        fnstcw  4(%rax)
        movq    %rax, (%rdi)            /* ctx->sp                   */
        ret
        .cfi_endproc
        .size   wf_ctx_make, .-wf_ctx_make

/* First code run by a new context, %rsp = top - 16 (16-byte aligned).
 * Calls entry(arg); entry must not return, so a return is a bug: abort.
 * The CFI marks the return address undefined so unwinders and debuggers
 * stop here instead of walking off the top of the stack. */
        .type   ctx_trampoline, @function
        .p2align 4
ctx_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        movq    %r12, %rdi
        callq   *%r13
        callq   abort@PLT
        hlt
        .cfi_endproc
        .size   ctx_trampoline, .-ctx_trampoline

        .section .note.GNU-stack,"",@progbits
