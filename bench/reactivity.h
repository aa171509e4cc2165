/* bench/reactivity: the parts shared by reactivity.c (driver),
 * reactivity_client.c (the measuring client), reactivity_server.c (the
 * echo servers) and reactivity_report.c (table, goals, CSV). See
 * reactivity.c for what is measured and how. */
#ifndef BENCH_REACTIVITY_H
#define BENCH_REACTIVITY_H

#include <stdint.h>

#include "bench_util.h"

#define RX_BENCH "reactivity"

/* ------------------------------------------------------------ variants */

typedef enum rx_variant {
    RX_RAW_BLOCK = 0, /* floor: plain server blocking in recv */
    RX_RAW_BUSY,      /* floor: plain server spinning on a non-blocking recv */
    RX_NAIVE,         /* Weft, WEFT_IO_NAIVE: the echo ULT tests and yields */
    RX_ENHANCED,      /* Weft, WEFT_IO_POLLING: the scheduler polls */
    RX_BLOCKER,       /* Weft, WEFT_IO_BLOCKING: a blocker kernel thread */
    RX_ADAPTIVE,      /* Weft, WEFT_IO_ADAPTIVE: the default */
    RX_NVARIANTS
} rx_variant;

const char *rx_variant_name(rx_variant v);
int rx_variant_is_weft(rx_variant v);

/* ------------------------------------------------------------ protocol */

/* The client sends 8-byte messages; the server echoes them, except: */
/* reply: the server's process CPU time in ns */
#define RX_MSG_CPU_QUERY UINT64_C(0xC0C0C0C0C0C0C0C0)
/* The server's first message, once its threads exist:
 * RX_READY_TAG | workers << 32 | quantum in us (0 for the raw floors). */
#define RX_READY_TAG  UINT64_C(0x5EAD000000000000)
#define RX_READY_MASK UINT64_C(0xFFFF000000000000)

/* What a server child runs; passed as
 * `--case server,<variant>,<n>,<q_us>,<fd>`. */
typedef struct rx_server_spec {
    rx_variant variant;
    int n;              /* compute threads */
    int64_t quantum_us; /* time slice given to weft_set_quantum */
    int listen_fd;      /* inherited listening socket */
} rx_server_spec;

int rx_spec_format(char *buf, size_t size, const rx_server_spec *s);
int rx_spec_parse(const char *text, rx_server_spec *s); /* 0 or -1 */

/* Server child's main: accept one client and serve it until it closes.
 * Returns the exit status. */
int rx_server_main(const rx_server_spec *s);

/* -------------------------------------------------------------- client */

typedef struct rx_limits {
    int max_rts;       /* round trips per repeat */
    int warmup_rts;    /* untimed round trips first */
    int64_t soft_ns;   /* no new message after this (per repeat) */
    int64_t grace_ns;  /* longest wait for one reply */
    int64_t think_ns;  /* think time: uniform in [0, think_ns] */
    int64_t ready_ns;  /* longest wait for the server to be ready */
} rx_limits;

/* One repeat of one case: a fresh server, then round trips. */
typedef struct rx_run {
    double median_us, p99_us, mean_us;
    int count;          /* completed timed round trips */
    int capped;         /* stopped by soft_ns before max_rts */
    int lost;           /* a reply that took longer than grace_ns */
    int workers;        /* reported by the server */
    int64_t quantum_us; /* reported by the server */
} rx_run;

/* Start the server for `s` (s->listen_fd is filled in), run the round trips
 * and stop the server. Returns 0, or -1 on an error (message printed). */
int rx_measure_rtt(rx_server_spec s, const rx_limits *lim, uint64_t seed,
                   rx_run *out);

/* Start the server, leave it idle for idle_ns and return its process CPU
 * use in percent of one CPU. Returns 0 or -1. */
int rx_measure_idle(rx_server_spec s, const rx_limits *lim, int64_t idle_ns,
                    double *cpu_percent);

/* -------------------------------------------------------------- report */

#define RX_MAX_NS      8
#define RX_MAX_QUANTA  2
#define RX_NAIVE_MAX_N 100 /* naive at N=1000: ~N*q = 10 s per reply */

/* All the repeats of one (quantum, variant, N) case. */
typedef struct rx_cell {
    int ran;      /* at least one repeat produced round trips */
    int skipped;  /* not run on purpose (naive cap, run deadline) */
    int failed;   /* a repeat failed */
    int nruns;
    rx_run runs[BENCH_REPEATS_MAX];
} rx_cell;

typedef struct rx_results {
    int ns[RX_MAX_NS], n_ns;           /* compute thread counts */
    int64_t quanta_us[RX_MAX_QUANTA];  /* [0] = 10 ms; [1] = the default */
    int n_quanta;
    int repeats, workers;
    rx_cell floors[2];                 /* raw_block, raw_busy */
    rx_cell cells[RX_MAX_QUANTA][RX_NVARIANTS][RX_MAX_NS];
    double idle_cpu[RX_NVARIANTS];     /* < 0: not measured */
    bench_table notes;                 /* notes only */
} rx_results;

/* Print the tables, the goal lines, the `result:` lines; write the CSV. */
void rx_report_print(const rx_results *r);
void rx_report_results(const rx_results *r);
int rx_report_csv(const rx_results *r, const char *path);

/* "10" for 10000 us, "0.5" for 500 us. */
const char *rx_quantum_label(char *buf, size_t size, int64_t quantum_us);

#endif /* BENCH_REACTIVITY_H */
