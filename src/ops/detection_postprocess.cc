// TFLite_Detection_PostProcess (custom op of SSD detectors): decodes center-size box encodings
// against anchors, then non-max suppression, either "fast" (one NMS over each anchor's best
// class) or "regular" (NMS per class, then the best across classes). Options come as a FlexBuffer
// map. Decoding and scores are computed as TFLite does (double precision decode, float scores).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "flatbuffers/flexbuffers.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

struct Params {
  int max_detections = 0;
  int max_classes_per_detection = 0;
  int detections_per_class = 100;
  bool regular_nms = false;
  float score_threshold = 0;
  float iou_threshold = 0;
  int num_classes = 0;
  float y_scale = 0, x_scale = 0, h_scale = 0, w_scale = 0;
  bool parsed = false;
  std::string bad_option;  // the first integer option that is not a number in range
};

// flexbuffers' AsInt32 and AsBool cast a stored float to an integer, which is undefined for a
// value out of range or NaN (fuzz_graph: use_regular_nms = -1.0 read as a bool). These read a
// float through a range check; any other kind as flexbuffers converts it (ints, strings, null).
void ReadIntOption(const flexbuffers::Map& m, const char* key, int* out, std::string* bad) {
  const flexbuffers::Reference r = m[key];
  const double v = r.IsFloat() ? r.AsDouble() : static_cast<double>(r.AsInt64());
  if (!(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max())) {
    if (bad->empty()) *bad = key;
    return;
  }
  *out = static_cast<int>(v);
}

bool ReadBoolOption(const flexbuffers::Reference& r) { return r.IsFloat() ? r.AsDouble() != 0.0 : r.AsInt64() != 0; }

struct Box {
  float ymin, xmin, ymax, xmax;
};

struct Detection {
  int anchor;
  int class_index;
  float score;
};

// A uint8 tensor's 256 values, dequantized in float ((q - zero point) * scale, as TFLite's
// Dequantize for this op's inputs).
struct Dequantized {
  float value[256];
  void Fill(const Tensor& t) {
    for (int q = 0; q < 256; ++q) value[q] = (static_cast<float>(q) - static_cast<float>(t.zero_point())) * t.scale();
  }
};

// The node's options and what Eval reuses from run to run: its vectors keep their capacity (the
// traffic SSD's 26880 candidates took a fresh 128 KB mapping, 32 page faults, every run).
struct State {
  Params p;
  std::vector<int> candidates, selected, top_classes, order;
  std::vector<float> class_scores, best;
  std::vector<Detection> detections;
  // uint8 box encodings: each byte's y and x over their scales and the exponentials of its h
  // and w over theirs (2 exps a box were half the op's time); uint8 anchors: each byte's value.
  double y_over_scale[256], x_over_scale[256], exp_h[256], exp_w[256];
  Dequantized anchor;
};

void* Init(OpContext& ctx) {
  auto* state = new State();
  Params* p = &state->p;
  size_t size = 0;
  const uint8_t* data = ctx.custom_options(&size);
  if (data == nullptr || size == 0 || !flexbuffers::VerifyBuffer(data, size)) return state;
  const flexbuffers::Reference root = flexbuffers::GetRoot(data, size);
  if (!root.IsMap()) return state;
  const flexbuffers::Map m = root.AsMap();
  ReadIntOption(m, "max_detections", &p->max_detections, &p->bad_option);
  ReadIntOption(m, "max_classes_per_detection", &p->max_classes_per_detection, &p->bad_option);
  if (!m["detections_per_class"].IsNull()) {
    ReadIntOption(m, "detections_per_class", &p->detections_per_class, &p->bad_option);
  }
  if (!m["use_regular_nms"].IsNull()) p->regular_nms = ReadBoolOption(m["use_regular_nms"]);
  p->score_threshold = m["nms_score_threshold"].AsFloat();
  p->iou_threshold = m["nms_iou_threshold"].AsFloat();
  ReadIntOption(m, "num_classes", &p->num_classes, &p->bad_option);
  p->y_scale = m["y_scale"].AsFloat();
  p->x_scale = m["x_scale"].AsFloat();
  p->h_scale = m["h_scale"].AsFloat();
  p->w_scale = m["w_scale"].AsFloat();
  p->parsed = true;
  return state;
}

Status Prepare(OpContext& ctx) {
  State& state = *static_cast<State*>(ctx.user_data());
  const Params& p = state.p;
  ER_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 4));
  if (!p.parsed) return ctx.Error("custom options are missing or not a valid FlexBuffer map");
  if (!p.bad_option.empty()) {
    return ctx.Error("custom option '", p.bad_option, "' is not a number in the range of int32");
  }
  const Tensor* boxes = ctx.input(0);
  const Tensor* scores = ctx.input(1);
  const Tensor* anchors = ctx.input(2);
  ER_RETURN_IF_ERROR(CheckType(ctx, boxes, "box encodings", {TensorType::kFloat32, TensorType::kUInt8}));
  ER_RETURN_IF_ERROR(CheckType(ctx, scores, "class predictions", {TensorType::kFloat32, TensorType::kUInt8}));
  ER_RETURN_IF_ERROR(CheckType(ctx, anchors, "anchors", {TensorType::kFloat32, TensorType::kUInt8}));
  ER_RETURN_IF_ERROR(CheckRank(ctx, boxes, "box encodings", 3, 3));
  ER_RETURN_IF_ERROR(CheckRank(ctx, scores, "class predictions", 3, 3));
  ER_RETURN_IF_ERROR(CheckRank(ctx, anchors, "anchors", 2, 2));
  if (boxes->dim(0) != 1 || scores->dim(0) != 1) return ctx.Unsupported("only batch 1 is supported");
  const int num_boxes = boxes->dim(1);
  if (boxes->dim(2) < 4) return ctx.Error("box encodings ", Describe(boxes), " need at least 4 values per box");
  if (scores->dim(1) != num_boxes) return ctx.Error("class predictions ", Describe(scores), " must have ", num_boxes, " rows");
  if (anchors->dim(0) != num_boxes || anchors->dim(1) != 4) {
    return ctx.Error("anchors ", Describe(anchors), " must have shape [", num_boxes, ",4]");
  }
  if (p.max_detections < 0 || p.max_classes_per_detection < 0 || p.detections_per_class < 0 ||
      p.max_detections > (1 << 20) || p.max_classes_per_detection > (1 << 10)) {
    return ctx.Error("max_detections / max_classes_per_detection / detections_per_class out of range");
  }
  if (p.num_classes <= 0) return ctx.Error("num_classes must be positive");
  const int with_background = scores->dim(2);
  if (with_background < p.num_classes || with_background - p.num_classes > 1) {
    return ctx.Error("class predictions have ", with_background, " classes for num_classes ", p.num_classes);
  }
  if (!(p.iou_threshold > 0.0f && p.iou_threshold <= 1.0f)) return ctx.Error("nms_iou_threshold must be in (0, 1]");
  for (int i = 0; i < 4; ++i) ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(i), "output", {TensorType::kFloat32}));
  const int detected = p.max_detections * p.max_classes_per_detection;
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, {1, detected, 4}));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(1, {1, detected}));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(2, {1, detected}));
  ER_RETURN_IF_ERROR(ctx.ResizeOutput(3, {1}));
  ER_RETURN_IF_ERROR(ctx.RequestTemporary(0, TensorType::kFloat32, {num_boxes, 4}).status());
  ER_RETURN_IF_ERROR(ctx.RequestTemporary(1, TensorType::kFloat32, {num_boxes, with_background}).status());
  if (boxes->type == TensorType::kUInt8) {
    Dequantized encoding;
    encoding.Fill(*boxes);
    for (int q = 0; q < 256; ++q) {
      const double v = encoding.value[q];
      state.y_over_scale[q] = v / p.y_scale;
      state.x_over_scale[q] = v / p.x_scale;
      state.exp_h[q] = std::exp(v / p.h_scale);
      state.exp_w[q] = std::exp(v / p.w_scale);
    }
  }
  if (anchors->type == TensorType::kUInt8) state.anchor.Fill(*anchors);
  // Eval's vectors at their largest (bounded by the inputs' sizes), so that runs allocate nothing;
  // reserved, not filled: their pages are touched by the first run, not at start-up.
  state.candidates.reserve(static_cast<size_t>(num_boxes));
  state.selected.reserve(static_cast<size_t>(std::min(num_boxes, std::max(p.max_detections, 0))));
  state.class_scores.reserve(static_cast<size_t>(num_boxes));
  state.best.reserve(static_cast<size_t>(num_boxes));
  return Status::Ok();
}

// The box of anchor (ay, ax, ah, aw) for the encoding (y, x) over their scales and the
// exponentials of (h, w) over theirs, in double as TFLite computes it.
inline Box DecodeOne(double y_scaled, double x_scaled, double exp_h, double exp_w, double ay, double ax, double ah,
                     double aw) {
  const float ycenter = static_cast<float>(y_scaled * ah + ay);
  const float xcenter = static_cast<float>(x_scaled * aw + ax);
  const float half_h = static_cast<float>(0.5 * exp_h * ah);
  const float half_w = static_cast<float>(0.5 * exp_w * aw);
  return {ycenter - half_h, xcenter - half_w, ycenter + half_h, xcenter + half_w};
}

// Decodes every box (all are checked, as TFLite validates them all, though NMS reads few).
Status Decode(OpContext& ctx, const State& state, Box* decoded) {
  const Params& p = state.p;
  const Tensor* boxes = ctx.input(0);
  const Tensor* anchors = ctx.input(2);
  const int num_boxes = boxes->dim(1), stride = boxes->dim(2);
  const bool quantized_anchors = anchors->type == TensorType::kUInt8;
  const float* anchor_f = quantized_anchors ? nullptr : anchors->data_as<float>();
  const uint8_t* anchor_q = quantized_anchors ? anchors->data_as<uint8_t>() : nullptr;
  auto anchor = [&](int64_t i) -> double {
    return quantized_anchors ? state.anchor.value[anchor_q[i]] : anchor_f[i];
  };
  const uint8_t* encoded_q = boxes->type == TensorType::kUInt8 ? boxes->data_as<uint8_t>() : nullptr;
  const float* encoded_f = encoded_q == nullptr ? boxes->data_as<float>() : nullptr;
  for (int i = 0; i < num_boxes; ++i) {
    const double ay = anchor(i * 4), ax = anchor(i * 4 + 1), ah = anchor(i * 4 + 2), aw = anchor(i * 4 + 3);
    const int64_t e = int64_t{i} * stride;
    if (encoded_q != nullptr) {
      decoded[i] = DecodeOne(state.y_over_scale[encoded_q[e]], state.x_over_scale[encoded_q[e + 1]],
                             state.exp_h[encoded_q[e + 2]], state.exp_w[encoded_q[e + 3]], ay, ax, ah, aw);
    } else {
      const double y = encoded_f[e], x = encoded_f[e + 1], h = encoded_f[e + 2], w = encoded_f[e + 3];
      decoded[i] = DecodeOne(y / p.y_scale, x / p.x_scale, std::exp(h / p.h_scale), std::exp(w / p.w_scale), ay, ax,
                             ah, aw);
    }
    if (!(decoded[i].ymin <= decoded[i].ymax && decoded[i].xmin <= decoded[i].xmax)) {
      return ctx.Error("box ", i, " decodes to an invalid box (NaN or inverted)");
    }
  }
  return Status::Ok();
}

float IntersectionOverUnion(const Box& a, const Box& b) {
  const float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin);
  const float area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float ih = std::max(std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin), 0.0f);
  const float iw = std::max(std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin), 0.0f);
  const float intersection = ih * iw;
  return intersection / (area_a + area_b - intersection);
}

// Greedy NMS over one score per box: writes the indices of the kept boxes, best first, to
// state.selected (state.candidates is its scratch).
void SingleClassNms(State& state, const Box* boxes, const float* scores, int num_boxes, int max_detections) {
  std::vector<int>& candidates = state.candidates;
  std::vector<int>& selected = state.selected;
  candidates.clear();
  selected.clear();
  for (int i = 0; i < num_boxes; ++i) {
    if (scores[i] >= state.p.score_threshold) candidates.push_back(i);
  }
  // Best score first, equal scores in index order (the order of a stable sort), so the result is
  // fully defined. Only the front the walk below needs is sorted: a few times max_detections at
  // first, twice as much each time suppression uses it up (the traffic SSD's 26880 anchors, all
  // above its threshold of -20: sorting the rest at once took most of the op's 0.6 ms of NMS).
  auto better = [&](int a, int b) { return scores[a] > scores[b] || (scores[a] == scores[b] && a < b); };
  const size_t count = candidates.size();
  size_t sorted = std::min(count, static_cast<size_t>(4) * std::max(max_detections, 0) + 16);
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(sorted), candidates.end(), better);
  // A candidate is kept when no box kept before it overlaps it more than the threshold: the
  // greedy suppression, checked lazily. Each candidate meets only the boxes kept so far, and the
  // walk ends at max_detections, instead of every kept box suppressing the whole rest of the list
  // (the traffic SSD: 90 classes x 1917 anchors, 6.9 ms in the eager form).
  for (size_t i = 0; i < count && static_cast<int>(selected.size()) < max_detections; ++i) {
    if (i == sorted) {  // past the sorted front: sort the next part (all of it ranks after the front)
      const size_t more = std::min(count, 2 * sorted);
      std::partial_sort(candidates.begin() + static_cast<ptrdiff_t>(sorted),
                        candidates.begin() + static_cast<ptrdiff_t>(more), candidates.end(), better);
      sorted = more;
    }
    const Box& candidate = boxes[candidates[i]];
    bool suppressed = false;
    for (int kept : selected) {
      if (IntersectionOverUnion(boxes[kept], candidate) > state.p.iou_threshold) {
        suppressed = true;
        break;
      }
    }
    if (!suppressed) selected.push_back(candidates[i]);
  }
}

void WriteDetections(OpContext& ctx, const Box* boxes, const std::vector<Detection>& detections, int rows_per_box) {
  Tensor* out_boxes = ctx.output(0);
  const int64_t slots = ctx.output(1)->num_elements();
  std::fill_n(out_boxes->data_as<float>(), slots * 4, 0.0f);
  std::fill_n(ctx.output(1)->data_as<float>(), slots, 0.0f);
  std::fill_n(ctx.output(2)->data_as<float>(), slots, 0.0f);
  for (size_t k = 0; k < detections.size() && static_cast<int64_t>(k) < slots; ++k) {
    const Box& b = boxes[detections[k].anchor];
    float* row = out_boxes->data_as<float>() + k * 4;
    row[0] = b.ymin;
    row[1] = b.xmin;
    row[2] = b.ymax;
    row[3] = b.xmax;
    ctx.output(1)->data_as<float>()[k] = static_cast<float>(detections[k].class_index);
    ctx.output(2)->data_as<float>()[k] = detections[k].score;
  }
  ctx.output(3)->data_as<float>()[0] = static_cast<float>(detections.size() / std::max(1, rows_per_box));
}

Status Eval(OpContext& ctx) {
  State& state = *static_cast<State*>(ctx.user_data());
  const Params& p = state.p;
  Box* boxes = reinterpret_cast<Box*>(ctx.temporary(0)->data_as<float>());
  ER_RETURN_IF_ERROR(Decode(ctx, state, boxes));
  const Tensor* predictions = ctx.input(1);
  const int num_boxes = predictions->dim(1), with_background = predictions->dim(2);
  const int offset = with_background - p.num_classes;  // 1 when column 0 is the background
  float* scores = ctx.temporary(1)->data_as<float>();
  const int64_t score_count = predictions->num_elements();
  if (predictions->type == TensorType::kFloat32) {
    std::copy_n(predictions->data_as<float>(), score_count, scores);
  } else {
    // uint8: each of the 256 stored values dequantized once.
    float value[256];
    for (int q = 0; q < 256; ++q) {
      value[q] = static_cast<float>(static_cast<double>(predictions->scale()) * (q - predictions->zero_point()));
    }
    const uint8_t* stored = predictions->data_as<uint8_t>();
    for (int64_t i = 0; i < score_count; ++i) scores[i] = value[stored[i]];
  }
  std::vector<Detection>& detections = state.detections;
  detections.clear();
  if (p.regular_nms) {
    const int per_class = std::min(p.detections_per_class, p.max_detections);
    if (per_class <= 0) return ctx.Error("detections_per_class and max_detections must be positive");
    state.class_scores.resize(static_cast<size_t>(num_boxes));
    float* class_scores = state.class_scores.data();
    for (int c = 0; c < p.num_classes; ++c) {
      for (int b = 0; b < num_boxes; ++b) class_scores[b] = scores[int64_t{b} * with_background + c + offset];
      SingleClassNms(state, boxes, class_scores, num_boxes, per_class);
      for (int b : state.selected) detections.push_back({b, c, class_scores[b]});
      // Keep the best max_detections so far; earlier entries win ties (stable merge).
      std::stable_sort(detections.begin(), detections.end(),
                       [](const Detection& a, const Detection& b) { return a.score > b.score; });
      if (static_cast<int>(detections.size()) > p.max_detections) detections.resize(p.max_detections);
    }
    WriteDetections(ctx, boxes, detections, 1);
    return Status::Ok();
  }
  // Fast NMS: each anchor is ranked by its best class; the top classes of the kept anchors follow.
  if (p.max_classes_per_detection <= 0) return ctx.Error("max_classes_per_detection must be positive");
  const int per_anchor = std::min(p.max_classes_per_detection, p.num_classes);
  // The top per_anchor classes of each anchor, best first, in one flat array (a vector per
  // anchor was 26880 allocations a run for the traffic SSD).
  std::vector<int>& top_classes = state.top_classes;
  top_classes.resize(static_cast<size_t>(num_boxes) * per_anchor);
  state.best.resize(static_cast<size_t>(num_boxes));
  float* best = state.best.data();
  std::vector<int>& order = state.order;
  order.resize(per_anchor == 1 ? 0 : p.num_classes);
  for (int b = 0; b < num_boxes; ++b) {
    const float* row = scores + int64_t{b} * with_background + offset;
    int* top = top_classes.data() + static_cast<size_t>(b) * per_anchor;
    if (per_anchor == 1) {
      top[0] = static_cast<int>(std::max_element(row, row + p.num_classes) - row);  // first maximum
    } else {
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + per_anchor, order.end(),
                        [&](int x, int y) { return row[x] > row[y]; });
      std::copy_n(order.begin(), per_anchor, top);
    }
    best[b] = row[top[0]];
  }
  SingleClassNms(state, boxes, best, num_boxes, p.max_detections);
  int kept = 0;
  for (int b : state.selected) {
    const float* row = scores + int64_t{b} * with_background + offset;
    for (int k = 0; k < p.max_classes_per_detection; ++k) {
      // Rows of a box beyond its available classes stay zero, as slots in TFLite's layout.
      if (k < per_anchor) {
        const int c = top_classes[static_cast<size_t>(b) * per_anchor + k];
        detections.push_back({b, c, row[c]});
      } else {
        detections.push_back({b, 0, 0.0f});
      }
    }
    ++kept;
  }
  WriteDetections(ctx, boxes, detections, p.max_classes_per_detection);
  ctx.output(3)->data_as<float>()[0] = static_cast<float>(kept);
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterDetectionPostProcess() {
  OpRegistration r;
  r.name = "TFLite_Detection_PostProcess";
  r.types = "float32, uint8 inputs; float32 outputs";
  r.init = Init;
  r.free = [](void* state) { delete static_cast<State*>(state); };
  r.prepare = Prepare;
  r.eval = Eval;
  return r;
}

}  // namespace edgerun::ops
