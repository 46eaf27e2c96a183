// fma_peak: this CPU's FP32 peak, measured with independent chains of fused multiply-adds
// (AVX-512 and AVX2+FMA where the CPU has them) on 1..T threads, per thread CPU second; and
// the int8 peak with AVX-512 VNNI dot products where the CPU has them. The bench reports the speed
// of a network as a fraction of this number. With 2 threads or more it also measures how long a
// cache line written on CPU 0 takes to reach CPU 1 ("core_to_core_ns", one way): the price of
// every value one thread writes and another reads, and of every hand-off between them.
//   usage: fma_peak [MAX_THREADS]   prints one JSON object
#include <immintrin.h>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kChains = 12;  // > FMA latency x FMA ports, so the ports never wait
constexpr long kIterations = 2000000;

__attribute__((target("avx512f"))) float Avx512(long iterations) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(0.001f * static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 16  // unrolled, the chains live in registers (not in memory, which adds store-forwarding latency)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_ps(sum, acc[i]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"))) float Avx2(long iterations) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(0.001f * static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 16  // unrolled, the chains live in registers (not in memory, which adds store-forwarding latency)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm256_add_ps(sum, acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

// int8 dot products (u8 x s8 -> s32, 4 per 32-bit lane): the integer peak for quantized models.
__attribute__((target("avx512f,avx512vnni"))) float Vnni512(long iterations) {
  __m512i acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 16  // unrolled, the chains live in registers (not in memory, which adds store-forwarding latency)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  __m512i sum = acc[0];
  for (int i = 1; i < kChains; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  int lanes[16];
  _mm512_storeu_si512(lanes, sum);
  return static_cast<float>(lanes[0]);
}

volatile float g_sink;

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// GFLOP/s of `threads` threads running `kernel` at once: each thread's work over its own CPU
// time (so time slices lost to other processes on a shared machine do not count), summed; the
// best of several tries.
double Measure(float (*kernel)(long), int lanes, int threads) {
  double best = 0;
  for (int attempt = 0; attempt < 7; ++attempt) {
    std::vector<double> rate(threads, 0.0);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([kernel, lanes, t, &rate] {
        const double start = ThreadCpuSeconds();
        g_sink = kernel(kIterations);
        const double secs = ThreadCpuSeconds() - start;
        rate[t] = 2.0 * lanes * kChains * static_cast<double>(kIterations) / secs / 1e9;
      });
    }
    for (auto& w : workers) w.join();
    double total = 0;
    for (double r : rate) total += r;
    best = std::max(best, total);
  }
  return best;
}

bool PinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// One-way latency in ns of a cache line between CPUs 0 and 1: half the best round trip of a
// counter that two pinned threads hand back and forth; -1 when the threads cannot be pinned.
double CoreToCoreNs() {
  struct alignas(64) Line {
    std::atomic<long> value{0};
  };
  Line line;
  constexpr long kTrips = 20000;
  std::atomic<bool> pinned{true};
  double best = -1;
  for (int attempt = 0; attempt < 5 && pinned; ++attempt) {
    line.value = 0;
    std::thread echo([&] {
      if (!PinTo(1)) {
        pinned = false;
        line.value = -1;
        return;
      }
      for (long i = 0; i < kTrips; ++i) {
        long expected = 2 * i + 1;
        while (line.value.load(std::memory_order_acquire) != expected) {
          if (!pinned) return;
        }
        line.value.store(expected + 1, std::memory_order_release);
      }
    });
    cpu_set_t saved;
    pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
    if (!PinTo(0)) pinned = false;
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kTrips && pinned; ++i) {
      line.value.store(2 * i + 1, std::memory_order_release);
      while (line.value.load(std::memory_order_acquire) != 2 * i + 2) {
        if (!pinned) break;
      }
    }
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    echo.join();
    pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
    if (pinned) best = best < 0 ? ns / kTrips / 2 : std::min(best, ns / kTrips / 2);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  __builtin_cpu_init();
  struct Isa {
    const char* name;
    bool present;
    float (*kernel)(long);
    int lanes;
  };
  const Isa isas[] = {{"avx512", __builtin_cpu_supports("avx512f") != 0, Avx512, 16},
                      {"avx2_fma", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"), Avx2, 8}};
  // One vpdpbusd does 4 multiply-adds per 32-bit lane: "lanes" = 64 for the op count.
  const Isa int8_isa = {"avx512_vnni", __builtin_cpu_supports("avx512vnni") != 0, Vnni512, 64};
  std::string json = "{";
  std::vector<double> peak(max_threads + 1, 0.0);
  for (const Isa& isa : isas) {
    if (!isa.present) continue;
    json += "\"" + std::string(isa.name) + "\": {";
    for (int t = 1; t <= max_threads; ++t) {
      const double g = Measure(isa.kernel, isa.lanes, t);
      peak[t] = std::max(peak[t], g);
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%s\"%d\": %.2f", t > 1 ? ", " : "", t, g);
      json += buf;
    }
    json += "}, ";
  }
  json += "\"peak_fp32_gflops\": {";
  for (int t = 1; t <= max_threads; ++t) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%s\"%d\": %.2f", t > 1 ? ", " : "", t, peak[t]);
    json += buf;
  }
  json += "}";
  if (int8_isa.present) {
    json += ", \"peak_int8_gops\": {";
    for (int t = 1; t <= max_threads; ++t) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%s\"%d\": %.2f", t > 1 ? ", " : "", t, Measure(int8_isa.kernel, int8_isa.lanes, t));
      json += buf;
    }
    json += "}";
  }
  if (max_threads > 1 && std::thread::hardware_concurrency() > 1) {
    const double ns = CoreToCoreNs();
    if (ns > 0) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), ", \"core_to_core_ns\": %.0f", ns);
      json += buf;
    }
  }
  json += "}";
  std::printf("%s\n", json.c_str());
  return 0;
}
