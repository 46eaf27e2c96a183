// The inputs of `edgerun run` and `edgerun bench` (tools/model_inputs.*): files read, inputs
// resized to what the files hold, values written after allocation. String inputs in particular:
// a text file's lines give the shape, and an input without a file gets "edgerun" in every element.
#include "tools/model_inputs.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include "ops/string_test_util.h"
#include "tools/tensor_io.h"

namespace edgerun {
namespace {

using testing::GetOutput;
using testing::GetStringOutput;
using testing::SingleOp;

// A file in the test's temporary folder, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& contents)
      : path_(::testing::TempDir() + "edgerun_inputs_" + std::to_string(getpid()) + "_" + name) {
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// GATHER of elements {2, 0} of a 1-D string input of any length ([3] in the model).
std::unique_ptr<Interpreter> PickTwoStrings() {
  SingleOp op(tflite::BuiltinOperator_GATHER);
  op.Input(TensorType::kString, {3}, {}, /*signature=*/{-1});
  op.Const(TensorType::kInt32, {2}, std::vector<int32_t>{2, 0});
  op.Output(TensorType::kString);
  return op.Build();
}

// ReadInputFiles, ResizeInputs, AllocateTensors, FillInputs, as `edgerun run` calls them.
Status PrepareInputs(Interpreter& interpreter, const std::vector<std::string>& paths) {
  Subgraph& sg = *interpreter.subgraph(0);
  std::vector<tools::TensorFile> files;
  ER_RETURN_IF_ERROR(tools::ReadInputFiles(paths, &files));
  ER_RETURN_IF_ERROR(tools::ResizeInputs("model.tflite", {}, paths, files, sg));
  ER_RETURN_IF_ERROR(sg.AllocateTensors());
  return tools::FillInputs("model.tflite", paths, files, /*seed=*/1, sg);
}

TEST(ModelInputs, TextFileLinesAreTheStringsOfAStringInput) {
  struct Case {
    const char* file;
    const char* contents;
    int32_t lines;
    std::vector<std::string> picked;  // elements 2 and 0
  };
  const Case cases[] = {
      // The input grows from [3] to [5]; an empty line is an empty string, and the last line
      // needs no newline.
      {"five.txt", "zero\none two\n\nthree\nfour", 5, {"", "zero"}},
      // Windows line ends are not part of the strings.
      {"crlf.txt", "alpha\r\nbeta\r\ngamma\r\n", 3, {"gamma", "alpha"}},
  };
  for (const Case& c : cases) {
    auto interpreter = PickTwoStrings();
    ASSERT_TRUE(interpreter);
    TempFile text(c.file, c.contents);
    ASSERT_TRUE(PrepareInputs(*interpreter, {text.path()}).ok()) << c.file;
    EXPECT_EQ(interpreter->input(0)->shape, (Shape{c.lines})) << c.file;
    ER_ASSERT_INVOKE(*interpreter);
    EXPECT_EQ(GetStringOutput(*interpreter, 0), c.picked) << c.file;
  }
}

TEST(ModelInputs, StringInputWithoutAFileHoldsOneWordPerElement) {
  auto interpreter = PickTwoStrings();
  ASSERT_TRUE(interpreter);
  ASSERT_TRUE(PrepareInputs(*interpreter, {}).ok());
  EXPECT_EQ(interpreter->input(0)->shape, (Shape{3}));
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"edgerun", "edgerun"}));
}

TEST(ModelInputs, LinesThatDoNotFillTheInputNameTheFileAndTheInput) {
  // RESHAPE of a [rows, 2] string input to one dimension.
  SingleOp op(tflite::BuiltinOperator_RESHAPE);
  op.Input(TensorType::kString, {2, 2}, {}, /*signature=*/{-1, 2});
  op.Const(TensorType::kInt32, {1}, std::vector<int32_t>{-1});
  op.Output(TensorType::kString);
  auto interpreter = op.Build();
  ASSERT_TRUE(interpreter);
  TempFile text("three.txt", "a\nb\nc\n");
  const Status st = PrepareInputs(*interpreter, {text.path()});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(text.path()), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("3 lines do not fill input 'in0' of shape [2,2]"), std::string::npos) << st.message();

  // Six lines make three rows.
  TempFile six("six.txt", "a\nb\nc\nd\ne\nf\n");
  ASSERT_TRUE(PrepareInputs(*interpreter, {six.path()}).ok());
  EXPECT_EQ(interpreter->input(0)->shape, (Shape{3, 2}));
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetStringOutput(*interpreter, 0), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
}

TEST(ModelInputs, RawBytesResizeTheFirstDimensionAndNumbersFillTheRest) {
  // ADD of two float inputs [1, 2] (batch free): a file of 4 floats makes input 0 [2, 2]; input 1
  // has no file and gets seeded random values of the same shape.
  ModelBuilder b;
  const int x = b.AddTensor("x", TensorType::kFloat32, {1, 2}, {}, {-1, 2});
  const int y = b.AddTensor("y", TensorType::kFloat32, {1, 2}, {}, {-1, 2});
  const int z = b.AddTensor("z", TensorType::kFloat32, {1, 2});
  b.AddOp(tflite::BuiltinOperator_ADD, {x, y}, {z});
  b.SetInputs({x, y});
  b.SetOutputs({z});
  auto interpreter = testing::Build(b.Finish());
  ASSERT_TRUE(interpreter);
  const float values[4] = {1, 2, 3, 4};
  TempFile raw("x.bin", std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  // Input 1 must follow input 0's batch for the ADD to be valid; resize it as --resize would.
  Subgraph& sg = *interpreter->subgraph(0);
  std::vector<tools::TensorFile> files;
  ASSERT_TRUE(tools::ReadInputFiles({raw.path()}, &files).ok());
  ASSERT_TRUE(tools::ResizeInputs("model.tflite", {{"y", Shape{2, 2}}}, {raw.path()}, files, sg).ok());
  EXPECT_EQ(interpreter->input(0)->shape, (Shape{2, 2}));
  ASSERT_TRUE(sg.AllocateTensors().ok());
  ASSERT_TRUE(tools::FillInputs("model.tflite", {raw.path()}, files, 7, sg).ok());
  const float* y_data = static_cast<const float*>(interpreter->input(1)->data);
  std::vector<float> want(4);
  for (int i = 0; i < 4; ++i) want[static_cast<size_t>(i)] = values[i] + y_data[i];
  ER_ASSERT_INVOKE(*interpreter);
  EXPECT_EQ(GetOutput<float>(*interpreter, 0), want);
  // The same seed gives the same values, another seed others.
  std::vector<float> first(y_data, y_data + 4);
  ASSERT_TRUE(tools::FillInputs("model.tflite", {raw.path()}, files, 7, sg).ok());
  EXPECT_EQ(std::vector<float>(y_data, y_data + 4), first);
  ASSERT_TRUE(tools::FillInputs("model.tflite", {raw.path()}, files, 8, sg).ok());
  EXPECT_NE(std::vector<float>(y_data, y_data + 4), first);
}

TEST(ModelInputs, MoreFilesThanInputsAndUnknownResizesAreErrors) {
  auto interpreter = PickTwoStrings();
  ASSERT_TRUE(interpreter);
  Subgraph& sg = *interpreter->subgraph(0);
  TempFile a("a.txt", "a\n"), b("b.txt", "b\n");
  std::vector<tools::TensorFile> files;
  ASSERT_TRUE(tools::ReadInputFiles({a.path(), b.path()}, &files).ok());
  Status st = tools::ResizeInputs("model.tflite", {}, {a.path(), b.path()}, files, sg);
  EXPECT_EQ(st.message(), "model.tflite: 2 input files given, the model has 1 inputs");
  st = tools::ResizeInputs("model.tflite", {{"nope", Shape{2}}}, {a.path()}, files, sg);
  EXPECT_EQ(st.message(), "model.tflite: --resize: no input named 'nope'");
  EXPECT_EQ(tools::FindInput(sg, "in0"), 0);
  EXPECT_EQ(tools::FindInput(sg, "0"), 0);
  EXPECT_EQ(tools::FindInput(sg, "1"), -1);
}

}  // namespace
}  // namespace edgerun
