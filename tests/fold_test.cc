// Shape arithmetic on constants and static shapes is computed by AllocateTensors
// (Subgraph::FoldIfConstant, InterpreterOptions::fold_constant_shapes): the folded nodes do not
// run at Invoke, the ops that read their results are prepared once, the results follow a resized
// input, and an op that fails is left to fail at Invoke as it would without folding.
#include <gtest/gtest.h>

#include "core/subgraph.h"
#include "test_util.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

// x [batch, 2, 3] -> SHAPE -> STRIDED_SLICE [0:1] -> PACK with a constant 6 -> RESHAPE of x to
// [batch, 6] -> ADD a constant row: what converters write for a Keras Flatten on a dynamic batch.
std::vector<uint8_t> FlattenModel() {
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 2, 3}, {}, {-1, 2, 3});
  const int shape = b.AddTensor("shape", TensorType::kInt32, {3});
  b.AddOp(tflite::BuiltinOperator_SHAPE, {x}, {shape}, tflite::BuiltinOptions_ShapeOptions,
          ER_OPTIONS(tflite::CreateShapeOptions(fbb, tflite::TensorType_INT32)));
  const int begin = b.AddConstant("begin", TensorType::kInt32, {1}, std::vector<int32_t>{0});
  const int end = b.AddConstant("end", TensorType::kInt32, {1}, std::vector<int32_t>{1});
  const int strides = b.AddConstant("strides", TensorType::kInt32, {1}, std::vector<int32_t>{1});
  const int batch = b.AddTensor("batch", TensorType::kInt32, {});
  b.AddOp(tflite::BuiltinOperator_STRIDED_SLICE, {shape, begin, end, strides}, {batch},
          tflite::BuiltinOptions_StridedSliceOptions,
          ER_OPTIONS(tflite::CreateStridedSliceOptions(fbb, 0, 0, 0, 0, /*shrink_axis_mask=*/1)));
  const int six = b.AddConstant("six", TensorType::kInt32, {}, std::vector<int32_t>{6});
  const int new_shape = b.AddTensor("new_shape", TensorType::kInt32, {2});
  b.AddOp(tflite::BuiltinOperator_PACK, {batch, six}, {new_shape}, tflite::BuiltinOptions_PackOptions,
          ER_OPTIONS(tflite::CreatePackOptions(fbb, 2, 0)));
  const int flat = b.AddTensor("flat", TensorType::kFloat32, {1, 6}, {}, {-1, 6});
  b.AddOp(tflite::BuiltinOperator_RESHAPE, {x, new_shape}, {flat});
  const int row = b.AddConstant("row", TensorType::kFloat32, {6}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1, 6}, {}, {-1, 6});
  b.AddOp(tflite::BuiltinOperator_ADD, {flat, row}, {y}, tflite::BuiltinOptions_AddOptions,
          ER_OPTIONS(tflite::CreateAddOptions(fbb)));
  b.SetInputs({x});
  b.SetOutputs({y});
  return b.Finish();
}

InterpreterOptions Folding(bool on) {
  InterpreterOptions options;
  options.fold_constant_shapes = on;
  return options;
}

std::vector<float> Expected(int batch) {
  std::vector<float> want;
  for (int i = 0; i < batch * 6; ++i) want.push_back(static_cast<float>(i) * 0.5f + static_cast<float>(i % 6 + 1));
  return want;
}

std::vector<float> Input(int batch) {
  std::vector<float> x;
  for (int i = 0; i < batch * 6; ++i) x.push_back(static_cast<float>(i) * 0.5f);
  return x;
}

TEST(FoldConstantShapes, ShapeArithmeticRunsOnceAndItsReadersArePreparedOnce) {
  auto interpreter = testing::Build(FlattenModel(), Folding(true));
  ASSERT_TRUE(interpreter);
  const NodeList& nodes = interpreter->subgraph(0)->nodes();
  ASSERT_GE(nodes.size(), 5u);
  // SHAPE, STRIDED_SLICE and PACK folded; RESHAPE reads a constant shape, so its output is sized
  // now, not at every Invoke, and the ADD after it is prepared once.
  EXPECT_TRUE(nodes[0].folded && nodes[1].folded && nodes[2].folded);
  EXPECT_TRUE(nodes[0].nothing_to_compute && nodes[1].nothing_to_compute && nodes[2].nothing_to_compute);
  EXPECT_FALSE(nodes[3].folded);
  EXPECT_NE(interpreter->subgraph(0)->tensor(nodes[3].outputs[0])->allocation, Allocation::kDynamic);
  EXPECT_FALSE(nodes[4].folded || nodes[4].prepare_at_eval);
  testing::SetInput<float>(*interpreter, 0, Input(1));
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(testing::GetOutput<float>(*interpreter, 0), Expected(1));

  // Without folding every node runs, and RESHAPE is prepared at each Invoke; the same results.
  auto unfolded = testing::Build(FlattenModel(), Folding(false));
  ASSERT_TRUE(unfolded);
  const NodeList& plain = unfolded->subgraph(0)->nodes();
  EXPECT_FALSE(plain[0].folded || plain[1].folded || plain[2].folded);
  EXPECT_EQ(unfolded->subgraph(0)->tensor(plain[3].outputs[0])->allocation, Allocation::kDynamic);
  EXPECT_TRUE(plain[4].prepare_at_eval);
  testing::SetInput<float>(*unfolded, 0, Input(1));
  ASSERT_TRUE(unfolded->Invoke().ok());
  EXPECT_EQ(testing::GetOutput<float>(*unfolded, 0), Expected(1));
}

TEST(FoldConstantShapes, AResizedInputFoldsAgain) {
  auto interpreter = testing::Build(FlattenModel(), Folding(true));
  ASSERT_TRUE(interpreter);
  for (int batch : {3, 1, 2}) {
    ASSERT_TRUE(interpreter->ResizeInputTensor(0, {batch, 2, 3}).ok());
    ASSERT_TRUE(interpreter->AllocateTensors().ok());
    EXPECT_TRUE(interpreter->subgraph(0)->nodes()[2].folded);
    testing::SetInput<float>(*interpreter, 0, Input(batch));
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{batch, 6}));
    EXPECT_EQ(testing::GetOutput<float>(*interpreter, 0), Expected(batch)) << "batch " << batch;
  }
}

TEST(FoldConstantShapes, AFailingOpIsLeftToFailAtInvoke) {
  // FLOOR_MOD of constants by zero: an error at Invoke, with or without folding.
  auto model = [] {
    testing::SingleOp op(tflite::BuiltinOperator_FLOOR_MOD);
    op.Const<int32_t>(TensorType::kInt32, {2}, {7, 8});
    op.Const<int32_t>(TensorType::kInt32, {2}, {3, 0});
    op.Output(TensorType::kInt32, {2});
    return op.Bytes();
  }();
  for (bool fold : {true, false}) {
    auto interpreter = testing::Build(model, Folding(fold));
    ASSERT_TRUE(interpreter);
    EXPECT_FALSE(interpreter->subgraph(0)->nodes()[0].folded);
    const Status status = interpreter->Invoke();
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find("FLOOR_MOD"), std::string::npos) << status.message();
  }
}

TEST(FoldConstantShapes, SubgraphOutputsAndLargeResultsAreNotFolded) {
  // A graph output is written at every Invoke (a caller may overwrite it between runs).
  testing::SingleOp add(tflite::BuiltinOperator_ADD);
  add.Const<int32_t>(TensorType::kInt32, {2}, {1, 2});
  add.Const<int32_t>(TensorType::kInt32, {2}, {3, 4});
  add.Output(TensorType::kInt32, {2});
  auto interpreter = testing::Build(add.Bytes(), Folding(true));
  ASSERT_TRUE(interpreter);
  EXPECT_FALSE(interpreter->subgraph(0)->nodes()[0].folded);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(testing::GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{4, 6}));

  // FILL of 2048 int32 values (8 KB) into a RESHAPE: over the size folded results may take.
  ModelBuilder b;
  const int dims = b.AddConstant("dims", TensorType::kInt32, {1}, std::vector<int32_t>{2048});
  const int value = b.AddConstant("value", TensorType::kInt32, {}, std::vector<int32_t>{5});
  const int filled = b.AddTensor("filled", TensorType::kInt32, {2048});
  b.AddOp(tflite::BuiltinOperator_FILL, {dims, value}, {filled});
  const int to = b.AddConstant("to", TensorType::kInt32, {2}, std::vector<int32_t>{2, 1024});
  const int out = b.AddTensor("out", TensorType::kInt32, {2, 1024});
  b.AddOp(tflite::BuiltinOperator_RESHAPE, {filled, to}, {out});
  b.SetInputs({});
  b.SetOutputs({out});
  auto large = testing::Build(b.Finish(), Folding(true));
  ASSERT_TRUE(large);
  EXPECT_FALSE(large->subgraph(0)->nodes()[0].folded);
  ASSERT_TRUE(large->Invoke().ok());
  EXPECT_EQ(testing::GetOutput<int32_t>(*large, 0), std::vector<int32_t>(2048, 5));
}

}  // namespace
}  // namespace edgerun
