// The matrix x vector products of the recurrent kernels (LSTM, RNN, SVDF) on the SIMD dot
// products: same arguments and results as their twins in kernels/reference/recurrent_util.h
// (float within rounding, the hybrid and integer ones bit for bit: their integer dot products
// are exact and the float arithmetic after them is the reference's).
#pragma once

#include <cstdint>

namespace edgerun::reference {
enum class VectorActivation;  // kernels/reference/recurrent_util.h
}

namespace edgerun::optimized {

// reference::ApplyActivation with tanh and the sigmoid on the ISA's vector kernels (within 1 and
// 2 ulp of the exact values, as the float TANH / LOGISTIC ops): libm per element was half of a
// float LSTM's time (tflm_trained_lstm: 28 steps of 4 gates of 20 cells). in == out is allowed.
void ApplyActivationF32(const float* in, int64_t n, reference::VectorActivation act, float* out);

// result[b][r] += dot(matrix[r], vectors[b]) (as reference::MatVecAccumulate).
void MatVecAccumulate(const float* matrix, int rows, int cols, const float* vectors, int n_batch, float* result,
                      int result_stride);

// As reference::HybridMatVecAccumulate.
void HybridMatVecAccumulate(const int8_t* matrix, int rows, int cols, const int8_t* vectors, const float* scales,
                            const int32_t* zero_points, const int32_t* row_sums, int n_batch, float* result,
                            int result_stride);

// dots[r] = dot(matrix[r], vector) in int32 for a [rows, cols] int8 matrix.
void DotRowsInt8(const int8_t* matrix, int rows, int cols, const int8_t* vector, int32_t* dots);

// out[i] = quant::fp16::Tanh / Logistic(in[i], integer_bits) (gemmlowp's 16-bit fixed point: the
// integer LSTM's gates and cell, int16 TANH / LOGISTIC), bit for bit, on int16 lanes where the
// CPU has them. in == out is allowed.
void TanhFixed16(const int16_t* in, int64_t n, int integer_bits, int16_t* out);
void LogisticFixed16(const int16_t* in, int64_t n, int integer_bits, int16_t* out);

}  // namespace edgerun::optimized
