// Hash tables: HASHTABLE_LOOKUP (sorted int32 keys), and the resource tables HASHTABLE,
// HASHTABLE_IMPORT, HASHTABLE_FIND, HASHTABLE_SIZE, initialized through CALL_ONCE the way
// converters write them (an init subgraph that imports constants into the table, and a main
// graph that finds keys in the table with the same id).
#include <gtest/gtest.h>

#include "ops/string_test_util.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::GetStringOutput;
using testing::SetInput;
using testing::SetStringInput;
using testing::SingleOp;

// ---- HASHTABLE_LOOKUP

TEST(HashtableLookup, RowsOfFloatValues) {
  SingleOp op(tflite::BuiltinOperator_HASHTABLE_LOOKUP);
  op.Input(TensorType::kInt32, {5});
  op.Const(TensorType::kInt32, {3}, std::vector<int32_t>{-7, 2, 40});
  op.Const(TensorType::kFloat32, {3, 2}, std::vector<float>{1, 2, 3, 4, 5, 6});
  op.Output(TensorType::kFloat32);
  op.Output(TensorType::kUInt8);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  SetInput<int32_t>(*interpreter, 0, {40, 3, -7, 2, 41});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{5, 2}));
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), (std::vector<float>{5, 6, 0, 0, 1, 2, 3, 4, 0, 0}));
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 1), (std::vector<uint8_t>{1, 0, 1, 1, 0}));
}

TEST(HashtableLookup, StringValues) {
  SingleOp op(tflite::BuiltinOperator_HASHTABLE_LOOKUP);
  op.Input(TensorType::kInt32, {4});
  op.Const(TensorType::kInt32, {3}, std::vector<int32_t>{1, 5, 9});
  op.Const(TensorType::kString, {3}, WriteStringTensor({"one", "five", "nine"}));
  op.Output(TensorType::kString);
  op.Output(TensorType::kUInt8);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  // The ops after see the output's shape from prepare on, before any string is written.
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{4}));
  SetInput<int32_t>(*interpreter, 0, {9, 2, 1, 5});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"nine", "", "one", "five"}));
  EXPECT_EQ(GetOutput<uint8_t>(*interpreter, 1), (std::vector<uint8_t>{1, 0, 1, 1}));
}

TEST(HashtableLookup, BadShapesAreErrors) {
  SingleOp rows(tflite::BuiltinOperator_HASHTABLE_LOOKUP);
  rows.Input(TensorType::kInt32, {2});
  rows.Const(TensorType::kInt32, {3}, std::vector<int32_t>{1, 2, 3});
  rows.Const(TensorType::kFloat32, {2}, std::vector<float>{1, 2});  // 2 rows for 3 keys
  rows.Output(TensorType::kFloat32);
  rows.Output(TensorType::kUInt8);
  EXPECT_FALSE(rows.TryBuild().ok());
  SingleOp hits(tflite::BuiltinOperator_HASHTABLE_LOOKUP);
  hits.Input(TensorType::kInt32, {2});
  hits.Const(TensorType::kInt32, {1}, std::vector<int32_t>{1});
  hits.Const(TensorType::kFloat32, {1}, std::vector<float>{1});
  hits.Output(TensorType::kFloat32);
  hits.Output(TensorType::kInt32);  // hits must be uint8
  EXPECT_FALSE(hits.TryBuild().ok());
}

// ---- resource hash tables

auto TableOptions(int id, tflite::TensorType key, tflite::TensorType value) {
  return [=](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateHashtableOptions(fbb, id, key, value).Union(); };
}

void AddTable(ModelBuilder& b, int handle, int id, tflite::TensorType key, tflite::TensorType value) {
  b.AddOp(tflite::BuiltinOperator_HASHTABLE, {}, {handle}, tflite::BuiltinOptions_HashtableOptions,
          TableOptions(id, key, value));
}

// main (subgraph 0): CALL_ONCE(init); out = FIND(table, keys, default); size = SIZE(table).
// init (subgraph 1): IMPORT(table, constant keys, constant values).
// `keys`/`values`: the constants' bytes (int64 array or string tensor layout).
struct TableModel {
  TensorType key = TensorType::kString, value = TensorType::kInt64;
  std::vector<uint8_t> keys, values, default_value;
  int count = 0;
  int query_count = 2;
  bool with_call_once = true;
};

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}

std::vector<uint8_t> BuildTableModel(const TableModel& m) {
  const auto fb = [](TensorType t) { return static_cast<tflite::TensorType>(t); };
  ModelBuilder b;
  const int handle = b.AddTensor("table", TensorType::kResource, {});
  const int query = b.AddTensor("query", m.key, {m.query_count});
  const int fallback = b.AddConstant("default", m.value, {}, m.default_value.data(), m.default_value.size());
  const int found = b.AddTensor("found", m.value, {m.query_count});
  const int size = b.AddTensor("size", TensorType::kInt64, {1});
  if (m.with_call_once) {
    b.AddOp(tflite::BuiltinOperator_CALL_ONCE, {}, {}, tflite::BuiltinOptions_CallOnceOptions,
            [](flatbuffers::FlatBufferBuilder& fbb) { return tflite::CreateCallOnceOptions(fbb, 1).Union(); });
  }
  AddTable(b, handle, 7, fb(m.key), fb(m.value));
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_FIND, {handle, query, fallback}, {found});
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_SIZE, {handle}, {size});
  b.SetInputs({query});
  b.SetOutputs({found, size});
  b.AddSubgraph("init");
  const int h = b.AddTensor("table", TensorType::kResource, {});
  const int keys = b.AddConstant("keys", m.key, {m.count}, m.keys.data(), m.keys.size());
  const int values = b.AddConstant("values", m.value, {m.count}, m.values.data(), m.values.size());
  AddTable(b, h, 7, fb(m.key), fb(m.value));
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_IMPORT, {h, keys, values}, {});
  b.SetInputs({});
  b.SetOutputs({});
  return b.Finish();
}

TEST(HashTable, StringToInt64ThroughCallOnce) {
  TableModel m;
  m.keys = WriteStringTensor({"apple", "pear", "fig"});
  m.values = Bytes(std::vector<int64_t>{10, 20, 30});
  m.default_value = Bytes(std::vector<int64_t>{-1});
  m.count = 3;
  m.query_count = 4;
  auto interpreter = testing::Build(BuildTableModel(m));
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"fig", "kiwi", "apple", ""});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{30, -1, 10, -1}));
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 1), (std::vector<int64_t>{3}));
  // A second invocation finds the same table (CALL_ONCE does not run again).
  SetStringInput(*interpreter, 0, {"pear", "pear", "fig", "x"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{20, 20, 30, -1}));
}

TEST(HashTable, Int64ToString) {
  TableModel m;
  m.key = TensorType::kInt64;
  m.value = TensorType::kString;
  m.keys = Bytes(std::vector<int64_t>{5, -3, int64_t{1} << 40});
  m.values = WriteStringTensor({"five", "minus three", "big"});
  m.default_value = WriteStringTensor({"<unk>"});
  m.count = 3;
  m.query_count = 3;
  auto interpreter = testing::Build(BuildTableModel(m));
  ASSERT_TRUE(interpreter);
  SetInput<int64_t>(*interpreter, 0, {int64_t{1} << 40, 4, -3});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"big", "<unk>", "minus three"}));
  EXPECT_EQ(interpreter->output(0)->shape, (Shape{3}));
}

TEST(HashTable, RepeatedKeysKeepTheirFirstValue) {
  TableModel m;
  m.keys = WriteStringTensor({"a", "b", "a"});
  m.values = Bytes(std::vector<int64_t>{1, 2, 3});
  m.default_value = Bytes(std::vector<int64_t>{0});
  m.count = 3;
  auto interpreter = testing::Build(BuildTableModel(m));
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"a", "b"});
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 0), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(GetOutput<int64_t>(*interpreter, 1), (std::vector<int64_t>{2}));
}

TEST(HashTable, FindBeforeImportIsAnError) {
  TableModel m;
  m.keys = WriteStringTensor({"a"});
  m.values = Bytes(std::vector<int64_t>{1});
  m.default_value = Bytes(std::vector<int64_t>{0});
  m.count = 1;
  m.with_call_once = false;  // the init subgraph never runs
  auto interpreter = testing::Build(BuildTableModel(m));
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"a", "b"});
  const Status st = interpreter->Invoke();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("before HASHTABLE_IMPORT"), std::string::npos) << st.message();
}

TEST(HashTable, ImportTwiceKeepsTheFirstContents) {
  // main: HASHTABLE; IMPORT(keys, values_a); IMPORT(keys, values_b); FIND. Invoked twice.
  ModelBuilder b;
  const int handle = b.AddTensor("table", TensorType::kResource, {});
  const int keys = b.AddConstant("keys", TensorType::kInt64, {2}, std::vector<int64_t>{1, 2});
  const int a = testing::AddStringConstant(b, "a", {2}, {"first-1", "first-2"});
  const int c = testing::AddStringConstant(b, "c", {2}, {"second-1", "second-2"});
  const int fallback = testing::AddStringConstant(b, "default", {}, {"?"});
  const int query = b.AddTensor("query", TensorType::kInt64, {3});
  const int found = b.AddTensor("found", TensorType::kString, {3});
  AddTable(b, handle, 1, tflite::TensorType_INT64, tflite::TensorType_STRING);
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_IMPORT, {handle, keys, a}, {});
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_IMPORT, {handle, keys, c}, {});
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_FIND, {handle, query, fallback}, {found});
  b.SetInputs({query});
  b.SetOutputs({found});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetInput<int64_t>(*interpreter, 0, {2, 3, 1});
  for (int run = 0; run < 2; ++run) {
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"first-2", "?", "first-1"}));
  }
}

TEST(HashTable, TypeMismatchWithTheTableIsAnError) {
  // The table holds int64 -> string; FIND asks string -> int64 of the same id.
  ModelBuilder b;
  const int handle = b.AddTensor("table", TensorType::kResource, {});
  const int handle2 = b.AddTensor("table2", TensorType::kResource, {});
  const int keys = b.AddConstant("keys", TensorType::kInt64, {1}, std::vector<int64_t>{1});
  const int values = testing::AddStringConstant(b, "values", {1}, {"x"});
  const int fallback = b.AddConstant("default", TensorType::kInt64, {}, std::vector<int64_t>{0});
  const int query = b.AddTensor("query", TensorType::kString, {1});
  const int found = b.AddTensor("found", TensorType::kInt64, {1});
  AddTable(b, handle, 3, tflite::TensorType_INT64, tflite::TensorType_STRING);
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_IMPORT, {handle, keys, values}, {});
  AddTable(b, handle2, 3, tflite::TensorType_STRING, tflite::TensorType_INT64);
  b.AddOp(tflite::BuiltinOperator_HASHTABLE_FIND, {handle2, query, fallback}, {found});
  b.SetInputs({query});
  b.SetOutputs({found});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  SetStringInput(*interpreter, 0, {"x"});
  EXPECT_FALSE(interpreter->Invoke().ok());
}

TEST(HashTable, BadOptionsAndShapesAreErrors) {
  {  // float keys
    ModelBuilder b;
    const int handle = b.AddTensor("table", TensorType::kResource, {});
    AddTable(b, handle, 1, tflite::TensorType_FLOAT32, tflite::TensorType_INT64);
    b.SetInputs({});
    b.SetOutputs({handle});
    EXPECT_FALSE(testing::TryBuild(b.Finish()).ok());
  }
  {  // IMPORT with keys and values of different shapes
    ModelBuilder b;
    const int handle = b.AddTensor("table", TensorType::kResource, {});
    const int keys = b.AddConstant("keys", TensorType::kInt64, {2}, std::vector<int64_t>{1, 2});
    const int values = testing::AddStringConstant(b, "values", {1}, {"x"});
    AddTable(b, handle, 1, tflite::TensorType_INT64, tflite::TensorType_STRING);
    b.AddOp(tflite::BuiltinOperator_HASHTABLE_IMPORT, {handle, keys, values}, {});
    b.SetInputs({});
    b.SetOutputs({handle});
    EXPECT_FALSE(testing::TryBuild(b.Finish()).ok());
  }
}

}  // namespace
}  // namespace edgerun
