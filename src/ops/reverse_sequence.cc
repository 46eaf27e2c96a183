// REVERSE_SEQUENCE(input, seq_lengths): for each index b along batch_dim, reverses the first
// seq_lengths[b] elements along seq_dim. Lengths outside [0, dim(seq_dim)] are an error at eval.
#include "kernels/reference/layout.h"
#include "ops/shape_util.h"

namespace edgerun::ops {
namespace {

struct ReverseSequenceState {
  int seq_dim = 0;
  int batch_dim = 0;
};

Status Prepare(OpContext& ctx, ReverseSequenceState& state) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* input = ctx.input(0);
  const Tensor* lengths = ctx.input(1);
  size_t element;
  ER_RETURN_IF_ERROR(ElementSize(ctx, input, "input", &element));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, input, ctx.output(0), "input and output"));
  ER_RETURN_IF_ERROR(CheckType(ctx, lengths, "seq_lengths", {TensorType::kInt32, TensorType::kInt64}));
  const auto* o = Options<tflite::ReverseSequenceOptions>(ctx);
  const int seq_dim = o ? o->seq_dim() : 0, batch_dim = o ? o->batch_dim() : 0;
  if (seq_dim < 0 || seq_dim >= input->rank() || batch_dim < 0 || batch_dim >= input->rank() || seq_dim == batch_dim) {
    return ctx.Error("seq_dim ", seq_dim, " and batch_dim ", batch_dim, " must be distinct dimensions of ",
                     Describe(input));
  }
  if (lengths->rank() != 1 || lengths->dim(0) != input->dim(batch_dim)) {
    return ctx.Error("seq_lengths ", Describe(lengths), " must have one value per batch (", input->dim(batch_dim), ")");
  }
  state.seq_dim = seq_dim;
  state.batch_dim = batch_dim;
  return ctx.ResizeOutput(0, input->shape);
}

Status Eval(OpContext& ctx, ReverseSequenceState& state) {
  const Tensor* input = ctx.input(0);
  std::vector<int64_t> lengths;
  ER_RETURN_IF_ERROR(ReadInts(ctx, ctx.input(1), "seq_lengths", &lengths));
  for (int64_t length : lengths) {
    if (length < 0 || length > input->dim(state.seq_dim)) {
      return ctx.Error("sequence length ", length, " is out of range [0, ", input->dim(state.seq_dim), "]");
    }
  }
  reference::ReverseSequence(input->shape, state.seq_dim, state.batch_dim, lengths, TensorTypeSize(input->type),
                             input->data_as<uint8_t>(), ctx.output(0)->data_as<uint8_t>());
  return Status::Ok();
}

}  // namespace

OpRegistration RegisterReverseSequence() {
  return MakeBuiltinWithState<ReverseSequenceState>(tflite::BuiltinOperator_REVERSE_SEQUENCE, 1, "any fixed-size type",
                                                    Prepare, Eval);
}

}  // namespace edgerun::ops
