// LD_PRELOAD live-heap tracker (valgrind 3.19 cannot read this toolchain's binaries): live bytes by allocation stack.
// Build: gcc -O2 -fno-omit-frame-pointer -shared -fPIC -o trk.so trk.c -ldl -lpthread
// Run:   LD_PRELOAD=$PWD/trk.so monitor run ...; `touch $TRK_DIR/dump-PID` writes $TRK_DIR/heap-PID-N.txt (TRK_DIR: /tmp).
// Read:  python3 agg.py $TRK_DIR/heap-PID-N.txt FEEDS   (live bytes by the first frame outside the allocators)
// TRK_TRACK=0: count nothing (no cost, no tables in RSS); a dump then writes only the malloc part below.
// Each heap dump's first line also gives the highest live total so far; TRK_PEAK=1 dumps each time that grows by 1 MiB,
// so that the last dump of a run shows the live heap near its peak (what `run --once`'s peak RSS is made of).
// Each dump also writes $TRK_DIR/malloc-PID-N.xml: glibc's malloc_info (per arena: bytes in use, free chunks by size,
// top chunk, mmapped) with VmRSS and sqlite3_memory_used() before; TRK_TRIM=1 then calls malloc_trim(0) and adds VmRSS after it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <malloc.h>

#define DEPTH 14
#define PCAP (1u << 23)
#define SCAP (1u << 20)
typedef struct { uintptr_t p; uint32_t size; uint32_t st; } Ent;
typedef struct { uint64_t h; uint32_t n; void *f[DEPTH]; uint64_t bytes, count, total; } Stk;
static Ent *pt; static Stk *stt; static uint32_t nst;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int inhook;
static void *(*rmalloc)(size_t); static void (*rfree)(void *); static void *(*rcalloc)(size_t, size_t);
static void *(*rrealloc)(void *, size_t); static int (*rpm)(void **, size_t, size_t);
static void *(*raa)(size_t, size_t); static void *(*rmemalign)(size_t, size_t);
static char boot[1 << 16]; static size_t bootn; static int ready; static int track = 1;
// Live bytes now and at their highest (TRK_PEAK=1: a dump is written each time the highest grows by 1 MiB).
static uint64_t live, peak, peak_dumped; static int peak_dumps;
static const char *dir(void) { const char *d = getenv("TRK_DIR"); return d ? d : "/tmp"; }

static uint64_t hp(uintptr_t p) { p ^= p >> 33; p *= 0xff51afd7ed558ccdULL; p ^= p >> 33; return p; }

static void init(void) {
  if (ready) return;
  ready = 2;
  rmalloc = dlsym(RTLD_NEXT, "malloc"); rfree = dlsym(RTLD_NEXT, "free"); rcalloc = dlsym(RTLD_NEXT, "calloc");
  rrealloc = dlsym(RTLD_NEXT, "realloc"); rpm = dlsym(RTLD_NEXT, "posix_memalign");
  raa = dlsym(RTLD_NEXT, "aligned_alloc"); rmemalign = dlsym(RTLD_NEXT, "memalign");
  pt = mmap(0, sizeof(Ent) * PCAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  stt = mmap(0, sizeof(Stk) * SCAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ready = 1;
}

// TRK_FP=1: walk the frame pointers instead of unwinding with backtrace(): several times faster, so that a
// tracked run keeps its schedule (the Swift runtime and Swift code keep frame pointers; a frame without one, in a
// library built without them, ends the walk early).
static int fp_walk;
static __thread uintptr_t stack_lo, stack_hi;

static inline __attribute__((always_inline)) int fp_backtrace(void **f, int max) {
  uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
  if (!stack_hi) {
    pthread_attr_t a; void *lo; size_t size;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      pthread_attr_getstack(&a, &lo, &size); pthread_attr_destroy(&a);
      stack_lo = (uintptr_t)lo; stack_hi = (uintptr_t)lo + size;
    } else { stack_lo = fp; stack_hi = fp + (1u << 20); }
  }
  int n = 0;
  while (n < max && fp >= stack_lo && fp + 16 <= stack_hi && !(fp & 7)) {
    uintptr_t next = ((uintptr_t *)fp)[0] & ~(1ULL << 60);  // bit 60 marks a Swift async frame
    uintptr_t ret = ((uintptr_t *)fp)[1];
    if (!ret) break;
    f[n++] = (void *)ret;
    if (next <= fp) break;
    fp = next;
  }
  return n;
}

static inline __attribute__((always_inline)) uint32_t stack_id(void) {
  void *f[DEPTH + 2]; int n, skip;
  if (fp_walk) { n = fp_backtrace(f, DEPTH + 1); skip = 1; }  // its first frame is add()'s caller
  else { n = backtrace(f, DEPTH + 2); skip = 2; }
  if (n < skip) skip = n;
  uint64_t h = 1469598103934665603ULL;
  for (int i = skip; i < n; i++) { h ^= (uintptr_t)f[i]; h *= 1099511628211ULL; }
  uint32_t i = h & (SCAP - 1);
  for (;;) {
    Stk *s = &stt[i];
    if (s->h == 0) { s->h = h | 1; s->n = n - skip; memcpy(s->f, f + skip, sizeof(void *) * (n - skip)); nst++; return i; }
    if (s->h == (h | 1)) return i;
    i = (i + 1) & (SCAP - 1);
  }
}

static __attribute__((noinline)) void add(void *p, size_t size) {
  if (!p || inhook || ready != 1 || !track) return;
  inhook = 1;
  pthread_mutex_lock(&mu);
  uint32_t st = stack_id();
  stt[st].bytes += size; stt[st].count++; stt[st].total++;
  uint32_t i = hp((uintptr_t)p) & (PCAP - 1);
  while (pt[i].p && pt[i].p != (uintptr_t)p) i = (i + 1) & (PCAP - 1);
  // An entry left for this address (its free missed inside a hook) is replaced, its bytes no longer live.
  if (pt[i].p) { stt[pt[i].st].bytes -= pt[i].size; stt[pt[i].st].count--; live -= pt[i].size; }
  pt[i].p = (uintptr_t)p; pt[i].size = size; pt[i].st = st;
  live += pt[i].size;
  if (live > peak) peak = live;
  int due = peak_dumps && peak >= peak_dumped + (1u << 20);
  if (due) peak_dumped = peak;
  pthread_mutex_unlock(&mu);
  inhook = 0;
  if (due) { int e = errno; char trig[128]; snprintf(trig, sizeof trig, "%s/dump-%d", dir(), getpid()); FILE *t = fopen(trig, "w"); if (t) fclose(t); errno = e; }
}

static void del(void *p) {
  if (!p || ready != 1 || inhook || !track) return;
  pthread_mutex_lock(&mu);
  uint32_t i = hp((uintptr_t)p) & (PCAP - 1);
  while (pt[i].p && pt[i].p != (uintptr_t)p) i = (i + 1) & (PCAP - 1);
  if (pt[i].p) {
    stt[pt[i].st].bytes -= pt[i].size; stt[pt[i].st].count--; live -= pt[i].size;
    pt[i].p = 0;
    // backward-shift deletion
    uint32_t j = i;
    for (;;) {
      j = (j + 1) & (PCAP - 1);
      if (!pt[j].p) break;
      uint32_t k = hp(pt[j].p) & (PCAP - 1);
      if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) { pt[i] = pt[j]; pt[j].p = 0; i = j; }
    }
  }
  pthread_mutex_unlock(&mu);
}

static void *bootalloc(size_t n) { void *p = boot + bootn; bootn += (n + 15) & ~(size_t)15; return p; }
void *malloc(size_t n) { if (ready == 2) return bootalloc(n); if (!ready) init(); void *p = rmalloc(n); add(p, n); return p; }
void free(void *p) {
  if ((char *)p >= boot && (char *)p < boot + sizeof boot) return;
  if (!ready) init();
  del(p); rfree(p);
}
void *calloc(size_t a, size_t b) {
  if (ready == 2) return bootalloc(a * b);
  if (!ready) init();
  void *p = rcalloc(a, b); add(p, a * b); return p;
}
void *realloc(void *o, size_t n) {
  if (!ready) init();
  if ((char *)o >= boot && (char *)o < boot + sizeof boot) { void *p = malloc(n); memcpy(p, o, n); return p; }
  del(o); void *p = rrealloc(o, n); add(p, n); return p;
}
int posix_memalign(void **r, size_t a, size_t n) { if (!ready) init(); int e = rpm(r, a, n); if (!e) add(*r, n); return e; }
void *aligned_alloc(size_t a, size_t n) { if (!ready) init(); void *p = raa(a, n); add(p, n); return p; }
void *memalign(size_t a, size_t n) { if (!ready) init(); void *p = rmemalign(a, n); add(p, n); return p; }

static int cmp(const void *a, const void *b) {
  uint64_t x = stt[*(uint32_t *)a].bytes, y = stt[*(uint32_t *)b].bytes; return x < y ? 1 : x > y ? -1 : 0;
}


static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r"); char line[256]; long kb = -1;
  while (f && fgets(line, sizeof line, f)) if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}

static void dump_malloc(int k) {
  char path[256]; snprintf(path, sizeof path, "%s/malloc-%d-%d.xml", dir(), getpid(), k);
  inhook = 1;
  FILE *f = fopen(path, "w");
  fprintf(f, "<!-- VmRSS %ld kB -->\n", rss_kb());
  // SQLite's own count of the memory it holds (its page caches among it), when the process has SQLite loaded.
  long long (*sqlite_used)(int) = (long long (*)(int))dlsym(RTLD_DEFAULT, "sqlite3_memory_used");
  if (sqlite_used) fprintf(f, "<!-- sqlite3_memory_used %lld bytes -->\n", sqlite_used(0));
  malloc_info(0, f);
  const char *trim = getenv("TRK_TRIM");
  if (trim && *trim == '1') {
    int freed = malloc_trim(0);
    fprintf(f, "<!-- malloc_trim(0) = %d; VmRSS after %ld kB -->\n", freed, rss_kb());
  }
  fclose(f);
  inhook = 0;
}

static void dump(int k) {
  dump_malloc(k);
  if (!track) return;
  char path[256]; snprintf(path, sizeof path, "%s/heap-%d-%d.txt", dir(), getpid(), k);
  inhook = 1;
  pthread_mutex_lock(&mu);
  static uint32_t idx[SCAP]; uint32_t m = 0; uint64_t tot = 0, cnt = 0;
  for (uint32_t i = 0; i < SCAP; i++) if (stt[i].h && stt[i].bytes) { idx[m++] = i; tot += stt[i].bytes; cnt += stt[i].count; }
  qsort(idx, m, sizeof idx[0], cmp);
  FILE *f = fopen(path, "w");
  fprintf(f, "TOTAL %lu bytes %lu blocks %u stacks; peak %lu bytes\n", tot, cnt, m, peak);
  for (uint32_t j = 0; j < m; j++) {
    Stk *s = &stt[idx[j]];
    fprintf(f, "S %lu %lu %lu", s->bytes, s->count, s->total);
    for (uint32_t q = 0; q < s->n; q++) fprintf(f, " %p", s->f[q]);
    fprintf(f, "\n");
  }
  FILE *mp = fopen("/proc/self/maps", "r"); char line[512];
  while (fgets(line, sizeof line, mp)) fprintf(f, "M %s", line);
  fclose(mp); fclose(f);
  pthread_mutex_unlock(&mu);
  inhook = 0;
}

static void *watcher(void *x) {
  (void)x; int k = 0; char trig[128]; snprintf(trig, sizeof trig, "%s/dump-%d", dir(), getpid());
  // The trigger is removed before the dump, so that a peak reached during it asks for the next one.
  for (;;) { usleep(100000); if (access(trig, F_OK) == 0) { unlink(trig); dump(k++); } }
  return 0;
}

__attribute__((constructor)) static void start(void) {
  init();
  const char *off = getenv("TRK_TRACK");
  if (off && *off == '0') track = 0;
  const char *fp = getenv("TRK_FP");
  if (fp && *fp == '1') fp_walk = 1;
  const char *pk = getenv("TRK_PEAK");
  if (pk && *pk == '1') peak_dumps = 1;
  inhook = 1; pthread_t t; pthread_create(&t, 0, watcher, 0); inhook = 0;
}
