// RFFT2D: the 2-D real-to-complex DFT over the last two dimensions of a float32 tensor (rank
// >= 2) -> complex64 [..., fft_height, fft_width / 2 + 1]. fft_length is an int32 [2] tensor of
// powers of two; the input is cropped or zero-padded to it. A non-constant fft_length makes the
// output dynamic.
#include "kernels/optimized/rfft.h"
#include "kernels/reference/fft.h"
#include "ops/op_util.h"

namespace edgerun::ops {
namespace {

Status OutputShape(OpContext& ctx, Shape* shape, int32_t* fft_height, int32_t* fft_width) {
  const Tensor* fft_length = ctx.input(1);
  if (fft_length->data == nullptr) return ctx.Error("fft_length ", Describe(fft_length), " has no data");
  *fft_height = fft_length->data_as<int32_t>()[0];
  *fft_width = fft_length->data_as<int32_t>()[1];
  for (int32_t n : {*fft_height, *fft_width}) {
    if (n <= 0 || (n & (n - 1)) != 0) return ctx.Error("fft_length values must be powers of two, got ", n);
  }
  // The transform works on fft_height * fft_width complex doubles.
  if (static_cast<int64_t>(*fft_height) * *fft_width > (int64_t{1} << 26)) {
    return ctx.Error("fft_length ", *fft_height, " x ", *fft_width, " is too large");
  }
  *shape = ctx.input(0)->shape;
  (*shape)[shape->size() - 2] = *fft_height;
  (*shape)[shape->size() - 1] = *fft_width / 2 + 1;
  return Status::Ok();
}

Status Prepare(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* fft_length = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckType(ctx, input, "input", {TensorType::kFloat32}));
  if (input->rank() < 2) return ctx.Error("input ", Describe(input), " must have rank 2 or more");
  ER_RETURN_IF_ERROR(CheckType(ctx, fft_length, "fft_length", {TensorType::kInt32}));
  if (fft_length->shape != Shape{2}) return ctx.Error("fft_length ", Describe(fft_length), " must have shape [2]");
  ER_RETURN_IF_ERROR(CheckType(ctx, ctx.output(0), "output", {TensorType::kComplex64}));
  if (!fft_length->is_constant()) {
    ctx.MarkDynamic(ctx.output(0));
    return Status::Ok();
  }
  Shape shape;
  int32_t fft_height, fft_width;
  ER_RETURN_IF_ERROR(OutputShape(ctx, &shape, &fft_height, &fft_width));
  return ctx.ResizeOutput(0, shape);
}

Status Eval(OpContext& ctx) {
  Shape shape;
  int32_t fft_height, fft_width;
  ER_RETURN_IF_ERROR(OutputShape(ctx, &shape, &fft_height, &fft_width));
  Tensor* output = ctx.output(0);
  if (output->is_dynamic()) ER_RETURN_IF_ERROR(ctx.ResizeOutput(0, shape));
  const Tensor* input = ctx.input(0);
  const int rank = input->rank();
  const int64_t height = input->dim(rank - 2), width = input->dim(rank - 1);
  int64_t slices = 1;
  for (int d = 0; d < rank - 2; ++d) slices *= input->dim(d);
  const int64_t out_slice = static_cast<int64_t>(fft_height) * (fft_width / 2 + 1);
  if (fft_height == 1 && height == 1) {
    // One real FFT per slice of one row (audio spectrograms such as YAMNet's): the optimized kernel.
    optimized::RealFftRows(ctx.thread_pool(), input->data_as<float>(), slices, width, fft_width,
                           output->data_as<std::complex<float>>());
    return Status::Ok();
  }
  std::vector<std::complex<double>> work;
  const auto row_twiddles = reference::math::FftTwiddles(fft_width);
  const auto column_twiddles = reference::math::FftTwiddles(fft_height);
  for (int64_t s = 0; s < slices; ++s) {
    reference::math::Rfft2dSlice(input->data_as<float>() + s * height * width, height, width, fft_height, fft_width,
                                 output->data_as<std::complex<float>>() + s * out_slice, work, row_twiddles,
                                 column_twiddles);
  }
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterRfft2d() {
  return MakeBuiltin(tflite::BuiltinOperator_RFFT2D, 1, "float32 -> complex64", Prepare, Eval);
}

}  // namespace edgerun::ops
