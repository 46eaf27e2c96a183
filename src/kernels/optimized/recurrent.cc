#include "kernels/optimized/recurrent.h"

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/isa_kernels.h"
#include "kernels/reference/recurrent_util.h"
#include "quant/lstm_quant.h"

namespace edgerun::optimized {

void ApplyActivationF32(const float* in, int64_t n, reference::VectorActivation act, float* out) {
  const IsaKernels& k = ActiveKernels();
  if (act == reference::VectorActivation::kTanh && k.tanh_f32 != nullptr) return k.tanh_f32(in, n, out);
  if (act == reference::VectorActivation::kSigmoid && k.logistic_f32 != nullptr) return k.logistic_f32(in, n, out);
  reference::ApplyActivation(in, n, act, out);
}

void MatVecAccumulate(const float* matrix, int rows, int cols, const float* vectors, int n_batch, float* result,
                      int result_stride) {
  const IsaKernels& k = ActiveKernels();
  for (int b = 0; b < n_batch; ++b) {
    k.dot_rows_f32(matrix, cols, rows, cols, vectors + static_cast<int64_t>(b) * cols,
                   result + static_cast<int64_t>(b) * result_stride);
  }
}

void DotRowsInt8(const int8_t* matrix, int rows, int cols, const int8_t* vector, int32_t* dots) {
  ActiveKernels().dot_rows_i8(matrix, cols, rows, cols, vector, dots);
}

void HybridMatVecAccumulate(const int8_t* matrix, int rows, int cols, const int8_t* vectors, const float* scales,
                            const int32_t* zero_points, const int32_t* row_sums, int n_batch, float* result,
                            int result_stride) {
  int32_t* dots = ScratchI32(static_cast<size_t>(rows), 2);
  for (int b = 0; b < n_batch; ++b) {
    DotRowsInt8(matrix, rows, cols, vectors + static_cast<int64_t>(b) * cols, dots);
    float* out = result + static_cast<int64_t>(b) * result_stride;
    for (int r = 0; r < rows; ++r) {
      int32_t dot = dots[r];
      if (zero_points != nullptr) dot -= row_sums[r] * zero_points[b];
      out[r] += static_cast<float>(dot) * scales[b];
    }
  }
}

void TanhFixed16(const int16_t* in, int64_t n, int integer_bits, int16_t* out) {
  if (const FixedPointSigmoid16Fn kernel = ActiveKernels().tanh_q16) return kernel(in, n, integer_bits, out);
  for (int64_t i = 0; i < n; ++i) out[i] = quant::fp16::Tanh(in[i], integer_bits);
}

void LogisticFixed16(const int16_t* in, int64_t n, int integer_bits, int16_t* out) {
  if (const FixedPointSigmoid16Fn kernel = ActiveKernels().logistic_q16) return kernel(in, n, integer_bits, out);
  for (int64_t i = 0; i < n; ++i) out[i] = quant::fp16::Logistic(in[i], integer_bits);
}

}  // namespace edgerun::optimized
