#include "ops/control_flow_util.h"

#include <cstring>

namespace edgerun::ops {

Status CalledSubgraph(OpContext& ctx, int64_t index, const char* role, Subgraph** out) {
  Interpreter& interpreter = ctx.interpreter();
  if (index < 0 || index >= interpreter.num_subgraphs()) {
    return ctx.Error(role, " subgraph ", index, " does not exist (the model has ", interpreter.num_subgraphs(),
                     " subgraphs)");
  }
  if (index == ctx.subgraph().index()) return ctx.Error(role, " subgraph ", index, " is the calling subgraph itself");
  *out = interpreter.subgraph(static_cast<int>(index));
  return Status::Ok();
}

Status CopyTensor(OpContext& ctx, const Tensor& src, Tensor* dst) {
  if (src.type != dst->type) {
    return ctx.Error("cannot pass ", TensorTypeName(src.type), " tensor '", src.name, "' into ",
                     TensorTypeName(dst->type), " tensor '", dst->name, "'");
  }
  if (!IsFixedSizeType(src.type)) {
    // Strings and resources: the destination owns a copy of the bytes.
    if (!dst->owned.Reserve(src.bytes)) return ctx.Error("out of memory copying '", src.name, "'");
    dst->data = dst->owned.data();
    dst->bytes = src.bytes;
    dst->shape = src.shape;
    if (src.bytes > 0) std::memcpy(dst->data, src.data, src.bytes);
    return Status::Ok();
  }
  // Dynamic destinations get memory for the shape here (even when the shape did not change).
  if (dst->shape != src.shape || dst->is_dynamic()) ER_RETURN_IF_ERROR(ctx.ResizeTensor(dst, src.shape));
  if (dst->bytes != src.bytes) {
    return ctx.Error("tensor '", dst->name, "' holds ", dst->bytes, " bytes, '", src.name, "' has ", src.bytes);
  }
  if (src.bytes > 0) std::memcpy(dst->data, src.data, src.bytes);
  return Status::Ok();
}

Status PrepareSubgraph(OpContext& ctx, Subgraph& callee, const std::vector<const Tensor*>& values) {
  if (values.size() != callee.inputs().size()) {
    return ctx.Error("passes ", values.size(), " values to subgraph ", callee.index(), ", which has ",
                     callee.inputs().size(), " inputs");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor* in = callee.tensor(callee.inputs()[i]);
    if (in->type != values[i]->type) {
      return ctx.Error("input ", i, " of subgraph ", callee.index(), " is ", TensorTypeName(in->type), ", the op passes ",
                       TensorTypeName(values[i]->type));
    }
    ER_RETURN_IF_ERROR(callee.SetInputShape(static_cast<int>(i), values[i]->shape));
  }
  if (callee.needs_allocation()) ER_RETURN_IF_ERROR(callee.AllocateTensors());
  return Status::Ok();
}

Status PassToSubgraph(OpContext& ctx, Subgraph& callee, const std::vector<const Tensor*>& values) {
  ER_RETURN_IF_ERROR(PrepareSubgraph(ctx, callee, values));
  for (size_t i = 0; i < values.size(); ++i) {
    ER_RETURN_IF_ERROR(CopyTensor(ctx, *values[i], callee.tensor(callee.inputs()[i])));
  }
  return Status::Ok();
}

bool HasDynamicOutputs(Subgraph& callee) {
  for (int o : callee.outputs()) {
    const Tensor* t = callee.tensor(o);
    if (t->allocation == Allocation::kDynamic || !IsFixedSizeType(t->type)) return true;
  }
  return false;
}

Status ReadResourceId(OpContext& ctx, const Tensor* t, int32_t* id) {
  if (t->type != TensorType::kResource && t->type != TensorType::kInt32) {
    return ctx.Error("tensor ", Describe(t), " is not a resource");
  }
  if (t->data == nullptr || t->bytes < sizeof(int32_t)) {
    return ctx.Error("resource tensor ", Describe(t), " holds no resource (no VAR_HANDLE wrote it)");
  }
  std::memcpy(id, t->data, sizeof(int32_t));
  return Status::Ok();
}

Status WriteResourceId(Tensor* t, int32_t id) {
  if (!t->owned.Reserve(sizeof(int32_t))) return Status::Error("out of memory");
  t->data = t->owned.data();
  t->bytes = sizeof(int32_t);
  std::memcpy(t->data, &id, sizeof(int32_t));
  return Status::Ok();
}

}  // namespace edgerun::ops
