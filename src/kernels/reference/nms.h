// Greedy non-max suppression over boxes [y1, x1, y2, x2] (corners in any order), with optional
// Gaussian soft-NMS (TensorFlow's NonMaxSuppressionV4 / V5, as TFLite runs them).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

namespace edgerun::reference {

inline float IntersectionOverUnion(const float* boxes, int i, int j) {
  const float* a = boxes + 4 * i;
  const float* b = boxes + 4 * j;
  const float a_ymin = std::min(a[0], a[2]), a_ymax = std::max(a[0], a[2]);
  const float a_xmin = std::min(a[1], a[3]), a_xmax = std::max(a[1], a[3]);
  const float b_ymin = std::min(b[0], b[2]), b_ymax = std::max(b[0], b[2]);
  const float b_xmin = std::min(b[1], b[3]), b_xmax = std::max(b[1], b[3]);
  const float area_a = (a_ymax - a_ymin) * (a_xmax - a_xmin);
  const float area_b = (b_ymax - b_ymin) * (b_xmax - b_xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float inter = std::max(std::min(a_ymax, b_ymax) - std::max(a_ymin, b_ymin), 0.0f) *
                      std::max(std::min(a_xmax, b_xmax) - std::max(a_xmin, b_xmin), 0.0f);
  return inter / (area_a + area_b - inter);
}

// Selects up to max_output boxes, best score first. A candidate is dropped when its IoU with a
// selected box reaches iou_threshold; with sigma > 0 each overlap also decays its score by
// exp(-0.5 * iou^2 / sigma) and the candidate is queued again with the lower score (selected only
// when no decay happened since it was last queued). Scores must stay above score_threshold.
// Returns the number selected; `selected` and `selected_scores` (may be null) receive them.
inline int NonMaxSuppression(const float* boxes, int num_boxes, const float* scores, int max_output,
                             float iou_threshold, float score_threshold, float sigma, int32_t* selected,
                             float* selected_scores) {
  struct Candidate {
    int index;
    float score;
    int checked;  // selected boxes [0, checked) have already been compared with this candidate
  };
  // Highest score first; among equal scores the lower box index.
  auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.index > b.index);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> queue(worse);
  for (int i = 0; i < num_boxes; ++i) {
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  }
  const float scale = sigma > 0 ? -0.5f / sigma : 0.0f;
  int count = 0;
  while (count < max_output && !queue.empty()) {
    Candidate next = queue.top();
    queue.pop();
    const float original = next.score;
    bool suppressed = false;
    // Recent selections overlap most often: walk them backwards.
    for (int j = count - 1; j >= next.checked; --j) {
      const float iou = IntersectionOverUnion(boxes, next.index, selected[j]);
      if (iou >= iou_threshold) {
        suppressed = true;
        break;
      }
      if (sigma > 0) next.score *= std::exp(scale * iou * iou);
      if (next.score <= score_threshold) break;
    }
    next.checked = count;
    if (suppressed) continue;
    if (next.score == original) {
      if (selected_scores) selected_scores[count] = next.score;
      selected[count++] = next.index;
    }
    // As TFLite, a box goes back in the queue even when just selected: its next turn compares it
    // with itself (IoU 1) and drops it, unless the box has no area (IoU 0), which TFLite then
    // selects again.
    if (next.score > score_threshold) queue.push(next);
  }
  return count;
}

}  // namespace edgerun::reference
