#include "ops/stablehlo_util.h"

#include <cstring>

namespace edgerun::ops::stablehlo {

Status CheckDimensionList(const OpContext& ctx, const std::vector<int64_t>& dims, const char* name, int64_t bound,
                          bool sorted) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound) return ctx.Error(name, " value ", dims[i], " is outside [0, ", bound, ")");
    for (size_t j = 0; j < i; ++j) {
      if (dims[j] == dims[i]) return ctx.Error(name, " repeats ", dims[i]);
    }
    if (sorted && i > 0 && dims[i] < dims[i - 1]) return ctx.Error(name, " must be sorted");
  }
  return Status::Ok();
}

Status PrepareSameShapeBinary(OpContext& ctx) {
  ER_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Tensor* a = ctx.input(0);
  const Tensor* b = ctx.input(1);
  ER_RETURN_IF_ERROR(CheckSameType(ctx, a, b, "the two inputs"));
  ER_RETURN_IF_ERROR(CheckSameType(ctx, a, ctx.output(0), "input and output"));
  if (a->shape != b->shape) {
    return ctx.Error("inputs ", Describe(a), " and ", Describe(b), " must have the same shape (no broadcasting)");
  }
  return ctx.ResizeOutput(0, a->shape);
}

Status PrepareElementwiseBinary(OpContext& ctx) {
  ER_RETURN_IF_ERROR(PrepareSameShapeBinary(ctx));
  if (!IsElementwiseType(ctx.input(0)->type)) {
    return ctx.Unsupported("type ", TensorTypeName(ctx.input(0)->type), " is not supported");
  }
  return Status::Ok();
}

Body ClassifyBody(const Subgraph& body) {
  const auto& nodes = body.nodes();
  if (nodes.empty()) return Body::kUpdate;
  if (nodes.size() != 1) return Body::kOther;
  switch (nodes[0].builtin_code) {
    case tflite::BuiltinOperator_ADD:
    case tflite::BuiltinOperator_STABLEHLO_ADD:
      return Body::kAdd;
    case tflite::BuiltinOperator_MUL:
    case tflite::BuiltinOperator_STABLEHLO_MULTIPLY:
      return Body::kMul;
    case tflite::BuiltinOperator_MAXIMUM:
    case tflite::BuiltinOperator_STABLEHLO_MAXIMUM:
      return Body::kMax;
    case tflite::BuiltinOperator_MINIMUM:
    case tflite::BuiltinOperator_STABLEHLO_MINIMUM:
      return Body::kMin;
    case tflite::BuiltinOperator_LOGICAL_AND:
    case tflite::BuiltinOperator_STABLEHLO_AND:
      return Body::kAnd;
    case tflite::BuiltinOperator_LOGICAL_OR:
    case tflite::BuiltinOperator_STABLEHLO_OR:
      return Body::kOr;
    default:
      return Body::kOther;
  }
}

Status BodyCaller::Prepare(OpContext& ctx, Subgraph* body, TensorType type) {
  body_ = body;
  element_ = IsFixedSizeType(type) ? TensorTypeSize(type) : 0;
  if (element_ == 0 || element_ > sizeof(lhs_storage_)) {
    return ctx.Unsupported("computation subgraph on ", TensorTypeName(type), " values");
  }
  if (body->inputs().size() != 2 || body->outputs().size() != 1) {
    return ctx.Error("computation subgraph ", body->index(), " must take 2 inputs and give 1 output (has ",
                     body->inputs().size(), " and ", body->outputs().size(), ")");
  }
  for (Tensor* t : {&lhs_, &rhs_}) {
    t->type = type;
    t->shape = {};
    t->bytes = element_;
    t->allocation = Allocation::kConstant;  // a stand-in pointing at our storage
  }
  lhs_.name = "computation lhs";
  rhs_.name = "computation rhs";
  lhs_.data = lhs_storage_;
  rhs_.data = rhs_storage_;
  ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, *body, {&lhs_, &rhs_}));
  const Tensor* out = body->tensor(body->outputs()[0]);
  if (out->type != type) {
    return ctx.Error("computation subgraph ", body->index(), " returns ", TensorTypeName(out->type), ", expected ",
                     TensorTypeName(type));
  }
  return Status::Ok();
}

Status BodyCaller::Call(OpContext& ctx, const void* a, const void* b, void* result) {
  std::memcpy(lhs_storage_, a, element_);
  std::memcpy(rhs_storage_, b, element_);
  ER_RETURN_IF_ERROR(PassToSubgraph(ctx, *body_, {&lhs_, &rhs_}));
  ER_RETURN_IF_ERROR(body_->Invoke());
  const Tensor* out = body_->tensor(body_->outputs()[0]);
  if (out->data == nullptr || out->bytes != element_) {
    return ctx.Error("computation subgraph ", body_->index(), " must return one ", TensorTypeName(out->type),
                     " value, got ", Describe(out));
  }
  std::memcpy(result, out->data, element_);
  return Status::Ok();
}

bool ReduceWindowFastPath(Body body, TensorType type) {
  if (body == Body::kUpdate || body == Body::kOther) return false;
  switch (type) {
    case TensorType::kBool:
    case TensorType::kInt8:
    case TensorType::kInt16:
    case TensorType::kInt32:
    case TensorType::kInt64:
    case TensorType::kUInt8:
    case TensorType::kFloat32:
    case TensorType::kFloat64:
      return true;
    default:
      return false;
  }
}

Status RunReduceWindow(OpContext& ctx, const reference::WindowGeometry& g, Body body, BodyCaller* caller,
                       const Tensor* input, const Tensor* init, Tensor* output) {
  if (ReduceWindowFastPath(body, input->type)) {
    DispatchType(
        input->type,
        [&](auto tag) {
          using T = decltype(tag);
          const T* in = static_cast<const T*>(input->data);
          const T init_value = *static_cast<const T*>(init->data);
          T* out = static_cast<T*>(output->data);
          switch (body) {
            case Body::kAdd:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return Add(a, b); }, out);
              break;
            case Body::kMul:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return Mul(a, b); }, out);
              break;
            case Body::kMax:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return a >= b ? a : b; }, out);
              break;
            case Body::kMin:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return a <= b ? a : b; }, out);
              break;
            case Body::kAnd:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return FromBool<T>(static_cast<bool>(a) && static_cast<bool>(b)); }, out);
              break;
            default:
              reference::ReduceWindow(g, in, init_value, [](T a, T b) { return FromBool<T>(static_cast<bool>(a) || static_cast<bool>(b)); }, out);
              break;
          }
        },
        /*with_float16=*/false, /*with_bool=*/false);
    return Status::Ok();
  }
  if (caller == nullptr) return ctx.Unsupported("reduction on ", TensorTypeName(input->type), " values");
  const size_t element = TensorTypeSize(input->type);
  const auto* in = static_cast<const uint8_t*>(input->data);
  auto* out = static_cast<uint8_t*>(output->data);
  const auto* init_value = static_cast<const uint8_t*>(init->data);
  Status status;
  uint8_t result[16];
  reference::WalkWindows(
      g,
      [&](int64_t o) {
        std::memcpy(out + o * element, init_value, element);
        return true;
      },
      [&](int64_t o, int64_t i) {
        status = caller->Call(ctx, out + o * element, i < 0 ? init_value : in + i * element, result);
        if (!status.ok()) return false;
        std::memcpy(out + o * element, result, element);
        return true;
      });
  return status;
}

}  // namespace edgerun::ops::stablehlo
