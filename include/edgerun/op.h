// What an op is to the interpreter: a registration (name, versions, prepare, eval) and the
// context it runs in. Builtin ops and users' custom ops use the same interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "edgerun/status.h"
#include "edgerun/tensor.h"

namespace tflite {
struct Operator;
}

namespace edgerun {

class Interpreter;
class Subgraph;
class ThreadPool;
struct Node;

// Name of a builtin op code ("CONV_2D"); "UNKNOWN_<code>" outside the schema.
const char* BuiltinOpName(int32_t code);
// Parses an op name ("CONV_2D"); false when there is no such builtin.
bool ParseBuiltinOpName(const std::string& name, int32_t* code);

class OpContext {
 public:
  OpContext(Subgraph* subgraph, int node_index);

  int num_inputs() const;
  int num_outputs() const;
  int num_intermediates() const;
  // nullptr for an optional input that the model left out (-1) or past the end.
  Tensor* input(int i) const;
  Tensor* output(int i) const;
  Tensor* intermediate(int i) const;
  // Index of input i in the subgraph's tensor list (-1 when omitted).
  int input_tensor_index(int i) const;
  int output_tensor_index(int i) const;

  // The operator table of the model (builtin options live there); null for nodes that a
  // delegate created.
  const tflite::Operator* op() const;
  const uint8_t* custom_options(size_t* size) const;
  int32_t builtin_code() const;
  int version() const;
  const std::string& op_name() const;
  int node_index() const { return node_index_; }

  // State returned by the registration's init, or set here.
  void* user_data() const;

  // True while the op's eval runs (false in prepare).
  bool in_eval() const;

  // Gives a tensor (usually an output) a new shape. In prepare this only records the shape; the
  // planner allocates it later. In eval (or for a dynamic tensor) memory is allocated at once.
  Status ResizeTensor(Tensor* tensor, Shape shape);
  Status ResizeOutput(int i, Shape shape) { return ResizeTensor(output(i), std::move(shape)); }
  // The tensor's size depends on data: it will be sized and allocated during eval.
  void MarkDynamic(Tensor* tensor);
  // Scratch tensor owned by this node, live only while it runs (planned in the arena).
  // Call in prepare with the shape needed; in eval get it back with temporary(slot).
  Result<Tensor*> RequestTemporary(int slot, TensorType type, Shape shape);
  Tensor* temporary(int slot) const;

  // An error that says where: "subgraph 0, op 12 (CONV_2D v3): <message>".
  template <class... Args>
  Status Error(const Args&... args) const {
    return Status::Error(Location() + ": " + StrCat(args...));
  }
  // Valid but not implemented by this kernel (e.g. a type combination).
  template <class... Args>
  Status Unsupported(const Args&... args) const {
    return Status::Unsupported(Location() + ": " + StrCat(args...));
  }
  std::string Location() const;

  Subgraph& subgraph() const { return *subgraph_; }
  Interpreter& interpreter() const;
  // The interpreter's pool for splitting work; null when the node is too small to gain from
  // threads (a few microseconds of work: handing it out would cost more), so run on the caller.
  ThreadPool* thread_pool() const;

 private:
  Node& node() const;
  Subgraph* subgraph_;
  int node_index_;
};

struct OpRegistration {
  std::string name;          // "CONV_2D", or the custom code of a custom op
  int32_t builtin_code = -1; // -1 for custom ops
  int min_version = 1;
  int max_version = 1;
  std::string types;         // element types the kernel runs, for documentation
  // Called once when the interpreter is built: parse options, allocate state (user_data).
  std::function<void*(OpContext&)> init;
  std::function<void(void*)> free;
  // Checks types and shapes, sizes outputs. Everything that can fail on a bad model fails here.
  std::function<Status(OpContext&)> prepare;
  std::function<Status(OpContext&)> eval;
};

class OpResolver {
 public:
  virtual ~OpResolver() = default;
  // nullptr when not found; `why` then says what is missing (unknown op, or the versions that
  // are supported).
  virtual const OpRegistration* FindBuiltin(int32_t code, int version, std::string* why) const = 0;
  virtual const OpRegistration* FindCustom(const std::string& name, int version,
                                           std::string* why) const = 0;
};

// Every builtin op edgerun has, plus the custom ops that converted models commonly carry
// (TFLite_Detection_PostProcess). Add your own custom ops with AddCustom.
class BuiltinOpResolver : public OpResolver {
 public:
  BuiltinOpResolver();
  ~BuiltinOpResolver() override;
  const OpRegistration* FindBuiltin(int32_t code, int version, std::string* why) const override;
  const OpRegistration* FindCustom(const std::string& name, int version,
                                   std::string* why) const override;
  // Registers (or replaces) a custom op by name.
  void AddCustom(OpRegistration registration);
  // Replaces a builtin op's kernel.
  void AddBuiltin(OpRegistration registration);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgerun
