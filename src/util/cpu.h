/* Tiny CPU helpers usable by every layer. */
#ifndef WF_UTIL_CPU_H
#define WF_UTIL_CPU_H

/* Tell the CPU we are spinning (x86 PAUSE, AArch64 YIELD). */
static inline void wf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#else
    __asm__ volatile("" ::: "memory");
#endif
}

#endif /* WF_UTIL_CPU_H */
