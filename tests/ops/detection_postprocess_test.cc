// TFLite_Detection_PostProcess: box decoding against anchors, fast and regular NMS.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>

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

// ---- the op against an eager reference written from the op's definition, on random inputs

// One random case: inputs as stored (float or uint8), with their quantization.
struct RandomCase {
  int boxes = 0, num_classes = 0, columns = 0;  // columns: num_classes, +1 with a background column
  bool regular = false;
  int max_detections = 0, detections_per_class = 0, classes_per_detection = 0;
  float score_threshold = 0, iou_threshold = 0;
  TensorType encoding_type = TensorType::kFloat32, score_type = TensorType::kFloat32,
             anchor_type = TensorType::kFloat32;
  std::vector<float> encodings_f, scores_f, anchors_f;
  std::vector<uint8_t> encodings_q, scores_q, anchors_q;
};

constexpr float kEncodingScale = 0.02f, kScoreScale = 1.0f / 255, kAnchorScale = 1.0f / 256;
constexpr int kEncodingZero = 128, kScoreZero = 0, kAnchorZero = 0;

std::vector<uint8_t> RandomCaseModel(const RandomCase& c) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", c.max_detections);
    fbb.Int("max_classes_per_detection", c.classes_per_detection);
    fbb.Int("detections_per_class", c.detections_per_class);
    fbb.Bool("use_regular_nms", c.regular);
    fbb.Float("nms_score_threshold", c.score_threshold);
    fbb.Float("nms_iou_threshold", c.iou_threshold);
    fbb.Int("num_classes", c.num_classes);
    fbb.Float("y_scale", 10.0f);
    fbb.Float("x_scale", 10.0f);
    fbb.Float("h_scale", 5.0f);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  auto quant = [](TensorType type, float scale, int zero) {
    QuantizationParams q;
    if (type == TensorType::kUInt8) {
      q.scale = {scale};
      q.zero_point = {zero};
    }
    return q;
  };
  ModelBuilder b;
  const int encodings = b.AddTensor("encodings", c.encoding_type, {1, c.boxes, 4},
                                    quant(c.encoding_type, kEncodingScale, kEncodingZero));
  const int scores = b.AddTensor("scores", c.score_type, {1, c.boxes, c.columns}, quant(c.score_type, kScoreScale, kScoreZero));
  const int anchors = b.AddTensor("anchors", c.anchor_type, {c.boxes, 4}, quant(c.anchor_type, kAnchorScale, kAnchorZero));
  std::vector<int> outs;
  for (const char* name : {"boxes", "classes", "scores_out", "count"}) outs.push_back(b.AddTensor(name, TensorType::kFloat32, {}));
  b.AddCustomOp("TFLite_Detection_PostProcess", {encodings, scores, anchors}, outs, fbb.GetBuffer());
  b.SetInputs({encodings, scores, anchors});
  b.SetOutputs(outs);
  return b.Finish();
}

// Anchors in clusters (most boxes overlap a few others' centers, so suppression walks far down the
// ranking), encodings and scores random; thresholds from "everything is a candidate" to strict.
RandomCase MakeRandomCase(std::mt19937& rng, int boxes) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::uniform_int_distribution<int> byte(0, 255);
  RandomCase c;
  c.boxes = boxes;
  c.num_classes = 1 + static_cast<int>(rng() % 5);
  c.columns = c.num_classes + static_cast<int>(rng() % 2);
  c.regular = rng() % 2 == 0;
  c.max_detections = 1 + static_cast<int>(rng() % 40);
  c.detections_per_class = 1 + static_cast<int>(rng() % 40);
  c.classes_per_detection = 1 + static_cast<int>(rng() % 3);
  const float thresholds[] = {-20.0f, 0.0f, 0.3f, 0.8f};
  c.score_threshold = thresholds[rng() % 4];
  const float ious[] = {0.3f, 0.6f, 1.0f};
  c.iou_threshold = ious[rng() % 3];
  const TensorType types[] = {TensorType::kFloat32, TensorType::kUInt8};
  c.encoding_type = types[rng() % 2];
  c.score_type = types[rng() % 2];
  c.anchor_type = types[rng() % 2];
  // Several classes per detection rank classes by score, where ties have no defined order:
  // continuous scores then.
  if (c.classes_per_detection > 1 && !c.regular) c.score_type = TensorType::kFloat32;
  // A cluster: boxes of about the same center and size (y, x, h, w).
  const int clusters = 1 + boxes / 1000;
  std::vector<float> cluster(static_cast<size_t>(clusters) * 4);
  for (size_t k = 0; k < cluster.size(); ++k) cluster[k] = k % 4 < 2 ? 0.2f + 0.6f * unit(rng) : 0.1f + 0.2f * unit(rng);
  for (int i = 0; i < boxes; ++i) {
    const size_t k = 4 * (rng() % static_cast<unsigned>(clusters));
    const bool clustered = rng() % 20 != 0;
    float anchor[4];
    for (int j = 0; j < 4; ++j) {
      anchor[j] = clustered ? cluster[k + j] + 0.01f * unit(rng) : j < 2 ? unit(rng) : 0.05f + 0.25f * unit(rng);
    }
    for (float a : anchor) {
      c.anchors_f.push_back(a);
      c.anchors_q.push_back(static_cast<uint8_t>(std::min(255, static_cast<int>(a / kAnchorScale))));
    }
    for (int j = 0; j < 4; ++j) {
      c.encodings_f.push_back(2.0f * unit(rng) - 1.0f);
      c.encodings_q.push_back(static_cast<uint8_t>(byte(rng)));
    }
    for (int j = 0; j < c.columns; ++j) {
      c.scores_f.push_back(unit(rng));
      c.scores_q.push_back(static_cast<uint8_t>(byte(rng)));
    }
  }
  return c;
}

struct Outputs {
  std::vector<float> boxes, classes, scores, count;
};

// The op's definition, eagerly: every box decoded (double precision, as TFLite), candidates
// sorted in full (score, then index), greedy suppression against every kept box.
Outputs Reference(const RandomCase& c) {
  auto encoding = [&](int64_t i) -> double {
    return c.encoding_type == TensorType::kFloat32
               ? c.encodings_f[i]
               : (static_cast<float>(c.encodings_q[i]) - static_cast<float>(kEncodingZero)) * kEncodingScale;
  };
  auto anchor = [&](int64_t i) -> double {
    return c.anchor_type == TensorType::kFloat32
               ? c.anchors_f[i]
               : (static_cast<float>(c.anchors_q[i]) - static_cast<float>(kAnchorZero)) * kAnchorScale;
  };
  auto score = [&](int box, int column) -> float {
    const int64_t i = int64_t{box} * c.columns + column;
    return c.score_type == TensorType::kFloat32
               ? c.scores_f[i]
               : static_cast<float>(static_cast<double>(kScoreScale) * (c.scores_q[i] - kScoreZero));
  };
  std::vector<std::array<float, 4>> decoded(static_cast<size_t>(c.boxes));
  for (int i = 0; i < c.boxes; ++i) {
    const double ay = anchor(4 * i), ax = anchor(4 * i + 1), ah = anchor(4 * i + 2), aw = anchor(4 * i + 3);
    const float yc = static_cast<float>(encoding(4 * i) / 10.0 * ah + ay);
    const float xc = static_cast<float>(encoding(4 * i + 1) / 10.0 * aw + ax);
    const float hh = static_cast<float>(0.5 * std::exp(encoding(4 * i + 2) / 5.0) * ah);
    const float hw = static_cast<float>(0.5 * std::exp(encoding(4 * i + 3) / 5.0) * aw);
    decoded[static_cast<size_t>(i)] = {yc - hh, xc - hw, yc + hh, xc + hw};
  }
  auto iou = [&](int a, int b) {
    const auto& p = decoded[static_cast<size_t>(a)];
    const auto& q = decoded[static_cast<size_t>(b)];
    const float area_p = (p[2] - p[0]) * (p[3] - p[1]), area_q = (q[2] - q[0]) * (q[3] - q[1]);
    if (area_p <= 0 || area_q <= 0) return 0.0f;
    const float ih = std::max(std::min(p[2], q[2]) - std::max(p[0], q[0]), 0.0f);
    const float iw = std::max(std::min(p[3], q[3]) - std::max(p[1], q[1]), 0.0f);
    return ih * iw / (area_p + area_q - ih * iw);
  };
  auto nms = [&](const std::vector<float>& s, int limit) {
    std::vector<int> order;
    for (int i = 0; i < c.boxes; ++i) {
      if (s[static_cast<size_t>(i)] >= c.score_threshold) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return s[a] > s[b]; });
    std::vector<int> kept;
    for (int i : order) {
      if (static_cast<int>(kept.size()) == limit) break;
      bool suppressed = false;
      for (int k : kept) suppressed = suppressed || iou(k, i) > c.iou_threshold;
      if (!suppressed) kept.push_back(i);
    }
    return kept;
  };
  const int offset = c.columns - c.num_classes;
  struct Row {
    int box, cls;
    float score;
  };
  std::vector<Row> rows;
  int count = 0;
  if (c.regular) {
    for (int cls = 0; cls < c.num_classes; ++cls) {
      std::vector<float> s(static_cast<size_t>(c.boxes));
      for (int i = 0; i < c.boxes; ++i) s[static_cast<size_t>(i)] = score(i, cls + offset);
      for (int i : nms(s, std::min(c.detections_per_class, c.max_detections))) rows.push_back({i, cls, s[i]});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.score > b.score; });
    if (static_cast<int>(rows.size()) > c.max_detections) rows.resize(static_cast<size_t>(c.max_detections));
    count = static_cast<int>(rows.size());
  } else {
    const int per_anchor = std::min(c.classes_per_detection, c.num_classes);
    std::vector<std::vector<int>> top(static_cast<size_t>(c.boxes));
    std::vector<float> best(static_cast<size_t>(c.boxes));
    for (int i = 0; i < c.boxes; ++i) {
      std::vector<int> classes(static_cast<size_t>(c.num_classes));
      std::iota(classes.begin(), classes.end(), 0);
      // Best first; the first maximum when there is one class per detection.
      std::stable_sort(classes.begin(), classes.end(),
                       [&](int a, int b) { return score(i, a + offset) > score(i, b + offset); });
      classes.resize(static_cast<size_t>(per_anchor));
      top[static_cast<size_t>(i)] = classes;
      best[static_cast<size_t>(i)] = score(i, classes[0] + offset);
    }
    for (int i : nms(best, c.max_detections)) {
      for (int k = 0; k < c.classes_per_detection; ++k) {
        if (k < per_anchor) {
          const int cls = top[static_cast<size_t>(i)][static_cast<size_t>(k)];
          rows.push_back({i, cls, score(i, cls + offset)});
        } else {
          rows.push_back({i, 0, 0.0f});
        }
      }
      ++count;
    }
  }
  // Outputs have max_detections x max_classes_per_detection rows in both modes (regular NMS fills
  // at most max_detections of them).
  const size_t slots = static_cast<size_t>(c.max_detections) * c.classes_per_detection;
  Outputs out{std::vector<float>(slots * 4, 0.0f), std::vector<float>(slots, 0.0f), std::vector<float>(slots, 0.0f),
              {static_cast<float>(count)}};
  for (size_t k = 0; k < rows.size() && k < slots; ++k) {
    for (int j = 0; j < 4; ++j) out.boxes[k * 4 + j] = decoded[static_cast<size_t>(rows[k].box)][static_cast<size_t>(j)];
    out.classes[k] = static_cast<float>(rows[k].cls);
    out.scores[k] = rows[k].score;
  }
  return out;
}

TEST(DetectionPostProcess, MatchesAnEagerReferenceOnRandomInputs) {
  std::mt19937 rng(20261206);
  int cases = 0;
  for (int boxes : {1, 7, 100, 1000, 3000}) {
    for (int repeat = 0; repeat < 12; ++repeat, ++cases) {
      const RandomCase c = MakeRandomCase(rng, boxes);
      auto interpreter = testing::Build(RandomCaseModel(c));
      ASSERT_TRUE(interpreter);
      auto set = [&](int position, const std::vector<float>& f, const std::vector<uint8_t>& q) {
        if (interpreter->input(position)->type == TensorType::kFloat32) {
          SetInput<float>(*interpreter, position, f);
        } else {
          SetInput<uint8_t>(*interpreter, position, q);
        }
      };
      set(0, c.encodings_f, c.encodings_q);
      set(1, c.scores_f, c.scores_q);
      set(2, c.anchors_f, c.anchors_q);
      const Outputs want = Reference(c);
      // Twice: the second run reuses what the first left in the node's scratch.
      for (int run = 0; run < 2; ++run) {
        const Status st = interpreter->Invoke();
        ASSERT_TRUE(st.ok()) << st.message();
        const std::string what = "case " + std::to_string(cases) + " (" + std::to_string(boxes) + " boxes, " +
                                 (c.regular ? "regular" : "fast") + " NMS, run " + std::to_string(run) + ")";
        EXPECT_EQ(GetOutput<float>(*interpreter, 0), want.boxes) << what;
        EXPECT_EQ(GetOutput<float>(*interpreter, 1), want.classes) << what;
        EXPECT_EQ(GetOutput<float>(*interpreter, 2), want.scores) << what;
        EXPECT_EQ(GetOutput<float>(*interpreter, 3), want.count) << what;
      }
    }
  }
}

}  // namespace
}  // namespace edgerun
