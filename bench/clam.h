/* bench/clam: the parts shared by clam.c (driver), clam_sender.c (the UDP
 * sender and its arrival processes), clam_receiver.c (the receiving Weft
 * process and its work threads), clam_strategies.c (the receive-thread
 * schedules), clam_adapt.c (CLAM's adaptive time-slice rule) and
 * clam_report.c (table, goals, CSV). See clam.c for the experiment. */
#ifndef BENCH_CLAM_H
#define BENCH_CLAM_H

#include <stdint.h>

#include "bench_util.h"

#define CLAM_BENCH "clam"

/* The paper's times divided by CLAM_SCALE: a 1996 SPARCstation 5 on 10
 * Mb/s Ethernet against today's core on loopback. */
#define CLAM_SCALE 100

#define CLAM_PAYLOAD    1472  /* an Ethernet-MTU UDP datagram, as the paper's */
#define CLAM_RCVBUF     8192  /* SO_RCVBUF asked for (the kernel doubles it) */
#define CLAM_BETA_LMAX  5     /* the paper's beta * Lmax, in packets */
#define CLAM_LMIN       1     /* the paper's Lmin, in packets */
#define CLAM_WINDOW_N   3     /* the paper's sample window n */
#define CLAM_SLICE_MIN_NS (10000000LL / CLAM_SCALE)  /* paper: 10 ms */
#define CLAM_SLICE_MAX_NS (500000000LL / CLAM_SCALE) /* paper: 500 ms */
#define CLAM_SLICE_FIXED_NS (50000000LL / CLAM_SCALE) /* paper: 50 ms */
#define CLAM_TIMER_PERIOD_NS (1000000000LL / CLAM_SCALE) /* SAINR: 1 s */

/* ----------------------------------------------------------- strategies */

typedef enum clam_strategy {
    CLAM_NONE = 0, /* work threads alone, no receive thread: the baseline */
    CLAM_UNREAD,   /* no receive thread, traffic on: what the traffic costs */
    CLAM_POLLING,  /* Weft's I/O server, WEFT_IO_POLLING */
    CLAM_SIGNAL,   /* Weft's I/O server, the socket in weft_fd_set_sigio mode */
    CLAM_BLOCKER,  /* Weft's I/O server, WEFT_IO_BLOCKING */
    CLAM_DEFAULT,  /* Weft's I/O server, WEFT_IO_ADAPTIVE: Weft's default */
    CLAM_SPR,      /* paper 3.1: fixed slices, preemptible receive */
    CLAM_SNR,      /* paper 3.2: fixed slices, nonpreemptive receive */
    CLAM_SANR,     /* paper 3.4: adaptive slices, nonpreemptive receive */
    CLAM_SINR,     /* paper 3.5: SIGIO-activated, fixed slices */
    CLAM_SAINR,    /* paper 3.6: SIGIO-activated, adaptive slices, timer */
    CLAM_NSTRATEGIES
} clam_strategy;

#define CLAM_FIRST_PAPER CLAM_SPR

const char *clam_strategy_name(clam_strategy s);
int clam_strategy_parse(const char *name, clam_strategy *out); /* 0 or -1 */
int clam_strategy_is_paper(clam_strategy s);

/* ------------------------------------------------------------- arrivals */

typedef enum clam_arrival_kind {
    CLAM_POISSON = 0, /* exponential gaps of mean `mean_ns` */
    CLAM_MARKOV = 1,  /* the paper's two-state chain H/L, correlation rho */
} clam_arrival_kind;

typedef struct clam_arrival {
    clam_arrival_kind kind;
    int64_t mean_ns; /* POISSON */
    double rho;      /* MARKOV: gamma = delta = (1 + rho) / 2 */
} clam_arrival;

#define CLAM_MARKOV_H_NS (10000000LL / CLAM_SCALE)  /* paper: 10 ms */
#define CLAM_MARKOV_L_NS (100000000LL / CLAM_SCALE) /* paper: 100 ms */

/* "poisson_ia=100us" or "markov_rho=0.9". */
const char *clam_arrival_label(char *buf, size_t size, const clam_arrival *a);

/* Sender state: the time of the next datagram. */
typedef struct clam_source {
    clam_arrival arrival;
    uint64_t rng;
    int high; /* MARKOV: in state H */
} clam_source;

void clam_source_init(clam_source *src, const clam_arrival *a, uint64_t seed);
int64_t clam_source_next_gap(clam_source *src); /* ns until the next one */

/* Send datagrams numbered 0, 1, ... on the connected socket tx at the
 * source's times until stop_fd is readable; returns how many were sent. */
uint64_t clam_send_until(int tx, clam_source *src, int stop_fd);

/* ------------------------------------------------------- the receiver side */

/* What a receiver child runs; passed as
 * `--case recv,<strategy>,<threads>,<warm_us>,<window_us>,<udp_fd>`. */
typedef struct clam_spec {
    clam_strategy strategy;
    int threads;       /* work threads */
    int64_t warm_us;   /* after READY, before the window opens */
    int64_t window_us; /* the measured window */
    int udp_fd;        /* inherited bound UDP socket */
} clam_spec;

int clam_spec_format(char *buf, size_t size, const clam_spec *s);
int clam_spec_parse(const char *text, clam_spec *s); /* 0 or -1 */

/* The receiver child's main (the process exits with the returned status). */
int clam_receiver_main(const clam_spec *s);

/* In the receiver: a negative WEFT_E* code ends the process with a
 * message naming `what`. */
void clam_check(int rc, const char *what);

/* Counters a receive thread keeps; read by the receiver's main thread. */
typedef struct clam_rx_counters {
    uint64_t received;    /* datagrams read */
    uint64_t lost;        /* gaps in the sequence numbers */
    uint64_t activations; /* times the receive thread got control */
    uint64_t last_seq;    /* highest sequence number seen + 1 (0: none) */
    int64_t slice_sum_ns; /* adaptive: sum of the slice over activations */
} clam_rx_counters;

/* Account for one datagram with sequence number seq. */
void clam_rx_count(clam_rx_counters *c, uint64_t seq);

/* Read every queued datagram (non-blocking) and count it; returns how
 * many were read: the paper's X_i. */
int clam_rx_drain(int fd, clam_rx_counters *c);

/* Set up Weft for strategy s (I/O strategy, slices, signals) before any
 * thread starts, then start the receive thread on fd. Returns 0 or a
 * negative WEFT_E* code. */
int clam_strategy_start(clam_strategy s, int fd, clam_rx_counters *c);

/* The priority level work threads run at. */
#define CLAM_WORK_PRIO WEFT_PRIO_DEFAULT

/* CLAM's adaptive slice rule (paper 3.4): T grows by alpha = 1 + 1/8 when
 * the last n activations each read fewer than Lmin datagrams, shrinks by
 * it when each read more than beta*Lmax, within [min, max]. */
typedef struct clam_adapt {
    int history[CLAM_WINDOW_N]; /* X_{i-n+1} .. X_i, circular */
    int seen;                   /* activations so far */
    int64_t slice_ns;           /* T_i */
} clam_adapt;

void clam_adapt_init(clam_adapt *a, int64_t slice_ns);
/* Record X_i; returns 1 if T changed. */
int clam_adapt_step(clam_adapt *a, int packets);

/* ------------------------------------------------------------ the driver */

/* One measurement: a fresh receiver child, the sender feeding it. */
typedef struct clam_run {
    int ok;
    double work_per_s;  /* CopyBuffer operations per second, all threads */
    double work_per_cpu_s; /* the same per second of the worker's CPU */
    double efficiency;  /* percent of the baseline run beside it */
    double efficiency_cpu; /* the same, per worker CPU second */
    double lost_per_s;  /* the paper's unit */
    double loss_pct;    /* lost / (received + lost) */
    double cpu_pct;     /* receiver process CPU, percent of one CPU */
    double helper_cpu_pct; /* of which not the worker's: Weft's helpers */
    double period_us;   /* mean time between two activations */
    double rx_per_s;
    double slice_us;    /* mean slice over activations (adaptive), else 0 */
    double sent_per_s;  /* by the sender over the whole run */
} clam_run;

typedef struct clam_limits {
    int threads;
    int64_t warm_us, window_us;
} clam_limits;

/* Open the bounded UDP receive socket on 127.0.0.1 (inheritable) and a
 * connected sending socket to it. Returns 0 or -1 (message printed). */
int clam_open_sockets(int *rx_fd, int *tx_fd);

/* CLAM's start-up estimate of Lmax: flood an unread socket, count what it
 * kept. Returns Lmax or -1. */
int clam_measure_lmax(void);

/* Spawn a receiver for strategy s, feed it arrivals a until it reports,
 * fill *out. Returns 0 or -1 (message printed). */
int clam_measure(clam_strategy s, const clam_arrival *a,
                 const clam_limits *lim, uint64_t seed, clam_run *out);

/* ------------------------------------------------------------ the report */

#define CLAM_MAX_ARRIVALS 10

typedef struct clam_cell {
    int nruns, failed;
    clam_run runs[BENCH_REPEATS_MAX];
} clam_cell;

typedef struct clam_results {
    clam_arrival arrivals[CLAM_MAX_ARRIVALS];
    int n_arrivals;
    int repeats, threads, lmax;
    int64_t window_us;
    clam_cell cells[CLAM_MAX_ARRIVALS][CLAM_NSTRATEGIES];
    bench_table notes; /* notes only */
} clam_results;

void clam_report_print(const clam_results *r);
void clam_report_results(const clam_results *r);
int clam_report_csv(const clam_results *r, const char *path);

#endif /* BENCH_CLAM_H */
