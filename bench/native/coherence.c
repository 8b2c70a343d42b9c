/* coherence: how fast one core rewrites memory, depending on what the other
 * core last did with it.
 *
 *   cc -O2 bench/native/coherence.c -lpthread -o coherence
 *   coherence KIB [ROUNDS]
 *
 * Two pthreads share a buffer of KIB KiB; each owns one half. A round first
 * sets up the lines' state, then (after a barrier) each thread copies
 * KIB/2 KiB into its own half with memcpy and times that copy. States:
 *   own        nothing in between: the writer last wrote its half itself
 *   other-wrote the other thread wrote the writer's half
 *   other-read  the writer wrote its half, then the other thread read it
 *   both-read   both threads read the whole buffer
 * Prints one line per state: "<state> <GB/s per thread>". This is what
 * drives how Tandem's kernels split work between threads (docs/Runtime.md,
 * "Lines shared between cores"): on the 2-vCPU Zen 4 VM a store to lines
 * the other core has read ran at 8.5 GB/s against 55 GB/s otherwise. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kOwn, kOtherWrote, kOtherRead, kBothRead, kStates };
static const char *const kNames[kStates] = {"own", "other-wrote", "other-read",
                                            "both-read"};

static size_t half;   /* floats per thread */
static float *buffer; /* 2 * half floats */
static int rounds = 2000;
static int state;
static atomic_int arrived;
static double seconds[2];
static volatile float sink;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Both threads wait here; `generation` counts this thread's barriers. */
static void barrier(int *generation) {
  *generation += 2;
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < *generation)
    ;
}

static float readLines(const float *p, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; i += 16)
    s += p[i];
  return s;
}

static void *run(void *arg) {
  int t = (int)(size_t)arg, generation = 0;
  float *mine = buffer + t * half, *theirs = buffer + (1 - t) * half;
  float *source = malloc(half * sizeof(float));
  memset(source, 1, half * sizeof(float));
  for (int r = 0; r < rounds; ++r) {
    if (state == kOtherWrote)
      for (size_t i = 0; i < half; i += 16)
        theirs[i] = (float)r;
    else if (state == kOtherRead)
      sink = readLines(theirs, half);
    else if (state == kBothRead)
      sink = readLines(buffer, 2 * half);
    barrier(&generation);
    double start = now();
    memcpy(mine, source, half * sizeof(float));
    seconds[t] += now() - start;
    barrier(&generation);
  }
  free(source);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || atoi(argv[1]) < 8) {
    fprintf(stderr, "usage: coherence KIB [ROUNDS] (KIB >= 8)\n");
    return 2;
  }
  half = (size_t)atoi(argv[1]) * 1024 / sizeof(float) / 2;
  if (argc > 2 && atoi(argv[2]) > 0)
    rounds = atoi(argv[2]);
  buffer = aligned_alloc(64, 2 * half * sizeof(float));
  if (!buffer)
    return 1;
  memset(buffer, 0, 2 * half * sizeof(float));
  for (state = 0; state < kStates; ++state) {
    atomic_store(&arrived, 0);
    seconds[0] = seconds[1] = 0;
    pthread_t other;
    pthread_create(&other, NULL, run, (void *)(size_t)1);
    run((void *)(size_t)0);
    pthread_join(other, NULL);
    double bytes = (double)half * sizeof(float) * rounds;
    printf("%s %.1f\n", kNames[state],
           bytes / ((seconds[0] + seconds[1]) / 2) / 1e9);
  }
  free(buffer);
  return 0;
}
