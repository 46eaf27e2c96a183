// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: coordinate rules (align_corners,
// half_pixel_centers), every type, constant and run-time sizes, and bad models.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

QuantizationParams Q(float scale, int64_t zero_point) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

struct Resize {
  tflite::BuiltinOperator op = tflite::BuiltinOperator_RESIZE_BILINEAR;
  bool align_corners = false;
  bool half_pixel_centers = false;
};

SingleOp MakeResize(const Resize& r, TensorType type, Shape in, int32_t out_h, int32_t out_w, bool constant_size = true,
                    QuantizationParams q = {}) {
  SingleOp s(r.op, r.half_pixel_centers ? 3 : 1);
  s.Input(type, in, q);
  if (constant_size) {
    s.Const<int32_t>(TensorType::kInt32, {2}, {out_h, out_w});
  } else {
    s.Input(TensorType::kInt32, {2});
  }
  s.Output(type, {}, q);
  // The option writers run when the model is serialized, after this returns: capture by value.
  const bool align = r.align_corners, half = r.half_pixel_centers;
  if (r.op == tflite::BuiltinOperator_RESIZE_BILINEAR) {
    s.Options(tflite::BuiltinOptions_ResizeBilinearOptions, [align, half](flatbuffers::FlatBufferBuilder& fbb) {
      return tflite::CreateResizeBilinearOptions(fbb, align, half).Union();
    });
  } else {
    s.Options(tflite::BuiltinOptions_ResizeNearestNeighborOptions, [align, half](flatbuffers::FlatBufferBuilder& fbb) {
      return tflite::CreateResizeNearestNeighborOptions(fbb, align, half).Union();
    });
  }
  return s;
}

template <class T>
std::vector<T> RunResize(const Resize& r, TensorType type, Shape in_shape, const std::vector<T>& in, int32_t out_h,
                         int32_t out_w, QuantizationParams q = {}, InterpreterOptions options = {}) {
  SingleOp s = MakeResize(r, type, in_shape, out_h, out_w, true, q);
  auto interpreter = s.Build(options);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, in);
  EXPECT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{in_shape[0], out_h, out_w, in_shape[3]}));
  return GetOutput<T>(*interpreter, 0);
}

// Bilinear interpolation from its definition, in double, one channel of a [1, h, w, 1] image.
std::vector<double> BilinearReal(const std::vector<double>& in, int h, int w, int out_h, int out_w, bool align,
                                 bool half) {
  auto scale = [align](int in_size, int out_size) {
    return align && out_size > 1 ? double(in_size - 1) / (out_size - 1) : double(in_size) / out_size;
  };
  std::vector<double> out;
  for (int y = 0; y < out_h; ++y) {
    const double sy = half ? (y + 0.5) * scale(h, out_h) - 0.5 : y * scale(h, out_h);
    const int y0 = std::max(0, int(std::floor(sy))), y1 = std::min(h - 1, int(std::ceil(sy)));
    for (int x = 0; x < out_w; ++x) {
      const double sx = half ? (x + 0.5) * scale(w, out_w) - 0.5 : x * scale(w, out_w);
      const int x0 = std::max(0, int(std::floor(sx))), x1 = std::min(w - 1, int(std::ceil(sx)));
      const double dy = sy - y0, dx = sx - x0;
      out.push_back(in[y0 * w + x0] * (1 - dy) * (1 - dx) + in[y0 * w + x1] * (1 - dy) * dx +
                    in[y1 * w + x0] * dy * (1 - dx) + in[y1 * w + x1] * dy * dx);
    }
  }
  return out;
}

TEST(ResizeBilinear, Float2xUpsampling) {
  // [[0, 4], [8, 12]] doubled: midpoints averaged; the last row/column repeat the border.
  const auto out = RunResize<float>({}, TensorType::kFloat32, {1, 2, 2, 1}, {0, 4, 8, 12}, 4, 4);
  EXPECT_EQ(out, (std::vector<float>{0, 2, 4, 4, 4, 6, 8, 8, 8, 10, 12, 12, 8, 10, 12, 12}));
}

TEST(ResizeBilinear, FloatAlignCornersAndHalfPixelMatchDefinition) {
  const std::vector<float> in = {1, -2, 5, 7, 0.5f, 3, -4, 9, 2, 6, 1, -1};  // 3 x 4
  std::vector<double> real(in.begin(), in.end());
  for (Resize r : {Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, true, false},
                   Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, false, true},
                   Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, false, false}}) {
    for (auto [oh, ow] : {std::pair{5, 7}, std::pair{2, 3}, std::pair{1, 1}}) {
      const auto out = RunResize<float>(r, TensorType::kFloat32, {1, 3, 4, 1}, in, oh, ow);
      const auto want = BilinearReal(real, 3, 4, oh, ow, r.align_corners, r.half_pixel_centers);
      ASSERT_EQ(out.size(), want.size());
      for (size_t i = 0; i < out.size(); ++i) {
        EXPECT_NEAR(out[i], want[i], 1e-5) << "align " << r.align_corners << " half " << r.half_pixel_centers
                                           << " size " << oh << "x" << ow << " at " << i;
      }
    }
  }
}

TEST(ResizeBilinear, ChannelsAndBatchesAreIndependent) {
  // Two images, two channels: channel 1 is channel 0 plus 100.
  std::vector<float> in;
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 4; ++i) {
      in.push_back(static_cast<float>(b * 10 + i));
      in.push_back(static_cast<float>(b * 10 + i + 100));
    }
  }
  const auto out = RunResize<float>({}, TensorType::kFloat32, {2, 2, 2, 2}, in, 3, 3);
  ASSERT_EQ(out.size(), 36u);
  for (size_t i = 0; i < out.size(); i += 2) EXPECT_FLOAT_EQ(out[i + 1], out[i] + 100);
  EXPECT_FLOAT_EQ(out[18], 10);  // first pixel of image 1
}

TEST(ResizeBilinear, QuantizedTypesFollowFloatWithinOneStep) {
  std::vector<double> real;
  std::vector<uint8_t> u8;
  std::vector<int8_t> i8;
  std::vector<int16_t> i16;
  for (int i = 0; i < 20; ++i) {
    const int v = (i * 73 + 5) % 256;
    u8.push_back(static_cast<uint8_t>(v));
    i8.push_back(static_cast<int8_t>(v - 128));
    i16.push_back(static_cast<int16_t>((v - 128) * 200));
    real.push_back(v);
  }
  for (Resize r : {Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, true, false},
                   Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, false, true},
                   Resize{tflite::BuiltinOperator_RESIZE_BILINEAR, false, false}}) {
    const auto want = BilinearReal(real, 4, 5, 7, 9, r.align_corners, r.half_pixel_centers);
    const auto out_u8 = RunResize<uint8_t>(r, TensorType::kUInt8, {1, 4, 5, 1}, u8, 7, 9, Q(0.1f, 128));
    const auto out_i8 = RunResize<int8_t>(r, TensorType::kInt8, {1, 4, 5, 1}, i8, 7, 9, Q(0.1f, 0));
    const auto out_i16 = RunResize<int16_t>(r, TensorType::kInt16, {1, 4, 5, 1}, i16, 7, 9, Q(0.001f, 0));
    ASSERT_EQ(out_u8.size(), want.size());
    ASSERT_EQ(out_i8.size(), want.size());
    ASSERT_EQ(out_i16.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_LE(std::fabs(out_u8[i] - want[i]), 1.0) << i;
      EXPECT_LE(std::fabs(out_i8[i] + 128 - want[i]), 1.0) << i;
      EXPECT_LE(std::fabs(out_i16[i] - (want[i] - 128) * 200), 200.0) << i;
    }
  }
}

TEST(ResizeBilinear, Int8RoundsHalfAwayFromZeroWithTfliteArithmetic) {
  // 2 -> 3 with align_corners puts the middle sample exactly between its neighbours.
  const Resize align{tflite::BuiltinOperator_RESIZE_BILINEAR, true, false};
  const InterpreterOptions reference = testing::TfliteReferenceArithmetic();
  EXPECT_EQ(RunResize<int8_t>(align, TensorType::kInt8, {1, 1, 2, 1}, {-3, -2}, 1, 3, Q(1, 0), reference),
            (std::vector<int8_t>{-3, -3, -2}));  // -2.5 -> -3
  EXPECT_EQ(RunResize<int8_t>(align, TensorType::kInt8, {1, 1, 2, 1}, {2, 3}, 1, 3, Q(1, 0), reference),
            (std::vector<int8_t>{2, 3, 3}));  // 2.5 -> 3
}

TEST(ResizeBilinear, Int8RoundsHalfUpByDefault) {
  // XNNPACK's 11-bit weights: the midpoint is (a + b) / 2 rounded half up (towards +infinity).
  const Resize align{tflite::BuiltinOperator_RESIZE_BILINEAR, true, false};
  EXPECT_EQ(RunResize<int8_t>(align, TensorType::kInt8, {1, 1, 2, 1}, {-3, -2}, 1, 3, Q(1, 0)),
            (std::vector<int8_t>{-3, -2, -2}));  // -2.5 -> -2
  EXPECT_EQ(RunResize<int8_t>(align, TensorType::kInt8, {1, 1, 2, 1}, {2, 3}, 1, 3, Q(1, 0)),
            (std::vector<int8_t>{2, 3, 3}));  // 2.5 -> 3
}

TEST(ResizeBilinear, IntegerPathStaysInsideTheInput) {
  // 1 -> 55: the rounded 10-bit scale puts the last source position past the only pixel (TFLite
  // reads out of bounds there); every output must be that pixel.
  const auto out = RunResize<int8_t>({}, TensorType::kInt8, {1, 1, 1, 1}, {7}, 1, 55, Q(0.1f, 0));
  EXPECT_EQ(out, std::vector<int8_t>(55, 7));
}

TEST(ResizeBilinear, RuntimeSizeMakesTheOutputDynamic) {
  SingleOp s = MakeResize({}, TensorType::kFloat32, {1, 2, 2, 1}, 0, 0, /*constant_size=*/false);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0, 4, 8, 12});
  SetInput<int32_t>(*interpreter, 1, {1, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 1, 2, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 4}));
  SetInput<int32_t>(*interpreter, 1, {4, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 4, 4, 1}));
  SetInput<int32_t>(*interpreter, 1, {0, 4});
  EXPECT_FALSE(interpreter->Invoke().ok());  // sizes must be positive
}

TEST(ResizeBilinear, RejectsBadModels) {
  const Resize both{tflite::BuiltinOperator_RESIZE_BILINEAR, true, true};
  EXPECT_FALSE(MakeResize(both, TensorType::kFloat32, {1, 2, 2, 1}, 3, 3).TryBuild().ok());
  EXPECT_FALSE(MakeResize({}, TensorType::kFloat32, {2, 2, 1}, 3, 3).TryBuild().ok());     // rank 3
  EXPECT_FALSE(MakeResize({}, TensorType::kFloat32, {1, 2, 2, 1}, 0, 3).TryBuild().ok());  // zero height
  SingleOp bad_size(tflite::BuiltinOperator_RESIZE_BILINEAR);
  bad_size.Input(TensorType::kFloat32, {1, 2, 2, 1});
  bad_size.Const<int32_t>(TensorType::kInt32, {3}, {1, 2, 3});
  bad_size.Output(TensorType::kFloat32);
  EXPECT_FALSE(bad_size.TryBuild().ok());
}

// ---- nearest neighbor

TEST(ResizeNearestNeighbor, FlagsPickTheDocumentedSource) {
  const std::vector<float> in = {0, 1, 2};  // 1 x 3
  Resize plain{tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, false, false};
  Resize align{tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, true, false};
  Resize half{tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, false, true};
  // 3 -> 5, scale 0.6: floor(x * 0.6) = 0 0 1 1 2.
  EXPECT_EQ(RunResize<float>(plain, TensorType::kFloat32, {1, 1, 3, 1}, in, 1, 5), (std::vector<float>{0, 0, 1, 1, 2}));
  // align: scale 0.5, round(x * 0.5) = 0 1 1 2 2 (ties away from zero).
  EXPECT_EQ(RunResize<float>(align, TensorType::kFloat32, {1, 1, 3, 1}, in, 1, 5), (std::vector<float>{0, 1, 1, 2, 2}));
  // half pixel: floor((x + 0.5) * 0.6) = 0 0 1 2 2.
  EXPECT_EQ(RunResize<float>(half, TensorType::kFloat32, {1, 1, 3, 1}, in, 1, 5), (std::vector<float>{0, 0, 1, 2, 2}));
  // Downsampling 3 -> 2: plain floor(x * 1.5) = 0 1; half pixel floor((x + 0.5) * 1.5) = 0 2.
  EXPECT_EQ(RunResize<float>(plain, TensorType::kFloat32, {1, 1, 3, 1}, in, 1, 2), (std::vector<float>{0, 1}));
  EXPECT_EQ(RunResize<float>(half, TensorType::kFloat32, {1, 1, 3, 1}, in, 1, 2), (std::vector<float>{0, 2}));
}

TEST(ResizeNearestNeighbor, CopiesWholePixelsOfEveryType) {
  const Resize plain{tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, false, false};
  // 2x2 image with 2 channels, upsampled 2x: each pixel becomes a 2x2 block.
  const std::vector<int16_t> in16 = {1, -1, 2, -2, 3, -3, 4, -4};
  const auto out16 = RunResize<int16_t>(plain, TensorType::kInt16, {1, 2, 2, 2}, in16, 4, 4, Q(0.1f, 0));
  ASSERT_EQ(out16.size(), 32u);
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      const int src = (y / 2) * 2 + x / 2;
      EXPECT_EQ(out16[(y * 4 + x) * 2], in16[src * 2]);
      EXPECT_EQ(out16[(y * 4 + x) * 2 + 1], in16[src * 2 + 1]);
    }
  }
  // uint8 (TFLite's fixed-point index path), int8, int32 and bool on the traffic model's 2x upsampling.
  const std::vector<uint8_t> u8 = {10, 20, 30, 40};
  EXPECT_EQ(RunResize<uint8_t>(plain, TensorType::kUInt8, {1, 2, 2, 1}, u8, 3, 4, Q(0.0036f, 110)),
            (std::vector<uint8_t>{10, 10, 20, 20, 10, 10, 20, 20, 30, 30, 40, 40}));
  EXPECT_EQ(RunResize<int8_t>(plain, TensorType::kInt8, {1, 1, 2, 1}, {-5, 5}, 1, 3, Q(0.1f, 0)),
            (std::vector<int8_t>{-5, -5, 5}));
  EXPECT_EQ(RunResize<int32_t>(plain, TensorType::kInt32, {1, 1, 2, 1}, {7, 9}, 2, 1), (std::vector<int32_t>{7, 7}));
  EXPECT_EQ(RunResize<uint8_t>(plain, TensorType::kBool, {1, 1, 2, 1}, {0, 1}, 1, 4),
            (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST(ResizeNearestNeighbor, Uint8FixedPointAgreesWithFloatRuleOnLargeImages) {
  const Resize plain{tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, false, false};
  std::vector<uint8_t> u8(97);
  std::vector<float> f(97);
  for (int i = 0; i < 97; ++i) f[i] = u8[i] = static_cast<uint8_t>(i);
  const auto out_u8 = RunResize<uint8_t>(plain, TensorType::kUInt8, {1, 1, 97, 1}, u8, 1, 301, Q(1, 0));
  const auto out_f = RunResize<float>(plain, TensorType::kFloat32, {1, 1, 97, 1}, f, 1, 301);
  ASSERT_EQ(out_u8.size(), out_f.size());
  for (size_t i = 0; i < out_u8.size(); ++i) EXPECT_EQ(out_u8[i], out_f[i]) << i;
}

TEST(ResizeNearestNeighbor, RuntimeSize) {
  SingleOp s = MakeResize({tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR}, TensorType::kFloat32, {1, 1, 2, 1}, 0, 0,
                          /*constant_size=*/false);
  auto interpreter = s.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2});
  SetInput<int32_t>(*interpreter, 1, {2, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 4, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

}  // namespace
}  // namespace edgerun
