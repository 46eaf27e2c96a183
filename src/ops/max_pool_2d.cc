// MAX_POOL_2D: maximum over each window (padding never wins), then the fused activation.
#include "kernels/optimized/pooling.h"
#include "ops/pool_2d.h"
#include "ops/row_bands.h"

namespace edgerun::ops {
namespace {

Status Prepare(OpContext& ctx, PoolState& state) {
  return PreparePool(ctx, state, {TensorType::kFloat32, TensorType::kUInt8, TensorType::kInt8, TensorType::kInt16});
}

template <class T>
void EvalQuantized(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  optimized::MaxPoolQuantized<T>(ctx.thread_pool(), state.params, input->shape, input->data_as<T>(), output->shape,
                                 output->data_as<T>());
}

Status Eval(OpContext& ctx, PoolState& state) {
  const Tensor* input = ctx.input(0);
  Tensor* output = ctx.output(0);
  switch (input->type) {
    case TensorType::kUInt8: EvalQuantized<uint8_t>(ctx, state); break;
    case TensorType::kInt8: EvalQuantized<int8_t>(ctx, state); break;
    case TensorType::kInt16: EvalQuantized<int16_t>(ctx, state); break;
    default:
      optimized::Pool2DF32<true>(ctx.thread_pool(), state.params, input->shape, input->data_as<float>(),
                                 output->shape, output->data_as<float>());
      break;
  }
  return Status::Ok();
}

// MAX_POOL_2D by bands of rows (ops/row_bands.h): after the convolution that writes its input, in
// one fused chain (ResNet's stem: a 7x7 / 2 convolution, then a 3x3 / 2 max pool over its 3.2 MB
// output, which no longer fits in L2 when the pool reads it back). A band is pooled as an image
// of its own whose top padding is shifted by the band's first row, as WindowRowKernel does.
class MaxPoolRows final : public RowKernel {
 public:
  MaxPoolRows(const PoolState& state, int in_h) : s_(state), in_h_(in_h) {}

  void InputRows(int out_first, int out_end, int* first, int* end) const override {
    WindowRows(out_first, out_end, s_.params.stride_h, s_.params.pad_h, s_.params.filter_h, 1, in_h_, first, end);
  }
  void Begin(OpContext&) override {}

  void EvalRows(const OpContext& ctx, const RowBand& in, const OutputRowBand& out) const override {
    const Tensor* input = ctx.input(0);
    const Tensor* output = ctx.output(0);
    reference::PoolParams p = s_.params;
    p.pad_h += in.first - out.first * p.stride_h;
    const Shape in_shape{1, in.rows, input->dim(2), input->dim(3)};
    const Shape out_shape{1, out.rows, output->dim(2), output->dim(3)};
    switch (input->type) {
      case TensorType::kUInt8: Quantized<uint8_t>(p, in_shape, in.data, out_shape, out.data); break;
      case TensorType::kInt8: Quantized<int8_t>(p, in_shape, in.data, out_shape, out.data); break;
      case TensorType::kInt16: Quantized<int16_t>(p, in_shape, in.data, out_shape, out.data); break;
      default:
        optimized::Pool2DF32<true>(nullptr, p, in_shape, static_cast<const float*>(in.data), out_shape,
                                   static_cast<float*>(out.data));
        break;
    }
  }

 private:
  template <class T>
  static void Quantized(const reference::PoolParams& p, const Shape& in_shape, const void* in, const Shape& out_shape,
                        void* out) {
    optimized::MaxPoolQuantized<T>(nullptr, p, in_shape, static_cast<const T*>(in), out_shape, static_cast<T*>(out));
  }

  const PoolState& s_;
  const int in_h_;
};

}  // namespace

std::unique_ptr<RowKernel> MakeMaxPool2DRowKernel(const OpContext& ctx) {
  const PoolState* state = OwnState<PoolState>(ctx);
  const Tensor* input = ctx.input(0);
  if (state == nullptr || input == nullptr || input->shape.size() != 4 || input->dim(0) != 1) return nullptr;
  return std::make_unique<MaxPoolRows>(*state, input->dim(1));
}

OpRegistration RegisterMaxPool2D() {
  return MakeBuiltinWithState<PoolState>(tflite::BuiltinOperator_MAX_POOL_2D, 3, "float32, uint8, int8, int16",
                                         Prepare, Eval);
}

}  // namespace edgerun::ops
