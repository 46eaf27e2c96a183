// SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND. Expected values come
// from the definitions written out as loops here, or by hand.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <numeric>
#include <random>

#include "kernels/reference/space_batch.h"

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

template <class T>
std::vector<T> Iota(int64_t n, T start = T(0)) {
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

std::unique_ptr<Interpreter> BlockOp(tflite::BuiltinOperator code, TensorType type, Shape in, int block) {
  SingleOp op(code);
  op.Input(type, in);
  op.Output(type);
  if (code == tflite::BuiltinOperator_SPACE_TO_DEPTH) {
    op.Options(tflite::BuiltinOptions_SpaceToDepthOptions, ER_OPTIONS(tflite::CreateSpaceToDepthOptions(fbb, block)));
  } else {
    op.Options(tflite::BuiltinOptions_DepthToSpaceOptions, ER_OPTIONS(tflite::CreateDepthToSpaceOptions(fbb, block)));
  }
  return op.Build();
}

TEST(SpaceToDepth, HandComputed2x2Block) {
  // One 4x4 single-channel image 0..15; each 2x2 patch becomes the 4 channels of one pixel.
  auto interpreter = BlockOp(tflite::BuiltinOperator_SPACE_TO_DEPTH, TensorType::kFloat32, {1, 4, 4, 1}, 2);
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(16));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 2, 4}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0),
            (std::vector<float>{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}));
}

TEST(SpaceToDepth, DefinitionForEveryByteWidth) {
  const int n = 2, h = 4, w = 6, c = 3, b = 2;
  for (TensorType type : {TensorType::kInt8, TensorType::kInt16, TensorType::kInt32, TensorType::kInt64}) {
    auto interpreter = BlockOp(tflite::BuiltinOperator_SPACE_TO_DEPTH, type, {n, h, w, c}, b);
    ASSERT_TRUE(interpreter);
    Tensor* in = interpreter->input(0);
    const size_t size = TensorTypeSize(type);
    // Element i holds the little-endian value i (mod 128 for int8) in all its bytes' low end.
    std::vector<uint8_t> bytes(in->bytes, 0);
    for (int64_t i = 0; i < in->num_elements(); ++i) bytes[i * size] = static_cast<uint8_t>(i % 128);
    std::memcpy(in->data, bytes.data(), bytes.size());
    ASSERT_TRUE(interpreter->Invoke().ok());
    const Tensor* out = interpreter->output(0);
    ASSERT_EQ(out->shape, (Shape{n, h / b, w / b, c * b * b}));
    const uint8_t* got = out->data_as<uint8_t>();
    for (int bi = 0; bi < n; ++bi)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int ch = 0; ch < c; ++ch) {
            const int64_t from = ((bi * h + y) * w + x) * c + ch;
            const int64_t to = ((bi * (h / b) + y / b) * (w / b) + x / b) * (c * b * b) + ((y % b) * b + x % b) * c + ch;
            ASSERT_EQ(got[to * size], bytes[from * size]) << TensorTypeName(type);
          }
  }
}

TEST(DepthToSpace, InvertsSpaceToDepth) {
  auto interpreter = BlockOp(tflite::BuiltinOperator_DEPTH_TO_SPACE, TensorType::kFloat32, {1, 2, 2, 4}, 2);
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 4, 4, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), Iota<float>(16));
}

TEST(DepthToSpace, UInt8WithTwoChannels) {
  // [1,1,1,8] with block 2 -> [1,2,2,2]: channel groups of 2 fill the patch row-major.
  auto interpreter = BlockOp(tflite::BuiltinOperator_DEPTH_TO_SPACE, TensorType::kUInt8, {1, 1, 1, 8}, 2);
  ASSERT_TRUE(interpreter);
  SetInput<uint8_t>(*interpreter, 0, {10, 11, 20, 21, 30, 31, 40, 41});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 2, 2, 2}));
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 0), (std::vector<uint8_t>{10, 11, 20, 21, 30, 31, 40, 41}));
}

TEST(SpaceDepth, BadShapesFailAtPrepare) {
  SingleOp s2d(tflite::BuiltinOperator_SPACE_TO_DEPTH);
  s2d.Input(TensorType::kFloat32, {1, 3, 4, 1});  // 3 is not a multiple of 2
  s2d.Output(TensorType::kFloat32);
  s2d.Options(tflite::BuiltinOptions_SpaceToDepthOptions, ER_OPTIONS(tflite::CreateSpaceToDepthOptions(fbb, 2)));
  EXPECT_FALSE(s2d.TryBuild().ok());

  SingleOp d2s(tflite::BuiltinOperator_DEPTH_TO_SPACE);
  d2s.Input(TensorType::kFloat32, {1, 2, 2, 6});  // 6 is not a multiple of 4
  d2s.Output(TensorType::kFloat32);
  d2s.Options(tflite::BuiltinOptions_DepthToSpaceOptions, ER_OPTIONS(tflite::CreateDepthToSpaceOptions(fbb, 2)));
  EXPECT_FALSE(d2s.TryBuild().ok());

  SingleOp zero(tflite::BuiltinOperator_SPACE_TO_DEPTH);
  zero.Input(TensorType::kFloat32, {1, 2, 2, 1});
  zero.Output(TensorType::kFloat32);
  zero.Options(tflite::BuiltinOptions_SpaceToDepthOptions, ER_OPTIONS(tflite::CreateSpaceToDepthOptions(fbb, 0)));
  EXPECT_FALSE(zero.TryBuild().ok());
}

// SPACE_TO_BATCH_ND from its definition: out[(k_h * bw + k_w) * B + b, i, j, c] =
// padded[b, i * bh + k_h, j * bw + k_w, c].
TEST(SpaceToBatchNd, DefinitionWithPadding) {
  const int batch = 2, h = 3, w = 2, c = 2, bh = 2, bw = 2, top = 1, bottom = 0, left = 1, right = 1;
  SingleOp op(tflite::BuiltinOperator_SPACE_TO_BATCH_ND);
  op.Input(TensorType::kFloat32, {batch, h, w, c});
  op.Const<int32_t>(TensorType::kInt32, {2}, {bh, bw});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {top, bottom, left, right});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(batch * h * w * c, 1.0f));
  ASSERT_TRUE(interpreter->Invoke().ok());
  const int oh = (h + top + bottom) / bh, ow = (w + left + right) / bw;
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{batch * bh * bw, oh, ow, c}));
  const auto got = GetOutput<float>(*interpreter, 0);
  for (int kh = 0; kh < bh; ++kh)
    for (int kw = 0; kw < bw; ++kw)
      for (int b = 0; b < batch; ++b)
        for (int i = 0; i < oh; ++i)
          for (int j = 0; j < ow; ++j)
            for (int ch = 0; ch < c; ++ch) {
              const int y = i * bh + kh - top, x = j * bw + kw - left;
              const bool inside = y >= 0 && y < h && x >= 0 && x < w;
              const float want = inside ? static_cast<float>(((b * h + y) * w + x) * c + ch + 1) : 0.0f;
              const int ob = (kh * bw + kw) * batch + b;
              EXPECT_EQ(got[((ob * oh + i) * ow + j) * c + ch], want);
            }
}

TEST(SpaceToBatchNd, QuantizedPadsWithZeroPoint) {
  QuantizationParams q;
  q.scale = {0.5f};
  q.zero_point = {7};
  SingleOp op(tflite::BuiltinOperator_SPACE_TO_BATCH_ND);
  op.Input(TensorType::kInt8, {1, 1, 2, 1}, q);  // 3-D style input with a trailing channel
  op.Const<int32_t>(TensorType::kInt32, {2}, {1, 2});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, 0, 1, 1});
  op.Output(TensorType::kInt8, {}, q);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int8_t>(*interpreter, 0, {-1, -2});
  ASSERT_TRUE(interpreter->Invoke().ok());
  // Padded row: [7, -1, -2, 7]; block offset 0 takes columns 0, 2 and offset 1 columns 1, 3.
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1, 2, 1}));
  EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{7, -2, -1, 7}));
}

TEST(SpaceToBatchNd, ThreeDimensionalInput) {
  SingleOp op(tflite::BuiltinOperator_SPACE_TO_BATCH_ND);
  op.Input(TensorType::kFloat32, {1, 4, 1});
  op.Const<int32_t>(TensorType::kInt32, {1}, {2});
  op.Const<int32_t>(TensorType::kInt32, {1, 2}, {0, 0});
  op.Output(TensorType::kFloat32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{1, 3, 2, 4}));
}

TEST(SpaceToBatchNd, IndivisiblePaddedSizeFails) {
  SingleOp op(tflite::BuiltinOperator_SPACE_TO_BATCH_ND);
  op.Input(TensorType::kFloat32, {1, 3, 3, 1});
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 2});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, 0, 0, 0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// BATCH_TO_SPACE_ND from its definition: out[b, y, x, c] = in[(k_h * bw + k_w) * B + b, i, j, c]
// with y + crop_top = i * bh + k_h and x + crop_left = j * bw + k_w.
TEST(BatchToSpaceNd, DefinitionWithCrops) {
  const int batch = 1, bh = 2, bw = 3, ih = 2, iw = 2, c = 2, top = 1, bottom = 0, left = 0, right = 2;
  SingleOp op(tflite::BuiltinOperator_BATCH_TO_SPACE_ND);
  op.Input(TensorType::kInt32, {batch * bh * bw, ih, iw, c});
  op.Const<int32_t>(TensorType::kInt32, {2}, {bh, bw});
  op.Const<int64_t>(TensorType::kInt64, {2, 2}, {top, bottom, left, right});
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<int32_t>(batch * bh * bw * ih * iw * c));
  ASSERT_TRUE(interpreter->Invoke().ok());
  const int oh = ih * bh - top - bottom, ow = iw * bw - left - right;
  ASSERT_EQ(interpreter->output(0)->shape, (Shape{batch, oh, ow, c}));
  const auto got = GetOutput<int32_t>(*interpreter, 0);
  for (int b = 0; b < batch; ++b)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int ch = 0; ch < c; ++ch) {
          const int py = y + top, px = x + left;
          const int ib = ((py % bh) * bw + px % bw) * batch + b;
          const int want = ((ib * ih + py / bh) * iw + px / bw) * c + ch;
          EXPECT_EQ(got[((b * oh + y) * ow + x) * c + ch], want);
        }
}

TEST(SpaceBatch, RoundTripThroughRuntimeBlockShape) {
  // block_shape and paddings from graph inputs: both outputs are sized at Invoke.
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 4, 4, 1});
  const int block = b.AddTensor("block", TensorType::kInt32, {2});
  const int pads = b.AddTensor("pads", TensorType::kInt32, {2, 2});
  const int mid = b.AddTensor("mid", TensorType::kFloat32, {1});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1});
  b.AddOp(tflite::BuiltinOperator_SPACE_TO_BATCH_ND, {x, block, pads}, {mid});
  b.AddOp(tflite::BuiltinOperator_BATCH_TO_SPACE_ND, {mid, block, pads}, {y});
  b.SetInputs({x, block, pads});
  b.SetOutputs({y, mid});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput(*interpreter, 0, Iota<float>(16));
  SetInput<int32_t>(*interpreter, 1, {2, 2});
  SetInput<int32_t>(*interpreter, 2, {0, 0, 0, 0});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(1)->shape, (Shape{4, 2, 2, 1}));
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 4, 4, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), Iota<float>(16));
}

// The run walk (bounds of each run along the last spatial dim from the block offset) against
// the definition one element at a time: random numbers of spatial dims (1-3), sizes, blocks,
// paddings (more than a block too, so whole blocks are padding), trailing dims and element sizes
// (3 bytes), pad values; then BATCH_TO_SPACE_ND with the same geometry must give the input back.
TEST(SpaceBatch, RunsMatchElementByElementOnRandomShapes) {
  std::mt19937 rng(41);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 400; ++iter) {
    reference::SpaceBatchGeometry g;
    const int m_count = pick(1, 3);
    const size_t element = std::array<size_t, 4>{1, 2, 3, 4}[pick(0, 3)];
    g.batch = pick(1, 3);
    int64_t rest = pick(0, 4) == 0 ? 0 : pick(1, 3), positions = g.batch, space_positions = g.batch;
    for (int m = 0; m < m_count; ++m) {
      const int64_t block = pick(1, 4), size = pick(1, 7), before = pick(0, 6);
      const int64_t padded = size + before;
      const int64_t after = (block - padded % block) % block + block * pick(0, 1);
      g.space.push_back(size);
      g.block.push_back(block);
      g.offset.push_back(before);
      g.batch_space.push_back((padded + after) / block);
      positions *= block * g.batch_space.back();
      space_positions *= size;
    }
    g.rest_bytes = rest * static_cast<int64_t>(element);
    std::vector<uint8_t> input(static_cast<size_t>(space_positions * g.rest_bytes)), value(element);
    for (auto& v : input) v = static_cast<uint8_t>(pick(0, 255));
    for (auto& v : value) v = static_cast<uint8_t>(pick(0, 255));
    std::vector<uint8_t> got(static_cast<size_t>(positions * g.rest_bytes), 0xAB), want(got.size(), 0xCD);
    reference::SpaceToBatch(g, element, input.data(), value.data(), got.data());
    // Batch-side position o = ((kb * batch + b) * bs_0 + q_0) * bs_1 + q_1 ...
    int64_t spatial = 1;
    for (int m = 0; m < m_count; ++m) spatial *= g.batch_space[m];
    for (int64_t o = 0; o < positions; ++o) {
      int64_t rem = o % spatial;
      const int64_t batch_index = o / spatial;
      int64_t kb = batch_index / g.batch;
      const int64_t b = batch_index % g.batch;
      std::vector<int64_t> q(m_count), k(m_count);
      for (int m = m_count - 1; m >= 0; --m) {
        q[m] = rem % g.batch_space[m];
        rem /= g.batch_space[m];
        k[m] = kb % g.block[m];
        kb /= g.block[m];
      }
      bool inside = true;
      int64_t src = b;
      for (int m = 0; m < m_count; ++m) {
        const int64_t p = q[m] * g.block[m] + k[m] - g.offset[m];
        inside = inside && p >= 0 && p < g.space[m];
        src = src * g.space[m] + p;
      }
      for (int64_t j = 0; j < rest; ++j) {
        uint8_t* dst = want.data() + (o * rest + j) * static_cast<int64_t>(element);
        if (inside) std::memcpy(dst, input.data() + (src * rest + j) * static_cast<int64_t>(element), element);
        else std::memcpy(dst, value.data(), element);
      }
    }
    ASSERT_EQ(got, want) << "iteration " << iter << " spatial dims " << m_count;
    std::vector<uint8_t> back(input.size(), 0xEF);
    reference::BatchToSpace(g, got.data(), back.data());
    ASSERT_EQ(back, input) << "iteration " << iter << " spatial dims " << m_count;
  }
}

TEST(BatchToSpaceNd, BatchNotDivisibleFails) {
  SingleOp op(tflite::BuiltinOperator_BATCH_TO_SPACE_ND);
  op.Input(TensorType::kFloat32, {3, 1, 1, 1});
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 1});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, 0, 0, 0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

TEST(BatchToSpaceNd, NegativeCropFails) {
  SingleOp op(tflite::BuiltinOperator_BATCH_TO_SPACE_ND);
  op.Input(TensorType::kFloat32, {4, 1, 1, 1});
  op.Const<int32_t>(TensorType::kInt32, {2}, {2, 2});
  op.Const<int32_t>(TensorType::kInt32, {2, 2}, {0, -1, 0, 0});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
