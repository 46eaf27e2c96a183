// String tensors in tests: constants for the builder, graph inputs and outputs of an interpreter.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_util.h"

namespace edgerun::testing {

// A string constant in TFLite's layout.
inline int AddStringConstant(ModelBuilder& b, const std::string& name, Shape shape,
                             const std::vector<std::string>& strings) {
  const std::vector<uint8_t> bytes = WriteStringTensor(strings);
  return b.AddConstant(name, TensorType::kString, std::move(shape), bytes.data(), bytes.size());
}

// Gives string input `position` these strings (its shape must hold as many).
inline void SetStringInput(Interpreter& interpreter, int position, const std::vector<std::string>& strings) {
  Tensor* t = interpreter.input(position);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->type, TensorType::kString);
  ASSERT_EQ(t->num_elements(), static_cast<int64_t>(strings.size())) << ShapeToString(t->shape);
  const std::vector<uint8_t> bytes = WriteStringTensor(strings);
  ASSERT_TRUE(t->owned.Reserve(bytes.size()));
  std::memcpy(t->owned.data(), bytes.data(), bytes.size());
  t->data = t->owned.data();
  t->bytes = bytes.size();
}

// The strings of output `position` (empty, with a test failure, when they are malformed).
inline std::vector<std::string> GetStringOutput(Interpreter& interpreter, int position) {
  const Tensor* t = interpreter.output(position);
  EXPECT_NE(t, nullptr);
  if (t == nullptr) return {};
  bool ok = false;
  std::vector<std::string> strings = ReadStringTensor(t->data, t->bytes, &ok);
  EXPECT_TRUE(ok) << "output " << position << " is not a valid string tensor";
  EXPECT_EQ(static_cast<int64_t>(strings.size()), t->num_elements()) << ShapeToString(t->shape);
  return strings;
}

// Invokes and fails the test with the message on error.
#define ER_ASSERT_INVOKE(interpreter)                               \
  do {                                                              \
    const ::edgerun::Status st_ = (interpreter).Invoke();           \
    ASSERT_TRUE(st_.ok()) << st_.message();                         \
  } while (0)

}  // namespace edgerun::testing
