// TFLite_Detection_PostProcess: box decoding against anchors, fast and regular NMS.
#include <gtest/gtest.h>

#include <cmath>

#include "flatbuffers/flexbuffers.h"
#include "test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::SetInput;

std::vector<uint8_t> Options(bool regular, int num_classes = 2, int classes_per_detection = 1) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", 3);
    fbb.Int("max_classes_per_detection", classes_per_detection);
    fbb.Int("detections_per_class", 3);
    fbb.Bool("use_regular_nms", regular);
    fbb.Float("nms_score_threshold", 0.0f);
    fbb.Float("nms_iou_threshold", 0.5f);
    fbb.Int("num_classes", num_classes);
    fbb.Float("y_scale", 10.0f);
    fbb.Float("x_scale", 10.0f);
    fbb.Float("h_scale", 5.0f);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// Three anchors (center y, x, h, w); zero encodings decode to the anchors themselves.
// Box 1 overlaps box 0 (IoU 0.82), box 2 is apart.
std::unique_ptr<Interpreter> Build(bool regular) {
  const std::vector<float> anchors = {0.5f, 0.5f, 0.2f, 0.2f, 0.51f, 0.51f, 0.2f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f};
  auto interpreter = testing::Build(testing::DetectionPostProcessModel(Options(regular), 3, 3, anchors));
  if (!interpreter) return nullptr;
  SetInput<float>(*interpreter, 0, std::vector<float>(12, 0.0f));
  // columns: background, class 0, class 1
  SetInput<float>(*interpreter, 1, {0, 0.9f, 0.1f, 0, 0.8f, 0.3f, 0, 0.2f, 0.7f});
  const Status st = interpreter->Invoke();
  EXPECT_TRUE(st.ok()) << st.message();
  return interpreter;
}

TEST(DetectionPostProcess, FastNmsKeepsTheBestClassPerAnchor) {
  auto interpreter = Build(false);
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 3, 4}));
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0),
                               {0.4f, 0.4f, 0.6f, 0.6f, 0.05f, 0.05f, 0.15f, 0.15f, 0, 0, 0, 0}, 1e-6f));
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 2), (std::vector<float>{0.9f, 0.7f, 0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 3), (std::vector<float>{2}));
}

TEST(DetectionPostProcess, FastNmsWritesTheTopClassesOfEachKeptAnchor) {
  // Three classes, two per detection: a row per (kept anchor, class), best class first.
  const std::vector<float> anchors = {0.5f, 0.5f, 0.2f, 0.2f, 0.51f, 0.51f, 0.2f, 0.2f, 0.1f, 0.1f, 0.1f, 0.1f};
  auto interpreter = testing::Build(testing::DetectionPostProcessModel(Options(false, 3, 2), 3, 4, anchors));
  ASSERT_TRUE(interpreter);
  SetInput<float>(*interpreter, 0, std::vector<float>(12, 0.0f));
  // columns: background, classes 0, 1, 2. Anchor 1 overlaps anchor 0 and is suppressed.
  SetInput<float>(*interpreter, 1, {0, 0.9f, 0.1f, 0.5f, 0, 0.8f, 0.3f, 0.2f, 0, 0.2f, 0.7f, 0.6f});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, 6, 4}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{0, 2, 1, 2, 0, 0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 2), (std::vector<float>{0.9f, 0.5f, 0.7f, 0.6f, 0, 0}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 3), (std::vector<float>{2}));
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0),
                               {0.4f, 0.4f, 0.6f, 0.6f, 0.4f, 0.4f, 0.6f, 0.6f, 0.05f, 0.05f, 0.15f, 0.15f,
                                0.05f, 0.05f, 0.15f, 0.15f, 0, 0, 0, 0, 0, 0, 0, 0},
                               1e-6f));
}

TEST(DetectionPostProcess, RegularNmsWorksPerClass) {
  auto interpreter = Build(true);
  ASSERT_TRUE(interpreter);
  // class 0 keeps boxes 0 (0.9) and 2 (0.2); class 1 keeps 2 (0.7) and 1 (0.3): best three overall.
  EXPECT_EQ(GetOutput<float>(*interpreter, 1), (std::vector<float>{0, 1, 1}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 2), (std::vector<float>{0.9f, 0.7f, 0.3f}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 3), (std::vector<float>{3}));
  EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 0),
                               {0.4f, 0.4f, 0.6f, 0.6f, 0.05f, 0.05f, 0.15f, 0.15f, 0.41f, 0.41f, 0.61f, 0.61f}, 1e-6f));
}

// 90 overlapping boxes with the best scores, then 10 boxes apart with lower ones: NMS must walk
// past the whole suppressed cluster (beyond the front it sorts first) to find the next two.
TEST(DetectionPostProcess, SuppressionWalksPastASortedFront) {
  for (bool regular : {false, true}) {
    constexpr int kBoxes = 100;
    std::vector<float> anchors, scores;
    for (int i = 0; i < kBoxes; ++i) {
      const bool cluster = i < 90;
      const float center = cluster ? 0.5f : 0.05f + 0.09f * static_cast<float>(i - 90);
      anchors.insert(anchors.end(), {center, cluster ? 0.5f : 0.95f, 0.04f, 0.04f});
      scores.insert(scores.end(), {0.0f, cluster ? 0.9f - 0.001f * static_cast<float>(i) : 0.5f - 0.01f * static_cast<float>(i - 90)});
    }
    auto interpreter = testing::Build(testing::DetectionPostProcessModel(Options(regular, 1), kBoxes, 2, anchors));
    ASSERT_TRUE(interpreter);
    SetInput<float>(*interpreter, 0, std::vector<float>(kBoxes * 4, 0.0f));
    SetInput<float>(*interpreter, 1, scores);
    ASSERT_TRUE(interpreter->Invoke().ok());
    // The cluster's best (anchor 0, 0.9), then anchors 90 and 91 (0.5, 0.49).
    EXPECT_TRUE(testing::AllNear(GetOutput<float>(*interpreter, 2), {0.9f, 0.5f, 0.49f}, 1e-6f)) << regular;
    EXPECT_EQ(GetOutput<float>(*interpreter, 3), (std::vector<float>{3})) << regular;
    const std::vector<float> boxes = GetOutput<float>(*interpreter, 0);
    ASSERT_EQ(boxes.size(), 12u);
    EXPECT_NEAR(boxes[4], 0.05f - 0.02f, 1e-6f);  // anchor 90's ymin
    EXPECT_NEAR(boxes[8], 0.14f - 0.02f, 1e-6f);  // anchor 91's ymin
  }
}

TEST(DetectionPostProcess, GarbageOptionsAreAPrepareError) {
  const Status st = testing::TryBuild(testing::DetectionPostProcessModel({1, 2, 3, 4, 5}, 3, 3, {}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("FlexBuffer"), std::string::npos) << st.message();
}

// Options stored as floats are read with a range check (flexbuffers' own float-to-integer casts
// are undefined out of range): in range they count as their integer part, as in TFLite; out of
// range, or NaN, they are an error that names the option. fuzz_graph found use_regular_nms = -1.0.
Status BuildWithFloatOptions(double max_detections, double use_regular_nms) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Double("max_detections", max_detections);
    fbb.Int("max_classes_per_detection", 1);
    fbb.Double("use_regular_nms", use_regular_nms);
    fbb.Float("nms_iou_threshold", 0.5f);
    fbb.Double("num_classes", 2.0);
    fbb.Float("y_scale", 10.0f);
    fbb.Float("x_scale", 10.0f);
    fbb.Float("h_scale", 5.0f);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  const auto model = testing::DetectionPostProcessModel(fbb.GetBuffer(), 3, 3, std::vector<float>(12, 0.5f));
  std::unique_ptr<Interpreter> interpreter;
  ER_RETURN_IF_ERROR(testing::TryBuild(model, &interpreter));
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{1, static_cast<int32_t>(max_detections), 4}));
  return Status::Ok();
}

TEST(DetectionPostProcess, FloatOptionsAreRangeChecked) {
  EXPECT_TRUE(BuildWithFloatOptions(3.7, -1.0).ok());  // 3 detections; -1.0 is true, as any non-zero
  EXPECT_TRUE(BuildWithFloatOptions(3.0, 0.0).ok());
  for (double bad : {1e30, -3e9, std::nan("")}) {
    const Status st = BuildWithFloatOptions(bad, 1.0);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("custom option 'max_detections'"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace edgerun
