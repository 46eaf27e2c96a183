// Vector helpers shared by the recurrent kernels (LSTM, RNN, SVDF): activations on float
// vectors, batched matrix x vector products in float and in "hybrid" form (int8 weights times
// inputs quantized at run time, one scale and zero point per batch row), following TFLite's
// tensor_utils.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace edgerun::reference {

// The activations TFLite's recurrent ops accept (TfLiteFusedActivation plus sigmoid). kNone is
// the identity (TFLite's vector helper leaves the output buffer untouched instead, which only
// gives the identity when the buffer already holds the input).
enum class VectorActivation { kNone, kRelu, kReluN1To1, kRelu6, kTanh, kSignBit, kSigmoid };

inline void ApplyActivation(const float* in, int64_t n, VectorActivation act, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    switch (act) {
      case VectorActivation::kNone: out[i] = x; break;
      case VectorActivation::kRelu: out[i] = std::max(0.0f, x); break;
      case VectorActivation::kReluN1To1: out[i] = std::min(1.0f, std::max(-1.0f, x)); break;
      case VectorActivation::kRelu6: out[i] = std::min(6.0f, std::max(0.0f, x)); break;
      case VectorActivation::kTanh: out[i] = std::tanh(x); break;
      case VectorActivation::kSignBit: out[i] = std::signbit(x) ? 1.0f : 0.0f; break;
      case VectorActivation::kSigmoid: out[i] = 1.0f / (1.0f + std::exp(-x)); break;
    }
  }
}

inline bool IsZeroVector(const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] != 0.0f) return false;
  }
  return true;
}

// result[b][r] += dot(matrix[r], vectors[b]) for a [rows, cols] matrix and n_batch vectors;
// result rows are `result_stride` apart.
inline void MatVecAccumulate(const float* matrix, int rows, int cols, const float* vectors, int n_batch,
                             float* result, int result_stride) {
  for (int b = 0; b < n_batch; ++b) {
    const float* vector = vectors + static_cast<int64_t>(b) * cols;
    float* out = result + static_cast<int64_t>(b) * result_stride;
    for (int r = 0; r < rows; ++r) {
      const float* row = matrix + static_cast<int64_t>(r) * cols;
      float dot = 0.0f;
      for (int c = 0; c < cols; ++c) dot += row[c] * vector[c];
      out[r] += dot;
    }
  }
}

// ---- hybrid (dynamic range) arithmetic

// Quantizes n floats to int8 with one symmetric scale: q = round(v * 127 / max|v|).
inline void SymmetricQuantize(const float* values, int n, int8_t* quantized, float* scale) {
  float min_value = values[0], max_value = values[0];
  for (int i = 1; i < n; ++i) {
    min_value = std::min(min_value, values[i]);
    max_value = std::max(max_value, values[i]);
  }
  const float range = std::max(std::fabs(min_value), std::fabs(max_value));
  if (range == 0.0f) {
    std::memset(quantized, 0, static_cast<size_t>(n));
    *scale = 1.0f;
    return;
  }
  *scale = range / 127.0f;
  const float inverse = 127.0f / range;
  for (int i = 0; i < n; ++i) {
    const int32_t q = static_cast<int32_t>(std::round(values[i] * inverse));
    quantized[i] = static_cast<int8_t>(std::clamp(q, -127, 127));
  }
}

// Quantizes n floats to int8 with a scale and zero point covering [min(v, 0), max(v, 0)].
inline void AsymmetricQuantize(const float* values, int n, int8_t* quantized, float* scale, int32_t* zero_point) {
  float min_value = values[0], max_value = values[0];
  for (int i = 1; i < n; ++i) {
    min_value = std::min(min_value, values[i]);
    max_value = std::max(max_value, values[i]);
  }
  const double rmin = std::min(0.0f, min_value);
  const double rmax = std::max(0.0f, max_value);
  if (rmin == rmax) {
    std::memset(quantized, 0, static_cast<size_t>(n));
    *scale = 1.0f;
    *zero_point = 0;
    return;
  }
  const double qmin = -128.0, qmax = 127.0;
  const double s = (rmax - rmin) / (qmax - qmin);
  const double zero_point_from_min = qmin - rmin / s;
  const double zero_point_from_max = qmax - rmax / s;
  const double zero_point_from_min_error = std::fabs(qmin) + std::fabs(rmin / s);
  const double zero_point_from_max_error = std::fabs(qmax) + std::fabs(rmax / s);
  const double zero_point_double =
      zero_point_from_min_error < zero_point_from_max_error ? zero_point_from_min : zero_point_from_max;
  int32_t nudged = 0;
  if (zero_point_double <= qmin) {
    nudged = -128;
  } else if (zero_point_double >= qmax) {
    nudged = 127;
  } else {
    nudged = static_cast<int32_t>(std::round(zero_point_double));
  }
  *scale = static_cast<float>(s);
  *zero_point = nudged;
  const float inverse = 1.0f / *scale;
  for (int i = 0; i < n; ++i) {
    const int32_t q = static_cast<int32_t>(std::round(static_cast<float>(nudged) + values[i] * inverse));
    quantized[i] = static_cast<int8_t>(std::clamp(q, -128, 127));
  }
}

// Quantizes each of n_batch rows of n values; zero_points may be null when symmetric.
inline void QuantizeRows(const float* values, int n_batch, int n, int8_t* quantized, float* scales,
                         int32_t* zero_points, bool asymmetric) {
  for (int b = 0; b < n_batch; ++b) {
    const int64_t offset = static_cast<int64_t>(b) * n;
    if (asymmetric) {
      AsymmetricQuantize(values + offset, n, quantized + offset, &scales[b], &zero_points[b]);
    } else {
      SymmetricQuantize(values + offset, n, quantized + offset, &scales[b]);
    }
  }
}

// sums[r] = sum of row r of a [rows, cols] int8 matrix.
inline void RowSums(const int8_t* matrix, int rows, int cols, int32_t* sums) {
  for (int r = 0; r < rows; ++r) {
    int32_t sum = 0;
    for (int c = 0; c < cols; ++c) sum += matrix[static_cast<int64_t>(r) * cols + c];
    sums[r] = sum;
  }
}

// result[b][r] += (dot(matrix[r], q[b]) - row_sums[r] * zero_points[b]) * scales[b], integer dot
// product first; zero_points (and row_sums) null for symmetric inputs.
inline void HybridMatVecAccumulate(const int8_t* matrix, int rows, int cols, const int8_t* vectors,
                                   const float* scales, const int32_t* zero_points, const int32_t* row_sums,
                                   int n_batch, float* result, int result_stride) {
  for (int b = 0; b < n_batch; ++b) {
    const int8_t* vector = vectors + static_cast<int64_t>(b) * cols;
    float* out = result + static_cast<int64_t>(b) * result_stride;
    for (int r = 0; r < rows; ++r) {
      const int8_t* row = matrix + static_cast<int64_t>(r) * cols;
      int32_t dot = 0;
      for (int c = 0; c < cols; ++c) dot += static_cast<int32_t>(row[c]) * vector[c];
      if (zero_points != nullptr) dot -= row_sums[r] * zero_points[b];
      out[r] += static_cast<float>(dot) * scales[b];
    }
  }
}

}  // namespace edgerun::reference
