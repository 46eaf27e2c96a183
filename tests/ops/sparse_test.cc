// Sparse constants (SparsityParameters): DENSIFY and FULLY_CONNECTED with sparse weights, and
// the validation of every index of the metadata. Expected dense tensors are written out by hand
// from the format's definition.
#include <gtest/gtest.h>

#include <algorithm>

#include "quant/float16.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;

struct Dim {
  bool sparse = false;
  int dense_size = 0;
  std::vector<int32_t> segments, indices;
  tflite::SparseIndexVector index_type = tflite::SparseIndexVector_Int32Vector;
};
Dim Dense(int size) { return Dim{false, size, {}, {}}; }
Dim Csr(std::vector<int32_t> segments, std::vector<int32_t> indices,
        tflite::SparseIndexVector type = tflite::SparseIndexVector_Int32Vector) {
  return Dim{true, 0, std::move(segments), std::move(indices), type};
}

flatbuffers::Offset<void> IndexVector(flatbuffers::FlatBufferBuilder& fbb, tflite::SparseIndexVector type,
                                      const std::vector<int32_t>& v) {
  switch (type) {
    case tflite::SparseIndexVector_Uint8Vector:
      return tflite::CreateUint8Vector(fbb, fbb.CreateVector(std::vector<uint8_t>(v.begin(), v.end()))).Union();
    case tflite::SparseIndexVector_Uint16Vector:
      return tflite::CreateUint16Vector(fbb, fbb.CreateVector(std::vector<uint16_t>(v.begin(), v.end()))).Union();
    default:
      return tflite::CreateInt32Vector(fbb, fbb.CreateVector(v)).Union();
  }
}

ModelBuilder::SparsityWriter Sparsity(std::vector<int> order, std::vector<int> block_map, std::vector<Dim> dims) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<tflite::DimensionMetadata>> metadata;
    for (const Dim& d : dims) {
      if (!d.sparse) {
        metadata.push_back(tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_DENSE, d.dense_size));
        continue;
      }
      const auto segments = IndexVector(fbb, d.index_type, d.segments);
      const auto indices = IndexVector(fbb, d.index_type, d.indices);
      metadata.push_back(tflite::CreateDimensionMetadata(fbb, tflite::DimensionType_SPARSE_CSR, 0, d.index_type,
                                                         segments, d.index_type, indices));
    }
    return tflite::CreateSparsityParameters(fbb, fbb.CreateVector(order),
                                            block_map.empty() ? 0 : fbb.CreateVector(block_map),
                                            fbb.CreateVector(metadata));
  };
}

// DENSIFY(sparse constant) -> ADD(dense, x): the densified values are read at every invocation.
template <class T>
std::vector<uint8_t> DensifyModel(TensorType type, Shape shape, const std::vector<T>& values,
                                  ModelBuilder::SparsityWriter sparsity) {
  ModelBuilder b;
  const int sparse = b.AddConstant("sparse", type, shape, values);
  b.SetSparsity(sparse, std::move(sparsity));
  const int dense = b.AddTensor("dense", type, shape);
  b.AddOp(tflite::BuiltinOperator_DENSIFY, {sparse}, {dense});
  b.SetInputs({});
  b.SetOutputs({dense});
  return b.Finish();
}

// The 3x4 matrix [[6, 0, 9, 8], [0, 0, 0, 0], [5, 0, 0, 7]] in CSR: rows dense, columns sparse.
ModelBuilder::SparsityWriter Csr3x4(tflite::SparseIndexVector type = tflite::SparseIndexVector_Int32Vector) {
  return Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3, 3, 5}, {0, 2, 3, 0, 3}, type)});
}
const std::vector<float> kCsrValues{6, 9, 8, 5, 7};
const std::vector<float> kCsrDense{6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7};

TEST(Densify, CsrMatrixWithEachIndexType) {
  for (auto type : {tflite::SparseIndexVector_Int32Vector, tflite::SparseIndexVector_Uint16Vector,
                    tflite::SparseIndexVector_Uint8Vector}) {
    auto interpreter = testing::Build(DensifyModel(TensorType::kFloat32, {3, 4}, kCsrValues, Csr3x4(type)));
    ASSERT_TRUE(interpreter);
    { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 4}));
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), kCsrDense) << "index type " << type;
  }
}

TEST(Densify, ColumnMajorTraversal) {
  // The same matrix stored column by column: traversal [1, 0], columns dense, rows sparse.
  auto sparsity = Sparsity({1, 0}, {}, {Dense(4), Csr({0, 2, 2, 3, 5}, {0, 2, 0, 0, 2})});
  auto interpreter =
      testing::Build(DensifyModel(TensorType::kFloat32, {3, 4}, std::vector<float>{6, 5, 9, 8, 7}, sparsity));
  ASSERT_TRUE(interpreter);
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), kCsrDense);
}

TEST(Densify, TwoByTwoBlocks) {
  // 4x4 in 2x2 blocks: block rows dense, block columns sparse (row 0 has blocks 0 and 1, row 1
  // has block 1), each block dense and row-major.
  auto sparsity = Sparsity({0, 1, 2, 3}, {0, 1}, {Dense(2), Csr({0, 2, 3}, {0, 1, 1}), Dense(2), Dense(2)});
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<float>(i + 1);
  auto interpreter = testing::Build(DensifyModel(TensorType::kFloat32, {4, 4}, values, sparsity));
  ASSERT_TRUE(interpreter);
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  EXPECT_EQ(GetOutput<float>(*interpreter, 0),
            (std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8, 0, 0, 9, 10, 0, 0, 11, 12}));
}

TEST(Densify, Int8AndFloat16) {
  {
    auto interpreter = testing::Build(
        DensifyModel(TensorType::kInt8, {3, 4}, std::vector<int8_t>{6, -9, 8, 5, -128}, Csr3x4()));
    ASSERT_TRUE(interpreter);
    { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
    EXPECT_EQ(GetOutput<int8_t>(*interpreter, 0), (std::vector<int8_t>{6, 0, -9, 8, 0, 0, 0, 0, 5, 0, 0, -128}));
  }
  {
    std::vector<uint16_t> halves;
    for (float v : kCsrValues) halves.push_back(FloatToHalf(v));
    auto interpreter = testing::Build(DensifyModel(TensorType::kFloat16, {3, 4}, halves, Csr3x4()));
    ASSERT_TRUE(interpreter);
    { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
    std::vector<float> got;
    for (uint16_t h : GetOutput<uint16_t>(*interpreter, 0)) got.push_back(HalfToFloat(h));
    EXPECT_EQ(got, kCsrDense);
  }
}

TEST(Densify, ResultStaysAcrossInvocations) {
  // DENSIFY -> ADD(dense, x): the arena may reuse memory between nodes; the dense values must not
  // be lost after the first invocation.
  ModelBuilder b;
  const int sparse = b.AddConstant("sparse", TensorType::kFloat32, {3, 4}, kCsrValues);
  b.SetSparsity(sparse, Csr3x4());
  const int dense = b.AddTensor("dense", TensorType::kFloat32, {3, 4});
  const int x = b.AddTensor("x", TensorType::kFloat32, {3, 4});
  const int y = b.AddTensor("y", TensorType::kFloat32, {3, 4});
  const int z = b.AddTensor("z", TensorType::kFloat32, {3, 4});
  b.AddOp(tflite::BuiltinOperator_DENSIFY, {sparse}, {dense});
  b.AddOp(tflite::BuiltinOperator_MUL, {x, x}, {y});
  b.AddOp(tflite::BuiltinOperator_ADD, {dense, y}, {z});
  b.SetInputs({x});
  b.SetOutputs({z});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  for (float v : {1.0f, 2.0f, 3.0f}) {
    SetInput(*interpreter, 0, std::vector<float>(12, v));
    { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
    std::vector<float> want;
    for (float d : kCsrDense) want.push_back(d + v * v);
    EXPECT_EQ(GetOutput<float>(*interpreter, 0), want);
  }
}

// Each broken piece of metadata must give a prepare error naming the problem.
TEST(Densify, InvalidMetadataIsAnError) {
  struct Case {
    const char* what;
    ModelBuilder::SparsityWriter sparsity;
    std::vector<float> values;
  };
  const std::vector<Case> cases = {
      {"index past the dimension", Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3, 3, 5}, {0, 2, 4, 0, 3})}), kCsrValues},
      {"negative index", Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3, 3, 5}, {0, 2, -1, 0, 3})}), kCsrValues},
      {"decreasing segments", Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3, 2, 5}, {0, 2, 3, 0, 3})}), kCsrValues},
      {"segment past the indices", Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3, 3, 9}, {0, 2, 3, 0, 3})}), kCsrValues},
      {"too few segments", Sparsity({0, 1}, {}, {Dense(3), Csr({0, 3}, {0, 2, 3})}), kCsrValues},
      {"negative first segment", Sparsity({0, 1}, {}, {Dense(3), Csr({-1, 3, 3, 5}, {0, 2, 3, 0, 3})}), kCsrValues},
      {"more values than visited", Csr3x4(), {6, 9, 8, 5, 7, 1}},
      {"fewer values than visited", Csr3x4(), {6, 9, 8, 5}},
      {"dense size differs from the shape", Sparsity({0, 1}, {}, {Dense(4), Csr({0, 3, 3, 5, 5}, {0, 2, 3, 0, 3})}),
       kCsrValues},
      {"traversal order not a permutation", Sparsity({0, 0}, {}, {Dense(3), Csr({0, 3, 3, 5}, {0, 2, 3, 0, 3})}),
       kCsrValues},
      {"traversal order too short", Sparsity({0}, {}, {Dense(3)}), kCsrValues},
      {"metadata count differs", Sparsity({0, 1}, {}, {Dense(3)}), kCsrValues},
      {"block map outside the rank", Sparsity({0, 1, 2}, {2}, {Dense(3), Dense(4), Dense(1)}), kCsrValues},
      {"block size does not divide", Sparsity({0, 1, 2}, {1}, {Dense(3), Dense(1), Dense(3)}), kCsrValues},
      {"block dims before dense dims", Sparsity({2, 0, 1}, {1}, {Dense(2), Dense(3), Dense(2)}), kCsrValues},
  };
  for (const Case& c : cases) {
    const Status st = testing::TryBuild(DensifyModel(TensorType::kFloat32, {3, 4}, c.values, c.sparsity));
    EXPECT_FALSE(st.ok()) << c.what;
  }
}

TEST(Densify, NonConstantOrDenseInputIsAnError) {
  {
    ModelBuilder b;
    const int x = b.AddTensor("x", TensorType::kFloat32, {3, 4});
    b.SetSparsity(x, Csr3x4());
    const int y = b.AddTensor("y", TensorType::kFloat32, {3, 4});
    b.AddOp(tflite::BuiltinOperator_DENSIFY, {x}, {y});
    b.SetInputs({x});
    b.SetOutputs({y});
    EXPECT_FALSE(testing::TryBuild(b.Finish()).ok());
  }
  {
    ModelBuilder b;
    const int c = b.AddConstant("c", TensorType::kFloat32, {3, 4}, kCsrDense);
    const int y = b.AddTensor("y", TensorType::kFloat32, {3, 4});
    b.AddOp(tflite::BuiltinOperator_DENSIFY, {c}, {y});
    b.SetInputs({});
    b.SetOutputs({y});
    EXPECT_FALSE(testing::TryBuild(b.Finish()).ok());
  }
}

// ---- FULLY_CONNECTED with sparse weights

// Weights [2 units, 8 depth] in 1x4 blocks (the layout TFLite's converter writes):
//   unit 0: 0 0 0 0 | 1 2 3 4        unit 1: 5 6 7 8 | 9 10 11 12
ModelBuilder::SparsityWriter Blocks1x4() {
  return Sparsity({0, 1, 2}, {1}, {Dense(2), Csr({0, 1, 3}, {1, 0, 1}), Dense(4)});
}
const float kDenseWeights[2][8] = {{0, 0, 0, 0, 1, 2, 3, 4}, {5, 6, 7, 8, 9, 10, 11, 12}};

TEST(FullyConnectedSparse, FloatWeightsMatchTheDenseProduct) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {2, 8});
  std::vector<float> values;
  for (int v = 1; v <= 12; ++v) values.push_back(static_cast<float>(v));
  const int w = b.AddConstant("w", TensorType::kFloat32, {2, 8}, values);
  b.SetSparsity(w, Blocks1x4());
  const int bias = b.AddConstant("bias", TensorType::kFloat32, {2}, std::vector<float>{0.5f, -1.0f});
  const int y = b.AddTensor("y", TensorType::kFloat32, {2, 2});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {x, w, bias}, {y}, tflite::BuiltinOptions_FullyConnectedOptions,
          ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb)), 8);
  b.SetInputs({x});
  b.SetOutputs({y});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  std::vector<float> input(16);
  for (int i = 0; i < 16; ++i) input[i] = static_cast<float>(i % 8 + 1) * (i < 8 ? 1.0f : -0.5f);
  SetInput(*interpreter, 0, input);
  { const Status st = interpreter->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
  std::vector<float> want;
  const float bias_values[2] = {0.5f, -1.0f};
  for (int batch = 0; batch < 2; ++batch) {
    for (int u = 0; u < 2; ++u) {
      float sum = bias_values[u];
      for (int k = 0; k < 8; ++k) sum += input[batch * 8 + k] * kDenseWeights[u][k];
      want.push_back(sum);
    }
  }
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-4f));
}

TEST(FullyConnectedSparse, Int8WeightsMatchTheSameModelWithDenseWeights) {
  // The same weights stored dense, sparse in FULLY_CONNECTED, and sparse behind a DENSIFY: the
  // densified weights are constants like the dense ones, so all three requantize alike.
  enum Storage { kDense, kSparseInOp, kThroughDensify };
  auto build = [](Storage storage) {
    ModelBuilder b;
    QuantizationParams in_q{{0.5f}, {-3}}, w_q{{0.25f}, {0}}, out_q{{0.7f}, {5}}, bias_q{{0.125f}, {0}};
    const int x = b.AddTensor("x", TensorType::kInt8, {1, 8}, in_q);
    std::vector<int8_t> values;
    if (storage != kDense) {
      for (int v = 1; v <= 12; ++v) values.push_back(static_cast<int8_t>(v));
    } else {
      for (const auto& row : kDenseWeights)
        for (float v : row) values.push_back(static_cast<int8_t>(v));
    }
    int w = b.AddConstant("w", TensorType::kInt8, {2, 8}, values, w_q);
    if (storage != kDense) b.SetSparsity(w, Blocks1x4());
    if (storage == kThroughDensify) {
      const int dense = b.AddTensor("w_dense", TensorType::kInt8, {2, 8}, w_q);
      b.AddOp(tflite::BuiltinOperator_DENSIFY, {w}, {dense});
      w = dense;
    }
    const int bias = b.AddConstant("bias", TensorType::kInt32, {2}, std::vector<int32_t>{40, -16}, bias_q);
    const int y = b.AddTensor("y", TensorType::kInt8, {1, 2}, out_q);
    b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {x, w, bias}, {y}, tflite::BuiltinOptions_FullyConnectedOptions,
            ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb)), 4);
    b.SetInputs({x});
    b.SetOutputs({y});
    return testing::Build(b.Finish());
  };
  auto dense = build(kDense);
  ASSERT_TRUE(dense);
  for (Storage storage : {kSparseInOp, kThroughDensify}) {
    auto sparse = build(storage);
    ASSERT_TRUE(sparse);
    for (int shift = 0; shift < 40; ++shift) {
      std::vector<int8_t> input{-128, -20, -3, 0, 7, 30, 90, 127};
      for (int8_t& v : input) v = static_cast<int8_t>(std::clamp(v + 3 * shift - 60, -128, 127));
      SetInput(*sparse, 0, input);
      SetInput(*dense, 0, input);
      { const Status st = sparse->Invoke(); ASSERT_TRUE(st.ok()) << st.message(); }
      ASSERT_TRUE(dense->Invoke().ok());
      EXPECT_EQ(GetOutput<int8_t>(*sparse, 0), GetOutput<int8_t>(*dense, 0)) << "storage " << storage << " shift " << shift;
    }
  }
}

TEST(FullyConnectedSparse, BrokenMetadataIsAPrepareError) {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 8});
  std::vector<float> values(12, 1.0f);
  const int w = b.AddConstant("w", TensorType::kFloat32, {2, 8}, values);
  b.SetSparsity(w, Sparsity({0, 1, 2}, {1}, {Dense(2), Csr({0, 1, 3}, {1, 0, 2}), Dense(4)}));  // block col 2 of 2
  const int y = b.AddTensor("y", TensorType::kFloat32, {1, 2});
  b.AddOp(tflite::BuiltinOperator_FULLY_CONNECTED, {x, w}, {y}, tflite::BuiltinOptions_FullyConnectedOptions,
          ER_OPTIONS(tflite::CreateFullyConnectedOptions(fbb)), 8);
  b.SetInputs({x});
  b.SetOutputs({y});
  EXPECT_FALSE(testing::TryBuild(b.Finish()).ok());
}

}  // namespace
}  // namespace edgerun
