// CAST, BITCAST, ZEROS_LIKE, FILL and RANGE.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "quant/float16.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

template <class From, class To>
std::vector<To> RunCast(TensorType from, TensorType to, const std::vector<From>& values, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int32_t>(values.size())};
  SingleOp op(tflite::BuiltinOperator_CAST);
  op.Input(from, shape);
  op.Output(to);
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  SetInput(*interpreter, 0, values);
  EXPECT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, shape);
  return GetOutput<To>(*interpreter, 0);
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  const std::vector<float> in = {1.9f, -1.9f, 0.5f, -0.5f, 3e9f, -3e9f, kNaN, kInf, 2147483520.0f};
  EXPECT_EQ(
      (RunCast<float, int32_t>(TensorType::kFloat32, TensorType::kInt32, in)),
      (std::vector<int32_t>{1, -1, 0, 0, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::max(), 2147483520}));
  EXPECT_EQ((RunCast<float, uint8_t>(TensorType::kFloat32, TensorType::kUInt8, {255.9f, -3.0f, 17.2f})),
            (std::vector<uint8_t>{255, 0, 17}));
  EXPECT_EQ((RunCast<float, int8_t>(TensorType::kFloat32, TensorType::kInt8, {-128.7f, 127.7f, 200.0f})),
            (std::vector<int8_t>{-128, 127, 127}));
  EXPECT_EQ((RunCast<double, int64_t>(TensorType::kFloat64, TensorType::kInt64, {-2.5, 1e30})),
            (std::vector<int64_t>{-2, std::numeric_limits<int64_t>::max()}));
}

TEST(Cast, IntegersWrapAndWiden) {
  EXPECT_EQ((RunCast<int64_t, int32_t>(TensorType::kInt64, TensorType::kInt32, {(int64_t{1} << 32) + 5, -1})),
            (std::vector<int32_t>{5, -1}));
  EXPECT_EQ((RunCast<int32_t, uint8_t>(TensorType::kInt32, TensorType::kUInt8, {256 + 7, -1})),
            (std::vector<uint8_t>{7, 255}));
  EXPECT_EQ((RunCast<uint8_t, int16_t>(TensorType::kUInt8, TensorType::kInt16, {255, 0})),
            (std::vector<int16_t>{255, 0}));
  EXPECT_EQ((RunCast<int16_t, uint16_t>(TensorType::kInt16, TensorType::kUInt16, {-1, 300})),
            (std::vector<uint16_t>{65535, 300}));
  EXPECT_EQ((RunCast<uint32_t, int64_t>(TensorType::kUInt32, TensorType::kInt64, {4000000000u})),
            (std::vector<int64_t>{4000000000}));
  EXPECT_EQ((RunCast<int32_t, float>(TensorType::kInt32, TensorType::kFloat32, {16777217, -3}, {2, 1})),
            (std::vector<float>{16777216.0f, -3.0f}));  // rounds to the nearest float
}

TEST(Cast, BoolConversions) {
  EXPECT_EQ((RunCast<float, bool>(TensorType::kFloat32, TensorType::kBool, {0.0f, -0.0f, 0.1f, -2.0f, kNaN})),
            (std::vector<bool>{false, false, true, true, true}));
  EXPECT_EQ((RunCast<int32_t, bool>(TensorType::kInt32, TensorType::kBool, {0, 7, -1})),
            (std::vector<bool>{false, true, true}));
  EXPECT_EQ((RunCast<uint8_t, float>(TensorType::kBool, TensorType::kFloat32, {1, 0, 1})),
            (std::vector<float>{1, 0, 1}));
  EXPECT_EQ((RunCast<uint8_t, int64_t>(TensorType::kBool, TensorType::kInt64, {0, 1})), (std::vector<int64_t>{0, 1}));
}

TEST(Cast, FloatWidths) {
  EXPECT_EQ((RunCast<double, float>(TensorType::kFloat64, TensorType::kFloat32, {0.1, 1e300})),
            (std::vector<float>{0.1f, kInf}));
  EXPECT_EQ((RunCast<float, double>(TensorType::kFloat32, TensorType::kFloat64, {0.1f})),
            (std::vector<double>{static_cast<double>(0.1f)}));
  // float16: 1.0 = 0x3c00, -2.5 = 0xc100, 65504 = 0x7bff (largest), 1/3 rounds to 0x3555.
  EXPECT_EQ((RunCast<float, uint16_t>(TensorType::kFloat32, TensorType::kFloat16, {1.0f, -2.5f, 65504.0f, 1.0f / 3})),
            (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x3555}));
  EXPECT_EQ((RunCast<uint16_t, float>(TensorType::kFloat16, TensorType::kFloat32, {0x3c00, 0xc100, 0x7c00})),
            (std::vector<float>{1.0f, -2.5f, kInf}));
  EXPECT_EQ((RunCast<uint16_t, int32_t>(TensorType::kFloat16, TensorType::kInt32, {0xc100, 0x7c00})),
            (std::vector<int32_t>{-2, std::numeric_limits<int32_t>::max()}));
  EXPECT_EQ((RunCast<int32_t, uint16_t>(TensorType::kInt32, TensorType::kFloat16, {3, -1})),
            (std::vector<uint16_t>{0x4200, 0xbc00}));
  // bfloat16 keeps the top 16 bits of a float, rounding to nearest even.
  EXPECT_EQ((RunCast<float, uint16_t>(TensorType::kFloat32, TensorType::kBFloat16, {1.0f, 1.00390625f, 3.0f})),
            (std::vector<uint16_t>{0x3f80, 0x3f80, 0x4040}));
  EXPECT_EQ((RunCast<uint16_t, float>(TensorType::kBFloat16, TensorType::kFloat32, {0x3f80, 0xc040})),
            (std::vector<float>{1.0f, -3.0f}));
}

TEST(Cast, Complex) {
  using C = std::complex<float>;
  EXPECT_EQ((RunCast<C, float>(TensorType::kComplex64, TensorType::kFloat32, {C(1.5f, 2), C(-3, -4)})),
            (std::vector<float>{1.5f, -3}));
  EXPECT_EQ((RunCast<C, int32_t>(TensorType::kComplex64, TensorType::kInt32, {C(-7.9f, 100)})),
            (std::vector<int32_t>{-7}));
  EXPECT_EQ((RunCast<float, C>(TensorType::kFloat32, TensorType::kComplex64, {2.5f})), (std::vector<C>{C(2.5f, 0)}));
  EXPECT_EQ((RunCast<int64_t, C>(TensorType::kInt64, TensorType::kComplex64, {-4})), (std::vector<C>{C(-4, 0)}));
  EXPECT_EQ((RunCast<C, C>(TensorType::kComplex64, TensorType::kComplex64, {C(1, 2)})), (std::vector<C>{C(1, 2)}));
}

TEST(Cast, PackedInt4) {
  // Elements 0..4 = 1, -8, 7, -1, 3 packed low nibble first: 0x81, 0xf7, 0x03.
  EXPECT_EQ((RunCast<uint8_t, float>(TensorType::kInt4, TensorType::kFloat32, {0x81, 0xf7, 0x03}, {5})),
            (std::vector<float>{1, -8, 7, -1, 3}));
  EXPECT_EQ((RunCast<uint8_t, float>(TensorType::kUInt4, TensorType::kFloat32, {0x81, 0x0f}, {3})),
            (std::vector<float>{1, 8, 15}));
  SingleOp op(tflite::BuiltinOperator_CAST);
  op.Input(TensorType::kFloat32, {5});
  op.Output(TensorType::kInt4);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1.7f, -100.0f, 7.0f, -1.2f, 3.0f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  const uint8_t* packed = interpreter->output(0)->data_as<uint8_t>();
  ASSERT_EQ(interpreter->output(0)->bytes, 3u);
  EXPECT_EQ(packed[0], 0x81);
  EXPECT_EQ(packed[1], 0xf7);
  EXPECT_EQ(packed[2] & 0x0f, 0x03);
}

TEST(Cast, EmptyAndUnsupported) {
  EXPECT_TRUE((RunCast<float, int32_t>(TensorType::kFloat32, TensorType::kInt32, {}, {0, 4})).empty());
  SingleOp op(tflite::BuiltinOperator_CAST);
  op.Input(TensorType::kFloat32, {2});
  op.Output(TensorType::kString);
  EXPECT_TRUE(op.TryBuild().unsupported());
}

// ---- BITCAST

TEST(Bitcast, ShapeFollowsTheElementSizes) {
  SingleOp wide(tflite::BuiltinOperator_BITCAST);
  wide.Input(TensorType::kFloat32, {2});
  wide.Output(TensorType::kUInt8);
  auto w = wide.Build();
  ASSERT_TRUE(w);
  SetInput<float>(*w, 0, {1.0f, -2.0f});
  ASSERT_TRUE(w->Invoke().ok());
  EXPECT_EQ(w->output(0)->shape, (Shape{2, 4}));
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000, little-endian bytes.
  EXPECT_EQ(GetOutput<uint8_t>(*w, 0), (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}));

  SingleOp narrow(tflite::BuiltinOperator_BITCAST);
  narrow.Input(TensorType::kInt16, {3, 2});
  narrow.Output(TensorType::kInt32);
  auto n = narrow.Build();
  ASSERT_TRUE(n);
  SetInput<int16_t>(*n, 0, {1, 0, -1, -1, 0, 1});
  ASSERT_TRUE(n->Invoke().ok());
  EXPECT_EQ(n->output(0)->shape, (Shape{3}));
  EXPECT_EQ(GetOutput<int32_t>(*n, 0), (std::vector<int32_t>{1, -1, 65536}));

  SingleOp same(tflite::BuiltinOperator_BITCAST);
  same.Input(TensorType::kUInt32, {1});
  same.Output(TensorType::kFloat32);
  auto s = same.Build();
  ASSERT_TRUE(s);
  SetInput<uint32_t>(*s, 0, {0x40490fdbu});
  ASSERT_TRUE(s->Invoke().ok());
  EXPECT_EQ(GetOutput<float>(*s, 0), (std::vector<float>{3.14159274f}));

  SingleOp bad(tflite::BuiltinOperator_BITCAST);
  bad.Input(TensorType::kUInt8, {3});
  bad.Output(TensorType::kInt32);
  EXPECT_FALSE(bad.TryBuild().ok());
}

// ---- ZEROS_LIKE

TEST(ZerosLike, KeepsShapeAndType) {
  SingleOp op(tflite::BuiltinOperator_ZEROS_LIKE);
  op.Input(TensorType::kInt64, {2, 2});
  op.Output(TensorType::kInt64);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int64_t>(*interpreter, 0, {5, 6, 7, 8});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{0, 0, 0, 0}));
}

// ---- FILL

TEST(Fill, ConstantDimsEveryWidth) {
  SingleOp op(tflite::BuiltinOperator_FILL);
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 3});
  op.Input(TensorType::kFloat32, {});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {2.5f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 3}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), std::vector<float>(6, 2.5f));

  SingleOp b(tflite::BuiltinOperator_FILL);
  b.Const<int64_t>(TensorType::kInt64, {1}, {3});
  b.Const<uint8_t>(TensorType::kBool, {}, {1});
  b.Output(TensorType::kBool);
  auto bi = b.Build();
  ASSERT_TRUE(bi);
  ASSERT_TRUE(bi->Invoke().ok());
  EXPECT_EQ(GetOutput<bool>(*bi, 0), (std::vector<bool>{true, true, true}));

  SingleOp l(tflite::BuiltinOperator_FILL);
  l.Const<int32_t>(TensorType::kInt32, {0}, {});  // rank 0 output
  l.Const<int64_t>(TensorType::kInt64, {}, {int64_t{1} << 50});
  l.Output(TensorType::kInt64);
  auto li = l.Build();
  ASSERT_TRUE(li);
  ASSERT_TRUE(li->Invoke().ok());
  EXPECT_EQ(li->output(0)->shape, Shape{});
  EXPECT_EQ(GetOutput<int64_t>(*li, 0), (std::vector<int64_t>{int64_t{1} << 50}));
}

TEST(Fill, RuntimeDimsGiveADynamicOutput) {
  SingleOp op(tflite::BuiltinOperator_FILL);
  op.Input(TensorType::kInt32, {2});
  op.Const<int16_t>(TensorType::kInt16, {}, {-9});
  op.Output(TensorType::kInt16);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1, 2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2}));
  EXPECT_EQ(GetOutput<int16_t>(*interpreter, 0), (std::vector<int16_t>{-9, -9}));
  SetInput<int32_t>(*interpreter, 0, {3, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 0}));
  SetInput<int32_t>(*interpreter, 0, {2, -1});
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("-1"), std::string::npos) << st.message();
}

TEST(Fill, Strings) {
  SingleOp op(tflite::BuiltinOperator_FILL);
  op.Const<int32_t>(TensorType::kInt32, {1}, {3});
  op.Const<uint8_t>(TensorType::kString, {}, WriteStringTensor({"hey"}));
  op.Output(TensorType::kString);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  const Tensor* out = interpreter->output(0);
  bool ok = false;
  EXPECT_EQ(ReadStringTensor(out->data, out->bytes, &ok), (std::vector<std::string>{"hey", "hey", "hey"}));
  EXPECT_TRUE(ok);
}

TEST(Fill, PrepareErrors) {
  SingleOp types(tflite::BuiltinOperator_FILL);
  types.Const<int32_t>(TensorType::kInt32, {1}, {3});
  types.Input(TensorType::kFloat32, {});
  types.Output(TensorType::kInt32);
  EXPECT_FALSE(types.TryBuild().ok());
  SingleOp value(tflite::BuiltinOperator_FILL);
  value.Const<int32_t>(TensorType::kInt32, {1}, {3});
  value.Input(TensorType::kFloat32, {2});
  value.Output(TensorType::kFloat32);
  EXPECT_FALSE(value.TryBuild().ok());
  SingleOp dims(tflite::BuiltinOperator_FILL);
  dims.Const<float>(TensorType::kFloat32, {1}, {3});
  dims.Input(TensorType::kFloat32, {});
  dims.Output(TensorType::kFloat32);
  EXPECT_FALSE(dims.TryBuild().ok());
  SingleOp negative(tflite::BuiltinOperator_FILL);
  negative.Const<int32_t>(TensorType::kInt32, {2}, {3, -2});
  negative.Input(TensorType::kFloat32, {});
  negative.Output(TensorType::kFloat32);
  EXPECT_FALSE(negative.TryBuild().ok());
}

// ---- RANGE

template <class T>
std::vector<T> RunConstRange(TensorType type, T start, T limit, T delta) {
  SingleOp op(tflite::BuiltinOperator_RANGE);
  op.Const<T>(type, {}, {start});
  op.Const<T>(type, {}, {limit});
  op.Const<T>(type, {}, {delta});
  op.Output(type);
  auto interpreter = op.Build();
  EXPECT_TRUE(interpreter);
  if (!interpreter) return {};
  EXPECT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{static_cast<int32_t>(interpreter->output(0)->num_elements())}));
  return GetOutput<T>(*interpreter, 0);
}

TEST(Range, ConstantInputs) {
  EXPECT_EQ(RunConstRange<int32_t>(TensorType::kInt32, 0, 5, 2), (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(RunConstRange<int32_t>(TensorType::kInt32, 5, -1, -3), (std::vector<int32_t>{5, 2}));
  EXPECT_EQ(RunConstRange<int32_t>(TensorType::kInt32, 3, 3, 1), (std::vector<int32_t>{}));
  EXPECT_EQ(RunConstRange<int64_t>(TensorType::kInt64, int64_t{1} << 40, (int64_t{1} << 40) + 3, 1),
            (std::vector<int64_t>{int64_t{1} << 40, (int64_t{1} << 40) + 1, (int64_t{1} << 40) + 2}));
  EXPECT_EQ(RunConstRange<float>(TensorType::kFloat32, 1.0f, 2.0f, 0.25f), (std::vector<float>{1, 1.25f, 1.5f, 1.75f}));
  EXPECT_EQ(RunConstRange<float>(TensorType::kFloat32, 0.0f, -1.0f, -0.4f), (std::vector<float>{0, -0.4f, -0.8f}));
}

TEST(Range, RuntimeInputsAndErrors) {
  SingleOp op(tflite::BuiltinOperator_RANGE);
  op.Input(TensorType::kInt32, {});
  op.Input(TensorType::kInt32, {});
  op.Const<int32_t>(TensorType::kInt32, {}, {1});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {2});
  SetInput<int32_t>(*interpreter, 1, {6});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{2, 3, 4, 5}));
  SetInput<int32_t>(*interpreter, 1, {0});  // never reaches the limit with delta 1
  EXPECT_FALSE(interpreter->Invoke().ok());

  SingleOp zero(tflite::BuiltinOperator_RANGE);
  zero.Const<float>(TensorType::kFloat32, {}, {0});
  zero.Const<float>(TensorType::kFloat32, {}, {1});
  zero.Const<float>(TensorType::kFloat32, {}, {0});
  zero.Output(TensorType::kFloat32);
  EXPECT_FALSE(zero.TryBuild().ok());

  SingleOp huge(tflite::BuiltinOperator_RANGE);
  huge.Const<int64_t>(TensorType::kInt64, {}, {std::numeric_limits<int64_t>::min()});
  huge.Const<int64_t>(TensorType::kInt64, {}, {std::numeric_limits<int64_t>::max()});
  huge.Const<int64_t>(TensorType::kInt64, {}, {1});
  huge.Output(TensorType::kInt64);
  EXPECT_FALSE(huge.TryBuild().ok());

  SingleOp mixed(tflite::BuiltinOperator_RANGE);
  mixed.Const<int32_t>(TensorType::kInt32, {}, {0});
  mixed.Const<float>(TensorType::kFloat32, {}, {1});
  mixed.Const<int32_t>(TensorType::kInt32, {}, {1});
  mixed.Output(TensorType::kInt32);
  EXPECT_FALSE(mixed.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
