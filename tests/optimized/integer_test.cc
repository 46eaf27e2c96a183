// Optimized integer convolutions, matrix products and requantization against the reference
// kernels: bit-exact on random shapes and values, for every instruction set of this CPU and 1
// and 3 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/optimized/integer.h"
#include "kernels/reference/activation.h"
#include "kernels/reference/integer_conv.h"
#include "optimized_test_util.h"
#include "quant/fixed_point.h"
#include "quant/xnnpack_compat.h"

namespace edgerun::optimized {
namespace {

using testing::ForEachIsaAndThreads;
using testing::Random;

template <class T>
constexpr int32_t Lowest() {
  return std::numeric_limits<T>::lowest();
}
template <class T>
constexpr int32_t Highest() {
  return std::numeric_limits<T>::max();
}

// Output quantization per channel, as conv_util's PrepareQuantizedOutput would make it.
struct Quant {
  std::vector<int32_t> multiplier;
  std::vector<int> shift;
  std::vector<float> float_scale;
  int32_t zero_point = 0, act_min = 0, act_max = 0;
  bool float_requantization = false;
  reference::Requantization fixed() const {
    return {multiplier.data(), shift.data(), zero_point, act_min, act_max};
  }
};

template <class Out>
Quant RandomQuant(Random& r, int channels, bool allow_float, float log_scale_lo = -5.0f, float log_scale_hi = -1.0f) {
  Quant q;
  for (int c = 0; c < channels; ++c) {
    const double real = std::pow(10.0, r.Float(log_scale_lo, log_scale_hi));
    int32_t m = 0;
    int s = 0;
    quant::QuantizeMultiplier(real, &m, &s);
    q.multiplier.push_back(m);
    q.shift.push_back(s);
    q.float_scale.push_back(static_cast<float>(real));
  }
  q.zero_point = sizeof(Out) == 2 ? 0 : r.Int(Lowest<Out>(), Highest<Out>());
  q.act_min = r.Bool() ? Lowest<Out>() : r.Int(Lowest<Out>(), q.zero_point);
  q.act_max = r.Bool() ? Highest<Out>() : r.Int(q.zero_point, Highest<Out>());
  q.float_requantization = allow_float && r.Bool();
  return q;
}

template <class Out>
RequantStage<Out> Stage(const Quant& q, const int32_t* bias, Out* out, int64_t row_stride, int channel_base = 0) {
  return MakeRequantStage<Out>(q.float_requantization, q.multiplier.data(), q.shift.data(), q.float_scale.data(),
                               q.zero_point, q.act_min, q.act_max, bias, out, row_stride, channel_base);
}

// Calls fn(emit) with the reference requantizer that q describes.
template <class Acc, class Bias, class Out, class Fn>
void WithReferenceRequantizer(const Quant& q, const Bias* bias, Fn&& fn) {
  if constexpr (std::is_same_v<Acc, int32_t>) {
    if (q.float_requantization) {
      fn(reference::FloatRequantizer<Bias, Out>{q.float_scale.data(), q.zero_point, q.act_min, q.act_max, bias});
      return;
    }
  }
  fn(reference::Requantizer<Acc, Bias, Out>{q.fixed(), bias});
}

TEST(OptimizedRequantize, MatchesReferenceOnExtremeValues) {
  Random r(11);
  ForEachIsaAndThreads([&](Isa isa, ThreadPool*) {
    const IsaKernels& k = KernelsFor(isa);
    for (int iter = 0; iter < 60; ++iter) {
      const int n = r.Int(1, 70);
      const int type = iter % 3;
      // Wide multipliers: from all-clamped outputs to left shifts.
      std::vector<int32_t> sums(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) {
        sums[i] = r.Int(0, 3) == 0 ? r.Int(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())
                                   : r.Int(-100000, 100000);
        bias[i] = r.Int(0, 5) == 0 ? std::numeric_limits<int32_t>::max() : r.Int(-5000, 5000);
      }
      auto check = [&](auto out_tag) {
        using Out = decltype(out_tag);
        Quant q = RandomQuant<Out>(r, n, true, -9.0f, 2.0f);
        const int32_t* b = r.Bool() ? bias.data() : nullptr;
        std::vector<Out> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
        WithReferenceRequantizer<int32_t, int32_t, Out>(q, b, [&](const auto& emit) {
          for (int i = 0; i < n; ++i) want[i] = emit(i, static_cast<uint32_t>(sums[i]));
        });
        const RequantArgs args{b, q.multiplier.data(), reinterpret_cast<const int32_t*>(q.shift.data()),
                               q.float_scale.data(), q.zero_point, q.act_min, q.act_max, OutTypeOf<Out>()};
        (q.float_requantization ? k.requantize_float : k.requantize_fixed)(sums.data(), n, 0, args, got.data());
        ASSERT_EQ(got, want) << "float " << q.float_requantization;
      };
      if (type == 0) check(uint8_t{});
      if (type == 1) check(int8_t{});
      if (type == 2) check(int16_t{});
    }
  });
}

// The int64 requantization of int32 sums (IsaKernels::requantize_i64) against the reference
// functor: sums at the int32 extremes, int64 biases up to 2^45 in size, multipliers from 1e-9 to
// 100 (total shifts 1 to 45), zero points that make the int32 addition wrap, clamp ranges inside
// int16, channels starting past 0.
TEST(OptimizedRequantizeI64, MatchesReferenceOnExtremeValues) {
  Random r(13);
  int checked = 0;
  for (int isa = 0; isa <= static_cast<int>(DetectedIsa()); ++isa) {
    const RequantizeI64Fn fn = KernelsFor(static_cast<Isa>(isa)).requantize_i64;
    if (fn == nullptr) continue;  // AVX-512 only
    SCOPED_TRACE(IsaName(static_cast<Isa>(isa)));
    ++checked;
    for (int iter = 0; iter < 200; ++iter) {
      const int n = r.Int(1, 70), c0 = r.Int(0, 5), channels = c0 + n;
      std::vector<int32_t> sums(static_cast<size_t>(n)), multiplier(static_cast<size_t>(channels));
      std::vector<int> shift(static_cast<size_t>(channels));
      std::vector<int64_t> bias(static_cast<size_t>(channels)), reduced(bias.size()), total_shift(bias.size());
      for (int i = 0; i < n; ++i) {
        sums[i] = r.Int(0, 3) == 0 ? r.Int(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max())
                                   : r.Int(-100000, 100000);
      }
      for (int c = 0; c < channels; ++c) {
        const int64_t high = r.Int(-(1 << 13), 1 << 13);
        bias[c] = r.Int(0, 2) == 0 ? high * (int64_t{1} << 32) + r.Int(0, std::numeric_limits<int32_t>::max())
                                   : r.Int(-50000, 50000);
        quant::QuantizeMultiplier(std::pow(10.0, r.Float(-9.0f, 2.0f)), &multiplier[c], &shift[c]);
        reduced[c] = quant::ReducedMultiplier16(multiplier[c]);
        total_shift[c] = 15 - shift[c];
        ASSERT_GE(total_shift[c], 1);
      }
      const int32_t zero_point = r.Int(0, 4) == 0 ? std::numeric_limits<int32_t>::max() - 5 : r.Int(-100, 100);
      const int32_t act_min = r.Int(-32768, 0), act_max = r.Int(0, 32767);
      const int64_t* b = r.Bool() ? bias.data() : nullptr;
      const reference::Requantization rq{multiplier.data(), shift.data(), zero_point, act_min, act_max};
      const reference::Requantizer<int64_t, int64_t, int16_t> emit{rq, b};
      std::vector<int16_t> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), 0x5A5A);
      for (int i = 0; i < n; ++i) want[i] = emit(c0 + i, static_cast<uint64_t>(int64_t{sums[i]}));
      fn(sums.data(), n, c0, RequantI64Args{b, reduced.data(), total_shift.data(), zero_point, act_min, act_max},
         got.data());
      ASSERT_EQ(got, want) << "iteration " << iter;
    }
  }
  if (DetectedIsa() == Isa::kAvx512) {
    EXPECT_EQ(checked, 1);
  }
}

// int16 LEAKY_RELU on AVX-512 lanes (IsaKernels::leaky_relu_i16) against the reference on every
// int16 input, for multipliers of either sign (alpha < 0), 0 (alpha 0), the largest ones, and
// shifts across the kernel's domain [-31, 30] (left shifts that wrap, right shifts to 31).
TEST(OptimizedLeakyReluI16, MatchesReferenceOnEveryInput) {
  Random r(14);
  std::vector<int16_t> in(65536 + 7);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int16_t>(static_cast<int32_t>(i % 65536) - 32768);
  int checked = 0;
  for (int isa = 0; isa <= static_cast<int>(DetectedIsa()); ++isa) {
    const LeakyReluI16Fn fn = KernelsFor(static_cast<Isa>(isa)).leaky_relu_i16;
    if (fn == nullptr) continue;  // AVX-512 only
    SCOPED_TRACE(IsaName(static_cast<Isa>(isa)));
    ++checked;
    auto multiplier = [&r]() {
      const int kind = r.Int(0, 5);
      const int32_t m = kind == 0 ? 0 : kind == 1 ? std::numeric_limits<int32_t>::max() : r.Int(1 << 30, 0x7FFFFFFF);
      return r.Bool() ? -m : m;
    };
    auto shift = [&r]() { return r.Int(0, 4) == 0 ? (r.Bool() ? -31 : 30) : r.Int(-20, 8); };
    for (int iter = 0; iter < 60; ++iter) {
      reference::LeakyReluQuantParams q;
      q.identity_multiplier = multiplier();
      q.alpha_multiplier = multiplier();
      q.identity_shift = shift();
      q.alpha_shift = shift();
      const int n = r.Int(1, static_cast<int>(in.size()));
      std::vector<int16_t> want(static_cast<size_t>(n)), got(want.size(), 0x5A5A);
      reference::QuantizedLeakyRelu<int16_t>(q, in.data(), want.data(), n);
      fn(in.data(), n, LeakyReluI16Args{q.identity_multiplier, q.identity_shift, q.alpha_multiplier, q.alpha_shift},
         got.data());
      ASSERT_EQ(got, want) << "multipliers " << q.identity_multiplier << " / " << q.alpha_multiplier << ", shifts "
                           << q.identity_shift << " / " << q.alpha_shift << ", n " << n;
    }
  }
  if (DetectedIsa() == Isa::kAvx512) {
    EXPECT_EQ(checked, 1);
  }
}

// Random strides, dilations and padding; false when the window does not fit.
bool RandomGeometry(Random& r, reference::ConvDims* d, reference::ConvParams* p) {
  p->stride_h = r.Int(1, 2);
  p->stride_w = r.Int(1, 3);
  p->dilation_h = r.Int(1, 4) == 4 ? 2 : 1;
  p->dilation_w = r.Int(1, 4) == 4 ? 2 : 1;
  const int eff_h = (d->k_h - 1) * p->dilation_h + 1, eff_w = (d->k_w - 1) * p->dilation_w + 1;
  p->pad_h = r.Int(0, eff_h - 1);
  p->pad_w = r.Int(0, eff_w - 1);
  const int total_h = d->in_h + p->pad_h + r.Int(0, eff_h - 1), total_w = d->in_w + p->pad_w + r.Int(0, eff_w - 1);
  if (total_h < eff_h || total_w < eff_w) return false;
  d->out_h = (total_h - eff_h) / p->stride_h + 1;
  d->out_w = (total_w - eff_w) / p->stride_w + 1;
  return true;
}

// One random CONV_2D of In x Filter -> Out summed in Acc, reference against optimized.
template <class Acc, class In, class Filter, class Out, class Bias>
void CheckConv(Random& r, ThreadPool* pool, bool pointwise) {
  reference::ConvDims d;
  reference::ConvParams p;
  const int groups = r.Int(0, 4) == 0 ? 2 : 1;
  const int f_c = r.Int(1, 21);
  d.in_c = f_c * groups;
  d.out_c = groups * r.Int(1, 37);
  d.in_h = r.Int(1, 8);
  d.in_w = r.Int(1, 9);
  d.k_h = pointwise ? 1 : r.Int(1, 3);
  d.k_w = pointwise ? 1 : r.Int(1, 3);
  if (!RandomGeometry(r, &d, &p)) return;
  if (pointwise && r.Bool()) {
    p = reference::ConvParams{};
    d.out_h = d.in_h;
    d.out_w = d.in_w;
  }
  const bool eight_bit = sizeof(In) == 1;
  const int32_t input_offset = eight_bit ? -r.Int(Lowest<In>(), Highest<In>()) : 0;
  const int32_t filter_offset = std::is_same_v<Filter, uint8_t> ? -r.Int(0, 255) : 0;
  const std::vector<In> input = r.Ints<In>(static_cast<size_t>(d.in_h) * d.in_w * d.in_c, Lowest<In>(), Highest<In>());
  const std::vector<Filter> filter =
      r.Ints<Filter>(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * f_c, Lowest<Filter>(), Highest<Filter>());
  const std::vector<Bias> bias = r.Ints<Bias>(static_cast<size_t>(d.out_c), -100000, 100000);
  const Bias* b = r.Bool() ? bias.data() : nullptr;
  const Quant q = RandomQuant<Out>(r, d.out_c, eight_bit && std::is_same_v<Acc, int32_t>, eight_bit ? -5.0f : -7.0f,
                                   eight_bit ? -1.0f : -3.0f);
  const size_t out_size = static_cast<size_t>(d.out_h) * d.out_w * d.out_c;
  std::vector<Out> want(out_size), got(out_size);
  WithReferenceRequantizer<Acc, Bias, Out>(q, b, [&](const auto& emit) {
    reference::IntegerConv2D<Acc>(p, d, f_c, input.data(), input_offset, filter.data(), filter_offset, want.data(), emit);
  });
  ConvFilterI16 packed;
  PackConvFilterI16(Shape{d.out_c, d.k_h, d.k_w, f_c}, filter.data(), filter_offset, groups, &packed);
  const int per_group = d.out_c / groups;
  if constexpr (std::is_same_v<Acc, int32_t>) {
    IntegerConv2D<false>(pool, p, d, f_c, input.data(), input_offset, packed,
                         [&](int g) { return Stage<Out>(q, b, got.data(), d.out_c, g * per_group); });
  } else {
    const reference::Requantizer<Acc, Bias, Out> emit{q.fixed(), b};
    IntegerConv2D<true>(pool, p, d, f_c, input.data(), input_offset, packed,
                        [&](int g) { return MakeEmitStage<Out, Acc>(emit, got.data(), d.out_c, g * per_group); });
  }
  ASSERT_EQ(got, want) << "in " << d.in_h << "x" << d.in_w << "x" << d.in_c << " k " << d.k_h << "x" << d.k_w
                       << " out " << d.out_h << "x" << d.out_w << "x" << d.out_c << " groups " << groups;
}

TEST(OptimizedIntegerConv2D, MatchesReferenceBitExact) {
  Random r(12);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 12; ++iter) {
      const bool pointwise = iter % 3 == 0;
      CheckConv<int32_t, uint8_t, uint8_t, uint8_t, int32_t>(r, pool, pointwise);
      CheckConv<int32_t, int8_t, int8_t, int8_t, int32_t>(r, pool, pointwise);
      CheckConv<int32_t, int16_t, int8_t, int16_t, int32_t>(r, pool, pointwise);
      CheckConv<int64_t, int16_t, int8_t, int16_t, int64_t>(r, pool, pointwise);
    }
  });
}

// ---- 8-bit products on byte dot products (only where the CPU has AVX-512 VNNI)

// The int32 sums alone, against a plain loop, for int8 and uint8 activations and weights with
// and without offsets: every depth block, panel width and tail, with the extreme values where the
// row and column corrections would show a mistake.
template <class In, class W>
void CheckGemmI8Sums(Random& r, int iter) {
  constexpr bool kUnsigned = std::is_same_v<In, uint8_t>;
  const int m = r.Int(1, 40), n = iter % 4 == 0 ? r.Int(1, 16) : r.Int(1, 300);
  const int k = iter % 5 == 0 ? r.Int(1030, 2100) : r.Int(0, 70);
  const int32_t input_offset = -r.Int(Lowest<In>(), Highest<In>());
  const int32_t filter_offset = std::is_same_v<W, uint8_t> ? -r.Int(0, 255) : (r.Bool() ? 0 : -r.Int(-127, 127));
  const int64_t lda = (k + 3) / 4 * 4 + r.Int(0, 2) * 4;
  std::vector<In> a = r.Ints<In>(static_cast<size_t>(m) * lda, Lowest<In>(), Highest<In>());
  std::vector<W> w = r.Ints<W>(static_cast<size_t>(n) * k, Lowest<W>(), Highest<W>());
  if (iter % 3 == 0) {
    std::fill(a.begin(), a.end(), static_cast<In>(Lowest<In>()));
    std::fill(w.begin(), w.end(), static_cast<W>(r.Bool() ? Lowest<W>() : Highest<W>()));
  }
  PackedI8 b;
  PackI8FromNK(w.data(), k, n, k, filter_offset, input_offset, kUnsigned, DetectedIsa(), &b);
  // What GemmI8Tile reads: signed bytes, and noise past k (multiplied by zeros).
  std::vector<int8_t> s(a.size());
  for (size_t i = 0; i < a.size(); ++i) s[i] = static_cast<int8_t>(kUnsigned ? a[i] ^ 0x80 : a[i]);
  for (int i = 0; i < m; ++i) {
    for (int64_t j = k; j < lda; ++j) s[i * lda + j] = static_cast<int8_t>(r.Int(-128, 127));
  }
  const int n0 = r.Bool() ? 0 : r.Int(0, (n - 1) / b.nr) * b.nr, n1 = r.Int(n0 + 1, n);
  std::vector<int32_t> got(static_cast<size_t>(m) * (n1 - n0), 12345);
  GemmI8Tile(s.data(), lda, m, b, n0, n1, got.data(), n1 - n0);
  for (int i = 0; i < m; ++i) {
    for (int j = n0; j < n1; ++j) {
      uint32_t want = 0;
      for (int kk = 0; kk < k; ++kk) {
        want += static_cast<uint32_t>((a[i * lda + kk] + input_offset) *
                                      (w[static_cast<int64_t>(j) * k + kk] + filter_offset));
      }
      ASSERT_EQ(got[static_cast<size_t>(i) * (n1 - n0) + (j - n0)], static_cast<int32_t>(want))
          << "m " << m << " n " << n << " k " << k << " at " << i << "," << j;
    }
  }
}

TEST(OptimizedGemmI8, SumsMatchPlainProduct) {
  if (!HasGemmI8(DetectedIsa())) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  Random r(21);
  for (int iter = 0; iter < 40; ++iter) {
    CheckGemmI8Sums<int8_t, int8_t>(r, iter);
    CheckGemmI8Sums<uint8_t, uint8_t>(r, iter);
  }
}

template <class T>
void CheckConvOnByteDots(Random& r, ThreadPool* pool, int iter) {
  reference::ConvDims d;
  reference::ConvParams p;
  // Pointwise in place (int8, depth a multiple of 4), pointwise copied, and windows (im2col).
  const int kind = iter % 3;
  const int groups = r.Int(0, 4) == 0 ? 2 : 1;
  const int f_c = kind == 0 ? 4 * r.Int(1, 40) : r.Int(1, 21);
  d.in_c = f_c * groups;
  d.out_c = groups * (r.Bool() ? r.Int(1, 16) : r.Int(17, 70));
  d.in_h = r.Int(1, 9);
  d.in_w = r.Int(1, 11);
  d.k_h = kind == 2 ? r.Int(1, 3) : 1;
  d.k_w = kind == 2 ? r.Int(1, 3) : 1;
  if (kind == 2) {
    if (!RandomGeometry(r, &d, &p)) return;
  } else {
    d.out_h = d.in_h;
    d.out_w = d.in_w;
  }
  const int32_t input_offset = -r.Int(Lowest<T>(), Highest<T>());
  const int32_t filter_offset = std::is_same_v<T, uint8_t> ? -r.Int(0, 255) : (iter % 4 == 0 ? -r.Int(-10, 10) : 0);
  const std::vector<T> input = r.Ints<T>(static_cast<size_t>(d.in_h) * d.in_w * d.in_c, Lowest<T>(), Highest<T>());
  const std::vector<T> filter =
      r.Ints<T>(static_cast<size_t>(d.out_c) * d.k_h * d.k_w * f_c, std::max(Lowest<T>(), -127), Highest<T>());
  const std::vector<int32_t> bias = r.Ints<int32_t>(static_cast<size_t>(d.out_c), -100000, 100000);
  const int32_t* b = r.Bool() ? bias.data() : nullptr;
  const Quant q = RandomQuant<T>(r, d.out_c, true, -4.0f, -1.5f);
  const size_t out_size = static_cast<size_t>(d.out_h) * d.out_w * d.out_c;
  std::vector<T> want(out_size), got(out_size);
  WithReferenceRequantizer<int32_t, int32_t, T>(q, b, [&](const auto& emit) {
    reference::IntegerConv2D<int32_t>(p, d, f_c, input.data(), input_offset, filter.data(), filter_offset, want.data(),
                                      emit);
  });
  ConvFilterI8 packed;
  PackConvFilterI8<T>(Shape{d.out_c, d.k_h, d.k_w, f_c}, filter.data(), filter_offset, input_offset, groups, &packed);
  const int per_group = d.out_c / groups;
  IntegerConv2DI8(pool, p, d, f_c, input.data(), input_offset, packed,
                  [&](int g) { return Stage<T>(q, b, got.data(), d.out_c, g * per_group); });
  ASSERT_EQ(got, want) << "kind " << kind << " in " << d.in_h << "x" << d.in_w << "x" << d.in_c << " k " << d.k_h << "x"
                       << d.k_w << " out " << d.out_h << "x" << d.out_w << "x" << d.out_c << " groups " << groups
                       << " float " << q.float_requantization;
}

TEST(OptimizedIntegerConv2D, EightBitOnByteDotsMatchesReferenceBitExact) {
  if (!HasGemmI8(DetectedIsa())) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  Random r(22);
  ForEachIsaAndThreads([&](Isa isa, ThreadPool* pool) {
    if (!HasGemmI8(isa)) return;
    for (int iter = 0; iter < 30; ++iter) {
      CheckConvOnByteDots<int8_t>(r, pool, iter);
      CheckConvOnByteDots<uint8_t>(r, pool, iter);
    }
  });
}

// The vectorized 8-bit ADD / SUB against quant::xnn::Add, over the whole range of scale ratios
// XNNPACK accepts, both signs, activation clamps and every tail length.
TEST(OptimizedAddI8, MatchesXnnpackArithmetic) {
  Random r(23);
  for (int i = 0; i <= static_cast<int>(DetectedIsa()); ++i) {
    const AddI8Fn fn = KernelsFor(static_cast<Isa>(i)).add_i8;
    if (!fn) continue;
    for (int iter = 0; iter < 200; ++iter) {
      const bool is_unsigned = iter % 2 == 0, subtract = iter % 3 == 0;
      const int lo = is_unsigned ? 0 : -128, hi = is_unsigned ? 255 : 127;
      const float out_scale = std::pow(2.0f, r.Float(-8, 4));
      auto scale = [&] { return out_scale * std::pow(2.0f, r.Float(-9.9f, 7.9f)); };
      int32_t min = lo, max = hi;
      if (r.Bool()) min = r.Int(lo, hi);
      if (r.Bool()) max = r.Int(min, hi);
      quant::xnn::AddParams p;
      ASSERT_TRUE(quant::xnn::PrepareAdd(scale(), r.Int(lo, hi), scale(), r.Int(lo, hi), out_scale, r.Int(lo, hi),
                                         subtract, min, max, &p));
      ASSERT_GE(p.bias, INT32_MIN);
      ASSERT_LE(p.bias, INT32_MAX);
      const int n = r.Int(1, 100);
      std::vector<uint8_t> a = r.Ints<uint8_t>(static_cast<size_t>(n), 0, 255);
      std::vector<uint8_t> b = r.Ints<uint8_t>(static_cast<size_t>(n), 0, 255);
      a[0] = is_unsigned ? 255 : 128;  // the extremes: 255, or -128 as int8
      b[0] = is_unsigned ? 0 : 127;
      std::vector<uint8_t> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), 77);
      for (int k = 0; k < n; ++k) {
        const int32_t x = is_unsigned ? a[k] : static_cast<int8_t>(a[k]);
        const int32_t y = is_unsigned ? b[k] : static_cast<int8_t>(b[k]);
        want[k] = static_cast<uint8_t>(quant::xnn::Add(p, x, y));
      }
      const AddI8Args args{p.a_multiplier, p.b_multiplier, static_cast<int32_t>(p.bias), p.shift,
                           p.output_zero_point, p.min, p.max, is_unsigned};
      fn(a.data(), b.data(), n, args, got.data());
      ASSERT_EQ(got, want) << "iteration " << iter;
    }
  }
}

TEST(OptimizedIntegerConv2D, Int16WithDeepWindowSumsInBlocks) {
  // 16-bit activations with int64 sums over more pairs than one int32 block holds.
  Random r(13);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    reference::ConvDims d{2, 2, 700, 1, 1, 2, 2, 9};
    reference::ConvParams p;
    const std::vector<int16_t> input(static_cast<size_t>(4 * 700), -32768);
    std::vector<int8_t> filter(static_cast<size_t>(9 * 700), -128);
    filter[5] = 127;
    const Quant q = RandomQuant<int16_t>(r, 9, false, -9.0f, -8.0f);
    std::vector<int16_t> want(36), got(36);
    const reference::Requantizer<int64_t, int64_t, int16_t> emit{q.fixed(), nullptr};
    reference::IntegerConv2D<int64_t>(p, d, 700, input.data(), 0, filter.data(), 0, want.data(), emit);
    ConvFilterI16 packed;
    PackConvFilterI16(Shape{9, 1, 1, 700}, filter.data(), 0, 1, &packed);
    IntegerConv2D<true>(pool, p, d, 700, input.data(), 0, packed,
                        [&](int) { return MakeEmitStage<int16_t, int64_t>(emit, got.data(), 9); });
    EXPECT_EQ(got, want);
  });
}

template <class Acc, class In, class Filter, class Out, class Bias>
void CheckDepthwise(Random& r, ThreadPool* pool) {
  reference::ConvDims d;
  reference::ConvParams p;
  d.in_c = d.out_c = r.Int(1, 40);
  d.in_h = r.Int(1, 9);
  d.in_w = r.Int(1, 20);
  // Half the windows square 3x3 or 5x5: the 8-bit kernels have fixed-size paths for those, whose
  // interior runs 8 and 4 pixels at a time (rows up to 44 wide reach both at stride 2).
  if (r.Bool()) {
    d.k_h = d.k_w = r.Bool() ? 3 : 5;
    d.in_w = r.Int(1, 44);
  } else {
    d.k_h = r.Int(1, 4);
    d.k_w = r.Int(1, 4);
  }
  if (!RandomGeometry(r, &d, &p)) return;
  const bool eight_bit = sizeof(In) == 1;
  const int32_t input_offset = eight_bit ? -r.Int(Lowest<In>(), Highest<In>()) : 0;
  const int32_t filter_offset = std::is_same_v<Filter, uint8_t> ? -r.Int(0, 255) : 0;
  const std::vector<In> input = r.Ints<In>(static_cast<size_t>(d.in_h) * d.in_w * d.in_c, Lowest<In>(), Highest<In>());
  const std::vector<Filter> filter =
      r.Ints<Filter>(static_cast<size_t>(d.k_h) * d.k_w * d.out_c, Lowest<Filter>(), Highest<Filter>());
  const std::vector<Bias> bias = r.Ints<Bias>(static_cast<size_t>(d.out_c), -100000, 100000);
  const Bias* b = r.Bool() ? bias.data() : nullptr;
  const Quant q = RandomQuant<Out>(r, d.out_c, eight_bit, eight_bit ? -4.0f : -6.0f, eight_bit ? -1.0f : -3.0f);
  const size_t out_size = static_cast<size_t>(d.out_h) * d.out_w * d.out_c;
  std::vector<Out> want(out_size), got(out_size);
  std::vector<reference::AccSum<Acc>> scratch;
  WithReferenceRequantizer<Acc, Bias, Out>(q, b, [&](const auto& emit) {
    reference::IntegerDepthwiseConv2D<Acc>(p, d, 1, input.data(), input_offset, filter.data(), filter_offset,
                                           want.data(), scratch, emit);
  });
  AlignedBuffer<int32_t> filter32;
  PrepareDepthwiseFilter(filter.data(), static_cast<int64_t>(filter.size()), filter_offset, &filter32);
  if constexpr (std::is_same_v<Acc, int32_t>) {
    IntegerDepthwiseConv2D(pool, p, d, input.data(), input_offset, filter32.data(), Stage<Out>(q, b, got.data(), d.out_c));
  } else {
    const reference::Requantizer<Acc, Bias, Out> emit{q.fixed(), b};
    IntegerDepthwiseConv2D(pool, p, d, input.data(), input_offset, filter32.data(),
                           MakeEmitStage<Out, Acc>(emit, got.data(), d.out_c));
  }
  ASSERT_EQ(got, want) << "in " << d.in_h << "x" << d.in_w << "x" << d.in_c << " k " << d.k_h << "x" << d.k_w;
}

TEST(OptimizedIntegerDepthwiseConv2D, MatchesReferenceBitExact) {
  Random r(14);
  ForEachIsaAndThreads([&](Isa, ThreadPool* pool) {
    for (int iter = 0; iter < 30; ++iter) {
      CheckDepthwise<int32_t, uint8_t, uint8_t, uint8_t, int32_t>(r, pool);
      CheckDepthwise<int32_t, int8_t, int8_t, int8_t, int32_t>(r, pool);
      CheckDepthwise<int32_t, int16_t, int8_t, int16_t, int32_t>(r, pool);
      CheckDepthwise<int64_t, int16_t, int8_t, int16_t, int64_t>(r, pool);
    }
  });
}

TEST(OptimizedIntegerMatMul, MatchesReferenceBitExact) {
  Random r(15);
  ForEachIsaAndThreads([&](Isa isa, ThreadPool* pool) {
    for (int iter = 0; iter < 25; ++iter) {
      // Now and then a depth of several GEMM depth blocks (the requantizing epilogue runs after
      // the last) and more columns than one pass of IntGemm.
      const int m = r.Bool() ? 1 : r.Int(1, 30);
      const int k = iter % 6 == 0 ? r.Int(1030, 2300) : r.Int(1, 90);
      const int n = iter % 6 == 3 ? r.Int(257, 400) : r.Int(1, 80);
      const int32_t input_offset = -r.Int(0, 255), weight_offset = -r.Int(0, 255);
      const std::vector<uint8_t> a = r.Ints<uint8_t>(static_cast<size_t>(m) * k, 0, 255);
      const std::vector<uint8_t> w = r.Ints<uint8_t>(static_cast<size_t>(n) * k, 0, 255);
      const std::vector<int32_t> bias = r.Ints<int32_t>(static_cast<size_t>(n), -50000, 50000);
      const Quant q = RandomQuant<uint8_t>(r, n, true);
      std::vector<uint8_t> want(static_cast<size_t>(m) * n), got(want.size());
      WithReferenceRequantizer<int32_t, int32_t, uint8_t>(q, bias.data(), [&](const auto& emit) {
        for (int i = 0; i < m; ++i) {
          reference::IntegerMatVec<int32_t>(a.data() + i * k, input_offset, w.data(), weight_offset, k, n,
                                            want.data() + i * n, emit);
        }
      });
      PackedI16 packed;
      PackI16FromNK(w.data(), k, n, k, weight_offset, isa, &packed);
      IntegerMatMul<false>(pool, a.data(), k, m, input_offset, packed, Stage<uint8_t>(q, bias.data(), got.data(), n));
      ASSERT_EQ(got, want) << m << "x" << k << "x" << n;

      // Hybrid: int8 rows times int8 weights, the sums scaled in float by the reference's emit.
      const std::vector<int8_t> qa = r.Ints<int8_t>(static_cast<size_t>(m) * k, -128, 127);
      const std::vector<int8_t> qw = r.Ints<int8_t>(static_cast<size_t>(k) * n, -127, 127);
      auto emit = [](int c, uint32_t sum) { return static_cast<float>(static_cast<int32_t>(sum)) * (0.5f + c); };
      std::vector<float> fwant(static_cast<size_t>(m) * n), fgot(fwant.size());
      std::vector<int8_t> qwt(qw.size());
      for (int kk = 0; kk < k; ++kk) {
        for (int j = 0; j < n; ++j) qwt[static_cast<size_t>(j) * k + kk] = qw[static_cast<size_t>(kk) * n + j];
      }
      for (int i = 0; i < m; ++i) {
        reference::IntegerMatVec<int32_t>(qa.data() + i * k, 7, qwt.data(), 0, k, n, fwant.data() + i * n, emit);
      }
      PackedI16 packed_kn;
      PackI16FromKN(qw.data(), n, k, n, 0, isa, &packed_kn);
      IntegerMatMul<false>(pool, qa.data(), k, m, 7, packed_kn, MakeEmitStage<float, int32_t>(emit, fgot.data(), n));
      ASSERT_EQ(fgot, fwant);
    }
  });
}

TEST(OptimizedDotRows, MatchReference) {
  Random r(16);
  ForEachIsaAndThreads([&](Isa isa, ThreadPool*) {
    const IsaKernels& k = KernelsFor(isa);
    for (int iter = 0; iter < 30; ++iter) {
      const int rows = r.Int(1, 13), cols = r.Int(1, 100), ldm = cols + r.Int(0, 3);
      const std::vector<float> m = r.Floats(static_cast<size_t>(rows) * ldm), v = r.Floats(static_cast<size_t>(cols));
      std::vector<float> want = r.Floats(static_cast<size_t>(rows)), got = want;
      for (int i = 0; i < rows; ++i) {
        float dot = 0;
        for (int c = 0; c < cols; ++c) dot += m[static_cast<size_t>(i) * ldm + c] * v[c];
        want[i] += dot;
      }
      k.dot_rows_f32(m.data(), ldm, rows, cols, v.data(), got.data());
      testing::ExpectNear(got, want, static_cast<float>(cols));

      const std::vector<int8_t> qm = r.Ints<int8_t>(static_cast<size_t>(rows) * ldm, -128, 127);
      const std::vector<int8_t> qv = r.Ints<int8_t>(static_cast<size_t>(cols), -128, 127);
      std::vector<int32_t> iwant(static_cast<size_t>(rows)), igot(static_cast<size_t>(rows));
      for (int i = 0; i < rows; ++i) {
        for (int c = 0; c < cols; ++c) iwant[i] += qm[static_cast<size_t>(i) * ldm + c] * qv[c];
      }
      k.dot_rows_i8(qm.data(), ldm, rows, cols, qv.data(), igot.data());
      ASSERT_EQ(igot, iwant);
    }
  });
}

}  // namespace
}  // namespace edgerun::optimized
