// Micro-benchmark of the optimized builtin kernels against their reference twins, and of whole
// models through the interpreter (the synthetic float MobileNet v2 of mobilenet_v2.h, or a file).
//
//   edgerun_kernel_bench [--threads N] [--filter SUBSTRING] [--min-secs S]
//   edgerun_kernel_bench --model FILE|mobilenet_v2 [--threads N] [--runs N] [--profile]
//   edgerun_kernel_bench --write-mobilenet-v2 FILE
//
// EDGERUN_ISA=generic|avx2|avx512 picks the instruction set (default: the best this CPU has).
// Timings on a shared machine vary; every number is the median of several runs.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "bench/kernels/mobilenet_v2.h"
#include "core/thread_pool.h"
#include "edgerun/interpreter.h"
#include "kernels/optimized/conv.h"
#include "kernels/optimized/integer.h"
#include "kernels/reference/conv.h"
#include "kernels/reference/integer_conv.h"
#include "quant/fixed_point.h"

namespace edgerun::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Median milliseconds of fn over at least 3 runs and about min_secs.
double MedianMs(const std::function<void()>& fn, double min_secs, int max_runs = 1000) {
  fn();  // warm-up (packing, caches)
  std::vector<double> times;
  const auto start = Clock::now();
  while (static_cast<int>(times.size()) < max_runs && (times.size() < 3 || Seconds(start, Clock::now()) < min_secs)) {
    const auto t0 = Clock::now();
    fn();
    times.push_back(Seconds(t0, Clock::now()) * 1e3);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Buffers on 64-byte lines, as the interpreter's arena and packed weights are: glibc puts large
// blocks 16 bytes past a page, where every 64-byte vector load would straddle two lines (the
// depthwise kernels measured 20-25% slower that way than in a model).
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const LineAligned<U>&) const { return true; }
};
template <class T>
using Buffer = std::vector<T, LineAligned<T>>;

Buffer<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  Buffer<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}
template <class T>
Buffer<T> RandomInts(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  Buffer<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

struct Case {
  std::string name;
  double mflop;  // multiply-adds x 2, in millions
  std::function<void()> reference, optimized;
};

reference::ConvParams SameParams(int in, int k, int stride, int out) {
  reference::ConvParams p;
  p.stride_h = p.stride_w = stride;
  const int total = std::max(0, (out - 1) * stride + k - in);
  p.pad_h = p.pad_w = total / 2;
  p.act_min = 0;
  p.act_max = 6;
  return p;
}

// Keeps the data of a case alive. Deques: the cases hold references to their elements, which
// must stay where they are when more are added.
struct Store {
  std::deque<Buffer<float>> f;
  std::deque<Buffer<int8_t>> i8;
  std::deque<Buffer<int16_t>> i16;
  std::deque<Buffer<int32_t>> i32;
  std::deque<Buffer<int64_t>> i64;
  std::vector<std::unique_ptr<optimized::AlignedBuffer<int32_t>>> filters_i32;
  std::vector<std::unique_ptr<optimized::ConvFilterF32>> packed_f32;
  std::vector<std::unique_ptr<optimized::ConvFilterI16>> packed_i16;
  std::vector<std::unique_ptr<optimized::ConvFilterI8>> packed_i8;
  std::vector<std::unique_ptr<std::vector<int>>> ints;
};

void AddFloatConv(std::vector<Case>& cases, Store& s, ThreadPool* pool, int hw, int in_c, int out_c, int k, int stride) {
  const int out = (hw + stride - 1) / stride;
  const Shape in_shape{1, hw, hw, in_c}, f_shape{out_c, k, k, in_c}, out_shape{1, out, out, out_c};
  auto& in = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(in_shape)), 1));
  auto& f = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(f_shape)), 2));
  auto& bias = s.f.emplace_back(RandomFloats(out_c, 3));
  auto& o = s.f.emplace_back(static_cast<size_t>(NumElements(out_shape)));
  auto& packed = *s.packed_f32.emplace_back(std::make_unique<optimized::ConvFilterF32>());
  const reference::ConvParams p = SameParams(hw, k, stride, out);
  const double mflop = 2.0 * out * out * out_c * k * k * in_c / 1e6;
  cases.push_back({"conv f32 " + std::to_string(hw) + "x" + std::to_string(hw) + "x" + std::to_string(in_c) + " k" +
                       std::to_string(k) + " s" + std::to_string(stride) + " -> " + std::to_string(out_c),
                   mflop,
                   [=, &in, &f, &bias, &o] {
                     reference::Conv2D(p, in_shape, in.data(), f_shape, f.data(), bias.data(), out_shape, o.data());
                   },
                   [=, &in, &f, &bias, &o, &packed] {
                     optimized::PackConvFilterF32(f_shape, f.data(), 1, optimized::ActiveIsa(), &packed);
                     optimized::Conv2DF32(pool, p, in_shape, in.data(), f_shape, packed, bias.data(), out_shape,
                                          o.data());
                   }});
}

// The same convolution with its filter cold, as in a whole network whose weights do not stay in
// cache: `copies` filters (each packed once) taken in turn.
void AddFloatConvColdFilter(std::vector<Case>& cases, Store& s, ThreadPool* pool, int hw, int in_c, int out_c, int k,
                            int copies) {
  const Shape in_shape{1, hw, hw, in_c}, f_shape{out_c, k, k, in_c}, out_shape{1, hw, hw, out_c};
  auto& in = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(in_shape)), 1));
  auto& bias = s.f.emplace_back(RandomFloats(out_c, 3));
  auto& o = s.f.emplace_back(static_cast<size_t>(NumElements(out_shape)));
  std::vector<optimized::ConvFilterF32*> packed;
  Buffer<float>* first_filter = nullptr;
  for (int c = 0; c < copies; ++c) {
    auto& f = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(f_shape)), 10 + c));
    if (c == 0) first_filter = &f;
    packed.push_back(s.packed_f32.emplace_back(std::make_unique<optimized::ConvFilterF32>()).get());
    optimized::PackConvFilterF32(f_shape, f.data(), 1, optimized::ActiveIsa(), packed.back());
  }
  auto& turn = *s.ints.emplace_back(std::make_unique<std::vector<int>>(1, 0));
  const reference::ConvParams p = SameParams(hw, k, 1, hw);
  const double mflop = 2.0 * hw * hw * out_c * k * k * in_c / 1e6;
  cases.push_back({"conv f32 " + std::to_string(hw) + "x" + std::to_string(hw) + "x" + std::to_string(in_c) + " k" +
                       std::to_string(k) + " s1 -> " + std::to_string(out_c) + " (cold filter)",
                   mflop,
                   [=, &in, &bias, &o] {
                     reference::Conv2D(p, in_shape, in.data(), f_shape, first_filter->data(), bias.data(), out_shape,
                                       o.data());
                   },
                   [=, &in, &bias, &o, &turn] {
                     const int t = turn[0]++ % copies;
                     optimized::Conv2DF32(pool, p, in_shape, in.data(), f_shape, *packed[t], bias.data(), out_shape,
                                          o.data());
                   }});
}

void AddFloatDepthwise(std::vector<Case>& cases, Store& s, ThreadPool* pool, int hw, int c, int stride) {
  const int out = (hw + stride - 1) / stride;
  const Shape in_shape{1, hw, hw, c}, f_shape{1, 3, 3, c}, out_shape{1, out, out, c};
  auto& in = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(in_shape)), 1));
  auto& f = s.f.emplace_back(RandomFloats(static_cast<size_t>(NumElements(f_shape)), 2));
  auto& bias = s.f.emplace_back(RandomFloats(c, 3));
  auto& o = s.f.emplace_back(static_cast<size_t>(NumElements(out_shape)));
  const reference::ConvParams p = SameParams(hw, 3, stride, out);
  cases.push_back({"depthwise f32 " + std::to_string(hw) + "x" + std::to_string(hw) + "x" + std::to_string(c) +
                       " 3x3 s" + std::to_string(stride),
                   2.0 * out * out * c * 9 / 1e6,
                   [=, &in, &f, &bias, &o] {
                     reference::DepthwiseConv2D(p, 1, in_shape, in.data(), f_shape, f.data(), bias.data(), out_shape,
                                                o.data());
                   },
                   [=, &in, &f, &bias, &o] {
                     optimized::DepthwiseConv2DF32(pool, p, in_shape, in.data(), f_shape, f.data(), bias.data(),
                                                   out_shape, o.data());
                   }});
}

void AddFloatFc(std::vector<Case>& cases, Store& s, ThreadPool* pool, int batches, int depth, int units) {
  auto& in = s.f.emplace_back(RandomFloats(static_cast<size_t>(batches) * depth, 1));
  auto& w = s.f.emplace_back(RandomFloats(static_cast<size_t>(units) * depth, 2));
  auto& bias = s.f.emplace_back(RandomFloats(units, 3));
  auto& o = s.f.emplace_back(static_cast<size_t>(batches) * units);
  auto packed = std::make_shared<optimized::PackedF32>();
  cases.push_back({"fully_connected f32 " + std::to_string(batches) + "x" + std::to_string(depth) + " -> " +
                       std::to_string(units),
                   2.0 * batches * depth * units / 1e6,
                   [=, &in, &w, &bias, &o] {
                     reference::FullyConnected(-3e38f, 3e38f, batches, depth, units, in.data(), w.data(), bias.data(),
                                               o.data());
                   },
                   [=, &in, &w, &bias, &o] {
                     if (packed->source != w.data() || packed->isa != optimized::ActiveIsa()) {
                       optimized::PackF32FromNK(w.data(), depth, units, depth, optimized::ActiveIsa(), packed.get());
                     }
                     optimized::GemmF32(pool, in.data(), depth, batches, *packed, o.data(), units, bias.data(), -3e38f,
                                        3e38f);
                   }});
}

// int8 CONV_2D with per-channel float requantization (edgerun's default for 8-bit convolutions).
void AddInt8Conv(std::vector<Case>& cases, Store& s, ThreadPool* pool, int hw, int in_c, int out_c, int k, int stride,
                 bool depthwise, bool byte_dots = false) {
  const int out = (hw + stride - 1) / stride;
  reference::ConvDims d{hw, hw, in_c, k, k, out, out, depthwise ? in_c : out_c};
  const reference::ConvParams p = SameParams(hw, k, stride, out);
  auto& in = s.i8.emplace_back(RandomInts<int8_t>(static_cast<size_t>(hw) * hw * in_c, -128, 127, 1));
  const size_t f_size = depthwise ? static_cast<size_t>(k) * k * in_c : static_cast<size_t>(out_c) * k * k * in_c;
  auto& f = s.i8.emplace_back(RandomInts<int8_t>(f_size, -127, 127, 2));
  auto& bias = s.i32.emplace_back(RandomInts<int32_t>(d.out_c, -1000, 1000, 3));
  auto& o = s.i8.emplace_back(static_cast<size_t>(out) * out * d.out_c);
  auto& mult = s.i32.emplace_back(d.out_c, 1 << 30);
  auto& shift = *s.ints.emplace_back(std::make_unique<std::vector<int>>(d.out_c, -8));
  auto& scale = s.f.emplace_back(d.out_c, 1.0f / 512);
  auto& f32 = *s.filters_i32.emplace_back(std::make_unique<optimized::AlignedBuffer<int32_t>>());  // the runtime's own type
  optimized::PrepareDepthwiseFilter(f.data(), static_cast<int64_t>(f.size()), 0, &f32);
  auto& packed = *s.packed_i16.emplace_back(std::make_unique<optimized::ConvFilterI16>());
  auto& packed_i8 = *s.packed_i8.emplace_back(std::make_unique<optimized::ConvFilterI8>());
  const reference::Requantization rq{mult.data(), shift.data(), 3, -128, 127};
  const double mflop = 2.0 * out * out * d.out_c * k * k * (depthwise ? 1 : in_c) / 1e6;
  cases.push_back({std::string(depthwise ? "depthwise" : "conv") + " int8 " + std::to_string(hw) + "x" +
                       std::to_string(hw) + "x" + std::to_string(in_c) + " k" + std::to_string(k) + " s" +
                       std::to_string(stride) + (depthwise ? "" : " -> " + std::to_string(out_c)) +
                       (byte_dots ? " (byte dots)" : ""),
                   mflop,
                   [=, &in, &f, &bias, &o] {
                     const reference::Requantizer<int32_t, int32_t, int8_t> emit{rq, bias.data()};
                     if (depthwise) {
                       std::vector<uint32_t> sums;
                       reference::IntegerDepthwiseConv2D<int32_t>(p, d, 1, in.data(), 5, f.data(), 0, o.data(), sums,
                                                                  emit);
                     } else {
                       reference::IntegerConv2D<int32_t>(p, d, in_c, in.data(), 5, f.data(), 0, o.data(), emit);
                     }
                   },
                   [=, &in, &f, &bias, &o, &mult, &shift, &scale, &f32, &packed, &packed_i8] {
                     // Float requantization, as TFLite's XNNPACK path and edgerun's default.
                     const auto stage = optimized::MakeRequantStage<int8_t>(true, mult.data(), shift.data(), scale.data(), 3,
                                                                            -128, 127, bias.data(), o.data(), d.out_c);
                     if (depthwise) {
                       optimized::IntegerDepthwiseConv2D(pool, p, d, in.data(), 5, f32.data(), stage);
                     } else if (byte_dots) {
                       optimized::PackConvFilterI8<int8_t>(Shape{out_c, k, k, in_c}, f.data(), 0, 5, 1, &packed_i8);
                       optimized::IntegerConv2DI8(pool, p, d, in_c, in.data(), 5, packed_i8, [&](int) { return stage; });
                     } else {
                       optimized::PackConvFilterI16(Shape{out_c, k, k, in_c}, f.data(), 0, 1, &packed);
                       optimized::IntegerConv2D<false>(pool, p, d, in_c, in.data(), 5, packed,
                                                       [&](int) { return stage; });
                     }
                   }});
}

// int16 x int8 CONV_2D with int64 sums (the 16x8 quantization).
void AddInt16Conv(std::vector<Case>& cases, Store& s, ThreadPool* pool, int hw, int in_c, int out_c, int k) {
  reference::ConvDims d{hw, hw, in_c, k, k, hw, hw, out_c};
  const reference::ConvParams p = SameParams(hw, k, 1, hw);
  auto& in = s.i16.emplace_back(RandomInts<int16_t>(static_cast<size_t>(hw) * hw * in_c, -32768, 32767, 1));
  auto& f = s.i8.emplace_back(RandomInts<int8_t>(static_cast<size_t>(out_c) * k * k * in_c, -127, 127, 2));
  auto& bias = s.i64.emplace_back(RandomInts<int64_t>(out_c, -1000, 1000, 3));
  auto& o = s.i16.emplace_back(static_cast<size_t>(hw) * hw * out_c);
  auto& mult = s.i32.emplace_back(out_c, 1 << 30);
  auto& shift = *s.ints.emplace_back(std::make_unique<std::vector<int>>(out_c, -16));
  auto& packed = *s.packed_i16.emplace_back(std::make_unique<optimized::ConvFilterI16>());
  const reference::Requantization rq{mult.data(), shift.data(), 0, -32768, 32767};
  cases.push_back({"conv int16x8 " + std::to_string(hw) + "x" + std::to_string(hw) + "x" + std::to_string(in_c) +
                       " k" + std::to_string(k) + " -> " + std::to_string(out_c),
                   2.0 * hw * hw * out_c * k * k * in_c / 1e6,
                   [=, &in, &f, &bias, &o] {
                     const reference::Requantizer<int64_t, int64_t, int16_t> emit{rq, bias.data()};
                     reference::IntegerConv2D<int64_t>(p, d, in_c, in.data(), 0, f.data(), 0, o.data(), emit);
                   },
                   [=, &in, &f, &bias, &o, &packed] {
                     const reference::Requantizer<int64_t, int64_t, int16_t> emit{rq, bias.data()};
                     optimized::PackConvFilterI16(Shape{out_c, k, k, in_c}, f.data(), 0, 1, &packed);
                     optimized::IntegerConv2D<true>(pool, p, d, in_c, in.data(), 0, packed, [&](int) {
                       return optimized::MakeEmitStage<int16_t, int64_t>(emit, o.data(), out_c);
                     });
                   }});
}

int RunKernels(int threads, const std::string& filter, double min_secs) {
  ThreadPool pool(threads);
  std::vector<Case> cases;
  Store s;
  // Layers of MobileNet v2 (224) and a few others.
  AddFloatConv(cases, s, &pool, 224, 3, 32, 3, 2);
  AddFloatConv(cases, s, &pool, 112, 32, 16, 1, 1);
  AddFloatConv(cases, s, &pool, 56, 24, 144, 1, 1);
  // The same depths on 441 rows, every operand in L2 (a fused block's strip): the cost of a
  // tile's epilogue against its depth (Zen 4: K 16-144 at 71-85 GFLOP/s, K 384 at 107-111).
  AddFloatConv(cases, s, &pool, 21, 24, 144, 1, 1);
  AddFloatConv(cases, s, &pool, 21, 16, 96, 1, 1);
  AddFloatConv(cases, s, &pool, 21, 144, 24, 1, 1);
  AddFloatConv(cases, s, &pool, 21, 96, 24, 1, 1);
  AddFloatConv(cases, s, &pool, 21, 384, 64, 1, 1);
  AddFloatConv(cases, s, &pool, 56, 144, 24, 1, 1);
  AddFloatConv(cases, s, &pool, 14, 384, 64, 1, 1);
  AddFloatConv(cases, s, &pool, 7, 960, 320, 1, 1);
  AddFloatConv(cases, s, &pool, 7, 320, 1280, 1, 1);
  AddFloatConv(cases, s, &pool, 28, 64, 64, 3, 1);
  // ResNet-18's 3x3 layers.
  AddFloatConv(cases, s, &pool, 56, 64, 64, 3, 1);
  AddFloatConv(cases, s, &pool, 28, 128, 128, 3, 1);
  AddFloatConv(cases, s, &pool, 28, 128, 256, 3, 1);
  AddFloatConv(cases, s, &pool, 28, 64, 512, 3, 1);
  AddFloatConv(cases, s, &pool, 14, 256, 256, 3, 1);
  AddFloatConv(cases, s, &pool, 7, 512, 512, 3, 1);
  AddFloatConvColdFilter(cases, s, &pool, 7, 512, 512, 3, 12);  // 12 x 9.4 MB
  AddFloatConvColdFilter(cases, s, &pool, 14, 256, 256, 3, 12);
  AddFloatDepthwise(cases, s, &pool, 112, 96, 2);
  AddFloatDepthwise(cases, s, &pool, 56, 144, 1);
  AddFloatDepthwise(cases, s, &pool, 14, 384, 1);
  AddFloatDepthwise(cases, s, &pool, 14, 576, 1);
  AddFloatDepthwise(cases, s, &pool, 7, 960, 1);
  AddFloatFc(cases, s, &pool, 1, 1280, 1000);
  AddFloatFc(cases, s, &pool, 32, 512, 512);
  // The int16-pair GEMM (CPUs without byte dot products): MobileNet v2's first layers, whose
  // short depths make the im2col / conversion and the requantization count, then deeper ones.
  AddInt8Conv(cases, s, &pool, 224, 3, 32, 3, 2, false);
  AddInt8Conv(cases, s, &pool, 112, 16, 96, 1, 1, false);
  AddInt8Conv(cases, s, &pool, 112, 32, 16, 1, 1, false);
  AddInt8Conv(cases, s, &pool, 56, 24, 144, 1, 1, false);
  AddInt8Conv(cases, s, &pool, 56, 144, 24, 1, 1, false);
  AddInt8Conv(cases, s, &pool, 14, 384, 64, 1, 1, false);
  AddInt8Conv(cases, s, &pool, 28, 64, 64, 3, 1, false);
  if (optimized::HasGemmI8(optimized::ActiveIsa())) {
    AddInt8Conv(cases, s, &pool, 224, 3, 32, 3, 2, false, true);
    AddInt8Conv(cases, s, &pool, 56, 144, 24, 1, 1, false, true);
    AddInt8Conv(cases, s, &pool, 56, 24, 144, 1, 1, false, true);
    AddInt8Conv(cases, s, &pool, 14, 384, 64, 1, 1, false, true);
    AddInt8Conv(cases, s, &pool, 7, 960, 320, 1, 1, false, true);
    AddInt8Conv(cases, s, &pool, 28, 64, 64, 3, 1, false, true);
    AddInt8Conv(cases, s, &pool, 32, 16, 16, 3, 1, false, true);
    AddInt8Conv(cases, s, &pool, 32, 3, 16, 3, 1, false, true);
  }
  AddInt8Conv(cases, s, &pool, 56, 144, 0, 3, 1, true);
  AddInt16Conv(cases, s, &pool, 28, 64, 64, 3);
  std::printf("isa %s, %d thread(s)\n", optimized::IsaName(optimized::ActiveIsa()), threads);
  std::printf("%-46s %10s %10s %8s %9s\n", "kernel", "ref ms", "opt ms", "speedup", "GFLOP/s");
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const double ref = MedianMs(c.reference, min_secs, 5);
    const double opt = MedianMs(c.optimized, min_secs);
    std::printf("%-46s %10.3f %10.3f %7.1fx %9.1f\n", c.name.c_str(), ref, opt, ref / opt, c.mflop / opt);
  }
  return 0;
}

class OpTimes : public Profiler {
 public:
  void OnNodeBegin(int, int, const std::string&) override { start_ = Clock::now(); }
  void OnNodeEnd(int, int, const std::string& op) override {
    auto& e = totals_[op];
    e.first += Seconds(start_, Clock::now());
    e.second += 1;
  }
  void Print(int runs) const {
    for (const auto& [op, e] : totals_) {
      std::printf("  %-22s %8.3f ms per run (%d nodes)\n", op.c_str(), e.first * 1e3 / runs, e.second / runs);
    }
  }

 private:
  Clock::time_point start_;
  std::map<std::string, std::pair<double, int>> totals_;
};

int RunModel(const std::string& which, int threads, int runs, bool profile) {
  std::shared_ptr<const Model> model;
  if (which == "mobilenet_v2") {
    const std::vector<uint8_t> bytes = MobileNetV2Float();
    auto m = Model::FromBufferCopy(bytes.data(), bytes.size(), "mobilenet_v2");
    if (!m.ok()) return std::cerr << m.status().message() << "\n", 1;
    model = *m;
  } else {
    auto m = Model::FromFile(which);
    if (!m.ok()) return std::cerr << m.status().message() << "\n", 1;
    model = *m;
  }
  InterpreterOptions options;
  options.num_threads = threads;
  auto interpreter = Interpreter::Create(model, options);
  if (!interpreter.ok()) return std::cerr << interpreter.status().message() << "\n", 1;
  Interpreter& in = **interpreter;
  if (Status st = in.AllocateTensors(); !st.ok()) return std::cerr << st.message() << "\n", 1;
  for (int i = 0; i < static_cast<int>(in.inputs().size()); ++i) {
    Tensor* t = in.input(i);
    std::mt19937 g(7);
    for (size_t b = 0; b < t->bytes; ++b) static_cast<uint8_t*>(t->data)[b] = static_cast<uint8_t>(g() & 0x3F);
    if (t->type == TensorType::kFloat32) {
      float* f = t->data_as<float>();
      for (int64_t e = 0; e < t->num_elements(); ++e) f[e] = static_cast<float>(g() % 2000) / 1000.0f - 1.0f;
    }
  }
  Status st;
  std::vector<double> times;
  for (int r = 0; r < runs + 2; ++r) {
    const auto t0 = Clock::now();
    st = in.Invoke();
    if (!st.ok()) return std::cerr << st.message() << "\n", 1;
    if (r >= 2) times.push_back(Seconds(t0, Clock::now()) * 1e3);
  }
  std::sort(times.begin(), times.end());
  std::printf("%s: isa %s, %d thread(s): median %.2f ms, min %.2f ms over %d runs\n", which.c_str(),
              optimized::IsaName(optimized::ActiveIsa()), threads, times[times.size() / 2], times.front(), runs);
  if (profile) {
    OpTimes p;
    in.SetProfiler(&p);
    for (int r = 0; r < runs; ++r) st = in.Invoke();
    in.SetProfiler(nullptr);
    p.Print(runs);
  }
  return 0;
}

}  // namespace
}  // namespace edgerun::bench

int main(int argc, char** argv) {
  int threads = 1, runs = 20;
  double min_secs = 0.3;
  bool profile = false;
  std::string filter, model, write;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--threads") threads = std::max(1, std::atoi(next().c_str()));
    else if (a == "--filter") filter = next();
    else if (a == "--min-secs") min_secs = std::atof(next().c_str());
    else if (a == "--model") model = next();
    else if (a == "--runs") runs = std::max(1, std::atoi(next().c_str()));
    else if (a == "--profile") profile = true;
    else if (a == "--write-mobilenet-v2") write = next();
    else {
      std::cerr << "usage: edgerun_kernel_bench [--threads N] [--filter S] [--min-secs S] | --model FILE|mobilenet_v2 "
                   "[--threads N] [--runs N] [--profile] | --write-mobilenet-v2 FILE\n";
      return 2;
    }
  }
  if (!write.empty()) {
    const std::vector<uint8_t> bytes = edgerun::bench::MobileNetV2Float();
    std::ofstream(write, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return 0;
  }
  if (!model.empty()) return edgerun::bench::RunModel(model, threads, runs, profile);
  return edgerun::bench::RunKernels(threads, filter, min_secs);
}
