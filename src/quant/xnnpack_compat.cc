#include "quant/xnnpack_compat.h"

namespace edgerun::quant::xnn {

bool PrepareAdd(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float output_scale,
                int32_t output_zero_point, bool subtract, int32_t min, int32_t max, AddParams* p) {
  const float a_ratio = a_scale / output_scale;
  const float b_ratio = b_scale / output_scale;
  // The delegate's range for both ratios.
  for (float r : {a_ratio, b_ratio}) {
    if (!(r >= 1.0f / 1024.0f && r < 256.0f)) return false;
  }
  // The larger ratio gets a multiplier in [2^20, 2^21): shift = 20 - its binary exponent.
  int exponent = 0;
  std::frexp(std::max(a_ratio, b_ratio), &exponent);  // ratio = m * 2^exponent, m in [0.5, 1)
  p->shift = 20 - (exponent - 1);
  const int32_t a_multiplier = RoundToEven(std::ldexp(a_ratio, p->shift));
  const int32_t b_multiplier = RoundToEven(std::ldexp(b_ratio, p->shift));
  p->a_multiplier = a_multiplier;
  p->b_multiplier = subtract ? -b_multiplier : b_multiplier;
  p->bias = (int64_t{1} << (p->shift - 1)) - int64_t{p->a_multiplier} * a_zero_point -
            int64_t{p->b_multiplier} * b_zero_point;
  p->output_zero_point = output_zero_point;
  p->min = min;
  p->max = max;
  return true;
}

bool PrepareMul(float a_scale, int32_t a_zero_point, float b_scale, int32_t b_zero_point, float output_scale,
                int32_t output_zero_point, int32_t min, int32_t max, MulParams* p) {
  const float product_scale = a_scale * b_scale;
  const float scale = product_scale / output_scale;
  if (!(scale >= 1.0f / 65536.0f && scale < 256.0f)) return false;
  p->scale = scale;
  p->a_zero_point = a_zero_point;
  p->b_zero_point = b_zero_point;
  p->output_zero_point = output_zero_point;
  p->min = min;
  p->max = max;
  return true;
}

bool PrepareRequantize(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                       RequantizeParams* p) {
  const float ratio = input_scale / output_scale;
  if (!(ratio >= 1.0f / 256.0f && ratio <= 128.0f)) return false;
  p->input_zero_point = input_zero_point;
  p->output_zero_point = output_zero_point;
  p->multiplier = Multiplier8(ratio);
  return true;
}

bool PrepareLeakyRelu(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                      float alpha, LeakyReluParams* p) {
  if (!std::isnormal(alpha)) return false;
  const float positive_ratio = input_scale / output_scale;
  if (!(positive_ratio >= 1.0f / 256.0f && positive_ratio <= 128.0f)) return false;
  const float negative_ratio = positive_ratio * alpha;
  if (!(negative_ratio >= -127.99609375f && negative_ratio <= 128.0f && std::fabs(negative_ratio) >= 1.0f / 256.0f)) {
    return false;
  }
  p->input_zero_point = input_zero_point;
  p->output_zero_point = output_zero_point;
  p->positive_multiplier = Multiplier8(positive_ratio);
  p->negative_multiplier = Multiplier8(negative_ratio);
  return true;
}

float Sigmoid(float x) {
  if (x > 100) return 1.0f;
  if (x < -100) return 0.0f;
  const double e = std::exp(static_cast<double>(x));
  return static_cast<float>(e / (1 + e));
}

float Tanh(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }

float Elu(float x) { return x < 0 ? static_cast<float>(std::expm1(static_cast<double>(x))) : x; }

std::vector<BilinearTap> BilinearTaps(int32_t input_size, int32_t output_size, bool align_corners,
                                      bool half_pixel_centers) {
  const int32_t adjustment = align_corners && output_size != 1 ? 1 : 0;
  const float scale = static_cast<float>(input_size - adjustment) / static_cast<float>(output_size - adjustment);
  const int32_t max_index = input_size - 1;
  const float offset = 0.5f * scale - 0.5f;
  std::vector<BilinearTap> taps(static_cast<size_t>(output_size));
  for (int32_t o = 0; o < output_size; ++o) {
    float coordinate = static_cast<float>(o) * scale;
    if (half_pixel_centers && !align_corners) {
      // The offset is added to the product (not (o + 0.5) * scale - 0.5), then clamped.
      coordinate = std::min(std::max(coordinate + offset, 0.0f), static_cast<float>(max_index));
    }
    BilinearTap& t = taps[static_cast<size_t>(o)];
    t.lo = std::min(static_cast<int32_t>(coordinate), max_index);
    t.hi = std::min(t.lo + 1, max_index);
    t.weight = RoundToEven((coordinate - static_cast<float>(t.lo)) * 2048.0f);
  }
  return taps;
}

}  // namespace edgerun::quant::xnn
