// String tensors and the text ops: SKIP_GRAM, LSH_PROJECTION (and the FarmHash fingerprint it
// uses), EMBEDDING_LOOKUP_SPARSE, FAKE_QUANT, and strings through the data-movement ops
// (RESHAPE, SQUEEZE, EXPAND_DIMS, TILE, SLICE, STRIDED_SLICE, GATHER, GATHER_ND).
// Expected values are hand-computed, written out from the ops' definitions, or published
// reference values (FarmHash's and TFLite's own test vectors, cited where used).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "kernels/reference/farmhash.h"
#include "ops/string_test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::GetStringOutput;
using testing::SetInput;
using testing::SetStringInput;
using testing::SingleOp;

// ---- FarmHash Fingerprint64

TEST(Fingerprint64, PublishedVectors) {
  // Known answers of FarmHash's 64-bit fingerprint (farmhash64 test strings, one per length
  // class: 0, 1..3, 4..7, 8..16, 17..32, 33..64, longer).
  struct Case {
    uint64_t hash;
    const char* text;
  };
  const Case cases[] = {
      {0x9ae16a3b2f90404fULL, ""},
      {0xb3454265b6df75e3ULL, "a"},
      {0x24a5b3a074e7f369ULL, "abc"},
      {0x1a5502de4a1f8101ULL, "abcd"},
      {0xfee9d22990c82909ULL, "abcdefgh"},
      {0x46a7416ed4861e3bULL, "0123456789=012345"},
      {0xb944f8a16261e414ULL, "C is as portable as Stonehedge!!"},
      {0xe8f89ab6df9bdd25ULL, "Discard medicine more than two years old."},
      {0x55182f8859eca4ceULL, "For every action there is an equal and opposite government program."},
      {0x098eff6958c5e91aULL,
       "The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole "
       "fraction.  Lewis-Randall Rule"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(reference::farmhash::Fingerprint64(c.text, std::strlen(c.text)), c.hash) << "'" << c.text << "'";
  }
  // The residues TensorFlow checks its own fingerprint against.
  EXPECT_EQ(reference::farmhash::Fingerprint64("1", 1) % 100, 49u);
  EXPECT_EQ(reference::farmhash::Fingerprint64("2", 1) % 100, 59u);
  EXPECT_EQ(reference::farmhash::Fingerprint64("3", 1) % 100, 21u);
}

// ---- LSH_PROJECTION (expected values: TFLite's lsh_projection_test.cc, little-endian)

std::unique_ptr<Interpreter> BuildLsh(tflite::LSHProjectionType type, Shape input_shape, bool weighted) {
  SingleOp op(tflite::BuiltinOperator_LSH_PROJECTION);
  op.Const(TensorType::kFloat32, {3, 2}, std::vector<float>{0.123f, 0.456f, -0.321f, 1.234f, 5.678f, -4.321f});
  op.Input(TensorType::kInt32, input_shape);
  if (weighted) op.Input(TensorType::kFloat32, {input_shape[0]});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_LSHProjectionOptions, ER_OPTIONS(tflite::CreateLSHProjectionOptions(fbb, type)));
  return op.Build();
}

TEST(LshProjection, Dense) {
  auto interpreter = BuildLsh(tflite::LSHProjectionType_DENSE, {5}, true);
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {12345, 54321, 67890, 9876, -12345678});
  SetInput<float>(*interpreter, 1, {1, 1, 1, 1, 1});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{6}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0, 0, 0, 1, 0, 0}));
}

TEST(LshProjection, SparseWithoutWeights) {
  auto interpreter = BuildLsh(tflite::LSHProjectionType_SPARSE, {5}, false);
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {12345, 54321, 67890, 9876, -12345678});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0 + 0, 4 + 1, 8 + 0}));
}

TEST(LshProjection, Sparse3DInputWithWeights) {
  auto interpreter = BuildLsh(tflite::LSHProjectionType_SPARSE, {5, 2, 2}, true);
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {1234, 2345, 3456, 1234, 4567, 5678, 6789, 4567, 7891, 8912,
                                      9123, 7890, -987, -876, -765, -987, -543, -432, -321, -543});
  SetInput<float>(*interpreter, 1, {0.12f, 0.34f, 0.56f, 0.67f, 0.78f});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0 + 2, 4 + 1, 8 + 1}));
}

TEST(LshProjection, BitsAreSignsOfWeightedFingerprintSums) {
  // The definition on a 1-row input: bit = fingerprint(seed bytes + row bytes) > 0 as int64.
  SingleOp op(tflite::BuiltinOperator_LSH_PROJECTION);
  const std::vector<float> seeds{0.5f, -2.0f, 7.25f, 1e6f};
  op.Const(TensorType::kFloat32, {1, 4}, seeds);
  op.Input(TensorType::kInt64, {1});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_LSHProjectionOptions,
             ER_OPTIONS(tflite::CreateLSHProjectionOptions(fbb, tflite::LSHProjectionType_DENSE)));
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  const int64_t value = 0x0123456789abcdefLL;
  SetInput<int64_t>(*interpreter, 0, {value});
  ER_ASSERT_INVOKE(*interpreter);
  std::vector<int32_t> want;
  for (float seed : seeds) {
    uint8_t key[12];
    std::memcpy(key, &seed, 4);
    std::memcpy(key + 4, &value, 8);
    want.push_back(static_cast<int64_t>(reference::farmhash::Fingerprint64(key, 12)) > 0 ? 1 : 0);
  }
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), want);
}

TEST(LshProjection, BadShapesAreErrors) {
  SingleOp op(tflite::BuiltinOperator_LSH_PROJECTION);
  op.Input(TensorType::kFloat32, {2, 33});  // more than 32 bits
  op.Input(TensorType::kInt32, {3});
  op.Output(TensorType::kInt32);
  op.Options(tflite::BuiltinOptions_LSHProjectionOptions,
             ER_OPTIONS(tflite::CreateLSHProjectionOptions(fbb, tflite::LSHProjectionType_SPARSE)));
  EXPECT_FALSE(op.TryBuild().ok());
  SingleOp unknown(tflite::BuiltinOperator_LSH_PROJECTION);
  unknown.Input(TensorType::kFloat32, {2, 3});
  unknown.Input(TensorType::kInt32, {3});
  unknown.Output(TensorType::kInt32);
  EXPECT_FALSE(unknown.TryBuild().ok());  // no options: type UNKNOWN
}

// ---- SKIP_GRAM

std::unique_ptr<Interpreter> BuildSkipGram(int ngram, int skip, bool all) {
  SingleOp op(tflite::BuiltinOperator_SKIP_GRAM);
  op.Input(TensorType::kString, {1});
  op.Output(TensorType::kString);
  op.Options(tflite::BuiltinOptions_SkipGramOptions, ER_OPTIONS(tflite::CreateSkipGramOptions(fbb, ngram, skip, all)));
  return op.Build();
}

// The definition: word index tuples i1 < i2 < ... with gaps of at most skip + 1, visited depth
// first in increasing order; a tuple is listed after all its extensions (post-order), and only
// tuples of the wanted sizes are listed.
std::vector<std::string> SkipGrams(const std::vector<std::string>& words, int n, int skip, bool all) {
  std::vector<std::string> out;
  std::vector<int> tuple;
  std::function<void()> visit = [&]() {
    const int size = static_cast<int>(tuple.size());
    if (size < n) {
      const int first = size == 0 ? 0 : tuple.back() + 1;
      const int last = size == 0 ? static_cast<int>(words.size()) - 1 : tuple.back() + skip + 1;
      for (int i = first; i <= last && i < static_cast<int>(words.size()); ++i) {
        tuple.push_back(i);
        visit();
        tuple.pop_back();
      }
    }
    if (size > 0 && (all ? size <= n : size == n)) {
      std::string gram;
      for (int i : tuple) gram += (gram.empty() ? "" : " ") + words[i];
      out.push_back(gram);
    }
  };
  if (static_cast<int>(words.size()) >= n) visit();
  return out;
}

TEST(SkipGram, MatchesTheDefinition) {
  const std::vector<std::string> words{"The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog!"};
  std::string text;
  for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
  for (int n : {1, 2, 3}) {
    for (int skip : {0, 1, 2}) {
      for (bool all : {false, true}) {
        auto interpreter = BuildSkipGram(n, skip, all);
        ASSERT_TRUE(interpreter);
        SetStringInput(*interpreter, 0, {text});
        ER_ASSERT_INVOKE(*interpreter);
        const auto want = SkipGrams(words, n, skip, all);
        EXPECT_EQ(GetStringOutput(*interpreter, 0), want) << "n " << n << " skip " << skip << " all " << all;
        EXPECT_EQ(interpreter->output(0)->shape, (Shape{static_cast<int32_t>(want.size())}));
      }
    }
  }
}

TEST(SkipGram, HandWorkedExamples) {
  auto interpreter = BuildSkipGram(2, 1, false);
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"a b c d"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"a b", "a c", "b c", "b d", "c d"}));
  // Runs of whitespace separate words like one space.
  SetStringInput(*interpreter, 0, {"a \t b\n\nc"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"a b", "a c", "b c"}));
}

TEST(SkipGram, FewerWordsThanTheGramGiveNothing) {
  auto interpreter = BuildSkipGram(3, 0, false);
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"two words"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_TRUE(GetStringOutput(*interpreter, 0).empty());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{0}));
  SetStringInput(*interpreter, 0, {""});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_TRUE(GetStringOutput(*interpreter, 0).empty());
}

TEST(SkipGram, NonStringInputIsAnError) {
  SingleOp op(tflite::BuiltinOperator_SKIP_GRAM);
  op.Input(TensorType::kInt32, {1});
  op.Output(TensorType::kString);
  op.Options(tflite::BuiltinOptions_SkipGramOptions, ER_OPTIONS(tflite::CreateSkipGramOptions(fbb, 2, 0, false)));
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- EMBEDDING_LOOKUP_SPARSE

struct SparseLookup {
  std::vector<int32_t> ids{1, 3, 0, 1};
  std::vector<int32_t> indices{0, 0, 0, 1, 1, 0, 2, 3};  // [4, 2]
  std::vector<int32_t> dense_shape{3, 4};
  std::vector<float> weights{2.0f, 0.5f, 1.0f, 3.0f};
  std::vector<float> params{1, 2, 10, 20, 100, 200, 1000, 2000};  // [4, 2]
};

std::unique_ptr<Interpreter> BuildSparseLookup(tflite::CombinerType combiner, Shape params_shape = {4, 2}) {
  SingleOp op(tflite::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE);
  op.Input(TensorType::kInt32, {4});
  op.Input(TensorType::kInt32, {4, 2});
  op.Input(TensorType::kInt32, {2});
  op.Input(TensorType::kFloat32, {4});
  op.Input(TensorType::kFloat32, params_shape);
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_EmbeddingLookupSparseOptions,
             ER_OPTIONS(tflite::CreateEmbeddingLookupSparseOptions(fbb, combiner)));
  return op.Build();
}

void Feed(Interpreter& interpreter, const SparseLookup& s) {
  SetInput(interpreter, 0, s.ids);
  SetInput(interpreter, 1, s.indices);
  SetInput(interpreter, 2, s.dense_shape);
  SetInput(interpreter, 3, s.weights);
  SetInput(interpreter, 4, s.params);
}

TEST(EmbeddingLookupSparse, EveryCombiner) {
  // Rows: [0] = 2 * p1 + 0.5 * p3, [1] = 1 * p0, [2] = 3 * p1 (p_i = params row i).
  const SparseLookup s;
  const float p[4][2] = {{1, 2}, {10, 20}, {100, 200}, {1000, 2000}};
  for (auto combiner : {tflite::CombinerType_SUM, tflite::CombinerType_MEAN, tflite::CombinerType_SQRTN}) {
    auto interpreter = BuildSparseLookup(combiner);
    ASSERT_TRUE(interpreter);
    Feed(*interpreter, s);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
    auto divisor = [&](float total, float squares) {
      return combiner == tflite::CombinerType_SUM ? 1.0f
                                                  : (combiner == tflite::CombinerType_MEAN ? total : std::sqrt(squares));
    };
    std::vector<float> want;
    for (int k = 0; k < 2; ++k) want.push_back((2 * p[1][k] + 0.5f * p[3][k]) / divisor(2.5f, 4.25f));
    for (int k = 0; k < 2; ++k) want.push_back(p[0][k] / divisor(1, 1));
    for (int k = 0; k < 2; ++k) want.push_back(3 * p[1][k] / divisor(3, 9));
    // Row-major [3, 2] from the three rows above.
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), want, 1e-4f)) << "combiner " << combiner;
  }
}

TEST(EmbeddingLookupSparse, MultiDimensionalParams) {
  // params [4, 1, 2]: the output keeps the embedding's dims: [3, 1, 2].
  auto interpreter = BuildSparseLookup(tflite::CombinerType_SUM, {4, 1, 2});
  ASSERT_TRUE(interpreter);
  Feed(*interpreter, SparseLookup());
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 1, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{520, 1040, 1, 2, 30, 60}));
}

TEST(EmbeddingLookupSparse, OutOfRangeIdsAndCoordinatesAreErrors) {
  auto interpreter = BuildSparseLookup(tflite::CombinerType_SUM);
  ASSERT_TRUE(interpreter);
  SparseLookup s;
  s.ids[2] = 4;  // params has 4 rows
  Feed(*interpreter, s);
  EXPECT_FALSE(interpreter->Invoke().ok());
  s = SparseLookup();
  s.indices[6] = 3;  // dense_shape[0] is 3
  Feed(*interpreter, s);
  EXPECT_FALSE(interpreter->Invoke().ok());
  s = SparseLookup();
  s.dense_shape = {-1, 4};
  Feed(*interpreter, s);
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(EmbeddingLookupSparse, MismatchedEntriesAreAPrepareError) {
  SingleOp op(tflite::BuiltinOperator_EMBEDDING_LOOKUP_SPARSE);
  op.Input(TensorType::kInt32, {4});
  op.Input(TensorType::kInt32, {3, 2});  // 3 entries, 4 ids
  op.Input(TensorType::kInt32, {2});
  op.Input(TensorType::kFloat32, {4});
  op.Input(TensorType::kFloat32, {4, 2});
  op.Output(TensorType::kFloat32);
  EXPECT_FALSE(op.TryBuild().ok());
}

// ---- FAKE_QUANT

std::unique_ptr<Interpreter> BuildFakeQuant(float min, float max, int bits, bool narrow, Shape shape) {
  SingleOp op(tflite::BuiltinOperator_FAKE_QUANT, 2);
  op.Input(TensorType::kFloat32, shape);
  op.Output(TensorType::kFloat32);
  op.Options(tflite::BuiltinOptions_FakeQuantOptions,
             ER_OPTIONS(tflite::CreateFakeQuantOptions(fbb, min, max, bits, narrow)));
  return op.Build();
}

TEST(FakeQuant, UnitGrid) {
  // [0, 255] with 8 bits: scale 1, zero point 0: clamp, then round.
  auto interpreter = BuildFakeQuant(0, 255, 8, false, {6});
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-1.0f, 0.4f, 0.6f, 127.5f, 254.6f, 300.0f});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{0, 0, 1, 128, 255, 255}));
}

TEST(FakeQuant, NudgedRange) {
  // [-1, 1] with 2 bits: scale 2/3; zero point from min 1.5 rounds to 2, so the grid is
  // -4/3, -2/3, 0, 2/3.
  auto interpreter = BuildFakeQuant(-1, 1, 2, false, {5});
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, {-2.0f, -0.5f, 0.1f, 0.5f, 1.0f});
  ER_ASSERT_INVOKE(*interpreter);
  const float s = 2.0f / 3.0f;
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0), {-2 * s, -s, 0, s, s}, 1e-6f));
}

TEST(FakeQuant, NarrowRangeAndBadOptionsAreErrors) {
  SingleOp narrow(tflite::BuiltinOperator_FAKE_QUANT, 2);
  narrow.Input(TensorType::kFloat32, {2});
  narrow.Output(TensorType::kFloat32);
  narrow.Options(tflite::BuiltinOptions_FakeQuantOptions,
                 ER_OPTIONS(tflite::CreateFakeQuantOptions(fbb, -1, 1, 8, true)));
  EXPECT_FALSE(narrow.TryBuild().ok());
  SingleOp empty_range(tflite::BuiltinOperator_FAKE_QUANT);
  empty_range.Input(TensorType::kFloat32, {2});
  empty_range.Output(TensorType::kFloat32);
  empty_range.Options(tflite::BuiltinOptions_FakeQuantOptions,
                      ER_OPTIONS(tflite::CreateFakeQuantOptions(fbb, 1, 1, 8, false)));
  EXPECT_FALSE(empty_range.TryBuild().ok());
  SingleOp int_input(tflite::BuiltinOperator_FAKE_QUANT);
  int_input.Input(TensorType::kInt32, {2});
  int_input.Output(TensorType::kInt32);
  int_input.Options(tflite::BuiltinOptions_FakeQuantOptions,
                    ER_OPTIONS(tflite::CreateFakeQuantOptions(fbb, -1, 1, 8, false)));
  EXPECT_FALSE(int_input.TryBuild().ok());
}

// ---- strings through the data-movement ops

const std::vector<std::string> kWords{"zero", "one", "", "three", "four", "five"};

TEST(StringTensors, ReshapeSqueezeExpandDims) {
  {
    SingleOp op(tflite::BuiltinOperator_RESHAPE);
    op.Input(TensorType::kString, {2, 3});
    op.Const(TensorType::kInt32, {2}, std::vector<int32_t>{3, 2});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0), kWords);
  }
  {
    SingleOp op(tflite::BuiltinOperator_SQUEEZE);
    op.Input(TensorType::kString, {1, 6, 1});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{6}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0), kWords);
  }
  {
    SingleOp op(tflite::BuiltinOperator_EXPAND_DIMS);
    op.Input(TensorType::kString, {6});
    op.Const(TensorType::kInt32, {}, std::vector<int32_t>{-1});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{6, 1}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0), kWords);
  }
}

TEST(StringTensors, Tile) {
  SingleOp op(tflite::BuiltinOperator_TILE);
  op.Input(TensorType::kString, {2, 1});
  op.Const(TensorType::kInt32, {2}, std::vector<int32_t>{2, 3});
  op.Output(TensorType::kString);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"a", "b"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{4, 3}));
  EXPECT_EQ(GetStringOutput(*interpreter, 0),
            (std::vector<std::string>{"a", "a", "a", "b", "b", "b", "a", "a", "a", "b", "b", "b"}));
}

TEST(StringTensors, SliceAndStridedSlice) {
  {
    SingleOp op(tflite::BuiltinOperator_SLICE);
    op.Input(TensorType::kString, {3, 2});
    op.Const(TensorType::kInt32, {2}, std::vector<int32_t>{1, 1});
    op.Const(TensorType::kInt32, {2}, std::vector<int32_t>{2, -1});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 1}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"three", "five"}));
  }
  {
    SingleOp op(tflite::BuiltinOperator_STRIDED_SLICE);
    op.Input(TensorType::kString, {6});
    op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{5});
    op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{0});
    op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{-2});
    op.Output(TensorType::kString);
    op.Options(tflite::BuiltinOptions_StridedSliceOptions, ER_OPTIONS(tflite::CreateStridedSliceOptions(fbb)));
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"five", "three", "one"}));
  }
}

TEST(StringTensors, GatherAndGatherNd) {
  {
    SingleOp op(tflite::BuiltinOperator_GATHER);
    op.Input(TensorType::kString, {6});
    op.Const(TensorType::kInt64, {2, 2}, std::vector<int64_t>{5, 0, 2, 5});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{2, 2}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"five", "zero", "", "five"}));
  }
  {
    SingleOp op(tflite::BuiltinOperator_GATHER_ND);
    op.Input(TensorType::kString, {3, 2});
    op.Const(TensorType::kInt32, {3, 1}, std::vector<int32_t>{2, 0, 2});
    op.Output(TensorType::kString);
    auto interpreter = op.Build();
    ASSERT_TRUE(interpreter);
    SetStringInput(*interpreter, 0, kWords);
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{3, 2}));
    EXPECT_EQ(GetStringOutput(*interpreter, 0),
              (std::vector<std::string>{"four", "five", "zero", "one", "four", "five"}));
  }
}

TEST(StringTensors, GatherOutOfRangeIsAnErrorAnd2DStringsAreRejected) {
  SingleOp op(tflite::BuiltinOperator_GATHER);
  op.Input(TensorType::kString, {6});
  op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{6});
  op.Output(TensorType::kString);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, kWords);
  EXPECT_FALSE(interpreter->Invoke().ok());
  SingleOp two_d(tflite::BuiltinOperator_GATHER);
  two_d.Input(TensorType::kString, {3, 2});
  two_d.Const(TensorType::kInt32, {1}, std::vector<int32_t>{1});
  two_d.Output(TensorType::kString);
  EXPECT_FALSE(two_d.TryBuild().ok());
}

TEST(StringTensors, ConstantsFlowThroughAChain) {
  // A string constant, gathered, then compared with an input: EQUAL on strings.
  ModelBuilder b;
  const int words = testing::AddStringConstant(b, "words", {3}, {"cat", "dog", "emu"});
  const int idx = b.AddConstant("idx", TensorType::kInt32, {2}, std::vector<int32_t>{2, 1});
  const int picked = b.AddTensor("picked", TensorType::kString, {2});
  const int query = b.AddTensor("query", TensorType::kString, {2});
  const int same = b.AddTensor("same", TensorType::kBool, {2});
  b.AddOp(tflite::BuiltinOperator_GATHER, {words, idx}, {picked});
  b.AddOp(tflite::BuiltinOperator_EQUAL, {picked, query}, {same});
  b.SetInputs({query});
  b.SetOutputs({picked, same});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"emu", "cat"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"emu", "dog"}));
  EXPECT_EQ(GetOutput<bool>(*interpreter, 1), (std::vector<bool>{true, false}));
}

TEST(StringTensors, MalformedStringInputIsAnError) {
  SingleOp op(tflite::BuiltinOperator_RESHAPE);
  op.Input(TensorType::kString, {2});
  op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{2});
  op.Output(TensorType::kString);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  // Count 2 but offsets that run past the buffer.
  Tensor* t = interpreter->input(0);
  const int32_t bad[4] = {2, 16, 18, 400};
  ASSERT_TRUE(t->owned.Reserve(sizeof(bad)));
  std::memcpy(t->owned.data(), bad, sizeof(bad));
  t->data = t->owned.data();
  t->bytes = sizeof(bad);
  EXPECT_FALSE(interpreter->Invoke().ok());
}

}  // namespace
}  // namespace edgerun
