#include "tools/model_inputs.h"

#include <cstring>

#include "tools/cli.h"

namespace edgerun::tools {
namespace {

// Fills a string input (already of the right shape) with the lines.
Status SetStrings(Tensor* t, const std::vector<std::string>& lines) {
  if (static_cast<int64_t>(lines.size()) != t->num_elements()) {
    return Status::Errorf(lines.size(), " strings for input '", t->name, "' of shape ", ShapeToString(t->shape));
  }
  const std::vector<uint8_t> bytes = WriteStringTensor(lines);
  if (!t->owned.Reserve(bytes.size())) return Status::Error("out of memory");
  std::memcpy(t->owned.data(), bytes.data(), bytes.size());
  t->data = t->owned.data();
  t->bytes = bytes.size();
  return Status::Ok();
}

// The shape a string input takes for `count` lines: the model's when it holds that many strings,
// else the model's with the first dimension changed (a 1-D input becomes [count]).
Status StringInputShape(const Tensor& t, size_t count, Shape* shape) {
  *shape = t.shape;
  if (t.num_elements() == static_cast<int64_t>(count)) return Status::Ok();
  if (shape->empty()) return Status::Errorf("input '", t.name, "' is a single string, the file has ", count, " lines");
  const int64_t rest = NumElements(Shape(shape->begin() + 1, shape->end()));
  if (rest <= 0 || count % static_cast<size_t>(rest) != 0) {
    return Status::Errorf(count, " lines do not fill input '", t.name, "' of shape ", ShapeToString(t.shape));
  }
  (*shape)[0] = static_cast<int32_t>(count / static_cast<size_t>(rest));
  return Status::Ok();
}

}  // namespace

int FindInput(Subgraph& sg, const std::string& name) {
  for (size_t i = 0; i < sg.inputs().size(); ++i) {
    if (sg.tensor(sg.inputs()[i])->name == name) return static_cast<int>(i);
  }
  long long position;
  if (ParseInt(name, &position) && position < static_cast<long long>(sg.inputs().size())) return static_cast<int>(position);
  return -1;
}

Status ReadInputFiles(const std::vector<std::string>& paths, std::vector<TensorFile>* files) {
  files->assign(paths.size(), TensorFile{});
  for (size_t k = 0; k < paths.size(); ++k) ER_RETURN_IF_ERROR(ReadTensorFile(paths[k], /*want_text=*/false, &(*files)[k]));
  return Status::Ok();
}

Status ResizeInputs(const std::string& model, const std::vector<std::pair<std::string, Shape>>& resizes,
                    const std::vector<std::string>& paths, std::vector<TensorFile>& files, Subgraph& sg) {
  const size_t num_inputs = sg.inputs().size();
  if (paths.size() > num_inputs) {
    return Status::Errorf(model, ": ", paths.size(), " input files given, the model has ", num_inputs, " inputs");
  }
  for (const auto& [name, shape] : resizes) {
    const int position = FindInput(sg, name);
    if (position < 0) return Status::Errorf(model, ": --resize: no input named '", name, "'");
    ER_RETURN_IF_ERROR(sg.ResizeInputTensor(position, shape));
  }
  for (size_t k = 0; k < files.size(); ++k) {
    Tensor* t = sg.tensor(sg.inputs()[k]);
    Shape shape;
    if (t->type == TensorType::kString) {
      if (!files[k].has_shape) SplitTextLines(files[k].data, &files[k]);
      if (Status st = StringInputShape(*t, files[k].lines.size(), &shape); !st.ok()) {
        return Status::Errorf(paths[k], ": ", st.message());
      }
    } else if (files[k].has_shape) {
      if (files[k].type != t->type) {
        return Status::Errorf(paths[k], ": .npy has dtype ", TensorTypeName(files[k].type), ", input ", k, " '", t->name,
                              "' is ", TensorTypeName(t->type));
      }
      shape = files[k].shape;
    } else if (Status st = InferShapeFromBytes(*t, files[k].data.size(), &shape); !st.ok()) {
      return Status::Errorf(paths[k], ": ", st.message());
    }
    if (shape != t->shape) {
      if (Status st = sg.ResizeInputTensor(static_cast<int>(k), shape); !st.ok()) {
        return Status::Errorf(paths[k], ": ", st.message());
      }
    }
  }
  return Status::Ok();
}

Status FillInputs(const std::string& model, const std::vector<std::string>& paths, const std::vector<TensorFile>& files,
                  uint64_t seed, Subgraph& sg) {
  for (size_t k = 0; k < sg.inputs().size(); ++k) {
    Tensor* t = sg.tensor(sg.inputs()[k]);
    if (k < files.size()) {
      if (t->type == TensorType::kString) {
        ER_RETURN_IF_ERROR(SetStrings(t, files[k].lines));
      } else if (files[k].data.size() != t->bytes) {
        return Status::Errorf(paths[k], ": ", files[k].data.size(), " bytes for input ", k, " of ", t->bytes, " bytes");
      } else if (t->bytes > 0) {
        std::memcpy(t->data, files[k].data.data(), t->bytes);
      }
    } else if (t->type == TensorType::kString) {
      const int64_t count = t->num_elements();
      if (count < 0 || count > (1 << 20)) return Status::Errorf(model, ": string input '", t->name, "' is too large");
      ER_RETURN_IF_ERROR(SetStrings(t, std::vector<std::string>(static_cast<size_t>(count), "edgerun")));
    } else {
      FillRandom(t, seed * 1000003 + k);
    }
  }
  return Status::Ok();
}

}  // namespace edgerun::tools
