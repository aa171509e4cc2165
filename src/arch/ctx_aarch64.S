/* Context switch for AArch64 (AAPCS64, ELF, GNU as): implements
 * wf_ctx_make() and wf_ctx_switch() from ctx.h.
 *
 * Design. As on x86-64 (see ctx_x86_64_sysv.S), a context is its stack
 * pointer. wf_ctx_switch stores the callee-saved state on the stack it is
 * leaving: x19-x28, the frame pointer x29, the link register x30 (the
 * address to resume at), the low 64 bits of v8-v15 (d8-d15, the only FP
 * bits AAPCS64 makes callee-saved) and FPCR (rounding mode, flush-to-zero,
 * default-NaN). It then stores sp in from->sp, loads to->sp, reloads the
 * same frame and returns through x30. wf_ctx_make builds that frame on a
 * fresh stack with x30 = a trampoline that calls entry(arg).
 *
 * Cost: 10 stp/ldp pairs and an FPCR read; FPCR is written only when the
 * two contexts differ, because an FPCR write can be serialising on some
 * cores and contexts almost always share one mode. FPSR (the sticky
 * exception flags) is deliberately not switched: it is caller-saved state
 * by the ABI, as MXCSR's flags are on x86-64.
 *
 * Saved frame, 176 bytes, from the saved sp upwards (offsets in bytes):
 *
 *   +------+----------------------------------------------------+
 *   | off  | contents                                           |
 *   +------+----------------------------------------------------+
 *   |   0  | x19  (new context: entry)                          |
 *   |   8  | x20  (new context: arg)                            |
 *   |  16  | x21, x22                                           |
 *   |  32  | x23, x24                                           |
 *   |  48  | x25, x26                                           |
 *   |  64  | x27, x28                                           |
 *   |  80  | x29 fp (new context: 0, ends frame-record chains)  |
 *   |  88  | x30 lr (new context: ctx_trampoline)               |
 *   |  96  | d8, d9                                             |
 *   | 112  | d10, d11                                           |
 *   | 128  | d12, d13                                           |
 *   | 144  | d14, d15                                           |
 *   | 160  | FPCR (8 bytes)                                     |
 *   | 168  | padding (keeps the frame a multiple of 16)         |
 *   | 176  | new context: top of stack, (stack_lo + size) & ~15 |
 *   +------+----------------------------------------------------+
 *
 * Invariants.
 *  - sp is 16-byte aligned at every instruction (AArch64 faults on an
 *    unaligned sp used for a memory access); the frame size is 176.
 *  - A new context starts in the trampoline with sp = top, aligned, and
 *    calls entry(arg); entry must not return, if it does: abort().
 *  - A new context inherits the creator's FPCR, as pthread_create does.
 *  - No signal mask, no TPIDR_EL0 (TLS): the worker's kernel thread owns
 *    both. No pointer authentication or BTI notes: the library is not
 *    marked BTI-compatible, so the loader does not enforce landing pads.
 */

        .text

/* void wf_ctx_switch(wf_ctx *from x0, wf_ctx *to x1) */
        .globl  wf_ctx_switch
        .type   wf_ctx_switch, %function
        .p2align 4
wf_ctx_switch:
        .cfi_startproc
        sub     sp, sp, #176
        .cfi_def_cfa_offset 176
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        .cfi_offset x19, -176
        .cfi_offset x20, -168
        .cfi_offset x21, -160
        .cfi_offset x22, -152
        .cfi_offset x23, -144
        .cfi_offset x24, -136
        .cfi_offset x25, -128
        .cfi_offset x26, -120
        .cfi_offset x27, -112
        .cfi_offset x28, -104
        .cfi_offset x29, -96
        .cfi_offset x30, -88
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        .cfi_offset d8, -80
        .cfi_offset d9, -72
        .cfi_offset d10, -64
        .cfi_offset d11, -56
        .cfi_offset d12, -48
        .cfi_offset d13, -40
        .cfi_offset d14, -32
        .cfi_offset d15, -24
        mrs     x9, fpcr
        str     x9, [sp, #160]

        mov     x10, sp
        str     x10, [x0]               /* from->sp = sp */
        ldr     x10, [x1]
        mov     sp, x10                 /* sp = to->sp   */

        /* The target's frame has the same shape: the CFI above holds. */
        ldr     x10, [sp, #160]
        cmp     x9, x10
        b.eq    1f
        msr     fpcr, x10
1:
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        ldp     x19, x20, [sp, #0]
        ldp     x21, x22, [sp, #16]
        ldp     x23, x24, [sp, #32]
        ldp     x25, x26, [sp, #48]
        ldp     x27, x28, [sp, #64]
        ldp     x29, x30, [sp, #80]
        add     sp, sp, #176
        .cfi_def_cfa_offset 0
        .cfi_restore x19
        .cfi_restore x20
        .cfi_restore x21
        .cfi_restore x22
        .cfi_restore x23
        .cfi_restore x24
        .cfi_restore x25
        .cfi_restore x26
        .cfi_restore x27
        .cfi_restore x28
        .cfi_restore x29
        .cfi_restore x30
        .cfi_restore d8
        .cfi_restore d9
        .cfi_restore d10
        .cfi_restore d11
        .cfi_restore d12
        .cfi_restore d13
        .cfi_restore d14
        .cfi_restore d15
        ret
        .cfi_endproc
        .size   wf_ctx_switch, .-wf_ctx_switch

/* void wf_ctx_make(wf_ctx *ctx x0, void *stack_lo x1, size_t size x2,
 *                  wf_ctx_entry entry x3, void *arg x4) */
        .globl  wf_ctx_make
        .type   wf_ctx_make, %function
        .p2align 4
wf_ctx_make:
        .cfi_startproc
        add     x9, x1, x2              /* top = stack_lo + size     */
        and     x9, x9, #~15            /* aligned down to 16        */
        sub     x9, x9, #176            /* saved sp of the new frame */
        stp     x3, x4, [x9, #0]        /* x19 = entry, x20 = arg    */
        stp     xzr, xzr, [x9, #16]
        stp     xzr, xzr, [x9, #32]
        stp     xzr, xzr, [x9, #48]
        stp     xzr, xzr, [x9, #64]
        adr     x10, ctx_trampoline
        stp     xzr, x10, [x9, #80]     /* x29 = 0, x30 = trampoline */
        stp     xzr, xzr, [x9, #96]
        stp     xzr, xzr, [x9, #112]
        stp     xzr, xzr, [x9, #128]
        stp     xzr, xzr, [x9, #144]
        mrs     x10, fpcr               /* inherit the FP control    */
        stp     x10, xzr, [x9, #160]
        str     x9, [x0]                /* ctx->sp                   */
        ret
        .cfi_endproc
        .size   wf_ctx_make, .-wf_ctx_make

/* First code run by a new context, sp = top (16-byte aligned). Calls
 * entry(arg); a return from entry is a bug: abort. The CFI marks the
 * return address undefined so unwinders stop here. */
        .type   ctx_trampoline, %function
        .p2align 4
ctx_trampoline:
        .cfi_startproc
        .cfi_undefined x30
        mov     x0, x20
        blr     x19
        bl      abort
        brk     #0
        .cfi_endproc
        .size   ctx_trampoline, .-ctx_trampoline

        .section .note.GNU-stack,"",%progbits
