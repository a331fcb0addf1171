/* common.h — shared by the C peers of the libnetcore benchmark (bench/README.md):
 * argument parsing, clocks, getrusage, RSS, percentiles and the one JSON result
 * line every peer prints. Header-only; each peer includes it once. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
    const char *workload; /* seq | conc | download | download-file | slow | cancel */
    const char *url;
    const char *out; /* download-file: destination */
    const char *label;
    const char *api;   /* nc peer: callback | sync */
    const char *tuned; /* raw peer: off | on (the libcurl options libnetcore uses to save work) */
    long n, c, warmup;
    long delay_us;            /* cancel: time between send and cancel */
    double time_limit;        /* seconds; a run stops (and says so) past it */
    const char *features;     /* nc peer: comma list of features to turn on (nc_capi.c) */
    const char *ca_file;      /* https: the CA the server's certificate is checked against */
    const char *http_version; /* "1.1" (default) | "2": HTTP/2 over TLS, one connection shared */
    long slices;              /* seq/conc: this many slices on the driver's word (bench_slicer) */
} bench_args;

static void bench_usage(const char *prog) {
    fprintf(stderr,
            "usage: %s --workload seq|conc|download|download-file|slow|cancel --url URL\n"
            "          [-n N] [-c C] [--warmup W] [--out FILE] [--label L] [--api callback|sync]\n"
            "          [--tuned off|on] [--delay-us US] [--time-limit SECONDS] [--features LIST]\n"
            "          [--slices K] [--ca-file PEM] [--http-version 1.1|2]\n",
            prog);
    exit(2);
}

static bench_args bench_parse_args(int argc, char **argv) {
    bench_args a = {.workload = "seq",
                    .label = "",
                    .api = "callback",
                    .tuned = "off",
                    .n = 1000,
                    .c = 1,
                    .warmup = 50,
                    .delay_us = 3000,
                    .time_limit = 600.0,
                    .http_version = "1.1"};
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i];
        if (i + 1 >= argc) bench_usage(argv[0]);
        const char *v = argv[++i];
        if (!strcmp(k, "--workload")) a.workload = v;
        else if (!strcmp(k, "--url")) a.url = v;
        else if (!strcmp(k, "-n")) a.n = atol(v);
        else if (!strcmp(k, "-c")) a.c = atol(v) > 0 ? atol(v) : 1;
        else if (!strcmp(k, "--warmup")) a.warmup = atol(v);
        else if (!strcmp(k, "--out")) a.out = v;
        else if (!strcmp(k, "--label")) a.label = v;
        else if (!strcmp(k, "--api")) a.api = v;
        else if (!strcmp(k, "--tuned")) a.tuned = v;
        else if (!strcmp(k, "--delay-us")) a.delay_us = atol(v);
        else if (!strcmp(k, "--time-limit")) a.time_limit = atof(v);
        else if (!strcmp(k, "--features")) a.features = v;
        else if (!strcmp(k, "--slices")) a.slices = atol(v) > 0 ? atol(v) : 0;
        else if (!strcmp(k, "--ca-file")) a.ca_file = v;
        else if (!strcmp(k, "--http-version")) a.http_version = v;
        else bench_usage(argv[0]);
    }
    if (!a.url) bench_usage(argv[0]);
    return a;
}

static double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* user + system CPU seconds of the whole process (all threads) */
static double bench_cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

/* --slices K (workload 10, bench/README.md): the timed requests run in K slices of
 * n/K (the last takes the rest). Before each slice the peer waits for one byte on
 * stdin (the driver's go); after it, it prints one line {"slice":I,"n":..,"secs":..,
 * "cpu":..} and flushes, then waits again. The driver alternates two peers this way, so
 * the two measure the machine at the same speed, a slice apart. Time spent waiting
 * counts in neither secs nor cpu; the final result line sums the slices. */
typedef struct {
    long slices, per, index;
    long n;
    double t0, cpu0, secs, cpu; /* secs, cpu: sums over finished slices */
} bench_slicer;

/* Waits for the driver's go and starts the slice beginning at request `at`; returns
 * the index where it ends (n when slicing is off). Exits when stdin is closed. */
static long bench_slice_start(bench_slicer *s, long at) {
    if (s->slices <= 0) return s->n;
    char go;
    if (fread(&go, 1, 1, stdin) != 1) exit(3);
    s->t0 = bench_now();
    s->cpu0 = bench_cpu();
    return s->index + 1 >= s->slices ? s->n : at + s->per;
}

/* Ends the slice in which `done` requests have completed since it started. */
static void bench_slice_finish(bench_slicer *s, long done) {
    if (s->slices <= 0) return;
    double secs = bench_now() - s->t0, cpu = bench_cpu() - s->cpu0;
    s->secs += secs;
    s->cpu += cpu;
    printf("{\"slice\":%ld,\"n\":%ld,\"secs\":%.6f,\"cpu\":%.6f}\n", s->index, done, secs, cpu);
    fflush(stdout);
    s->index++;
}

static bench_slicer bench_slicer_for(const bench_args *a) {
    bench_slicer s = {0};
    s.n = a->n;
    s.slices = a->slices > a->n ? a->n : a->slices;
    s.per = s.slices > 0 ? a->n / s.slices : a->n;
    return s;
}

/* a field of /proc/self/status in kB ("VmRSS", "VmHWM"); 0 if unavailable */
static long bench_status_kb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t fl = strlen(field);
    long v = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, field, fl) && line[fl] == ':') {
            v = atol(line + fl + 1);
            break;
        }
    }
    fclose(f);
    return v;
}

/* resets VmHWM to the current RSS, so a later VmHWM is the peak of what follows */
static void bench_reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of a sorted array */
static double bench_percentile(const double *sorted, long n, double p) {
    if (n <= 0) return 0;
    long i = (long)(p / 100.0 * (double)n + 0.999999) - 1;
    if (i < 0) i = 0;
    if (i >= n) i = n - 1;
    return sorted[i];
}

/* JSON string escaping for error texts */
static void bench_put_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            fputc('\\', f);
            fputc(ch, f);
        } else if (ch < 0x20) fputc(' ', f);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* Prints the standard result line; `extra` is more ,"key":value text or "". */
static void bench_emit(const char *peer, const bench_args *a, long ok, long errors, long long bytes,
                       double secs, double cpu, const char *first_error, const char *extra_fmt, ...) {
    long done = ok + errors;
    printf("{\"peer\":\"%s\",\"workload\":\"%s\",", peer, a->workload);
    if (a->label && *a->label) printf("\"label\":\"%s\",", a->label);
    printf("\"url\":");
    bench_put_str(stdout, a->url);
    printf(",\"n\":%ld,\"c\":%ld,\"ok\":%ld,\"errors\":%ld,\"bytes\":%lld,\"secs\":%.6f,"
           "\"rps\":%.3f,\"mbps\":%.3f,\"cpu_us_per_req\":%.3f,\"rss_peak_kb\":%ld",
           a->n, a->c, ok, errors, bytes, secs, secs > 0 ? (double)done / secs : 0.0,
           secs > 0 ? (double)bytes / secs / 1e6 : 0.0, done > 0 ? cpu * 1e6 / (double)done : 0.0,
           bench_status_kb("VmHWM"));
    if (first_error) {
        printf(",\"first_error\":");
        bench_put_str(stdout, first_error);
    }
    if (extra_fmt && *extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vprintf(extra_fmt, ap);
        va_end(ap);
    }
    printf("}\n");
    fflush(stdout);
}

/* The event handler of the peers' "events" feature: counts, nothing more (nc_capi.c's
 * nc_client_set_event_handler, raw_curl.c's hand-written events). */
static unsigned long bench_events_seen;
static inline void bench_count_event(const char *json, size_t len, void *userdata) {
    (void)json;
    (void)len;
    (void)userdata;
    bench_events_seen++;
}

static void bench_skip(const char *peer, const bench_args *a, const char *why) {
    printf("{\"peer\":\"%s\",\"workload\":\"%s\",", peer, a->workload);
    if (a->label && *a->label) printf("\"label\":\"%s\",", a->label);
    printf("\"skipped\":");
    bench_put_str(stdout, why);
    printf("}\n");
    fflush(stdout);
}

#endif
