// NON_MAX_SUPPRESSION_V4 and _V5. Expected selections are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;
using testing::SingleOp;

// Three clusters: boxes 0-2 overlap heavily (IoU > 0.5 with each other), 3-4 overlap, 5 is alone.
const std::vector<float> kBoxes{0, 0,   1, 1,   0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                                0, 10,  1, 11,  0, 10.1f, 1, 11.1f, 0, 100,   1, 101};
const std::vector<float> kScores{0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

// V4 (or V5 with sigma) over kBoxes; max_output_size is a constant unless `runtime_max`.
std::unique_ptr<Interpreter> BuildNms(bool soft, int32_t max_output, float iou, float score_threshold, float sigma,
                                      bool runtime_max = false) {
  SingleOp op(soft ? tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V5 : tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V4);
  op.Input(TensorType::kFloat32, {6, 4});
  op.Input(TensorType::kFloat32, {6});
  if (runtime_max) op.Input(TensorType::kInt32, {});
  else op.Const<int32_t>(TensorType::kInt32, {}, {max_output});
  op.Const<float>(TensorType::kFloat32, {}, {iou});
  op.Const<float>(TensorType::kFloat32, {}, {score_threshold});
  if (soft) op.Const<float>(TensorType::kFloat32, {}, {sigma});
  op.Output(TensorType::kInt32);
  if (soft) op.Output(TensorType::kFloat32);
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  if (!interpreter) return nullptr;
  SetInput(*interpreter, 0, kBoxes);
  SetInput(*interpreter, 1, kScores);
  if (runtime_max) SetInput<int32_t>(*interpreter, 2, {max_output});
  return interpreter;
}

TEST(NonMaxSuppressionV4, GreedySelectionPaddedWithZeros) {
  // Best first: 3 (0.95) suppresses 4; 0 (0.9) suppresses 1 and 2; then 5.
  auto interpreter = BuildNms(false, 5, 0.5f, 0.0f, 0.0f);
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{5}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3, 0, 5, 0, 0}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 1), (std::vector<int32_t>{3}));
}

TEST(NonMaxSuppressionV4, ScoreThresholdAndMaxOutput) {
  auto thresholded = BuildNms(false, 3, 0.5f, 0.4f, 0.0f);  // box 5 (0.3) is below the threshold
  ASSERT_TRUE(thresholded);
  ASSERT_TRUE(thresholded->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*thresholded, 0), (std::vector<int32_t>{3, 0, 0}));
  EXPECT_EQ(GetOutput<int32_t>(*thresholded, 1), (std::vector<int32_t>{2}));

  auto limited = BuildNms(false, 1, 0.5f, 0.0f, 0.0f);
  ASSERT_TRUE(limited);
  ASSERT_TRUE(limited->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*limited, 0), (std::vector<int32_t>{3}));
}

TEST(NonMaxSuppressionV4, HighIouThresholdKeepsOverlaps) {
  // IoU(0, 1) = 0.9 / 1.1 and IoU(3, 4) = 0.9 / 1.1: both stay under 0.9.
  auto interpreter = BuildNms(false, 6, 0.9f, 0.0f, 0.0f);
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3, 0, 1, 2, 4, 5}));
}

TEST(NonMaxSuppressionV4, RuntimeMaxOutputGivesExactLength) {
  auto interpreter = BuildNms(false, 10, 0.5f, 0.0f, 0.0f, /*runtime_max=*/true);
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3, 0, 5}));
  SetInput<int32_t>(*interpreter, 2, {-1});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(NonMaxSuppressionV4, DegenerateBoxIsSelectedAgainAsTFLite) {
  // A box without area has IoU 0 even with itself; TFLite re-queues selected boxes, so it comes
  // back and is selected until max_output_size is reached.
  SingleOp op(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V4);
  op.Const<float>(TensorType::kFloat32, {1, 4}, {0, 0, 0, 0});
  op.Const<float>(TensorType::kFloat32, {1}, {0.9f});
  op.Const<int32_t>(TensorType::kInt32, {}, {3});
  op.Const<float>(TensorType::kFloat32, {}, {0.5f});
  op.Const<float>(TensorType::kFloat32, {}, {0.0f});
  op.Output(TensorType::kInt32);
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 1), (std::vector<int32_t>{3}));
}

TEST(NonMaxSuppressionV5, SoftNmsDecaysOverlappingScores) {
  // Box A [0,0,1,1] (0.9) and B [0,0.5,1,1.5] (0.8) overlap with IoU 0.5 / 1.5 = 1/3. No hard
  // suppression (iou_threshold 1); sigma 0.5 decays B to 0.8 * exp(-0.5 * (1/9) / 0.5).
  SingleOp op(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V5);
  op.Const<float>(TensorType::kFloat32, {2, 4}, {0, 0, 1, 1, 0, 0.5f, 1, 1.5f});
  op.Const<float>(TensorType::kFloat32, {2}, {0.9f, 0.8f});
  op.Const<int32_t>(TensorType::kInt32, {}, {3});
  op.Const<float>(TensorType::kFloat32, {}, {1.0f});
  op.Const<float>(TensorType::kFloat32, {}, {0.0f});
  op.Const<float>(TensorType::kFloat32, {}, {0.5f});
  op.Output(TensorType::kInt32);
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kInt32);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{0, 1, 0}));
  const auto scores = GetOutput<float>(*interpreter, 1);
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_FLOAT_EQ(scores[0], 0.9f);
  EXPECT_NEAR(scores[1], 0.8 * std::exp(-1.0 / 9.0), 1e-6);
  EXPECT_EQ(scores[2], 0.0f);
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 2), (std::vector<int32_t>{2}));
}

TEST(NonMaxSuppressionV5, ZeroSigmaIsHardNms) {
  auto interpreter = BuildNms(true, 4, 0.5f, 0.0f, 0.0f);
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 0), (std::vector<int32_t>{3, 0, 5, 0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{0.95f, 0.9f, 0.3f, 0}));
  EXPECT_EQ(GetOutput<int32_t>(*interpreter, 2), (std::vector<int32_t>{3}));
}

TEST(NonMaxSuppression, BadInputsFailAtPrepare) {
  SingleOp op(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V4);
  op.Input(TensorType::kFloat32, {6, 3});  // boxes need 4 coordinates
  op.Input(TensorType::kFloat32, {6});
  op.Const<int32_t>(TensorType::kInt32, {}, {2});
  op.Const<float>(TensorType::kFloat32, {}, {0.5f});
  op.Const<float>(TensorType::kFloat32, {}, {0.0f});
  op.Output(TensorType::kInt32);
  op.Output(TensorType::kInt32);
  EXPECT_FALSE(op.TryBuild().ok());

  SingleOp negative(tflite::BuiltinOperator_NON_MAX_SUPPRESSION_V4);
  negative.Input(TensorType::kFloat32, {6, 4});
  negative.Input(TensorType::kFloat32, {6});
  negative.Const<int32_t>(TensorType::kInt32, {}, {-2});
  negative.Const<float>(TensorType::kFloat32, {}, {0.5f});
  negative.Const<float>(TensorType::kFloat32, {}, {0.0f});
  negative.Output(TensorType::kInt32);
  negative.Output(TensorType::kInt32);
  EXPECT_FALSE(negative.TryBuild().ok());
}

}  // namespace
}  // namespace edgerun
